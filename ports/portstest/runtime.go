package portstest

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/matryer/is"

	"rea/ports"
)

// RuntimeEnv is what RunRuntime observes: a V8 inspector endpoint that
// serves at least one node target whose location is a file under Root.
type RuntimeEnv struct {
	Endpoint string // http://127.0.0.1:PORT
	TargetID string
	Root     string // realpath'd directory holding the target's files
}

// RunRuntime checks that o honours the runtime observer contracts of
// rea/ports: endpoints outside 127.0.0.1/[::1] with an explicit port are
// invalid_request; listings are sorted and unique and carry file locations
// under the roots; a missing target is target_not_found; a runtime kind
// that does not fit the target is target_not_allowed; observed scripts are
// in scope, unique by script id and carry a location; a cancelled context
// gives an error matching context.Canceled.
func RunRuntime(t *testing.T, o ports.JavaScriptRuntimeObserver, env RuntimeEnv) {
	t.Helper()
	ctx := t.Context()
	t.Run("Info", func(t *testing.T) {
		is.New(t).NoErr(checkInfo(o.Info()))
	})
	t.Run("InvalidEndpoints", func(t *testing.T) {
		for _, ep := range []string{"http://localhost:9229", "http://10.0.0.1:9229", "https://127.0.0.1:9229", "http://127.0.0.1", "http://u:p@127.0.0.1:9229", "http://127.0.0.1:9229/json", "ws://127.0.0.1:9229"} {
			_, err := o.ListRuntimeTargets(ctx, ports.RuntimeListRequest{Endpoint: ep})
			if be, ok := ports.AsBrowserError(err); !ok || be.Code != ports.BrowserInvalidRequest {
				t.Errorf("ListRuntimeTargets(%q) = %v, want invalid_request", ep, err)
			}
			_, err = o.ObserveRuntime(ctx, ports.RuntimeObserveRequest{Endpoint: ep, TargetID: env.TargetID})
			if be, ok := ports.AsBrowserError(err); !ok || be.Code != ports.BrowserInvalidRequest {
				t.Errorf("ObserveRuntime(%q) = %v, want invalid_request", ep, err)
			}
		}
	})
	t.Run("ListSortedScoped", func(t *testing.T) {
		is := is.New(t)
		l, err := o.ListRuntimeTargets(ctx, ports.RuntimeListRequest{Endpoint: env.Endpoint, Scope: ports.RuntimeScope{AllowedFileRoots: []string{env.Root}}})
		is.NoErr(err)
		var ids []string
		for _, tg := range l.Targets {
			ids = append(ids, tg.TargetID)
			if tg.Location.Kind == "file" && !strings.HasPrefix(tg.Location.FilePath, env.Root+"/") {
				t.Errorf("target %s at %s is outside the root", tg.TargetID, tg.Location.FilePath)
			}
		}
		is.True(slices.IsSorted(ids))
		is.Equal(len(slices.Compact(slices.Clone(ids))), len(ids))
		is.True(slices.Contains(ids, env.TargetID))
	})
	t.Run("MissingTarget", func(t *testing.T) {
		_, err := o.ObserveRuntime(ctx, ports.RuntimeObserveRequest{Endpoint: env.Endpoint, TargetID: "no-such-target"})
		if be, ok := ports.AsBrowserError(err); !ok || be.Code != ports.BrowserTargetNotFound {
			t.Errorf("got %v, want target_not_found", err)
		}
	})
	t.Run("KindMismatch", func(t *testing.T) {
		_, err := o.ObserveRuntime(ctx, ports.RuntimeObserveRequest{Endpoint: env.Endpoint, TargetID: env.TargetID, RuntimeKind: "electron-renderer"})
		if be, ok := ports.AsBrowserError(err); !ok || be.Code != ports.BrowserTargetNotAllowed {
			t.Errorf("got %v, want target_not_allowed", err)
		}
	})
	t.Run("Observe", func(t *testing.T) {
		is := is.New(t)
		ob, err := o.ObserveRuntime(ctx, ports.RuntimeObserveRequest{Endpoint: env.Endpoint, TargetID: env.TargetID, RuntimeKind: "node", ObservationMS: 20,
			Scope: ports.RuntimeScope{AllowedFileRoots: []string{env.Root}}})
		is.NoErr(err)
		is.Equal(ob.Target.TargetID, env.TargetID)
		seen := map[string]bool{}
		for _, s := range ob.Scripts {
			if seen[s.ScriptID] {
				t.Errorf("script %s reported twice", s.ScriptID)
			}
			seen[s.ScriptID] = true
			switch s.Location.Kind {
			case "file":
				if !strings.HasPrefix(s.Location.FilePath, env.Root+"/") {
					t.Errorf("script %s at %s is outside the root", s.ScriptID, s.Location.FilePath)
				}
			case "url", "unresolved":
			default:
				t.Errorf("script %s has location kind %q", s.ScriptID, s.Location.Kind)
			}
		}
		is.True(ob.EventsRetained <= ob.EventsObserved)
	})
	t.Run("Cancelled", func(t *testing.T) {
		cctx, cancel := context.WithCancel(ctx)
		cancel()
		_, err := o.ObserveRuntime(cctx, ports.RuntimeObserveRequest{Endpoint: env.Endpoint, TargetID: env.TargetID})
		if !errors.Is(err, context.Canceled) {
			t.Errorf("got %v, want an error matching context.Canceled", err)
		}
	})
}
