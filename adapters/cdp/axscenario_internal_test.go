package cdp

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/remote"
	"github.com/matryer/is"
)

// A scenario's accessibility artifact counts a large page's nodes without
// a reply that grows with the page: DOMSnapshot.captureSnapshot answered
// about 2.6 MB for this 20k-element page (26 MB for 200k), while the count
// from the isolated world and the node-by-node read answer at most what
// they keep. The count is the snapshot's: every node of the document.
func TestScenarioAXTextRepliesStayBounded(t *testing.T) {
	if FindChromium() == "" {
		t.Skip("chromium is not installed (apt-get install -y chromium); live CDP tests skipped")
	}
	is := is.New(t)
	page := `<!doctype html><title>large</title><body><button aria-label="first-button">b</button>` + strings.Repeat("<div>x</div>", 20000) + `</body>`
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, page) }))
	defer srv.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	b, err := ChromiumLauncher{}.Launch(ctx, LaunchSpec{})
	is.NoErr(err)
	defer func() { is.NoErr(b.Close(context.Background())) }()
	ep, err := parseEndpoint(b.Endpoint())
	is.NoErr(err)
	v, _, err := discover(ctx, ep)
	is.NoErr(err)
	actx, cancelAlloc := remote.NewAllocator(ctx, v.browserWS, remote.NoModifyURL)
	defer cancelAlloc()
	tctx, cancelTab := chromedp.NewContext(actx, chromedp.WithLogf(func(string, ...any) {}), chromedp.WithErrorf(func(string, ...any) {}))
	defer cancelTab()
	_, err = chromedp.Run(tctx, chromedp.Navigate(srv.URL+"/"))
	is.NoErr(err)

	var mu sync.Mutex
	largest := map[string]int{}
	call := func(ctx context.Context, method string, params, result any) (bool, error) {
		var raw json.RawMessage
		ok, err := chromedpAXCall(ctx, method, params, &raw)
		mu.Lock()
		largest[method] = max(largest[method], len(raw))
		mu.Unlock()
		if err == nil && ok && result != nil && len(raw) > 0 {
			if err := json.Unmarshal(raw, result); err != nil {
				return ok, err
			}
		}
		return ok, err
	}
	text, partial, err := axText(tctx, call)
	is.NoErr(err)
	is.True(partial)
	is.True(strings.Contains(string(text), `button "first-button"`))
	is.True(strings.Contains(string(text), "of its document's 40009 DOM nodes")) // document, doctype, 7 more, 20000 divs and their texts
	for method, n := range largest {
		t.Logf("%s: largest reply %d bytes", method, n)
		if n > 1<<20 {
			t.Errorf("%s answered %d bytes", method, n)
		}
	}
}
