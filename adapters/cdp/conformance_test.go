package cdp_test

import (
	"testing"

	"rea/adapters/cdp"
	"rea/adapters/cdp/cdptest"
	"rea/ports/portstest"
)

func TestConformanceOnFake(t *testing.T) {
	f := cdptest.New(nil)
	defer f.Close()
	portstest.RunBrowser(t, cdp.New(nil), portstest.BrowserEnv{Endpoint: f.URL, TargetID: "T1", Origin: "http://app.test"})
}

func TestConformanceLive(t *testing.T) {
	endpoint, site, tid := liveBrowser(t)
	portstest.RunBrowser(t, cdp.New(nil), portstest.BrowserEnv{Endpoint: endpoint, TargetID: tid, Origin: site})
}
