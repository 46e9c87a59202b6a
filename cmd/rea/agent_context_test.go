package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/matryer/is"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"rea/core"
)

// TestUnmappedAddressReadersAgree: an address outside every section and
// segment is the same typed invalid_request (reason out_of_range on
// address) from every reader that takes one, where xrefs, list_names and
// address_name used to answer an empty list as if the address were mapped
// and merely unnamed.
func TestUnmappedAddressReadersAgree(t *testing.T) {
	is := is.New(t)
	bin := needFixture(t)
	cs := mcpClient(t)
	is.True(!call(t, cs, "open_binary", map[string]any{"path": bin}).isError)
	const far = "0xfffffffffff0"
	for _, tool := range []string{"read_bytes", "xrefs", "list_names", "address_name"} {
		code, details := errCode(t, call(t, cs, tool, map[string]any{"address": far}))
		is.Equal(code, core.CodeInvalidRequest)
		issue := details["issues"].([]any)[0].(map[string]any)
		is.Equal(issue["reason"], "out_of_range")
		is.Equal(issue["path"], []any{"address"})
	}
	// A mapped address with no name is still an empty answer.
	_, page := evidence(t, call(t, cs, "list_names", map[string]any{"address": "0x1"}))
	is.Equal(page["total"], 0.0)
}

// tableProgram dispatches a request through a table of handlers, as a
// protocol parser does: main -> dispatch -> table[type](), an indirect call.
const tableProgram = `#include <stdio.h>
static int ping(int v){ printf("pong %d\n", v); return 0; }
static int count(int v){ static int n; n += v; printf("count %d\n", n); return n; }
static int (*const table[])(int) = { ping, count };
__attribute__((noinline)) int dispatch(int type, int v){ if (type < 0 || type > 1) return -1; return table[type](v); }
int main(int c, char **v){ (void)v; return dispatch(c - 1, c) + count(0); }
`

// TestBuildCallPathNamesUnresolvedCalls: a handler reached only through a
// table has no path from main over the records' direct calls, and
// build_call_path says which supplied records make indirect calls it could
// not follow, as trace_call_path does. Before, its only note was "No path
// from main to ping within max_depth", which reads as "ping is not reached".
func TestBuildCallPathNamesUnresolvedCalls(t *testing.T) {
	is := is.New(t)
	bin := buildC(t, "table", tableProgram)
	cs := mcpClient(t)
	is.True(!call(t, cs, "open_binary", map[string]any{"path": bin}).isError)
	var refs []any
	for _, p := range []string{"main", "dispatch", "ping"} {
		ev, _ := evidence(t, call(t, cs, "analyze_function", map[string]any{"procedure": p}))
		refs = append(refs, map[string]any{"kind": "retained-evidence", "evidence_id": string(ev.EvidenceID)})
	}
	var res struct {
		Total int
		Notes []string
	}
	_, m := evidence(t, call(t, cs, "build_call_path", map[string]any{"functions": refs, "start": "main", "goal": "ping"}))
	decode(t, m, &res)
	is.Equal(res.Total, 0)
	unresolved := ""
	for _, n := range res.Notes {
		if strings.Contains(strings.ToLower(n), "unresolved") {
			unresolved = n
		}
	}
	is.True(strings.Contains(unresolved, "dispatch")) // names the record with the indirect call
	is.True(!strings.Contains(unresolved, "main "))   // and not one without

	// A path that exists over direct calls carries no such note.
	_, m = evidence(t, call(t, cs, "build_call_path", map[string]any{"functions": refs, "start": "main", "goal": "dispatch"}))
	decode(t, m, &res)
	is.Equal(res.Total, 1)
	is.Equal(len(res.Notes), 0)

	// The goal need not have a record nor be a supplied record's callee:
	// asked whether ping, called only through the table, is reachable from
	// main over main's and dispatch's records, an agent got "no supplied
	// function or callee is named \"ping\"" (and the same for its address).
	_, pa := evidence(t, call(t, cs, "procedure_address", map[string]any{"procedure": "ping"}))
	for _, goal := range []string{"ping", pa["address"].(string)} {
		r := call(t, cs, "build_call_path", map[string]any{"functions": refs[:2], "start": "main", "goal": goal})
		if r.isError {
			t.Fatalf("goal %s: %s", goal, r.text)
		}
		var out struct {
			Total int
			Notes []string
			Goal  struct{ Name, Address string }
		}
		_, m = evidence(t, r)
		decode(t, m, &out)
		is.Equal(out.Total, 0)
		is.Equal(out.Goal.Name, "ping")
		is.Equal(out.Goal.Address, pa["address"])
		is.True(slices.ContainsFunc(out.Notes, func(n string) bool {
			return strings.Contains(n, "dispatch") && strings.Contains(strings.ToLower(n), "unresolved")
		}))
	}
	// An import's own name names its stub though no record calls it.
	r := call(t, cs, "build_call_path", map[string]any{"functions": refs[:2], "start": "main", "goal": "printf"})
	if r.isError {
		t.Fatalf("goal printf: %s", r.text)
	}
	_, m = evidence(t, r)
	is.Equal(m["goal"].(map[string]any)["name"], "printf@plt")
	// NAME+OFFSET inside a recorded function is that function, as
	// trace_call_path reads it (before: "no supplied function or callee is
	// named \"main+0x4\"").
	r = call(t, cs, "build_call_path", map[string]any{"functions": refs[:2], "start": "main+0x4", "goal": "dispatch"})
	if r.isError {
		t.Fatalf("start main+0x4: %s", r.text)
	}
	_, m = evidence(t, r)
	is.Equal(m["total"], 1.0)
	code, _ := errCode(t, call(t, cs, "build_call_path", map[string]any{"functions": refs[:2], "start": "main+0x100000", "goal": "dispatch"}))
	is.Equal(code, core.CodeInvalidRequest) // past main's end
	// A name the binary does not have is still refused.
	code, _ = errCode(t, call(t, cs, "build_call_path", map[string]any{"functions": refs[:2], "start": "main", "goal": "pong"}))
	is.Equal(code, core.CodeInvalidRequest)
}

// TestAnalystNameShapedLikeAnotherAddress: sub_<hex> is how every address
// argument names an unnamed address, so naming main "sub_<entry>" would
// make that name mean main, not the entry point, in every later argument.
// It is refused as a name collision with the address it denotes; a
// function may still take its own sub_ name. Before, it was accepted and
// goto_address sub_<entry> went to main.
func TestAnalystNameShapedLikeAnotherAddress(t *testing.T) {
	is := is.New(t)
	bin := needFixture(t)
	cs := mcpClient(t)
	is.True(!call(t, cs, "open_binary", map[string]any{"path": bin}).isError)
	_, entry := evidence(t, call(t, cs, "current_address", map[string]any{}))
	_, mainAt := evidence(t, call(t, cs, "goto_address", map[string]any{"address": "main"}))
	other := "sub_" + strings.TrimPrefix(entry["address"].(string), "0x")
	own := "sub_" + strings.TrimPrefix(mainAt["address"].(string), "0x")

	code, details := errCode(t, call(t, cs, "set_address_name", map[string]any{"address": "main", "name": other}))
	is.Equal(code, core.CodeInvalidRequest)
	is.Equal(details["reason"], "name_collision")
	is.Equal(details["address"], entry["address"])
	code, details = errCode(t, call(t, cs, "set_addresses_names", map[string]any{"names": map[string]any{"main": other}}))
	is.Equal(code, core.CodeInvalidRequest)
	is.Equal(details["reason"], "name_collision")
	_, gone := evidence(t, call(t, cs, "goto_address", map[string]any{"address": other}))
	is.Equal(gone["address"], entry["address"])

	is.True(!call(t, cs, "set_address_name", map[string]any{"address": "main", "name": own}).isError)
}

// TestAnnotateAtThePEHeaders: a PE's headers at its image base are mapped
// (list_segments lists them as the segment "headers"; read_bytes reads
// them), and the analyst's tools agree: goto_address, set_comment and
// inspect_address_context work there. Before, they said the image base
// "lies outside every segment of the target" while read_bytes read MZ.
func TestAnnotateAtThePEHeaders(t *testing.T) {
	const gcc = "x86_64-w64-mingw32-gcc"
	if _, err := exec.LookPath(gcc); err != nil {
		t.Skipf("%s is not installed (Debian package gcc-mingw-w64-x86-64): the PE fixture cannot be built", gcc)
	}
	is := is.New(t)
	dir := t.TempDir()
	src, bin := filepath.Join(dir, "p.c"), filepath.Join(dir, "p.exe")
	is.NoErr(os.WriteFile(src, []byte("int main(void){ return 0; }\n"), 0o600))
	if out, err := exec.Command(gcc, "-O1", "-o", bin, src).CombinedOutput(); err != nil {
		t.Fatalf("%s: %v\n%s", gcc, err, out)
	}
	cs := mcpClient(t)
	is.True(!call(t, cs, "open_binary", map[string]any{"path": bin}).isError)
	_, segs := evidence(t, call(t, cs, "list_segments", map[string]any{}))
	first := segs["items"].([]any)[0].(map[string]any)
	is.Equal(first["name"], "headers")
	base := first["start"].(string)
	_, rb := evidence(t, call(t, cs, "read_bytes", map[string]any{"address": base, "length": 2}))
	is.Equal(rb["bytes"], "4d5a") // MZ

	_, gone := evidence(t, call(t, cs, "goto_address", map[string]any{"address": base}))
	is.Equal(gone["address"], base)
	is.True(!call(t, cs, "set_comment", map[string]any{"address": base, "comment": "DOS header"}).isError)
	ctx := sessionResult(t, call(t, cs, "inspect_address_context", map[string]any{"address": base}))
	is.Equal(facet(ctx, "comment")["value"], "DOS header")
	// Past the image's last section it is still unmapped.
	code, _ := errCode(t, call(t, cs, "goto_address", map[string]any{"address": "0x7fffffff0000"}))
	is.Equal(code, core.CodeInvalidRequest)
}

// TestImportedAnnotationConflictIsReported: two agents comment the same
// address (each its revision 1); when one imports the other's bundle, one
// value wins by the documented tie-break (the greater evidence_id), and
// the reading tools say which value was set aside and how to restore it.
// Before, the receiving agent's own comment vanished without a word.
func TestImportedAnnotationConflictIsReported(t *testing.T) {
	is := is.New(t)
	bin := needFixture(t)
	bundle := filepath.Join(t.TempDir(), "a.json")
	a, b := mcpClient(t), mcpClient(t)
	for _, cs := range []*sdk.ClientSession{a, b} {
		is.True(!call(t, cs, "open_binary", map[string]any{"path": bin}).isError)
	}
	is.True(!call(t, a, "set_comment", map[string]any{"address": "main", "comment": "A's reading"}).isError)
	is.True(!call(t, a, "export_evidence_bundle", map[string]any{"path": bundle}).isError)
	is.True(!call(t, b, "set_comment", map[string]any{"address": "main", "comment": "B's reading"}).isError)
	is.True(!call(t, b, "import_evidence_bundle", map[string]any{"path": bundle}).isError)

	ev, got := evidence(t, call(t, b, "comment", map[string]any{"address": "main"}))
	won := got["comment"].(string)
	lost := map[string]string{"A's reading": "B's reading", "B's reading": "A's reading"}[won]
	is.True(lost != "")
	note := strings.Join(ev.Limitations, " ")
	is.True(strings.Contains(note, strconv.Quote(lost))) // names the value set aside
	is.True(strings.Contains(note, "set_comment"))       // and how to restore it

	// A comment without a competing record carries no such note.
	is.True(!call(t, b, "set_comment", map[string]any{"address": "main", "comment": "settled"}).isError)
	ev, _ = evidence(t, call(t, b, "comment", map[string]any{"address": "main"}))
	is.Equal(len(ev.Limitations), 0)
}

// TestCLIAnnotateKeepsChangesBeforeAFailingStep: rea annotate writes the
// bundle after the steps that changed an annotation even when a later step
// fails, as its --bundle help says ("replaced after a step that changed an
// annotation"). Before, a failing third step lost the first two steps'
// comment: nothing was written.
func TestCLIAnnotateKeepsChangesBeforeAFailingStep(t *testing.T) {
	is := is.New(t)
	bin := needFixture(t)
	bundle := filepath.Join(t.TempDir(), "notes.json")
	_, errOut, code := runCLI(t, "annotate", bin, "--bundle", bundle,
		`set_comment={"address":"main","comment":"kept"}`, `goto_address={"address":"0xffffffffff00"}`)
	is.Equal(code, 2)
	is.True(strings.Contains(errOut, "outside every segment"))
	out, _, code := runCLI(t, "--format", "json", "annotate", bin, "--bundle", bundle, `comment={"address":"main"}`)
	is.Equal(code, 0)
	var res []json.RawMessage
	is.NoErr(json.Unmarshal([]byte(out), &res))
	ev, err := core.ParseEvidence(res[0])
	is.NoErr(err)
	var got struct{ Comment *string }
	is.NoErr(json.Unmarshal(ev.NormalizedResult, &got))
	is.True(got.Comment != nil && *got.Comment == "kept")
}
