package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/matryer/is"

	"rea/adapters/pty"
	"rea/core"
	"rea/ports"
)

// manyBuilds builds two versions of a program of n functions that differ
// in a constant every function uses, so each function changes.
func manyBuilds(t *testing.T, n int) (v1, v2 string) {
	t.Helper()
	if _, err := exec.LookPath("gcc"); err != nil {
		t.Skip("gcc is not installed")
	}
	dir := t.TempDir()
	for _, v := range []struct {
		name string
		k    int
	}{{"v1", 7}, {"v2", 9}} {
		var b strings.Builder
		b.WriteString("#include <stdio.h>\nint f0(int x) { return x * " + fmt.Sprint(v.k) + "; }\n")
		for i := 1; i < n; i++ {
			fmt.Fprintf(&b, "int f%d(int x) { if (x > %d) { puts(\"f%d %s\"); return x * %d + %d; } return f%d(x + 1) - %d; }\n", i, v.k, i, v.name, v.k, i, i-1, i)
		}
		fmt.Fprintf(&b, "int main(int c, char **a) { return f%d(c); }\n", n-1)
		src := filepath.Join(dir, v.name+".c")
		if err := os.WriteFile(src, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		out := filepath.Join(dir, v.name)
		if o, err := exec.Command("gcc", "-O1", "-fno-inline", "-o", out, src).CombinedOutput(); err != nil {
			t.Fatalf("gcc: %v\n%s", err, o)
		}
		if v.name == "v1" {
			v1 = out
		} else {
			v2 = out
		}
	}
	return v1, v2
}

func nativeSession(t *testing.T) func(op string, args any) *core.Result {
	t.Helper()
	return mustCall(t, nativeCalls(t, &core.RegistryOptions{Capturer: pty.New(nil)}))
}

// A concise compare_binaries of builds in which hundreds of functions
// changed is a first page of the changed functions, says how many there
// are and how to read the rest, and links the complete comparison, which
// find_changed_behavior and correlate_static_and_runtime read through the
// concise record. Before, 400 changed functions made a 320 KB concise
// result.
func TestConciseCompareBinariesIsAPage(t *testing.T) {
	is := is.New(t)
	v1, v2 := manyBuilds(t, 200)
	call := nativeSession(t)
	res := call("compare_binaries", map[string]any{"left_path": v1, "right_path": v2})
	is.True(res.Evidence != nil)
	var out struct {
		Summary struct{ Changed int }
		Changed []json.RawMessage
	}
	is.NoErr(json.Unmarshal(res.Evidence.NormalizedResult, &out))
	if out.Summary.Changed < 190 {
		t.Fatalf("summary.changed = %d; the builds should differ in about 200 functions", out.Summary.Changed)
	}
	if n := len(res.Evidence.NormalizedResult); n > 16000 {
		t.Errorf("concise normalized_result is %d bytes with %d changed items; want a page", n, len(out.Changed))
	}
	if len(out.Changed) == 0 || len(out.Changed) >= out.Summary.Changed {
		t.Errorf("concise changed holds %d of %d", len(out.Changed), out.Summary.Changed)
	}
	said := false
	for _, l := range res.Evidence.Limitations {
		said = said || (strings.Contains(l, fmt.Sprint(out.Summary.Changed)) && strings.Contains(l, "find_changed_behavior") && strings.Contains(l, `"detail":"complete"`))
	}
	if !said {
		t.Errorf("no limitation says how many changed and how to read them all: %q", res.Evidence.Limitations)
	}
	is.True(len(res.Evidence.EvidenceLinks) > 0) // the complete comparison

	// find_changed_behavior ranks every changed function from the concise record.
	ref := map[string]any{"kind": "retained-evidence", "evidence_id": string(res.Evidence.EvidenceID)}
	complete := call("compare_binaries", map[string]any{"left_path": v1, "right_path": v2, "detail": "complete"})
	is.Equal(complete.Evidence.EvidenceID, res.Evidence.EvidenceLinks[0]) // the link is the complete comparison
	ranked := func(cmp any) int {
		fcb := call("find_changed_behavior", map[string]any{"comparison": cmp, "limit": 500})
		is.True(fcb.Evidence != nil)
		var r struct{ Items []json.RawMessage }
		is.NoErr(json.Unmarshal(fcb.Evidence.NormalizedResult, &r))
		return len(r.Items)
	}
	all := ranked(map[string]any{"kind": "retained-evidence", "evidence_id": string(complete.Evidence.EvidenceID)})
	if n := ranked(ref); n != all || all < 190 {
		t.Errorf("find_changed_behavior ranks %d functions from the concise record, %d from the complete one", n, all)
	}

	// correlate_static_and_runtime lists every changed function too.
	run := func() string {
		r := call("capture_process_scenario", map[string]any{"executable": v1})
		is.True(r.Evidence != nil)
		return string(r.Evidence.EvidenceID)
	}
	a, b := run(), run()
	cpc := call("compare_process_captures", map[string]any{"left": map[string]any{"kind": "retained-evidence", "evidence_id": a},
		"right": map[string]any{"kind": "retained-evidence", "evidence_id": b}})
	is.True(cpc.Evidence != nil)
	corr := call("correlate_static_and_runtime", map[string]any{"static_comparisons": []any{ref},
		"runtime_comparisons": []any{map[string]any{"kind": "retained-evidence", "evidence_id": string(cpc.Evidence.EvidenceID)}},
		"mappings":            []any{map[string]any{"runtime_evidence_id": string(cpc.Evidence.EvidenceID), "side": "both"}}, "limit": 500})
	raw, err := json.Marshal(corr.Value)
	is.NoErr(err)
	var listed struct {
		Functions []struct {
			StaticStatus string `json:"static_status"`
		}
	}
	is.NoErr(json.Unmarshal(raw, &listed))
	n := 0
	for _, it := range listed.Functions {
		if it.StaticStatus == "changed" {
			n++
		}
	}
	if n != out.Summary.Changed {
		t.Errorf("correlate_static_and_runtime from the concise record lists %d of %d changed functions", n, out.Summary.Changed)
	}
}

// loopTracer reports n calls of the first requested procedure.
type loopTracer struct{ n int }

func (l loopTracer) TraceCalls(ctx context.Context, req ports.TraceRequest) (*ports.TraceResult, error) {
	b := req.Breakpoints[0]
	res := &ports.TraceResult{Architecture: "x86-64", Convention: ports.ConventionSysV, Exit: &ports.TraceExit{Code: new(int)},
		Coverage:    ports.TraceCoverage{StopReason: "exited"},
		Modules:     []ports.TraceModule{{Path: req.Launch.Path}},
		Breakpoints: []ports.TraceResolved{{Address: b.Address, RuntimeAddress: b.Address, Name: b.Name}}}
	for i := range l.n {
		res.Hits = append(res.Hits, ports.TraceHit{Sequence: i, Name: b.Name, Address: b.Address, RuntimeAddress: b.Address, MainThread: true,
			Arguments: []ports.TraceRegister{{Name: "rdi", Value: uint64(i)}}, ReturnAddress: 0x1161, Caller: 0x1161, Returned: true})
	}
	return res, nil
}

// correlate_static_and_runtime counts every hit of a trace given as its
// concise page: before the page, the trace listed every hit.
func TestCorrelateCountsEveryHitOfATracePage(t *testing.T) {
	is := is.New(t)
	v1, v2 := manyBuilds(t, 4)
	call := mustCall(t, nativeCalls(t, &core.RegistryOptions{Tracer: loopTracer{3000}}))
	cmp := call("compare_binaries", map[string]any{"left_path": v1, "right_path": v2})
	call("open_binary", map[string]any{"path": v1})
	tr := call("trace_native_calls", map[string]any{"procedures": []string{"f1"}})
	is.True(len(tr.Evidence.EvidenceLinks) > 0) // a page
	ref := func(r *core.Result) map[string]any {
		return map[string]any{"kind": "retained-evidence", "evidence_id": string(r.Evidence.EvidenceID)}
	}
	corr := call("correlate_static_and_runtime", map[string]any{"static_comparisons": []any{ref(cmp)}, "runtime_comparisons": []any{ref(tr)},
		"mappings": []any{map[string]any{"runtime_evidence_id": string(tr.Evidence.EvidenceID), "side": "left"}}})
	raw, err := json.Marshal(corr.Value)
	is.NoErr(err)
	var out struct {
		Functions []struct {
			Left     *struct{ Name string }
			LeftHits *int `json:"left_hits"`
		}
	}
	is.NoErr(json.Unmarshal(raw, &out))
	found := false
	for _, f := range out.Functions {
		if f.Left != nil && f.Left.Name == "f1" {
			found = true
			if f.LeftHits == nil || *f.LeftHits != 3000 {
				t.Errorf("f1 left_hits %s; want 3000", raw)
			}
		}
	}
	is.True(found)
}
