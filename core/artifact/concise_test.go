package artifact_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/matryer/is"

	"rea/core"
	"rea/core/artifact"
)

// TestConciseInventoryAndInspection checks that inventory_artifact and
// inspect_artifact answer a many-entry artifact concisely by default:
// counts by kind and format, the integrity verdict, what is suspicious and
// one page of entries whose total is exact, that paging with offset and
// limit reads every entry once, that "detail":"complete" gives every
// entry, and that compare_artifacts reads both concise forms through the
// complete records they name. Before, a 20k-entry ASAR's inventory (56 MB)
// and inspection (19 MB) failed with resource_constraint over MCP.
func TestConciseInventoryAndInspection(t *testing.T) {
	is := is.New(t)
	s := artSession(t)
	dir := t.TempDir()
	const files = 400
	for i := range files {
		sub := filepath.Join(dir, fmt.Sprintf("d%d", i%4))
		os.MkdirAll(sub, 0o755)
		os.WriteFile(filepath.Join(sub, fmt.Sprintf("m%03d.js", i)), []byte(fmt.Sprintf("module.exports = %d;\n", i)), 0o644)
	}
	const entries = files + 4 + 1 // the files, their directories and the root

	r, ev := mustCall(t, s, "inventory_artifact", map[string]any{"path": dir})
	raw, _ := json.Marshal(r)
	is.True(len(raw) < 48<<10) // one page, not every record
	for _, k := range []string{"nodes", "occurrences", "edges"} {
		_, has := r[k]
		is.True(!has) // the graph's lists are in the complete record
	}
	sum := r["summary"].(map[string]any)
	is.Equal(sum["entry_kinds"], map[string]any{"file": float64(files), "directory": float64(5)})
	is.Equal(sum["kinds"].(map[string]any)["javascript"], float64(files))
	is.Equal(sum["integrity"], "consistent")
	page := r["page"].(map[string]any)
	is.Equal(page["total"], float64(entries))
	is.Equal(page["next_offset"], float64(50))
	is.Equal(len(r["entries"].([]any)), 50)
	parent := r["parent_evidence_id"].(string)
	is.Equal(len(ev.EvidenceLinks), 1)
	is.Equal(string(ev.EvidenceLinks[0]), parent)

	// Paging reads every entry once, in occurrence order.
	seen := map[string]bool{}
	for off := 0; ; {
		p, _ := mustCall(t, s, "inventory_artifact", map[string]any{"path": dir, "offset": off, "limit": 150})
		for _, e := range p["entries"].([]any) {
			path := e.(map[string]any)["logical_path"].(string)
			is.True(!seen[path])
			seen[path] = true
		}
		next := p["page"].(map[string]any)["next_offset"]
		if next == nil {
			break
		}
		off = int(next.(float64))
	}
	is.Equal(len(seen), entries)

	// detail complete: the whole graph, as the retained parent holds it.
	full, fev := mustCall(t, s, "inventory_artifact", map[string]any{"path": dir, "detail": "complete"})
	is.Equal(len(full["occurrences"].([]any)), entries)
	is.Equal(string(fev.EvidenceID), parent)
	_, _, e := artCall(t, s, t.Context(), "inventory_artifact", map[string]any{"path": dir, "detail": "complete", "limit": 10})
	is.True(e != nil) // a page of the complete form is refused, not ignored

	// The inspection: a page of observations, counts over all of them.
	ir, iev := mustCall(t, s, "inspect_artifact", map[string]any{"path": dir, "limit": 10})
	is.Equal(len(ir["observations"].([]any)), 10)
	is.Equal(ir["page"].(map[string]any)["total"], float64(entries))
	is.Equal(ir["summary"].(map[string]any)["kinds"].(map[string]any)["javascript"], float64(files))
	ic, _ := mustCall(t, s, "inspect_artifact", map[string]any{"path": dir, "detail": "complete"})
	is.Equal(len(ic["observations"].([]any)), entries)

	// compare_artifacts reads the concise inventory and the concise
	// inspection through the complete records they name.
	c, _ := mustCall(t, s, "compare_artifacts", map[string]any{"left": ref(ev), "right": ref(iev)})
	is.Equal(c["status"], "equal")
	is.Equal(c["left"].(map[string]any)["entries"], float64(entries))
	is.Equal(c["right"].(map[string]any)["entries"], float64(entries))
}

// TestLargeExtractionSaysWhereTheFilesAre checks that an extraction of more
// than 1000 files answers with the first 1000, says that every file is
// under output_root (naming it), and retains the complete result. Before,
// extracting a 20k-file ASAR wrote every file and then failed with
// resource_constraint (12.9 MB) without saying where they were.
func TestLargeExtractionSaysWhereTheFilesAre(t *testing.T) {
	is := is.New(t)
	s := artSession(t)
	dir := t.TempDir()
	const files = 1001
	for i := range files {
		os.WriteFile(filepath.Join(dir, fmt.Sprintf("f%04d.txt", i)), []byte(fmt.Sprint(i)), 0o644)
	}
	r, ev := mustCall(t, s, "extract_artifact", map[string]any{"path": dir})
	root := r["output_root"].(string)
	t.Cleanup(func() { os.RemoveAll(root) })
	is.Equal(len(r["artifacts"].([]any)), 1000)
	is.Equal(len(r["extraction_manifest"].(map[string]any)["selected_occurrence_ids"].([]any)), 1000)
	note := r["limitations"].([]any)[0].(string)
	is.True(strings.Contains(note, "All 1001 files were written under output_root ("+root+")"))
	last, err := os.ReadFile(filepath.Join(root, "f1000.txt"))
	is.NoErr(err)
	is.Equal(string(last), "1000")
	parent := r["parent_evidence_id"].(string)
	is.Equal(string(ev.EvidenceLinks[len(ev.EvidenceLinks)-1]), parent)
	full, err := s.Ledger().Resolve(core.EvidenceID(parent))
	is.NoErr(err)
	var complete struct {
		Artifacts []any `json:"artifacts"`
	}
	is.NoErr(json.Unmarshal(full.NormalizedResult, &complete))
	is.Equal(len(complete.Artifacts), files) // the complete record lists every file
}

// TestDefaultEntryLimitIsTheCLIs: a call that sets no max_entries gets the
// limit rea inventory uses, 100,000, so an application of more than
// 10,000 entries is read over MCP as on the command line. Before, MCP
// defaulted to 10,000 (truncated) where rea inventory read 100,000.
func TestDefaultEntryLimitIsTheCLIs(t *testing.T) {
	is := is.New(t)
	dir := t.TempDir()
	for d := range 11 {
		sub := filepath.Join(dir, fmt.Sprint("d", d))
		os.MkdirAll(sub, 0o755)
		for i := range 1000 {
			os.WriteFile(filepath.Join(sub, fmt.Sprint(i)), nil, 0o644)
		}
	}
	r, _ := mustCall(t, artSession(t), "inventory_artifact", map[string]any{"path": dir, "limit": 1})
	is.Equal(r["limits"].(map[string]any)["max_entries"], float64(100000))
	is.Equal(r["page"].(map[string]any)["total"], float64(11000+11+1))
}

// TestConciseSummaryNamesWhatTheEntriesHide: the concise answer's summary
// names what only the complete graph's limitations held: entries a
// container left out for unsafe names (a zip-slip sample's point) and
// links whose targets lead outside the inventoried root, with their
// targets; its limitation says where every left-out name is. Before, a ZIP
// with ../evil.txt and a link to /etc/passwd had suspicious [] and pointed
// at occurrence limitations the concise answer does not carry.
func TestConciseSummaryNamesWhatTheEntriesHide(t *testing.T) {
	is := is.New(t)
	p := filepath.Join(t.TempDir(), "slip.zip")
	os.WriteFile(p, fakeBox("zip", fakeEntry{Path: "ok.txt", Data: "fine"},
		fakeEntry{Path: "../evil.txt", Data: "x", Reject: "dot-dot"}, fakeEntry{Path: "/abs/evil.txt", Data: "y", Reject: "absolute"},
		fakeEntry{Path: "a/out", Kind: "symlink", Link: "../../etc/passwd"}, fakeEntry{Path: "a/abs", Kind: "symlink", Link: "/etc/passwd"},
		fakeEntry{Path: "a/in", Kind: "symlink", Link: "../ok.txt"}), 0o644)
	s := artSession(t)
	for _, op := range []string{"inventory_artifact", "inspect_artifact"} {
		r, _ := mustCall(t, s, op, map[string]any{"path": p})
		is.Equal(toStrings(r["summary"].(map[string]any)["suspicious"]), []string{
			`2 entr(ies) were left out for unsafe or ambiguous names and never read: "../evil.txt", "/abs/evil.txt"`,
			`2 symbolic link(s) lead outside the inventoried root (recorded, never followed): a/abs -> "/etc/passwd", a/out -> "../../etc/passwd"`,
		})
		lims := strings.Join(toStrings(r["limitations"]), "\n")
		is.True(strings.Contains(lims, `2 entr(ies) of 1 container(s) were left out`))
		is.True(!strings.Contains(lims, "their containers' occurrence limitations name them")) // not in this answer
		is.True(strings.Contains(lims, `"detail":"complete"`))
	}
	full, _ := mustCall(t, s, "inventory_artifact", map[string]any{"path": p, "detail": "complete"})
	is.True(strings.Contains(strings.Join(toStrings(full["limitations"]), "\n"), "their containers' occurrence limitations name them"))
}

// TestConciseSummaryCountsAnUnpackedAddonOnce: an ASAR's add-on in its
// .unpacked companion directory is one file, listed twice (beside the
// archive and inside it): the summary counts it once, as the inspection's
// hypotheses do. Before, it said "2 native add-on(s)" for one.
func TestConciseSummaryCountsAnUnpackedAddonOnce(t *testing.T) {
	is := is.New(t)
	root := appTree(t, t.TempDir())
	r, _ := mustCall(t, artSession(t), "inventory_artifact", map[string]any{"path": root})
	var addons []string
	for _, s := range toStrings(r["summary"].(map[string]any)["suspicious"]) {
		if strings.Contains(s, "native add-on") {
			addons = append(addons, s)
		}
	}
	is.Equal(addons, []string{"1 native add-on(s) run with the host process's privileges: resources/app.asar/addon.node"})
}

// TestEntriesCarryLinkTargets: an entry that is a symbolic link carries
// its target (as recorded, never followed) in the concise inventory, the
// inspection and compare_artifacts, and other entries carry none. Before,
// only the complete graph's node limitations held it, while extract_artifact
// said "the inventory records each link's target".
func TestEntriesCarryLinkTargets(t *testing.T) {
	is := is.New(t)
	dir := t.TempDir()
	v1, v2 := filepath.Join(dir, "v1.zip"), filepath.Join(dir, "v2.zip")
	os.WriteFile(v1, fakeBox("zip", fakeEntry{Path: "ok.txt", Data: "fine"}, fakeEntry{Path: "cur", Kind: "symlink", Link: "ok.txt"},
		fakeEntry{Path: "odd", Kind: "symlink", Link: "a \"quoted\"\nname"}), 0o644)
	os.WriteFile(v2, fakeBox("zip", fakeEntry{Path: "ok.txt", Data: "fine"}, fakeEntry{Path: "cur", Kind: "symlink", Link: "/etc/passwd"},
		fakeEntry{Path: "odd", Kind: "symlink", Link: "a \"quoted\"\nname"}), 0o644)
	s := artSession(t)
	targets := func(entries any) map[string]any {
		m := map[string]any{}
		for _, e := range entries.([]any) {
			e := e.(map[string]any)
			m[e["logical_path"].(string)] = e["link_target"]
		}
		return m
	}
	r, lev := mustCall(t, s, "inventory_artifact", map[string]any{"path": v1})
	is.Equal(targets(r["entries"]), map[string]any{".": nil, "ok.txt": nil, "cur": "ok.txt", "odd": "a \"quoted\"\nname"})
	ir, _ := mustCall(t, s, "inspect_artifact", map[string]any{"path": v1})
	is.Equal(targets(ir["observations"]), targets(r["entries"]))
	_, rev := mustCall(t, s, "inventory_artifact", map[string]any{"path": v2})
	c, _ := mustCall(t, s, "compare_artifacts", map[string]any{"left": ref(lev), "right": ref(rev)})
	for _, d := range c["differences"].([]any) {
		d := d.(map[string]any)
		if d["logical_path"] == "cur" {
			is.Equal(d["left"].(map[string]any)["link_target"], "ok.txt")
			is.Equal(d["right"].(map[string]any)["link_target"], "/etc/passwd")
			return
		}
	}
	t.Fatal("the retargeted link is not a difference")
}

// pagesFixture is a root ASAR of n files and an unpacked file stored in
// its .unpacked companion.
func pagesFixture(t *testing.T, n int, unpacked string) string {
	t.Helper()
	dir := t.TempDir()
	entries := []fakeEntry{{Path: "native/addon.node", Data: unpacked, Unpacked: true, SHA: sum256(unpacked)}}
	for i := range n {
		entries = append(entries, fakeEntry{Path: fmt.Sprintf("lib/m%03d.js", i), Data: fmt.Sprintf("module.exports = %d;\n", i), SHA: "ok"})
	}
	p := filepath.Join(dir, "app.asar")
	is.New(t).NoErr(os.WriteFile(p, fakeBox("asar", entries...), 0o644))
	writeTree(t, dir, node{path: "app.asar.unpacked/native/addon.node", data: unpacked})
	return p
}

// TestLaterPagesAreCutFromTheRetainedInventory checks that a later page of
// a concise inventory of a file is cut from the complete inventory the
// connection retains, without building the graph again, with the bytes
// and Evidence ID a rebuilt page has; and that a change to the root's bytes
// or to a companion file it read is rebuilt, never served stale. Before,
// every page rebuilt the whole graph (about 4 s a page on a 20k-file ASAR).
func TestLaterPagesAreCutFromTheRetainedInventory(t *testing.T) {
	is := is.New(t)
	builds, restore := artifact.CountBuilds()
	defer restore()
	p := pagesFixture(t, 30, "addon-v1")
	s := artSession(t)
	first, _ := mustCall(t, s, "inventory_artifact", map[string]any{"path": p, "limit": 10})
	is.Equal(builds(), 1)
	second, sev := mustCall(t, s, "inventory_artifact", map[string]any{"path": p, "offset": 10, "limit": 10})
	is.Equal(builds(), 1) // cut from the retained inventory
	is.Equal(second["parent_evidence_id"], first["parent_evidence_id"])
	is.Equal(len(second["entries"].([]any)), 10)

	// A new connection builds the same page: the same bytes and ID.
	_, rev := mustCall(t, artSession(t), "inventory_artifact", map[string]any{"path": p, "offset": 10, "limit": 10})
	is.Equal(builds(), 2)
	is.Equal(string(rev.NormalizedResult), string(sev.NormalizedResult))
	is.Equal(rev.EvidenceID, sev.EvidenceID)

	// Other arguments name another complete record: built.
	mustCall(t, s, "inventory_artifact", map[string]any{"path": p, "offset": 10, "limit": 10, "integrity_policy": "record-and-continue"})
	is.Equal(builds(), 3)
	mustCall(t, s, "inventory_artifact", map[string]any{"path": p, "offset": 20, "limit": 10, "integrity_policy": "record-and-continue"})
	is.Equal(builds(), 3)

	// Changed root bytes: rebuilt, and the page says so.
	fresh := pagesFixture(t, 31, "addon-v1")
	data, err := os.ReadFile(fresh)
	is.NoErr(err)
	is.NoErr(os.WriteFile(p, data, 0o644))
	changed, _ := mustCall(t, s, "inventory_artifact", map[string]any{"path": p, "offset": 20, "limit": 10, "integrity_policy": "record-and-continue"})
	is.Equal(builds(), 4)
	is.Equal(changed["page"].(map[string]any)["total"], second["page"].(map[string]any)["total"].(float64)+1)

	// A changed companion file (same root bytes): rebuilt.
	mustCall(t, s, "inventory_artifact", map[string]any{"path": p, "offset": 10, "limit": 10, "integrity_policy": "record-and-continue"})
	is.Equal(builds(), 4)
	is.NoErr(os.WriteFile(filepath.Join(filepath.Dir(p), "app.asar.unpacked/native/addon.node"), []byte("addon-v2"), 0o644))
	rebuilt, _ := mustCall(t, s, "inventory_artifact", map[string]any{"path": p, "offset": 10, "limit": 10, "integrity_policy": "record-and-continue"})
	is.Equal(builds(), 5)
	is.Equal(rebuilt["summary"].(map[string]any)["integrity"], "contradicted") // the add-on no longer matches its declared hash
	// A removed companion file: rebuilt.
	is.NoErr(os.Remove(filepath.Join(filepath.Dir(p), "app.asar.unpacked/native/addon.node")))
	mustCall(t, s, "inventory_artifact", map[string]any{"path": p, "offset": 10, "limit": 10, "integrity_policy": "record-and-continue"})
	is.Equal(builds(), 6)

	// Root bytes changed after a build, before any page was cut from it
	// (the bytes are first checked then, against what the build read):
	// rebuilt.
	data, err = os.ReadFile(pagesFixture(t, 32, "addon-v1"))
	is.NoErr(err)
	is.NoErr(os.WriteFile(p, data, 0o644))
	mustCall(t, s, "inventory_artifact", map[string]any{"path": p, "offset": 10, "limit": 10, "integrity_policy": "record-and-continue"})
	is.Equal(builds(), 7)
	// A companion that appears after a build, before any page: rebuilt.
	is.NoErr(os.WriteFile(filepath.Join(filepath.Dir(p), "app.asar.unpacked/native/addon.node"), []byte("addon-v1"), 0o644))
	mustCall(t, s, "inventory_artifact", map[string]any{"path": p, "offset": 10, "limit": 10, "integrity_policy": "record-and-continue"})
	is.Equal(builds(), 8)
	mustCall(t, s, "inventory_artifact", map[string]any{"path": p, "offset": 20, "limit": 10, "integrity_policy": "record-and-continue"})
	is.Equal(builds(), 8) // unchanged since: cut
}

// TestPagePastTheEndSaysWhereTheEntriesAre: an offset past the last entry
// answers no entries and a limitation giving the count and the offset to
// pass, in the inventory and the inspection. Before, it answered
// "entries": [] with no word.
func TestPagePastTheEndSaysWhereTheEntriesAre(t *testing.T) {
	is := is.New(t)
	p := pagesFixture(t, 10, "addon")
	s := artSession(t)
	const want = "offset 500 is past the end: there are 14 entries (offsets 0 to 13); pass offset 0 for the first page, or offset 4 for the last page of 10."
	for _, call := range []struct{ op, list string }{{"inventory_artifact", "entries"}, {"inspect_artifact", "observations"}} {
		r, _ := mustCall(t, s, call.op, map[string]any{"path": p, "offset": 500, "limit": 10})
		is.Equal(len(r[call.list].([]any)), 0)
		is.Equal(r["limitations"].([]any)[0], want)
	}
	r, _ := mustCall(t, s, "inventory_artifact", map[string]any{"path": p, "offset": 13, "limit": 10}) // the last entry
	is.True(!strings.Contains(fmt.Sprint(r["limitations"]), "past the end"))
}

// TestCompleteAdviceFitsTheResponse: the concise inventory's note offers
// "detail":"complete" only when the complete record fits one response;
// otherwise it names export_evidence_bundle. Before, it offered
// "detail":"complete" even at 52 MB (20k files), which then failed.
func TestCompleteAdviceFitsTheResponse(t *testing.T) {
	is := is.New(t)
	p := pagesFixture(t, 10, "addon")
	note := func(room int64) string {
		raw, _ := json.Marshal(map[string]any{"path": p, "limit": 5})
		res, err := artSession(t).Call(t.Context(), "inventory_artifact", raw, &core.CallOptions{ResultBytes: room})
		is.NoErr(err)
		var r struct {
			Limitations []string `json:"limitations"`
		}
		is.NoErr(json.Unmarshal(res.Evidence.NormalizedResult, &r))
		return r.Limitations[0]
	}
	fits := note(0) // the default budget
	if !strings.HasSuffix(fits, `or with "detail":"complete".`) {
		t.Fatal(fits)
	}
	is.True(!strings.Contains(fits, "export_evidence_bundle"))
	small := note(4096)
	is.True(strings.Contains(small, `too large for one response (4096)`))
	is.True(strings.Contains(small, `export_evidence_bundle {"path":"/tmp/rea-evidence.json"}`))
}
