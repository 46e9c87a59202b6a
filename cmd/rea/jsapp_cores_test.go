package main

import (
	"runtime"
	"testing"
)

// TestJSAppSameEvidenceOnOneCore analyses the same app with several
// goroutines per phase and with one: parsing, source maps and the graph's
// encoding are spread over GOMAXPROCS, and the Evidence must not depend on
// it.
func TestJSAppSameEvidenceOnOneCore(t *testing.T) {
	app := buildNPMApp(t, false, "development")
	prev := runtime.GOMAXPROCS(4)
	defer runtime.GOMAXPROCS(prev)
	many := jaCall(t, jaSession(t), "analyze_javascript_application", map[string]any{"path": app})
	runtime.GOMAXPROCS(1)
	one := jaCall(t, jaSession(t), "analyze_javascript_application", map[string]any{"path": app})
	if many.EvidenceID != one.EvidenceID {
		t.Fatalf("GOMAXPROCS 4 gave %s, GOMAXPROCS 1 gave %s", many.EvidenceID, one.EvidenceID)
	}
	if r := decodeApp(t, many); r.Statistics["source_maps"] == 0 || len(r.Graph.Nodes) < 256 {
		t.Fatalf("the app is too small to spread work: %v source maps, %d nodes", r.Statistics["source_maps"], len(r.Graph.Nodes))
	}
}
