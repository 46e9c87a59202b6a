package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/matryer/is"

	"rea/adapters/cdp"
	"rea/adapters/js"
	"rea/core"
	"rea/core/standard"
	"rea/ports/portstest/replay"
)

// TestElectronFixtureReplayedAndReconciled is the Electron fixture's lane
// where no Electron (and no Node) runs: the Electron-shaped fixture is
// analyzed statically, capture_electron_scenario plays the committed hook
// transcript (adapters/cdp/testdata/electron-scenario, recorded from the
// fake Electron running the real hook) against rea's scenario engine with
// a never-connecting stand-in process as the owned application, and the
// reconciliation ties the clicked channel and the main-to-renderer channel
// the renderer listened on to their static channel nodes.
func TestElectronFixtureReplayedAndReconciled(t *testing.T) {
	is := is.New(t)
	f, err := os.Open(filepath.Join("..", "..", "adapters", "cdp", "testdata", "electron-scenario", "transcript.jsonl"))
	is.NoErr(err)
	tr, err := replay.ReadTranscript(f)
	f.Close()
	is.NoErr(err)
	p := replay.NewPlayer(t, tr, nil)
	tmp := t.TempDir()
	engine := cdp.NewRuntime(&cdp.RuntimeOptions{TempParent: tmp, GraceDelay: 300 * time.Millisecond, Tap: &cdp.ScenarioTap{Listening: func(path string) {
		if err := p.Dial(context.Background(), path); err != nil {
			t.Error(err)
		}
	}}})
	cat, err := standard.Catalog()
	is.NoErr(err)
	reg, err := core.NewRegistry(nil, &core.RegistryOptions{JavaScript: js.New(), Runtime: engine})
	is.NoErr(err)
	s := core.NewSession(cat, reg, nil)
	call := func(op string, args any) *core.Evidence {
		t.Helper()
		raw, _ := json.Marshal(args)
		res, err := s.Call(context.Background(), op, raw, nil)
		if err != nil {
			t.Fatalf("%s: %v", op, err)
		}
		return res.Evidence
	}
	ref := func(ev *core.Evidence) map[string]any {
		return map[string]any{"kind": "retained-evidence", "evidence_id": string(ev.EvidenceID)}
	}
	app := fixtureDir(t, "electronapp")
	an := call("analyze_javascript_application", map[string]any{"path": app})
	// The actions must be the recorded ones: the player checks each request.
	sc := call("capture_electron_scenario", map[string]any{"schema_version": 1, "executable_path": filepath.Join(fixtureDir(t, "fake-electron"), "hangs"),
		"application_path": app, "actions": []any{
			map[string]any{"step_id": "open", "kind": "click", "selector": "#open"},
			map[string]any{"step_id": "pause", "kind": "wait", "duration_ms": 20},
			map[string]any{"step_id": "reload", "kind": "renderer-reload"},
			map[string]any{"step_id": "site", "kind": "click", "selector": "#site"},
			map[string]any{"step_id": "missing", "kind": "click", "selector": "#missing"},
			map[string]any{"step_id": "link", "kind": "deep-link", "delivery": "open-url", "url": "fixture://replay"},
		}})
	is.NoErr(p.Close())
	if ents, _ := os.ReadDir(tmp); len(ents) > 0 {
		t.Errorf("temporary directories survive: %v", ents)
	}
	var res map[string]any
	is.NoErr(json.Unmarshal(sc.NormalizedResult, &res))
	is.Equal(res["coverage"].(map[string]any)["status"], "complete")
	rec := call("reconcile_javascript_runtime", map[string]any{
		"static_layers":        []any{map[string]any{"role": "application", "analysis": ref(an)}},
		"runtime_observations": []any{ref(sc)},
	})
	var r struct {
		Graph struct {
			Nodes []struct {
				NodeID string `json:"node_id"`
				Label  string `json:"label"`
			} `json:"nodes"`
		} `json:"graph"`
		Reconciliations []struct {
			EntityKind    string  `json:"entity_kind"`
			RuntimeNodeID string  `json:"runtime_node_id"`
			Status        string  `json:"status"`
			StaticNodeID  *string `json:"static_node_id"`
		} `json:"reconciliations"`
	}
	is.NoErr(json.Unmarshal(rec.NormalizedResult, &r))
	labels := map[string]string{}
	for _, n := range r.Graph.Nodes {
		labels[n.NodeID] = n.Label
	}
	tied := map[string]bool{}
	for _, it := range r.Reconciliations {
		if it.EntityKind == "ipc-channel" && it.Status == "matched" && it.StaticNodeID != nil {
			tied[labels[it.RuntimeNodeID]] = true
		}
	}
	for _, ch := range []string{"dialog:open", "shell:site", "app:status"} {
		if !tied[ch] {
			t.Errorf("channel %s is not tied to a static channel node: %v", ch, tied)
		}
	}
}
