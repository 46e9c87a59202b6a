package main

import (
	"encoding/json"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/matryer/is"
)

// TestDefaultResultsFitAContext measures, over MCP, the default answers an
// agent reads first on a real program (Debian's /usr/bin/bash): each must fit
// its budget while the facts it leaves out stay reachable.
func TestDefaultResultsFitAContext(t *testing.T) {
	const bash = "/usr/bin/bash"
	if _, err := os.Stat(bash); err != nil {
		t.Skip("no /usr/bin/bash to measure")
	}
	is := is.New(t)
	cs := mcpClient(t)
	is.True(!call(t, cs, "open_binary", map[string]any{"path": bash}).isError)

	// binary_session {}: every tool listed in at most 16 KB.
	r := call(t, cs, "binary_session", map[string]any{})
	is.True(!r.isError)
	if len(r.text) > 16*1024 {
		t.Errorf("binary_session {} is %d bytes, over 16 KB", len(r.text))
	}
	var sess struct {
		Result struct {
			Tools []map[string]any `json:"tool_availability"`
		}
	}
	is.NoErr(json.Unmarshal([]byte(r.text), &sess))
	tools, err := cs.ListTools(t.Context(), nil)
	is.NoErr(err)
	is.Equal(len(sess.Result.Tools), len(tools.Tools))
	for _, e := range sess.Result.Tools {
		if e["available"] == false && e["remediation"] == nil {
			t.Errorf("%v is unavailable without a remediation", e["name"])
		}
	}

	// analyze_function on a procedure of about a hundred instructions.
	proc := ""
	for off := 0; proc == "" && off < 5000; off += 500 {
		_, m := evidence(t, call(t, cs, "list_procedures", map[string]any{"offset": off, "limit": 500}))
		items, _ := m["items"].([]any)
		if len(items) == 0 {
			break
		}
		for _, it := range items {
			p := it.(map[string]any)
			size, _ := p["size"].(string)
			n, err := strconv.ParseUint(strings.TrimPrefix(size, "0x"), 16, 64)
			if err == nil && n >= 380 && n <= 420 {
				proc = p["address"].(string)
				break
			}
		}
	}
	if proc == "" {
		t.Fatal("no procedure of about a hundred instructions in bash")
	}
	r = call(t, cs, "analyze_function", map[string]any{"procedure": proc})
	ev, _ := evidence(t, r)
	if len(r.text) > 12*1024 {
		t.Errorf("analyze_function %s is %d bytes, over 12 KB", proc, len(r.text))
	}
	complete := call(t, cs, "analyze_function", map[string]any{"procedure": proc, "detail": "complete"})
	cev, _ := evidence(t, complete)
	is.True(len(complete.text) > len(r.text))
	is.Equal(len(ev.EvidenceLinks), 1)
	is.Equal(ev.EvidenceLinks[0], cev.EvidenceID) // the complete dossier is the retained parent
	view := call(t, cs, "inspect_analysis_view", map[string]any{
		"source": map[string]any{"kind": "retained-evidence", "evidence_id": string(cev.EvidenceID)},
		"view":   map[string]any{"kind": "native", "facet": "value_flow_operations", "offset": 0, "limit": 64}})
	is.True(!view.isError)

	// get_call_graph at depth 3 from main: truncated, and says so.
	r = call(t, cs, "get_call_graph", map[string]any{"address": "main", "depth": 3})
	gev, g := evidence(t, r)
	if len(r.text) > 24*1024 {
		t.Errorf("get_call_graph main depth 3 is %d bytes, over 24 KB", len(r.text))
	}
	is.Equal(g["truncated"], true)
	is.True(len(gev.Limitations) > 0 && strings.Contains(gev.Limitations[0], "max_nodes"))
}
