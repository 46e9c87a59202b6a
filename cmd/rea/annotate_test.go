package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/matryer/is"

	"rea/core"
)

// sessionResult decodes a session tool's {"result": ...}.
func sessionResult(t *testing.T, r result) map[string]any {
	t.Helper()
	if r.isError {
		t.Fatalf("unexpected error: %s", r.text)
	}
	var m struct{ Result map[string]any }
	if err := json.Unmarshal([]byte(r.text), &m); err != nil {
		t.Fatal(err)
	}
	return m.Result
}

func facet(m map[string]any, name string) map[string]any {
	return m["facets"].(map[string]any)[name].(map[string]any)
}

func procedureValue(t *testing.T, cs interface{}, items []any, addr string) map[string]any {
	t.Helper()
	for _, it := range items {
		if m := it.(map[string]any); m["address"] == addr {
			return m
		}
	}
	t.Fatalf("no procedure at %s", addr)
	return nil
}

func TestMCPNavigationAndAnnotations(t *testing.T) {
	is := is.New(t)
	bin := needFixture(t)
	cs := mcpClient(t)
	if r := call(t, cs, "open_binary", map[string]any{"path": bin}); r.isError {
		t.Fatal(r.text)
	}

	// The cursor starts at the entry point, in a procedure.
	_, cur := evidence(t, call(t, cs, "current_document", map[string]any{}))
	is.Equal(cur["document"], "elf")
	_, start := evidence(t, call(t, cs, "current_address", map[string]any{}))
	is.True(start["address"] != nil)
	_, gone := evidence(t, call(t, cs, "goto_address", map[string]any{"address": "main"}))
	mainAddr := gone["address"].(string)
	is.Equal(gone["previous_address"], start["address"])
	is.Equal(gone["procedure"].(map[string]any)["name"], "main")
	_, cp := evidence(t, call(t, cs, "current_procedure", map[string]any{}))
	is.Equal(cp["procedure"].(map[string]any)["address"], mainAddr)
	nav := sessionResult(t, call(t, cs, "get_navigation_context", map[string]any{}))
	is.Equal(nav["mode"], "current_selection")
	is.Equal(nav["address"], mainAddr)
	is.Equal(nav["procedure"].(map[string]any)["name"], "main")
	nav = sessionResult(t, call(t, cs, "get_navigation_context", map[string]any{"document": "elf"}))
	is.Equal(nav["mode"], "explicit_document")

	// Outside every procedure (the start of .data), procedure is null.
	_, segs := evidence(t, call(t, cs, "list_segments", map[string]any{}))
	data := ""
	for _, s := range segs["items"].([]any) {
		if m := s.(map[string]any); m["name"] == ".data" {
			data = m["start"].(string)
		}
	}
	is.True(data != "")
	evidence(t, call(t, cs, "goto_address", map[string]any{"address": data}))
	nav = sessionResult(t, call(t, cs, "get_navigation_context", map[string]any{}))
	is.Equal(nav["address"], data)
	is.Equal(nav["procedure"], nil)
	_, cp = evidence(t, call(t, cs, "current_procedure", map[string]any{}))
	is.Equal(cp["procedure"], nil)

	// Annotations.
	ev, m := evidence(t, call(t, cs, "set_address_name", map[string]any{"address": "helper", "name": "scale_banner"}))
	is.Equal(ev.PredicateType, "rea.annotation-mutation")
	is.Equal(ev.Authority, "analyst-inference")
	helperAddr := m["changes"].([]any)[0].(map[string]any)["address"].(string)
	evidence(t, call(t, cs, "set_comment", map[string]any{"address": "main", "comment": "prints the banner"}))
	evidence(t, call(t, cs, "set_inline_comment", map[string]any{"address": mainAddr, "comment": "entry of the program"}))
	evidence(t, call(t, cs, "set_bookmark", map[string]any{"address": "main", "name": "start here"}))
	_, again := evidence(t, call(t, cs, "set_comment", map[string]any{"address": "main", "comment": "prints the banner"}))
	is.Equal(again["changes"].([]any)[0].(map[string]any)["changed"], false) // the same value is not a new revision

	ctx := sessionResult(t, call(t, cs, "inspect_address_context", map[string]any{"address": "main"}))
	is.Equal(facet(ctx, "comment")["value"], "prints the banner")
	is.Equal(facet(ctx, "inline_comment")["value"], "entry of the program")
	is.Equal(facet(ctx, "bookmark")["value"], map[string]any{"name": "start here"})
	is.Equal(facet(ctx, "procedure")["value"].(map[string]any)["name"], "main")
	ctx = sessionResult(t, call(t, cs, "inspect_address_context", map[string]any{"address": helperAddr}))
	is.Equal(facet(ctx, "name")["value"], map[string]any{"name": "scale_banner", "engine_name": "helper", "analyst_name": "scale_banner"})
	_, cm := evidence(t, call(t, cs, "comment", map[string]any{"address": "main"}))
	is.Equal(cm["comment"], "prints the banner")
	_, bm := evidence(t, call(t, cs, "list_bookmarks", map[string]any{}))
	is.Equal(bm["total"], 1.0)

	// The new name in listings (the engine's kept in symbol), call graphs
	// and dossiers, each naming the original in a limitation.
	checkRenamed := func(cs2 interface{}, lp map[string]any, lev *core.Evidence) {
		t.Helper()
		it := procedureValue(t, cs2, lp["items"].([]any), helperAddr)
		is.Equal(it["value"], "scale_banner")
		is.Equal(it["symbol"], "helper")
		is.True(strings.Contains(strings.Join(lev.Limitations, "\n"), `"scale_banner" (engine: "helper")`))
	}
	lev, lp := evidence(t, call(t, cs, "list_procedures", map[string]any{"limit": 500}))
	checkRenamed(cs, lp, lev)
	_, cg := evidence(t, call(t, cs, "get_call_graph", map[string]any{"address": "main"}))
	found := false
	for _, n := range cg["nodes"].([]any) {
		if n := n.(map[string]any); n["address"] == helperAddr {
			found = n["name"] == "scale_banner"
		}
	}
	is.True(found)
	_, af := evidence(t, call(t, cs, "analyze_function", map[string]any{"procedure": "scale_banner"}))
	is.Equal(af["procedure"].(map[string]any)["name"], "scale_banner")

	// Bad input: typed errors, nothing lost.
	bad := []struct {
		tool   string
		args   map[string]any
		reason string
	}{
		{"set_comment", map[string]any{"address": "0xffffffffff00", "comment": "nowhere"}, "address_unmapped"},
		{"goto_address", map[string]any{"address": "0xffffffffff00"}, "address_unmapped"},
		{"set_address_name", map[string]any{"address": mainAddr, "name": "scale_banner"}, "name_collision"},
		{"set_address_name", map[string]any{"address": helperAddr, "name": "main"}, "name_collision"},
		{"set_addresses_names", map[string]any{"names": map[string]any{"main": "twin", "helper": "twin"}}, "name_collision"},
		{"set_comment", map[string]any{"address": "main", "comment": "   "}, ""},
		{"set_comment", map[string]any{"address": "main", "comment": ""}, ""},
		{"set_comment", map[string]any{"address": "main", "comment": strings.Repeat("x", 5000)}, ""},
		{"set_address_name", map[string]any{"address": "main", "name": "0x1234"}, ""},
	}
	for _, b := range bad {
		code, details := errCode(t, call(t, cs, b.tool, b.args))
		is.Equal(code, core.CodeInvalidRequest)
		if b.reason != "" {
			is.Equal(details["reason"], b.reason)
		}
	}
	evidence(t, call(t, cs, "unset_bookmark", map[string]any{"address": "main"}))
	code, details := errCode(t, call(t, cs, "unset_bookmark", map[string]any{"address": "main"}))
	is.Equal(code, core.CodeInvalidRequest)
	is.Equal(details["reason"], "annotation_absent")
	ctx = sessionResult(t, call(t, cs, "inspect_address_context", map[string]any{"address": "main"}))
	is.Equal(facet(ctx, "comment")["value"], "prints the banner") // nothing lost
	is.Equal(facet(ctx, "bookmark")["value"], nil)
	is.Equal(facet(ctx, "name")["value"].(map[string]any)["name"], "main")

	// A bundle exported with the annotations restores them in a fresh session.
	path := filepath.Join(t.TempDir(), "annotations.json")
	evidence(t, call(t, cs, "set_bookmark", map[string]any{"address": helperAddr}))
	if r := call(t, cs, "export_evidence_bundle", map[string]any{"path": path}); r.isError {
		t.Fatal(r.text)
	}
	fresh := mcpClient(t)
	if r := call(t, fresh, "open_binary", map[string]any{"path": bin}); r.isError {
		t.Fatal(r.text)
	}
	_, lp0 := evidence(t, call(t, fresh, "list_procedures", map[string]any{"limit": 500}))
	is.Equal(procedureValue(t, fresh, lp0["items"].([]any), helperAddr)["value"], "helper") // not yet
	if r := call(t, fresh, "import_evidence_bundle", map[string]any{"path": path}); r.isError {
		t.Fatal(r.text)
	}
	ctx = sessionResult(t, call(t, fresh, "inspect_address_context", map[string]any{"address": "main"}))
	is.Equal(facet(ctx, "comment")["value"], "prints the banner")
	is.Equal(facet(ctx, "inline_comment")["value"], "entry of the program")
	is.Equal(facet(ctx, "bookmark")["value"], nil) // removed before the export
	_, bm = evidence(t, call(t, fresh, "list_bookmarks", map[string]any{}))
	is.Equal(bm["total"], 1.0)
	is.Equal(bm["items"].([]any)[0].(map[string]any)["address"], helperAddr)
	lev, lp = evidence(t, call(t, fresh, "list_procedures", map[string]any{"limit": 500}))
	checkRenamed(fresh, lp, lev)
	// The revision chain continues across the import.
	_, ch := evidence(t, call(t, fresh, "set_comment", map[string]any{"address": "main", "comment": "prints the banner twice"}))
	is.Equal(ch["changes"].([]any)[0].(map[string]any)["revision"], 2.0)
	is.Equal(ch["changes"].([]any)[0].(map[string]any)["previous"], "prints the banner")

	// close_binary drops the overlay with the ledger.
	if r := call(t, fresh, "close_binary", map[string]any{}); r.isError {
		t.Fatal(r.text)
	}
	if r := call(t, fresh, "open_binary", map[string]any{"path": bin}); r.isError {
		t.Fatal(r.text)
	}
	_, cm = evidence(t, call(t, fresh, "comment", map[string]any{"address": "main"}))
	is.Equal(cm["comment"], nil)
}

func TestCLIAnnotate(t *testing.T) {
	is := is.New(t)
	bin := needFixture(t)
	bundle := filepath.Join(t.TempDir(), "notes.json")
	out, errOut, code := runCLI(t, "annotate", bin, "--bundle", bundle,
		`set_address_name={"address":"helper","name":"scale_banner"}`, `set_comment={"address":"main","comment":"prints the banner"}`, `set_bookmark={"address":"main"}`)
	is.Equal(code, 0)
	is.Equal(errOut, "")
	is.True(strings.Contains(out, "set_comment"))
	// Text mode renders each step readably (before: each step's JSON on one
	// line, cut at 400 characters); --format json keeps the records.
	is.True(!strings.Contains(out, `{"`))
	is.True(regexp.MustCompile(`(?m)^\s+store:\s+rea-overlay$`).MatchString(out))
	is.True(regexp.MustCompile(`(?m)^\s+0x[0-9a-f]+\s+comment\s+prints the banner\s+yes\s`).MatchString(out)) // the change, a table row
	_, err := os.Stat(bundle)
	is.NoErr(err)

	// A second invocation reads what the first one wrote.
	out, _, code = runCLI(t, "--format", "json", "annotate", bin, "--bundle", bundle,
		`goto_address={"address":"main"}`, "current_procedure", `inspect_address_context={"address":"main"}`, `search_procedures={"pattern":"scale"}`)
	is.Equal(code, 0)
	var res []json.RawMessage
	is.NoErr(json.Unmarshal([]byte(out), &res))
	is.Equal(len(res), 4)
	var insp struct{ Result map[string]any }
	is.NoErr(json.Unmarshal(res[2], &insp))
	is.Equal(facet(insp.Result, "comment")["value"], "prints the banner")
	out, _, code = runCLI(t, "annotate", bin, "--bundle", bundle, `inspect_address_context={"address":"main"}`)
	is.Equal(code, 0)
	is.True(!strings.Contains(out, `{"`))
	is.True(regexp.MustCompile(`(?m)^\s+comment\s+prints the banner`).MatchString(out)) // the facet, whole
	is.True(!strings.Contains(out, "…"))
	ev, err := core.ParseEvidence(res[3])
	is.NoErr(err)
	is.True(strings.Contains(string(ev.NormalizedResult), `"value":"scale_banner"`))

	// A bookmark removed twice: the second removal fails, the bundle keeps the first.
	_, _, code = runCLI(t, "annotate", bin, "--bundle", bundle, `unset_bookmark={"address":"main"}`)
	is.Equal(code, 0)
	_, errOut, code = runCLI(t, "annotate", bin, "--bundle", bundle, `unset_bookmark={"address":"main"}`)
	is.Equal(code, 2)
	is.True(strings.Contains(errOut, "annotation_absent") || strings.Contains(errOut, "no bookmark"))
	_, errOut, code = runCLI(t, "annotate", bin, `goto_address={"address":"0xffffffffff00"}`)
	is.Equal(code, 2)
	is.True(strings.Contains(errOut, "outside every segment"))
	_, _, code = runCLI(t, "annotate", bin, "open_binary")
	is.Equal(code, 2)
}
