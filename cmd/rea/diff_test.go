package main

import (
	"debug/elf"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/matryer/is"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"rea/core"
)

// Two versions of one C program: limit's constant changes, greet's string
// changes, old_only is removed, new_only is added, classify's control flow
// changes, and twice, sum, unchanged_a and unchanged_b stay as they are.
const diffV1 = `#include <stdio.h>
#include <string.h>
int limit(int x){ if (x > 42) return 42; return x; }
int twice(int x){ return x * 2 + 1; }
int sum(int n){ int s = 0; for (int i = 0; i < n; i++) s += i; return s; }
void greet(const char *who){ printf("hello, %s\n", who); }
int old_only(int x){ return x ^ 0x5a5a; }
int classify(int x){ if (x < 0) return -1; return 1; }
int unchanged_a(int a, int b){ return a * b - a; }
int unchanged_b(const char *s){ return (int)strlen(s) + 3; }
int main(int c, char**v){ greet(v[0]); printf("%d %d %d %d %d %d %d\n", limit(c), twice(c), sum(c), old_only(c), classify(c), unchanged_a(c, 3), unchanged_b(v[0])); return 0; }
`

const diffV2 = `#include <stdio.h>
#include <string.h>
int limit(int x){ if (x > 64) return 64; return x; }
int twice(int x){ return x * 2 + 1; }
int sum(int n){ int s = 0; for (int i = 0; i < n; i++) s += i; return s; }
void greet(const char *who){ printf("goodbye, %s\n", who); }
int new_only(int x){ return x + 0x1234; }
int classify(int x){ if (x < 0) return -1; if (x == 0) return 0; if (x > 100) return 2; return 1; }
int unchanged_a(int a, int b){ return a * b - a; }
int unchanged_b(const char *s){ return (int)strlen(s) + 3; }
int main(int c, char**v){ greet(v[0]); printf("%d %d %d %d %d %d %d\n", limit(c), twice(c), sum(c), new_only(c), classify(c), unchanged_a(c, 3), unchanged_b(v[0])); return 0; }
`

// diffBuilds compiles both versions at opt and strips copies.
func diffBuilds(t *testing.T, opt string) (v1, v2, v1s, v2s string) {
	t.Helper()
	if _, err := exec.LookPath("gcc"); err != nil {
		t.Skip("gcc is not installed: the C fixtures cannot be built")
	}
	dir := t.TempDir()
	build := func(name, src string) (string, string) {
		c := filepath.Join(dir, name+".c")
		if err := os.WriteFile(c, []byte(src), 0o600); err != nil {
			t.Fatal(err)
		}
		bin, stripped := filepath.Join(dir, name+opt), filepath.Join(dir, name+opt+"-stripped")
		if out, err := exec.Command("gcc", "-"+opt, "-o", bin, c).CombinedOutput(); err != nil {
			t.Fatalf("gcc: %v\n%s", err, out)
		}
		if out, err := exec.Command("strip", "-o", stripped, bin).CombinedOutput(); err != nil {
			t.Fatalf("strip: %v\n%s", err, out)
		}
		return bin, stripped
	}
	v1, v1s = build("v1", diffV1)
	v2, v2s = build("v2", diffV2)
	return
}

type fnRefT struct{ Name, Address string }

type pairT struct {
	Left, Right       fnRefT
	Basis             string
	Status            string
	Similarity        *float64
	ChangedDimensions []string `json:"changed_dimensions"`
}

type binDiffT struct {
	Summary struct {
		LeftFunctions  int `json:"left_functions"`
		RightFunctions int `json:"right_functions"`
		Matched        int
		Changed        int
		Added          int
		Removed        int
		MatchRate      *float64 `json:"match_rate"`
	}
	Changed   []pairT
	Unchanged []pairT
	Added     []fnRefT
	Removed   []fnRefT
}

func (d binDiffT) changed(name string) *pairT {
	for i, p := range d.Changed {
		if p.Left.Name == name {
			return &d.Changed[i]
		}
	}
	return nil
}

func names(fs []fnRefT) []string {
	var out []string
	for _, f := range fs {
		out = append(out, f.Name)
	}
	return out
}

func TestCompareBinariesBuilds(t *testing.T) {
	cs := mcpClient(t)
	for _, opt := range []string{"O0", "O2"} {
		t.Run(opt, func(t *testing.T) {
			is := is.New(t)
			v1, v2, v1s, v2s := diffBuilds(t, opt)
			var named binDiffT
			_, m := evidence(t, call(t, cs, "compare_binaries", map[string]any{"left_path": v1, "right_path": v2, "detail": "complete"}))
			decode(t, m, &named)

			// Every change found and classified by name.
			is.Equal(names(named.Removed), []string{"old_only"})
			is.Equal(names(named.Added), []string{"new_only"})
			lim := named.changed("limit")
			is.True(lim != nil && slices.Contains(lim.ChangedDimensions, "constants"))
			gr := named.changed("greet")
			is.True(gr != nil)
			is.Equal(gr.ChangedDimensions, []string{"strings"})
			cl := named.changed("classify")
			is.True(cl != nil && slices.Contains(cl.ChangedDimensions, "cfg"))
			unchanged := map[string]bool{}
			for _, p := range named.Unchanged {
				unchanged[p.Left.Name] = true
				is.Equal(p.Left.Name, p.Right.Name)
			}
			for _, n := range []string{"twice", "sum", "unchanged_a", "unchanged_b"} {
				is.True(unchanged[n]) // reported unchanged
				is.True(named.changed(n) == nil)
			}

			// Stripped: the same binaries without symbols. The addresses are
			// those of the builds above, which give the truth.
			nameAt := func(side int) map[string]string {
				out := map[string]string{}
				for _, p := range append(append([]pairT{}, named.Changed...), named.Unchanged...) {
					out[[]fnRefT{p.Left, p.Right}[side].Address] = []fnRefT{p.Left, p.Right}[side].Name
				}
				for _, f := range [][]fnRefT{named.Removed, named.Added}[side] {
					out[f.Address] = f.Name
				}
				return out
			}
			ln, rn := nameAt(0), nameAt(1)
			var s binDiffT
			_, m = evidence(t, call(t, cs, "compare_binaries", map[string]any{"left_path": v1s, "right_path": v2s, "detail": "complete"}))
			decode(t, m, &s)
			correct := 0
			all := append(append([]pairT{}, s.Changed...), s.Unchanged...)
			for _, p := range all {
				l, r := ln[p.Left.Address], rn[p.Right.Address]
				if l == r {
					correct++
				} else if !(l == "old_only" && r == "new_only") {
					t.Errorf("stripped %s: %s (%s) matched to %s (%s) by %s", opt, p.Left.Address, l, p.Right.Address, r, p.Basis)
				}
				if unchanged[l] && l == r {
					is.Equal(p.Status, "unchanged") // nothing unchanged reported as changed
				}
			}
			for _, n := range []string{"limit", "greet"} {
				found := false
				for _, p := range s.Changed {
					found = found || ln[p.Left.Address] == n
				}
				is.True(found) // the change survives stripping
			}
			total := max(named.Summary.LeftFunctions, named.Summary.RightFunctions)
			t.Logf("%s stripped: %d of %d functions matched, %d matched correctly (match rate %.2f); %d changed, %d added, %d removed",
				opt, s.Summary.Matched, total, correct, float64(correct)/float64(named.Summary.Matched), s.Summary.Changed, s.Summary.Added, s.Summary.Removed)
			is.True(float64(correct)/float64(named.Summary.Matched) >= 0.9)
		})
	}
}

func TestCompareFunctions(t *testing.T) {
	is := is.New(t)
	v1, v2, _, _ := diffBuilds(t, "O0")
	cs := mcpClient(t)
	af := func(path, proc string, asm bool) *core.Evidence {
		t.Helper()
		if r := call(t, cs, "open_binary", map[string]any{"path": path}); r.isError {
			t.Fatal(r.text)
		}
		ev, _ := evidence(t, call(t, cs, "analyze_function", map[string]any{"procedure": proc, "include_assembly": asm, "limit": 500}))
		return ev
	}
	ref := func(ev *core.Evidence) map[string]any {
		return map[string]any{"kind": "retained-evidence", "evidence_id": string(ev.EvidenceID)}
	}
	type cmpT struct {
		Status            string
		SameFunction      bool     `json:"same_function"`
		ChangedDimensions []string `json:"changed_dimensions"`
		UnknownDimensions []string `json:"unknown_dimensions"`
		Notes             []string
		Dimensions        map[string]struct {
			Status         string
			Reason         *string
			Added, Removed []string
			Changes        []string
		}
	}
	cmp := func(l, r any) cmpT {
		t.Helper()
		var out cmpT
		_, m := evidence(t, call(t, cs, "compare_functions", map[string]any{"left": l, "right": r}))
		decode(t, m, &out)
		return out
	}
	limit1, limit2 := af(v1, "limit", true), af(v2, "limit", true)
	greet1, greet2 := af(v1, "greet", true), af(v2, "greet", true)
	class1, class2 := af(v1, "classify", true), af(v2, "classify", true)
	twice1, twice2 := af(v1, "twice", true), af(v2, "twice", true)

	c := cmp(ref(limit1), ref(limit2))
	is.Equal(c.Status, "changed")
	is.Equal(c.ChangedDimensions, []string{"instructions", "constants"})
	is.Equal(c.Dimensions["constants"].Added, []string{"0x40"})
	is.Equal(c.Dimensions["constants"].Removed, []string{"0x2a"})

	// Inline Evidence on one side, a retained reference on the other.
	inline := map[string]any{}
	b, _ := core.MarshalNoEscape(greet1)
	is.NoErr(json.Unmarshal(b, &inline))
	c = cmp(inline, ref(greet2))
	is.Equal(c.ChangedDimensions, []string{"strings"})
	is.Equal(c.Dimensions["strings"].Added, []string{"goodbye, %s\n"})
	is.Equal(c.Dimensions["strings"].Removed, []string{"hello, %s\n"})

	c = cmp(ref(class1), ref(class2))
	is.True(slices.Contains(c.ChangedDimensions, "cfg"))
	is.True(len(c.Dimensions["cfg"].Changes) > 0)

	c = cmp(ref(twice1), ref(twice2))
	is.Equal(c.Status, "unchanged")
	is.Equal(len(c.UnknownDimensions), 0)

	// A function with itself.
	c = cmp(ref(limit1), ref(limit1))
	is.Equal(c.Status, "unchanged")
	is.True(c.SameFunction)
	is.True(len(c.Notes) > 0)
	for _, d := range c.Dimensions {
		is.Equal(d.Status, "unchanged")
	}

	// Without assembly the instruction-level dimensions are unknown, with the reason.
	noasm := af(v2, "limit", false)
	c = cmp(ref(limit1), ref(noasm))
	is.Equal(c.Dimensions["instructions"].Status, "unknown")
	is.True(c.Dimensions["instructions"].Reason != nil)
	is.Equal(c.Dimensions["constants"].Status, "unknown")
	is.Equal(c.Dimensions["strings"].Status, "unchanged")

	// A view of a retained record stands for that complete record.
	view, _ := evidence(t, call(t, cs, "inspect_analysis_view", map[string]any{"source": ref(limit2), "view": map[string]any{"kind": "summary"}}))
	c = cmp(ref(limit1), ref(view))
	is.Equal(c.ChangedDimensions, []string{"instructions", "constants"})
	// Its parameters name the records the caller passed (the view), so it
	// reproduces from what the agent holds; right.evidence_id names the
	// complete record compared. Before, parameters named the complete
	// record, an ID the agent had never been given.
	cev, cm := evidence(t, call(t, cs, "compare_functions", map[string]any{"left": ref(limit1), "right": ref(view)}))
	type refT struct {
		Kind       string `json:"kind"`
		EvidenceID string `json:"evidence_id"`
	}
	var params struct{ Left, Right refT }
	is.NoErr(json.Unmarshal(cev.Parameters, &params))
	is.Equal(params.Right.EvidenceID, string(view.EvidenceID))
	is.Equal(params.Left.EvidenceID, string(limit1.EvidenceID))
	is.Equal(cm["right"].(map[string]any)["evidence_id"], string(limit2.EvidenceID))
	again, _ := evidence(t, call(t, cs, "compare_functions", map[string]any{"left": params.Left, "right": params.Right}))
	is.Equal(again.EvidenceID, cev.EvidenceID) // the parameters reproduce it

	// Evidence of another operation.
	ov, _ := evidence(t, call(t, cs, "binary_overview", map[string]any{}))
	code, _ := errCode(t, call(t, cs, "compare_functions", map[string]any{"left": ref(limit1), "right": ref(ov)}))
	is.Equal(code, core.CodeInvalidRequest)
}

func TestCLICompareBinaries(t *testing.T) {
	is := is.New(t)
	v1, v2, _, _ := diffBuilds(t, "O0")
	out, stderr, code := runCLI(t, "compare", v1, v2)
	is.Equal(code, 0)
	is.Equal(stderr, "")
	is.True(strings.Contains(out, "15 and 15 functions: 14 matched"))
	for _, want := range []string{"changed  limit ", "changed  greet ", "changed  classify ", "removed  old_only ", "new_only 0x"} {
		is.True(strings.Contains(out, want)) // the table names every change
	}
	is.True(!strings.Contains(out, "twice"))
}

// Two architectures: matching runs on names, calls and strings and says
// that instructions, constants and control flow are not comparable.
func TestCompareBinariesAcrossArchitectures(t *testing.T) {
	is := is.New(t)
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("the go command is not on PATH: the cross-compiled fixtures cannot be built")
	}
	dir := t.TempDir()
	is.NoErr(os.WriteFile(filepath.Join(dir, "main.go"), []byte("package main\n\nimport \"os\"\n\nfunc main() { os.Stdout.WriteString(\"cross architecture\\n\") }\n"), 0o600))
	is.NoErr(os.WriteFile(filepath.Join(dir, "go.mod"), []byte("module xa\n\ngo 1.22\n"), 0o600))
	build := func(arch string) string {
		out := filepath.Join(dir, "xa-"+arch)
		cmd := exec.Command(goBin, "build", "-o", out, ".")
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GOARCH="+arch, "GOOS=linux", "CGO_ENABLED=0")
		if b, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("go build %s: %v\n%s", arch, err, b)
		}
		return out
	}
	amd, arm := build("amd64"), build("arm64")
	cs := mcpClient(t)
	_, m := evidence(t, call(t, cs, "compare_binaries", map[string]any{"left_path": amd, "right_path": arm}))
	var res struct {
		NotComparable []struct{ Dimension, Reason string } `json:"not_comparable"`
		Summary       struct {
			Matched int
			ByBasis map[string]int `json:"by_basis"`
		}
		Changed []struct {
			ChangedDimensions []string `json:"changed_dimensions"`
		}
	}
	decode(t, m, &res)
	var dims []string
	for _, n := range res.NotComparable {
		dims = append(dims, n.Dimension)
	}
	is.Equal(dims, []string{"instructions", "constants", "cfg"})
	is.True(res.Summary.Matched > 1000)
	is.Equal(res.Summary.ByBasis["instruction-hash"], 0) // never hashed across architectures
	for _, c := range res.Changed {
		for _, d := range c.ChangedDimensions {
			is.True(!slices.Contains(dims, d)) // a dimension that is not comparable is never "changed"
		}
	}
}

func TestFindChangedBehavior(t *testing.T) {
	is := is.New(t)
	v1, v2, _, _ := diffBuilds(t, "O0")
	cs := mcpClient(t)
	type behaviourT struct {
		Kind           string
		Added, Removed []string
		Changes        []string
	}
	type resT struct {
		ComparisonEvidenceID string `json:"comparison_evidence_id"`
		Items                []struct {
			Rank       int
			Left       fnRefT
			Score      float64
			Behaviours []behaviourT
			EvidenceID string `json:"evidence_id"`
		}
		Total          int
		Added, Removed []fnRefT
	}
	var byPath resT
	ev, m := evidence(t, call(t, cs, "find_changed_behavior", map[string]any{"left_path": v1, "right_path": v2}))
	decode(t, m, &byPath)
	is.Equal(ev.EvidenceLinks, []core.EvidenceID{core.EvidenceID(byPath.ComparisonEvidenceID)})
	kinds := map[string][]string{}
	for i, it := range byPath.Items {
		is.Equal(it.Rank, i+1)
		is.Equal(it.EvidenceID, byPath.ComparisonEvidenceID)
		if i > 0 {
			is.True(it.Score <= byPath.Items[i-1].Score) // ranked
		}
		for _, b := range it.Behaviours {
			kinds[it.Left.Name] = append(kinds[it.Left.Name], b.Kind)
		}
	}
	is.Equal(kinds["greet"], []string{"strings"})
	is.True(slices.Contains(kinds["limit"], "constants"))
	is.True(slices.Contains(kinds["classify"], "control_flow"))
	is.True(slices.Contains(kinds["main"], "calls"))
	for _, n := range []string{"twice", "sum", "unchanged_a", "unchanged_b"} {
		is.Equal(kinds[n], nil)
	}
	is.Equal(names(byPath.Added), []string{"new_only"})
	is.Equal(names(byPath.Removed), []string{"old_only"})

	// From the retained comparison: the same ranking.
	var byRef resT
	_, m = evidence(t, call(t, cs, "find_changed_behavior", map[string]any{"comparison": map[string]any{"kind": "retained-evidence", "evidence_id": byPath.ComparisonEvidenceID}}))
	decode(t, m, &byRef)
	is.Equal(byRef, byPath)

	// Evidence of another operation.
	code, _ := errCode(t, call(t, cs, "find_changed_behavior", map[string]any{"comparison": map[string]any{"kind": "retained-evidence", "evidence_id": string(ev.EvidenceID)}}))
	is.Equal(code, core.CodeInvalidRequest)
	// Neither input, or a comparison and a path.
	code, _ = errCode(t, call(t, cs, "find_changed_behavior", map[string]any{"left_path": v1}))
	is.Equal(code, core.CodeInvalidRequest)
	code, _ = errCode(t, call(t, cs, "find_changed_behavior", map[string]any{"left_path": v1, "right_path": v2,
		"comparison": map[string]any{"kind": "retained-evidence", "evidence_id": byPath.ComparisonEvidenceID}}))
	is.Equal(code, core.CodeInvalidRequest)
}

func TestBuildCallPath(t *testing.T) {
	is := is.New(t)
	v1, _, _, _ := diffBuilds(t, "O0")
	cs := mcpClient(t)
	if r := call(t, cs, "open_binary", map[string]any{"path": v1}); r.isError {
		t.Fatal(r.text)
	}
	var refs []any
	for _, p := range []string{"main", "greet"} {
		ev, _ := evidence(t, call(t, cs, "analyze_function", map[string]any{"procedure": p}))
		refs = append(refs, map[string]any{"kind": "retained-evidence", "evidence_id": string(ev.EvidenceID)})
	}
	var res struct {
		Paths []struct {
			Length int
			Steps  []struct{ Name string }
		}
		Total    int
		Frontier []fnRefT
	}
	_, m := evidence(t, call(t, cs, "build_call_path", map[string]any{"functions": refs, "start": "main", "goal": "printf@plt"}))
	decode(t, m, &res)
	var got [][]string
	for _, p := range res.Paths {
		var s []string
		for _, st := range p.Steps {
			s = append(s, st.Name)
		}
		got = append(got, s)
	}
	is.Equal(got, [][]string{{"main", "printf@plt"}, {"main", "greet", "printf@plt"}}) // shortest first
	is.True(slices.Contains(names(res.Frontier), "limit"))                             // reached without a record of its own

	// The import's own name finds its stub, as trace_call_path's goal and
	// get_call_graph's address do (before: printf "is neither a supplied
	// function nor one of their callees").
	_, m2 := evidence(t, call(t, cs, "build_call_path", map[string]any{"functions": refs, "start": "main", "goal": "printf"}))
	is.Equal(m2["paths"], m["paths"])

	code, _ := errCode(t, call(t, cs, "build_call_path", map[string]any{"functions": refs, "start": "main", "goal": "no_such_function"}))
	is.Equal(code, core.CodeInvalidRequest)
}

// TestCompareBinariesStrippedAgainstSymbols: a build with symbols against
// a stripped build. The same bytes are unchanged everywhere: a call's
// target is compared through the function match (main's call helper
// against call sub_116e), references to data only the unstripped side
// names are left out and counted, and a thunk to the binary's own function
// (frame_dummy) is no import. Against the stripped next version, the real
// changes are still found and the untouched functions stay unchanged.
func TestCompareBinariesStrippedAgainstSymbols(t *testing.T) {
	cs := mcpClient(t)
	is := is.New(t)
	v1, _, v1s, v2s := diffBuilds(t, "O0")
	type result struct {
		binDiffT
		Imports struct {
			Added, Removed []string
		}
		Limitations []string
	}
	compare := func(l, r string) result {
		var d result
		_, m := evidence(t, call(t, cs, "compare_binaries", map[string]any{"left_path": l, "right_path": r, "detail": "complete"}))
		decode(t, m, &d)
		return d
	}
	same := compare(v1, v1s)
	for _, p := range same.Changed {
		t.Errorf("%s against its stripped self: changed %v", p.Left.Name, p.ChangedDimensions)
	}
	is.Equal(same.Summary.Matched, same.Summary.LeftFunctions)
	is.Equal(len(same.Imports.Added)+len(same.Imports.Removed), 0)
	is.Equal(len(same.Limitations), 1)
	is.True(strings.HasPrefix(same.Limitations[0], "The left binary has a symbol table and the other does not:"))

	next := compare(v1, v2s)
	changed := map[string]bool{}
	for _, p := range next.Changed {
		changed[p.Left.Name] = true
	}
	for _, n := range []string{"limit", "greet"} {
		is.True(changed[n]) // a real change
	}
	for _, p := range next.Unchanged {
		changed[p.Left.Name] = false
	}
	for _, n := range []string{"twice", "sum", "unchanged_a", "unchanged_b"} {
		v, ok := changed[n]
		is.True(ok && !v) // matched and unchanged
	}
}

// TestCompareBinariesStrippedCopyRelocation: a program that writes to
// stderr holds a copy of it (a copy relocation) named twice in its symbol
// table, stderr@GLIBC_2.2.5, and once in its dynamic symbols, stderr, all a
// stripped copy keeps. Against its stripped self, nothing changed. Before,
// every function that referenced stderr was "changed" with references
// added: [stderr], the unstripped side's versioned name having been left
// out as one the stripped side does not give.
func TestCompareBinariesStrippedCopyRelocation(t *testing.T) {
	const src = `#include <stdio.h>
int warn(const char *s){ return fprintf(stderr, "warning: %s\n", s); }
int main(int c, char **v){ if (c > 1) return warn(v[1]); fputs("usage\n", stderr); return 2; }
`
	stripped, _ := strippedBuild(t, "copyrel", src)
	bin := strings.TrimSuffix(stripped, "-stripped")
	if out, err := exec.Command("nm", bin).Output(); err != nil || !strings.Contains(string(out), "stderr@") {
		t.Skipf("no versioned stderr symbol in the build (nm: %v)", err)
	}
	cs := mcpClient(t)
	var d binDiffT
	_, m := evidence(t, call(t, cs, "compare_binaries", map[string]any{"left_path": bin, "right_path": stripped}))
	decode(t, m, &d)
	for _, p := range d.Changed {
		t.Errorf("%s against its stripped self: changed %v", p.Left.Name, p.ChangedDimensions)
	}
	if d.Summary.Matched != d.Summary.LeftFunctions || d.Summary.LeftFunctions < 2 {
		t.Errorf("matched %d of %d functions", d.Summary.Matched, d.Summary.LeftFunctions)
	}
}

// TestCompareBinariesStrippedLocalNamedAsImport: shout calls a static
// function of its own named puts, while main calls libc's puts. Stripped,
// the local puts is unnamed, so shout's reference to it is compared through
// the function match and left out on the side with symbols; before, the
// import's name on the stripped side passed for the local function's, and
// shout was "changed" with references removed: [puts] (mingw's inline
// fprintf beside msvcrt's fprintf does this in every PE that prints to a
// stream). Nor is main changed: the side with symbols took puts@plt for a
// thunk to the static puts, not for libc's puts, so main's calls and
// references had puts@plt both added and removed.
func TestCompareBinariesStrippedLocalNamedAsImport(t *testing.T) {
	if _, err := exec.LookPath("gcc"); err != nil {
		t.Skip("gcc is not installed: the C fixtures cannot be built")
	}
	dir := t.TempDir()
	srcs := map[string]string{
		"a.c": "#include <stdio.h>\nint shout(const char *s);\nint main(int c, char **v){ puts(\"hi\"); return shout(v[0]); }\n",
		"b.c": "static int puts(const char *s){ int n = 0; while (s[n]) n++; return n; }\nint shout(const char *s){ return puts(s) + 1; }\n",
	}
	for name, src := range srcs {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(src), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	bin, stripped := filepath.Join(dir, "tu"), filepath.Join(dir, "tu-stripped")
	if out, err := exec.Command("gcc", "-O0", "-o", bin, filepath.Join(dir, "a.c"), filepath.Join(dir, "b.c")).CombinedOutput(); err != nil {
		t.Fatalf("gcc: %v\n%s", err, out)
	}
	if out, err := exec.Command("strip", "-o", stripped, bin).CombinedOutput(); err != nil {
		t.Fatalf("strip: %v\n%s", err, out)
	}
	cs := mcpClient(t)
	var d binDiffT
	_, m := evidence(t, call(t, cs, "compare_binaries", map[string]any{"left_path": bin, "right_path": stripped}))
	decode(t, m, &d)
	if d.Summary.Matched != d.Summary.LeftFunctions {
		t.Fatalf("matched %d of %d functions", d.Summary.Matched, d.Summary.LeftFunctions)
	}
	for _, p := range d.Changed {
		t.Errorf("%s against its stripped self: changed %v", p.Left.Name, p.ChangedDimensions)
	}
}

// TestCompareBinariesStrippedPEEntry: a mingw program's stripped copy
// names its entry point "entry", the engine's placeholder, where the build
// with symbols says mainCRTStartup; WinMainCRTStartup has the same
// instructions with another constant, so no hash tells them apart. The
// placeholder is matched by structure as a sub_ is; before, mainCRTStartup
// was "removed" and entry "added" against the program's own stripped bytes.
func TestCompareBinariesStrippedPEEntry(t *testing.T) {
	const gcc = "x86_64-w64-mingw32-gcc"
	if _, err := exec.LookPath(gcc); err != nil {
		t.Skipf("%s is not installed (Debian package gcc-mingw-w64-x86-64): the PE fixture cannot be built", gcc)
	}
	dir := t.TempDir()
	src, bin, stripped := filepath.Join(dir, "p.c"), filepath.Join(dir, "p.exe"), filepath.Join(dir, "p-stripped.exe")
	if err := os.WriteFile(src, []byte("#include <stdio.h>\nint main(int c, char **v){ printf(\"%s %d\\n\", v[0], c); return 0; }\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command(gcc, "-O2", "-o", bin, src).CombinedOutput(); err != nil {
		t.Fatalf("%s: %v\n%s", gcc, err, out)
	}
	if out, err := exec.Command("x86_64-w64-mingw32-strip", "-o", stripped, bin).CombinedOutput(); err != nil {
		t.Skipf("x86_64-w64-mingw32-strip: %v\n%s", err, out)
	}
	cs := mcpClient(t)
	var d binDiffT
	_, m := evidence(t, call(t, cs, "compare_binaries", map[string]any{"left_path": bin, "right_path": stripped, "detail": "complete"}))
	decode(t, m, &d)
	if len(d.Added)+len(d.Removed) > 0 || d.Summary.Matched != d.Summary.LeftFunctions {
		t.Errorf("against its stripped self: added %v, removed %v, matched %d of %d", names(d.Added), names(d.Removed), d.Summary.Matched, d.Summary.LeftFunctions)
	}
	for _, p := range append(d.Changed, d.Unchanged...) {
		if p.Left.Name == "mainCRTStartup" && (p.Right.Name != "entry" || p.Right.Address != p.Left.Address) {
			t.Errorf("mainCRTStartup matched to %s at %s", p.Right.Name, p.Right.Address)
		}
	}
}

// TestCompareBinariesDataOnly: a new build that changes only a table in
// .data and a string reached through a pointer has no changed function,
// and compare_binaries and find_changed_behavior say that its data did
// change.
func TestCompareBinariesDataOnly(t *testing.T) {
	if _, err := exec.LookPath("gcc"); err != nil {
		t.Skip("gcc is not installed: the C fixtures cannot be built")
	}
	is := is.New(t)
	const src = `#include <stdio.h>
int limits[4] = {10, 20, 30, 40};
const char *motd = "hello v1";
int main(int c, char **v) { printf("%s %d\n", motd, limits[c & 3]); return 0; }
`
	v1 := buildC(t, "data", src)
	v2 := buildC(t, "data", strings.NewReplacer("30, 40", "99, 40", "hello v1", "hello v2").Replace(src))
	cs := mcpClient(t)
	var d struct {
		Summary struct{ Changed, Added, Removed int }
		Data    struct {
			Strings struct {
				Added, Removed []string
			}
			SectionsChanged []string `json:"sections_changed"`
		}
		Limitations []string
	}
	_, m := evidence(t, call(t, cs, "compare_binaries", map[string]any{"left_path": v1, "right_path": v2}))
	decode(t, m, &d)
	is.Equal(d.Summary.Changed+d.Summary.Added+d.Summary.Removed, 0)
	is.Equal(d.Data.Strings.Added, []string{"hello v2"})
	is.Equal(d.Data.Strings.Removed, []string{"hello v1"})
	is.Equal(d.Data.SectionsChanged, []string{".data", ".rodata"})
	is.True(slices.ContainsFunc(d.Limitations, func(l string) bool { return strings.HasPrefix(l, "No function's code changed, but the data did") }))

	ev, _ := evidence(t, call(t, cs, "find_changed_behavior", map[string]any{"left_path": v1, "right_path": v2}))
	is.True(slices.ContainsFunc(ev.Limitations, func(l string) bool {
		return strings.HasPrefix(l, "The binaries' data differ too (1 string(s) added, 1 removed")
	}))

	// A source file is no binary, and the error names the tool called.
	src1 := filepath.Join(t.TempDir(), "data.c")
	is.NoErr(os.WriteFile(src1, []byte(src), 0o600))
	r := call(t, cs, "compare_binaries", map[string]any{"left_path": src1, "right_path": v2})
	is.True(r.isError && strings.Contains(r.text, `"message":"compare_binaries: `) && strings.Contains(r.text, "Pass two native binaries"))

	// The same bytes: nothing in data either.
	_, m = evidence(t, call(t, cs, "compare_binaries", map[string]any{"left_path": v1, "right_path": v1}))
	decode(t, m, &d)
	is.Equal(len(d.Data.Strings.Added)+len(d.Data.Strings.Removed)+len(d.Data.SectionsChanged), 0)
}

// strippedBuild compiles src at -O0 and strips a copy; names maps each
// function's address in the stripped copy (the same as in the build) to
// its symbol, which gives the truth a stripped comparison is checked
// against.
func strippedBuild(t *testing.T, name, src string) (stripped string, names map[string]string) {
	t.Helper()
	if _, err := exec.LookPath("gcc"); err != nil {
		t.Skip("gcc is not installed: the C fixtures cannot be built")
	}
	dir := t.TempDir()
	c, bin := filepath.Join(dir, name+".c"), filepath.Join(dir, name)
	stripped = bin + "-stripped"
	if err := os.WriteFile(c, []byte(src), 0o600); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command("gcc", "-O0", "-o", bin, c).CombinedOutput(); err != nil {
		t.Fatalf("gcc: %v\n%s", err, out)
	}
	if out, err := exec.Command("strip", "-o", stripped, bin).CombinedOutput(); err != nil {
		t.Fatalf("strip: %v\n%s", err, out)
	}
	f, err := elf.Open(bin)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	syms, err := f.Symbols()
	if err != nil {
		t.Fatal(err)
	}
	names = map[string]string{}
	for _, s := range syms {
		if elf.ST_TYPE(s.Info) == elf.STT_FUNC && s.Value != 0 {
			names[fmt.Sprintf("0x%x", s.Value)] = s.Name
		}
	}
	return stripped, names
}

// compareStripped compares two stripped builds and returns each match as
// "left name=right name" by basis, in the builds' true names.
func compareStripped(t *testing.T, cs *sdk.ClientSession, l, r string, ln, rn map[string]string) (byBasis map[string][]string, added, removed []string) {
	t.Helper()
	var d binDiffT
	_, m := evidence(t, call(t, cs, "compare_binaries", map[string]any{"left_path": l, "right_path": r, "detail": "complete"}))
	decode(t, m, &d)
	byBasis = map[string][]string{}
	for _, p := range append(append([]pairT{}, d.Changed...), d.Unchanged...) {
		byBasis[p.Basis] = append(byBasis[p.Basis], ln[p.Left.Address]+"="+rn[p.Right.Address])
	}
	for _, f := range d.Added {
		added = append(added, rn[f.Address])
	}
	for _, f := range d.Removed {
		removed = append(removed, ln[f.Address])
	}
	return byBasis, added, removed
}

// TestCompareBinariesCallGraphNeedsEvidence: a callee is paired by its
// place among a matched function's unmatched callees only when the two
// are each other's best candidate and share something concrete. Two
// programs whose (identical) main calls three helpers doing unrelated
// work get no call-graph match, where position alone paired all three;
// in a new version whose helper was replaced by another, the old and new
// helpers are removed and added, not paired; a rewritten helper that
// keeps its caller and its constants is still found by position.
func TestCompareBinariesCallGraphNeedsEvidence(t *testing.T) {
	const mainCalls = `int main(int argc, char **argv) { printf("%d %d %d\n", a(argc), b(argv[0]), c(argc > 1 ? argv[1] : "/dev/null")); return 0; }
`
	const unrelatedL = `#include <stdio.h>
#include <string.h>
#include <ctype.h>
int a(int n) { int t = 0; for (int i = 1; i <= n; i++) t += i * i - i / 3; return t; }
int b(const char *s) { int up = 0; for (size_t i = 0; i < strlen(s); i++) if (toupper((unsigned char)s[i]) != s[i]) up++; return up; }
int c(const char *path) { FILE *f = fopen(path, "w"); if (!f) return -1; fputs("saved\n", f); return fclose(f); }
` + mainCalls
	const unrelatedR = `#include <stdio.h>
#include <stdlib.h>
static int cmp(const void *x, const void *y) { return *(const int *)x - *(const int *)y; }
int a(int n) { int v[5] = { n, 9, 4, n * 2, 7 }; qsort(v, 5, sizeof v[0], cmp); return v[2]; }
int b(const char *s) { const char *e = getenv(s); if (!e) return 0; switch (atoi(e)) { case 1: return 10; case 2: return 20; case 3: return 40; default: return -1; } }
int c(const char *who) { puts("=========="); puts(who); return puts("=========="); }
` + mainCalls
	const v1 = `#include <stdio.h>
#include <string.h>
int most_common(const int *hist) { int best = 0; for (int i = 1; i < 26; i++) if (hist[i] > hist[best]) best = i; return best; }
int report(const char *s, const int *hist) { return printf("%s %c\n", s, 'a' + most_common(hist)); }
int vowels(const char *s) { int n = 0; for (; *s; s++) if (strchr("aeiou", *s)) n++; return n; }
int main(int argc, char **argv) {
	int hist[26] = {0};
	for (int i = 0; i < argc; i++) {
		for (const char *p = argv[i]; *p; p++) if (*p >= 'a' && *p <= 'z') hist[*p - 'a']++;
		report(argv[i], hist);
	}
	return vowels(argv[0]);
}
`
	replaced := strings.NewReplacer(`int vowels(const char *s) { int n = 0; for (; *s; s++) if (strchr("aeiou", *s)) n++; return n; }`,
		`int digits(const char *s) { int v = 0; for (; *s; s++) if (*s >= '0' && *s <= '9') v = v * 10 + (*s - '0'); return v; }`,
		"return vowels(argv[0]);", "return digits(argv[0]);").Replace(v1)
	rewritten := strings.Replace(v1, `int most_common(const int *hist) { int best = 0; for (int i = 1; i < 26; i++) if (hist[i] > hist[best]) best = i; return best; }`, `int most_common(const int *hist) {
	int h[26], order[26];
	memcpy(h, hist, sizeof h);
	for (int i = 0; i < 26; i++) order[i] = i;
	for (int i = 0; i < 25; i++)
		for (int j = 0; j < 25 - i; j++)
			if (h[order[j]] < h[order[j + 1]]) { int t = order[j]; order[j] = order[j + 1]; order[j + 1] = t; }
	return order[0];
}`, 1)
	cs := mcpClient(t)

	t.Run("unrelated", func(t *testing.T) {
		is := is.New(t)
		l, ln := strippedBuild(t, "left", unrelatedL)
		r, rn := strippedBuild(t, "right", unrelatedR)
		byBasis, added, removed := compareStripped(t, cs, l, r, ln, rn)
		is.True(slices.Contains(byBasis["name"], "main=main")) // the callers match: both named from __libc_start_main's argument
		is.Equal(byBasis["call-graph"], nil)                   // position alone was a=a, b=b, c=c
		for _, n := range []string{"a", "b", "c"} {
			is.True(slices.Contains(removed, n))
			is.True(slices.Contains(added, n))
		}
	})

	t.Run("replaced", func(t *testing.T) {
		is := is.New(t)
		l, ln := strippedBuild(t, "v1", v1)
		r, rn := strippedBuild(t, "v2", replaced)
		byBasis, added, removed := compareStripped(t, cs, l, r, ln, rn)
		is.Equal(byBasis["call-graph"], nil) // position alone was vowels=digits
		is.Equal(removed, []string{"vowels"})
		is.Equal(added, []string{"digits"})
	})

	t.Run("rewritten", func(t *testing.T) {
		is := is.New(t)
		l, ln := strippedBuild(t, "v1", v1)
		r, rn := strippedBuild(t, "v2", rewritten)
		byBasis, added, removed := compareStripped(t, cs, l, r, ln, rn)
		is.Equal(byBasis["call-graph"], []string{"most_common=most_common"})
		allMatchesRight(t, byBasis)
		is.Equal(len(added)+len(removed), 0)
	})
}

// TestCompareBinariesStructureNeedsEvidence: a structure match scoring
// below shapeAlone needs shared content, as a call-graph match does. In
// two unrelated programs a hash loop (checksum) and a counting loop
// (spaces) look alike in shape only and were paired; in a new version
// whose banner gained a check and a call, banner keeps its format string
// and is still paired with its old self.
func TestCompareBinariesStructureNeedsEvidence(t *testing.T) {
	const left = `#include <stdio.h>
#include <string.h>
int checksum(const char *s) { int h = 0; for (; *s; s++) h = h * 31 + *s; return h; }
int longest(int argc, char **argv) { int best = 0; for (int i = 0; i < argc; i++) if ((int)strlen(argv[i]) > best) best = strlen(argv[i]); return best; }
int main(int argc, char **argv) { printf("sum %d\n", checksum(argv[0])); printf("longest %d\n", longest(argc, argv)); return 0; }
`
	const unrelated = `#include <stdio.h>
#include <stdlib.h>
int spaces(const char *s) { int n = 0; while (*s) { if (*s == ' ') n++; s++; } return n; }
int total(int argc, char **argv) { int t = 0; for (int i = 1; i < argc; i++) t += atoi(argv[i]); return t; }
int main(int argc, char **argv) { int t = total(argc, argv); printf("%d spaces, total %d\n", spaces(argv[0]), t); return t > 100; }
`
	const v1 = `#include <stdio.h>
#include <string.h>
int checksum(const char *s) { int h = 0; for (; *s; s++) h = h * 31 + *s; return h; }
void banner(const char *who) { printf("== %s ==\n", who); }
int longest(int argc, char **argv) { int best = 0; for (int i = 0; i < argc; i++) if ((int)strlen(argv[i]) > best) best = strlen(argv[i]); return best; }
int main(int argc, char **argv) { banner(argv[0]); printf("sum %d\n", checksum(argv[0])); printf("longest %d\n", longest(argc, argv)); return 0; }
`
	v2 := strings.Replace(v1, `void banner(const char *who) { printf("== %s ==\n", who); }`,
		`void banner(const char *who) { if (!*who) return; printf("== %s ==\n", who); fflush(stdout); }`, 1)
	cs := mcpClient(t)

	t.Run("unrelated", func(t *testing.T) {
		is := is.New(t)
		l, ln := strippedBuild(t, "left", left)
		r, rn := strippedBuild(t, "right", unrelated)
		byBasis, added, removed := compareStripped(t, cs, l, r, ln, rn)
		for _, pairs := range byBasis {
			is.True(!slices.Contains(pairs, "checksum=spaces")) // shape alone paired them by structure
		}
		is.True(slices.Contains(removed, "checksum"))
		is.True(slices.Contains(added, "spaces"))
	})

	t.Run("edited", func(t *testing.T) {
		is := is.New(t)
		l, ln := strippedBuild(t, "v1", v1)
		r, rn := strippedBuild(t, "v2", v2)
		byBasis, added, removed := compareStripped(t, cs, l, r, ln, rn)
		is.Equal(byBasis["structure"], []string{"banner=banner"}) // below shapeAlone, kept by its string
		allMatchesRight(t, byBasis)
		is.Equal(len(added)+len(removed), 0)
	})
}

// allMatchesRight fails t for each match (by basis, "left=right" by the
// unstripped builds' names) that pairs two different functions.
func allMatchesRight(t *testing.T, byBasis map[string][]string) {
	t.Helper()
	for basis, pairs := range byBasis {
		for _, p := range pairs {
			if l, r, _ := strings.Cut(p, "="); l != r {
				t.Errorf("%s matched by %s", p, basis)
			}
		}
	}
}
