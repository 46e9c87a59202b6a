package cdp_test

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/matryer/is"

	"rea/adapters/cdp"
	"rea/ports"
)

// TestLiveWebMCP launches Chromium with the WebMCP testing feature. Where
// the build has the domain, the fixture's imperative tool must be
// discovered; where it has not, discovery must say unavailable.
func TestLiveWebMCP(t *testing.T) {
	if cdp.FindChromium() == "" {
		t.Skip("chromium is not installed (apt-get install -y chromium); live CDP tests skipped")
	}
	is := is.New(t)
	srv := fixtureSite(t)
	ctx := context.Background()
	b, err := cdp.ChromiumLauncher{}.Launch(ctx, cdp.LaunchSpec{StartURL: srv.URL + "/app",
		ExtraArgs: []string{"--enable-features=WebMCPTesting,WebMCP"}})
	is.NoErr(err)
	defer func() { is.NoErr(b.Close(ctx)) }()
	e := cdp.New(nil)
	var tid string
	for i := 0; i < 200 && tid == ""; i++ {
		if list, err := e.ListTargets(ctx, ports.BrowserListRequest{Endpoint: b.Endpoint()}); err == nil {
			for _, tg := range list.Targets {
				if strings.HasPrefix(tg.URL, srv.URL+"/app") {
					tid = tg.TargetID
				}
			}
		}
		time.Sleep(50 * time.Millisecond)
	}
	is.True(tid != "")
	// Discovery reads the frame tree once, without polling: retry while the
	// first navigation has not committed yet (the main frame is blank).
	var d *ports.WebMCPDiscovery
	for i := 0; i < 100; i++ {
		d, err = e.DiscoverWebMCPTools(ctx, ports.WebMCPRequest{Target: ports.BrowserTargetRef{Endpoint: b.Endpoint(), TargetID: tid}, ObservationMS: 300})
		if be, ok := ports.AsBrowserError(err); !ok || be.Code != ports.BrowserTargetNotAllowed {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	is.NoErr(err)
	t.Logf("WebMCP status %s %s, %d tools", d.Status, d.UnavailableReason, len(d.Tools))
	if d.Status == "unavailable" {
		is.True(d.UnavailableReason != "")
		return
	}
	is.True(slices.ContainsFunc(d.Tools, func(tool ports.WebMCPTool) bool {
		return tool.Name == "fixture_tool" && !tool.Declarative && tool.OwnerOrigin == srv.URL
	}))
}
