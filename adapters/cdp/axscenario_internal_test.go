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

	"github.com/chromedp/cdproto/accessibility"
	"github.com/chromedp/cdproto/network"
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

// slowAXPage is a fake browser page for the accessibility artifact whose
// first accessibility read builds the tree, as Chromium does: the build
// takes build, so a read that may not wait that long waits until its
// context ends and fails with it, and one that may is answered at once.
// Nothing sleeps for the build: the fake reads the deadline it is given.
type slowAXPage struct {
	nodes int           // the document's nodes, as the count reports them
	count time.Duration // the count's time (a walk of the whole document)
	build time.Duration // the first build's time
	built bool
}

// takes is whether ctx leaves d for a command: if not, the command waits
// until ctx ends, as a busy page's would.
func takes(ctx context.Context, d time.Duration) bool {
	if dl, ok := ctx.Deadline(); ok && time.Until(dl) < d {
		<-ctx.Done()
		return false
	}
	return true
}

func (p *slowAXPage) call(ctx context.Context, method string, params, result any) (bool, error) {
	var reply string
	switch method {
	case "Page.getFrameTree":
		reply = `{"frameTree":{"frame":{"id":"F"}}}`
	case "Page.createIsolatedWorld":
		reply = `{"executionContextId":7}`
	case "Runtime.evaluate":
		if !takes(ctx, p.count) {
			return true, ctx.Err()
		}
		reply = `{"result":{"objectId":"list"}}`
	case "Runtime.getProperties":
		reply = fmt.Sprintf(`{"result":[{"name":"0","value":{"objectId":"o0"}},{"name":"1","value":{"objectId":"o1"}},{"name":"total","value":{"value":%d}}]}`, p.nodes)
	case "Runtime.releaseObjectGroup":
		return true, nil
	case "Accessibility.getPartialAXTree", "Accessibility.getFullAXTree":
		if !p.built {
			if !takes(ctx, p.build) {
				return true, ctx.Err()
			}
			p.built = true
		}
		id := "1"
		if method == "Accessibility.getPartialAXTree" && params.(accessibility.GetPartialAXTreeParams).ObjectID == "o1" {
			id = "2"
		}
		reply = `{"nodes":[{"nodeId":"` + id + `","role":{"value":"button"},"name":{"value":"b` + id + `"}}]}`
	default:
		return false, nil
	}
	return true, json.Unmarshal([]byte(reply), result)
}

// The accessibility artifact of a very large page waits for Chromium's
// first build of its tree (about 9 s for 200,000 elements) rather than a
// fixed 5 s: its wait grows with the nodes the count found. When the wait
// or limits.duration_ms runs out, the artifact is missing with a reason
// naming the page's size and what to pass, not "context deadline
// exceeded". Before, the read had the fixed wait and a page under load
// lost the artifact.
func TestScenarioAXArtifactWaitFollowsThePage(t *testing.T) {
	old := artifactWait
	artifactWait = 50 * time.Millisecond // the failures below wait this long, no more
	defer func() { artifactWait = old }()
	far := time.Now().Add(time.Hour)
	t.Run("a large page's slow first build", func(t *testing.T) {
		is := is.New(t)
		p := &slowAXPage{nodes: 400000, build: 9 * time.Second}
		text, partial, why := axArtifact(context.Background(), p.call, far)
		is.Equal(why, "")
		is.True(partial) // over max_ax_nodes: read node by node
		is.True(strings.Contains(string(text), `button "b1"`))
		is.True(strings.Contains(string(text), "of its document's 400000 DOM nodes"))
	})
	t.Run("the run's time runs out", func(t *testing.T) {
		is := is.New(t)
		p := &slowAXPage{nodes: 400000, build: 9 * time.Second}
		_, _, why := axArtifact(context.Background(), p.call, time.Now().Add(100*time.Millisecond))
		is.True(strings.HasPrefix(why, "not captured: limits.duration_ms ran out while Chromium was still building the accessibility tree of the page's 400000 DOM nodes"))
		is.True(strings.HasSuffix(why, "pass a larger limits.duration_ms"))
	})
	t.Run("the page's wait runs out", func(t *testing.T) {
		is := is.New(t)
		p := &slowAXPage{nodes: 3000, build: time.Hour}
		_, _, why := axArtifact(context.Background(), p.call, far)
		is.True(strings.HasPrefix(why, "not captured within 350ms, the wait for a page of this size: Chromium was still building the accessibility tree of the page's 3000 DOM nodes"))
		is.True(strings.Contains(why, "capture accessibility at a later step or at_end"))
	})
	t.Run("a slow count", func(t *testing.T) {
		is := is.New(t)
		artifactWait = time.Second // the count may take 3 s here; the fake takes none
		defer func() { artifactWait = 50 * time.Millisecond }()
		p := &slowAXPage{nodes: 400000, count: 2 * time.Second, build: 9 * time.Second}
		text, _, why := axArtifact(context.Background(), p.call, far)
		is.Equal(why, "")
		is.True(strings.Contains(string(text), `button "b1"`))
	})
	t.Run("a small page", func(t *testing.T) {
		is := is.New(t)
		p := &slowAXPage{nodes: 12}
		text, partial, why := axArtifact(context.Background(), p.call, far)
		is.Equal(why, "")
		is.True(!partial)
		is.Equal(string(text), "button \"b1\"\n")
	})
}

// A step after which the page's URL could not be read (a page still
// loading) has its artifacts missing for that reason, not as "outside
// approved origins", and no url artifact of "". Before, a 200,000-element
// start page that outlasted its step timeout was reported outside the
// scope it was in.
func TestScenarioArtifactsOfAnUnknownURL(t *testing.T) {
	is := is.New(t)
	sc := newScope([]string{"http://127.0.0.1:8080"})
	a := captureArtifacts(context.Background(), sc, []string{"url", "dom", "accessibility"}, "", strings.NewReplacer(), time.Now().Add(time.Minute))
	is.True(a.URL == nil)
	for _, k := range []string{"url", "dom", "accessibility"} {
		is.Equal(a.Missing[k], "the page's URL could not be read after the step (the page was still loading or busy), so its origin could not be checked")
	}
}

// A scenario's WebSockets outside allowed_origins, which CDP cannot
// refuse, are counted and named by origin, with the origin to add to
// record them; before, the limitation was the same whether the page
// opened one or not.
func TestScenarioNamesOutOfScopeSockets(t *testing.T) {
	is := is.New(t)
	run := &scenarioRun{sc: newScope([]string{"http://127.0.0.1:8080"}), max: 100, red: strings.NewReplacer()}
	is.Equal(run.socketLimitation(), "CDP cannot route or block WebSockets: an out-of-scope WebSocket would be neither blocked nor recorded; none was opened.")
	for i, u := range []string{"ws://127.0.0.1:8080/live", "ws://127.0.0.1:9001/feed", "ws://127.0.0.1:9001/other", "wss://feed.example:8443/x?token=1"} {
		run.onEvent(&network.EventWebSocketCreated{RequestID: network.RequestID(fmt.Sprint(i)), URL: u})
	}
	is.Equal(len(run.events), 1) // the in-scope socket's opening
	is.Equal(run.socketLimitation(), "CDP cannot route or block WebSockets: 3 WebSocket connection(s) to origins outside allowed_origins "+
		"(ws://127.0.0.1:9001, wss://feed.example:8443) were opened, not blocked, and not recorded. "+
		"To record them, add http://127.0.0.1:9001, https://feed.example:8443 to allowed_origins.")
}

// A redirect chain is a request and a 3xx response per hop, then the final
// response: Chromium reports a hop's response only inside the next
// requestWillBeSent (redirectResponse), and a hop outside allowed_origins
// records no response.
func TestScenarioRecordsRedirectResponses(t *testing.T) {
	is := is.New(t)
	run := &scenarioRun{sc: newScope([]string{"http://127.0.0.1:8080"}), max: 100, red: strings.NewReplacer()}
	send := func(url string, redirect *network.Response) {
		run.onEvent(&network.EventRequestWillBeSent{RequestID: "R", Type: network.ResourceTypeDocument,
			Request: &network.Request{URL: url, Method: "GET"}, RedirectResponse: redirect})
	}
	send("http://127.0.0.1:8080/r1", nil)
	send("http://127.0.0.1:8080/r2", &network.Response{URL: "http://127.0.0.1:8080/r1", Status: 302, Headers: network.Headers{"Location": "/r2"}})
	send("http://127.0.0.1:8080/app", &network.Response{URL: "http://127.0.0.1:8080/r2", Status: 307})
	run.onEvent(&network.EventResponseReceived{RequestID: "R", Type: network.ResourceTypeDocument, Response: &network.Response{URL: "http://127.0.0.1:8080/app", Status: 200}})
	var got []string
	for _, ev := range run.events {
		got = append(got, fmt.Sprintf("%s %s %s %d %v", ev.Kind, ev.Method, ev.URL, ev.Status, ev.HeaderNames))
	}
	is.Equal(got, []string{
		"request GET http://127.0.0.1:8080/r1 0 []",
		"response GET http://127.0.0.1:8080/r1 302 [location]",
		"request GET http://127.0.0.1:8080/r2 0 []",
		"response GET http://127.0.0.1:8080/r2 307 []",
		"request GET http://127.0.0.1:8080/app 0 []",
		"response GET http://127.0.0.1:8080/app 200 []",
	})
}

// Each redirect hop's ExtraInfo header names join that hop's own request
// or response event, paired in order, whichever comes first. Before, a
// later hop's requestWillBeSentExtraInfo that came before its
// requestWillBeSent merged into the first hop's request event, and a
// hop's responseReceivedExtraInfo that came after the redirect merged
// into the final response.
func TestScenarioGivesEachRedirectHopItsHeaders(t *testing.T) {
	is := is.New(t)
	run := &scenarioRun{sc: newScope([]string{"http://127.0.0.1:8080"}), max: 100, red: strings.NewReplacer()}
	send := func(url string, redirect *network.Response) {
		run.onEvent(&network.EventRequestWillBeSent{RequestID: "R", Type: network.ResourceTypeDocument,
			Request: &network.Request{URL: url, Method: "GET", Headers: network.Headers{"Accept": "*/*"}}, RedirectResponse: redirect})
	}
	reqExtra := func(name string) {
		run.onEvent(&network.EventRequestWillBeSentExtraInfo{RequestID: "R", Headers: network.Headers{name: "v"}})
	}
	respExtra := func(name string) {
		run.onEvent(&network.EventResponseReceivedExtraInfo{RequestID: "R", Headers: network.Headers{name: "v"}})
	}
	send("http://127.0.0.1:8080/r1", nil)
	reqExtra("Cookie")      // hop 1's, after its request
	reqExtra("X-Hop2")      // hop 2's, before its request
	respExtra("Set-Cookie") // hop 1's 302, before the redirect
	send("http://127.0.0.1:8080/r2", &network.Response{URL: "http://127.0.0.1:8080/r1", Status: 302, Headers: network.Headers{"Location": "/r2"}})
	send("http://127.0.0.1:8080/app", &network.Response{URL: "http://127.0.0.1:8080/r2", Status: 307})
	respExtra("X-R2-Reply") // hop 2's 307, after the redirect
	reqExtra("X-Hop3")      // hop 3's, after its request
	run.onEvent(&network.EventResponseReceived{RequestID: "R", Type: network.ResourceTypeDocument, Response: &network.Response{URL: "http://127.0.0.1:8080/app", Status: 200}})
	respExtra("X-Final")
	var got []string
	for _, ev := range run.events {
		got = append(got, fmt.Sprintf("%s %s %d %v", ev.Kind, ev.URL, ev.Status, ev.HeaderNames))
	}
	is.Equal(got, []string{
		"request http://127.0.0.1:8080/r1 0 [accept cookie]",
		"response http://127.0.0.1:8080/r1 302 [location set-cookie]",
		"request http://127.0.0.1:8080/r2 0 [accept x-hop2]",
		"response http://127.0.0.1:8080/r2 307 [x-r2-reply]",
		"request http://127.0.0.1:8080/app 0 [accept x-hop3]",
		"response http://127.0.0.1:8080/app 200 [x-final]",
	})
}
