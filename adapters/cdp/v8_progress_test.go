package cdp_test

import (
	"context"
	"strings"
	"sync"
	"testing"

	"github.com/matryer/is"

	"rea/adapters/cdp"
	"rea/adapters/cdp/cdptest"
	"rea/ports"
)

// An observation reports progress through its window, once a second, as
// observe_web_session does: a client that resets its request timeout on
// progress (the TypeScript SDK's resetTimeoutOnProgress) then outlives a
// window as long as its timeout (60 s by default, observation_ms's
// maximum). Before, the only report came as the window opened.
func TestV8ObserveReportsProgressThroughTheWindow(t *testing.T) {
	is := is.New(t)
	f := v8Fake(t, cdptest.InspectorOptions{})
	var mu sync.Mutex
	var during []string
	ctx := ports.WithProgress(context.Background(), progressFunc(func(phase, message string) {
		mu.Lock()
		defer mu.Unlock()
		if strings.Contains(message, " of 3500 ms") {
			during = append(during, message)
		}
	}))
	_, err := cdp.NewRuntime(nil).ObserveRuntime(ctx, ports.RuntimeObserveRequest{Endpoint: f.URL, TargetID: "N1", RuntimeKind: "node", ObservationMS: 3500})
	is.NoErr(err)
	mu.Lock()
	defer mu.Unlock()
	// Ticks at 1, 2 and 3 s: two of them leave room for a tick lost to a
	// loaded machine (the window's end and a late tick race in one select).
	is.True(len(during) >= 2)
	is.True(strings.Contains(during[0], "scripts"))
}
