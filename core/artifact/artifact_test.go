package artifact_test

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/matryer/is"

	"rea/core"
	"rea/core/artifact"
	"rea/ports"
)

var (
	artCatOnce sync.Once
	artCat     *core.Catalog
)

func artSession(t *testing.T) *core.Session {
	t.Helper()
	artCatOnce.Do(func() { artCat = catalog(t) })
	reg, err := core.NewRegistry(nil, &core.RegistryOptions{Containers: []ports.ContainerOpener{fakeOpener{}}})
	if err != nil {
		t.Fatal(err)
	}
	return core.NewSession(artCat, reg, nil)
}

// artCall runs op and returns its decoded result and Evidence, or the error.
func artCall(t *testing.T, s *core.Session, ctx context.Context, op string, args map[string]any) (map[string]any, *core.Evidence, *core.Error) {
	t.Helper()
	raw, _ := json.Marshal(args)
	res, err := s.Call(ctx, op, raw, nil)
	if err != nil {
		return nil, nil, core.AsError(op, err)
	}
	var m map[string]any
	if err := json.Unmarshal(res.Evidence.NormalizedResult, &m); err != nil {
		t.Fatal(err)
	}
	return m, res.Evidence, nil
}

func mustCall(t *testing.T, s *core.Session, op string, args map[string]any) (map[string]any, *core.Evidence) {
	t.Helper()
	m, ev, e := artCall(t, s, context.Background(), op, args)
	if e != nil {
		t.Fatalf("%s: %s", op, e.JSON())
	}
	return m, ev
}

// node is one entry of a tree written by writeTree.
type node struct {
	path string
	data string
	dir  bool
	link string
	mode os.FileMode
}

func writeTree(t *testing.T, root string, nodes ...node) string {
	t.Helper()
	for _, n := range nodes {
		p := filepath.Join(root, filepath.FromSlash(n.path))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		var err error
		switch {
		case n.dir:
			err = os.MkdirAll(p, 0o755)
		case n.link != "":
			err = os.Symlink(n.link, p)
		default:
			mode := n.mode
			if mode == 0 {
				mode = 0o644
			}
			if err = os.WriteFile(p, []byte(n.data), mode); err == nil {
				err = os.Chmod(p, mode)
			}
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	return root
}

// elfSO is an ELF64 x86-64 shared object header (ET_DYN, no PT_INTERP).
func elfSO() string {
	h := make([]byte, 64)
	copy(h, "\x7fELF\x02\x01\x01")
	binary.LittleEndian.PutUint16(h[16:], 3)
	binary.LittleEndian.PutUint16(h[18:], 62)
	binary.LittleEndian.PutUint64(h[32:], 64)
	binary.LittleEndian.PutUint16(h[54:], 56)
	return string(h)
}

// universal is a fat Mach-O whose first slice is an arm64 executable.
func universal() string {
	b := make([]byte, 0x1020)
	binary.BigEndian.PutUint32(b, 0xcafebabe)
	binary.BigEndian.PutUint32(b[4:], 1)
	binary.BigEndian.PutUint32(b[8:], 0x0100000c)
	binary.BigEndian.PutUint32(b[16:], 0x1000)
	binary.BigEndian.PutUint32(b[20:], 0x20)
	binary.LittleEndian.PutUint32(b[0x1000:], 0xfeedfacf)
	binary.LittleEndian.PutUint32(b[0x1004:], 0x0100000c)
	binary.LittleEndian.PutUint32(b[0x100c:], 2)
	return string(b)
}

// peDLL is a PE32+ x86-64 DLL header.
func peDLL() string {
	b := make([]byte, 0x80)
	copy(b, "MZ")
	binary.LittleEndian.PutUint32(b[0x3c:], 0x40)
	copy(b[0x40:], "PE\x00\x00")
	binary.LittleEndian.PutUint16(b[0x44:], 0x8664)
	binary.LittleEndian.PutUint16(b[0x40+22:], 0x2022)
	return string(b)
}

// appTree is a small Electron-like application directory with a nested
// ASAR and an unpacked companion.
func appTree(t *testing.T, root string) string {
	asarBytes := fakeBox("asar",
		fakeEntry{Path: "package.json", Data: `{"main":"main.js"}`, SHA: "ok"},
		fakeEntry{Path: "main.js", Data: "require('./addon.node')\n", SHA: "ok"},
		fakeEntry{Path: "main.js.map", Data: `{"version":3,"mappings":""}`, SHA: "ok"},
		fakeEntry{Path: "lib", Kind: "directory"},
		fakeEntry{Path: "lib/inner.asar", Data: string(fakeBox("asar", fakeEntry{Path: "x.js", Data: "x"})), SHA: "ok"},
		fakeEntry{Path: "addon.node", Data: elfSO(), Unpacked: true, SHA: sum256(elfSO())},
		fakeEntry{Path: "current", Kind: "symlink", Link: "main.js"},
	)
	return writeTree(t, root,
		node{path: "resources/app.asar", data: string(asarBytes)},
		node{path: "resources/app.asar.unpacked/addon.node", data: elfSO(), mode: 0o755},
		node{path: "resources/extra.zip", data: string(fakeBox("zip", fakeEntry{Path: "a.txt", Data: "a"}))},
		node{path: "bin/app", data: universal(), mode: 0o755},
		node{path: "bin/helper.dll", data: peDLL()},
		node{path: "Info.plist", data: "<?xml version=\"1.0\"?>\n<!DOCTYPE plist PUBLIC \"-//Apple//DTD PLIST 1.0//EN\" \"\">"},
		node{path: "empty", dir: true},
		node{path: "latest", link: "bin/app"},
	)
}

type graphView struct {
	Manifest    map[string]any   `json:"manifest"`
	Nodes       []map[string]any `json:"nodes"`
	Occurrences []map[string]any `json:"occurrences"`
	Edges       []map[string]any `json:"edges"`
	Contra      []map[string]any `json:"integrity_contradictions"`
	Limitations []string         `json:"limitations"`
}

func decodeGraph(t *testing.T, ev *core.Evidence) (graphView, map[string]map[string]any, map[string]map[string]any) {
	t.Helper()
	var g graphView
	if err := json.Unmarshal(ev.NormalizedResult, &g); err != nil {
		t.Fatal(err)
	}
	occ := map[string]map[string]any{}
	for _, o := range g.Occurrences {
		occ[o["logical_path"].(string)] = o
	}
	nodes := map[string]map[string]any{}
	for _, n := range g.Nodes {
		nodes[n["artifact_id"].(string)] = n
	}
	return g, occ, nodes
}

func nodeAt(t *testing.T, occ, nodes map[string]map[string]any, p string) map[string]any {
	t.Helper()
	o, ok := occ[p]
	if !ok {
		t.Fatalf("no occurrence %s", p)
	}
	id, _ := o["artifact_id"].(string)
	return nodes[id]
}

func TestArtifactIDsDoNotDependOnLocation(t *testing.T) {
	is := is.New(t)
	s := artSession(t)
	a := appTree(t, t.TempDir())
	b := appTree(t, filepath.Join(t.TempDir(), "elsewhere", "copy"))
	ra, eva := mustCall(t, s, "inventory_artifact", map[string]any{"path": a, "detail": "complete"})
	rb, _ := mustCall(t, s, "inventory_artifact", map[string]any{"path": b, "detail": "complete"})
	ja, _ := json.Marshal(ra)
	jb, _ := json.Marshal(rb)
	is.Equal(string(ja), string(jb)) // every ID, hash and record
	g, _, _ := decodeGraph(t, eva)
	is.True(strings.HasPrefix(g.Manifest["manifest_id"].(string), "agm_"))
	is.True(strings.HasPrefix(g.Manifest["root_artifact_id"].(string), "art_"))
	is.Equal(g.Manifest["root_format"], "directory")
	is.Equal(int(g.Manifest["occurrence_count"].(float64)), len(g.Occurrences))
	is.Equal(int(g.Manifest["node_count"].(float64)), len(g.Nodes))
	is.Equal(int(g.Manifest["edge_count"].(float64)), len(g.Edges))
	is.Equal(g.Occurrences[0]["logical_path"], ".")
	for i := 2; i < len(g.Occurrences); i++ { // code-point order after the root
		is.True(g.Occurrences[i-1]["logical_path"].(string) < g.Occurrences[i]["logical_path"].(string))
	}
	for i, e := range g.Edges {
		is.Equal(int(e["ordinal"].(float64)), i)
		if i > 0 {
			is.True(g.Edges[i-1]["edge_id"].(string) < e["edge_id"].(string))
		}
	}

	// A changed byte changes the file's, its directory's and the root's IDs.
	os.WriteFile(filepath.Join(b, "bin", "helper.dll"), []byte(peDLL()+"x"), 0o644)
	rc, _ := mustCall(t, s, "inventory_artifact", map[string]any{"path": b, "detail": "complete"})
	is.True(rc["manifest"].(map[string]any)["root_artifact_id"] != ra["manifest"].(map[string]any)["root_artifact_id"])
}

func TestArtifactNestedContainersAndClassification(t *testing.T) {
	is := is.New(t)
	s := artSession(t)
	dir := appTree(t, t.TempDir())
	_, ev := mustCall(t, s, "inventory_artifact", map[string]any{"path": dir, "detail": "complete"})
	g, occ, nodes := decodeGraph(t, ev)

	// The ASAR in the directory is expanded, its unpacked add-on verified.
	for _, p := range []string{"resources/app.asar/main.js", "resources/app.asar/addon.node", "resources/app.asar/lib/inner.asar", "resources/app.asar/current"} {
		_, ok := occ[p]
		is.True(ok)
	}
	is.Equal(occ["resources/app.asar/addon.node"]["hash_status"], "verified")
	is.Equal(occ["resources/app.asar/current"]["entry_kind"], "symlink")
	is.Equal(occ["resources/app.asar"]["parent_occurrence_id"], occ["resources"]["occurrence_id"])
	is.Equal(occ["resources/app.asar/main.js"]["parent_occurrence_id"], occ["resources/app.asar"]["occurrence_id"])
	// An ASAR inside an ASAR and a ZIP inside a directory are recorded only.
	_, inner := occ["resources/app.asar/lib/inner.asar/x.js"]
	is.True(!inner)
	is.True(strings.Contains(strings.Join(toStrings(occ["resources/app.asar/lib/inner.asar"]["limitations"]), " "), "not expanded"))
	_, zipped := occ["resources/extra.zip/a.txt"]
	is.True(!zipped)
	is.Equal(nodeAt(t, occ, nodes, "resources/extra.zip")["kind"], "container")
	is.Equal(nodeAt(t, occ, nodes, "resources/extra.zip")["format"], "zip")
	is.Equal(nodeAt(t, occ, nodes, "resources/app.asar")["format"], "asar")
	is.Equal(nodeAt(t, occ, nodes, "resources/app.asar/main.js")["content_state"], "embedded")
	is.Equal(nodeAt(t, occ, nodes, "bin/helper.dll")["content_state"], "materialized")

	cases := map[string][2]string{
		"resources/app.asar/addon.node":          {"native-addon", "elf"},
		"resources/app.asar.unpacked/addon.node": {"native-addon", "elf"},
		"resources/app.asar/main.js":             {"javascript", "javascript-bundle"},
		"resources/app.asar/main.js.map":         {"source-map", "source-map"},
		"resources/app.asar/package.json":        {"package-metadata", "file"},
		"bin/app":                                {"executable", "mach-o-universal"},
		"bin/helper.dll":                         {"dynamic-library", "pe"},
		"Info.plist":                             {"plist", "plist"},
		"empty":                                  {"container", "directory"},
		"resources/app.asar/lib/inner.asar":      {"container", "asar"},
		"resources/app.asar.unpacked":            {"container", "directory"},
		"resources/app.asar/lib":                 {"container", "directory"},
	}
	for p, want := range cases {
		n := nodeAt(t, occ, nodes, p)
		if n["kind"] != want[0] || n["format"] != want[1] {
			t.Errorf("%s: kind %v format %v, want %v", p, n["kind"], n["format"], want)
		}
	}
	is.Equal(nodeAt(t, occ, nodes, "resources/app.asar/addon.node")["architecture"], "x86_64")
	is.Equal(nodeAt(t, occ, nodes, "bin/helper.dll")["architecture"], "x86_64")
	is.Equal(nodeAt(t, occ, nodes, "bin/app")["executable"], true)
	is.Equal(occ["bin/app"]["executable"], true) // file mode
	is.Equal(occ["bin/helper.dll"]["executable"], false)
	// The same add-on bytes packed and unpacked are one node.
	is.Equal(occ["resources/app.asar/addon.node"]["artifact_id"], occ["resources/app.asar.unpacked/addon.node"]["artifact_id"])

	// x.map maps-source x; containers contain their entries.
	relations := map[string]int{}
	mapsSource := false
	for _, e := range g.Edges {
		relations[e["relation"].(string)]++
		if e["relation"] == "maps-source" {
			is.Equal(e["logical_path"], "resources/app.asar/main.js.map")
			is.Equal(e["parent_artifact_id"], occ["resources/app.asar/main.js.map"]["artifact_id"])
			is.Equal(e["child_artifact_id"], occ["resources/app.asar/main.js"]["artifact_id"])
			mapsSource = true
		}
	}
	is.True(mapsSource)
	is.Equal(relations["contains"], len(g.Occurrences)-1)
}

func toStrings(v any) []string {
	var out []string
	for _, x := range v.([]any) {
		out = append(out, x.(string))
	}
	return out
}

func TestArtifactRootContainers(t *testing.T) {
	is := is.New(t)
	s := artSession(t)
	dir := t.TempDir()
	nested := fakeBox("asar", fakeEntry{Path: "index.js", Data: "ok", SHA: "ok"})
	zipPath := filepath.Join(dir, "app.apk")
	os.WriteFile(zipPath, fakeBox("zip",
		fakeEntry{Path: "assets/app.asar", Data: string(nested)},
		fakeEntry{Path: "assets/other.zip", Data: string(fakeBox("zip"))},
		fakeEntry{Path: "classes.dex", Data: "dex\n035\x00"},
	), 0o644)
	_, ev := mustCall(t, s, "inventory_artifact", map[string]any{"path": zipPath, "detail": "complete"})
	g, occ, _ := decodeGraph(t, ev)
	is.Equal(g.Manifest["root_format"], "zip")
	is.Equal(occ["."]["entry_kind"], "file")
	is.Equal(occ["assets"]["entry_kind"], "directory") // implied by the ZIP
	_, expanded := occ["assets/app.asar/index.js"]
	is.True(expanded) // an ASAR in a root ZIP is expanded
	is.Equal(occ["assets/app.asar/index.js"]["hash_status"], "verified")
	is.Equal(len(toStrings(occ["assets/other.zip"]["limitations"])), 1)

	// A plain file is a one-occurrence graph.
	plain := filepath.Join(dir, "notes.txt")
	os.WriteFile(plain, []byte("hello"), 0o644)
	_, ev = mustCall(t, s, "inventory_artifact", map[string]any{"path": plain, "detail": "complete"})
	g, occ, nodes := decodeGraph(t, ev)
	is.Equal(len(g.Occurrences), 1)
	is.Equal(nodeAt(t, occ, nodes, ".")["sha256"], sum256("hello"))
	is.Equal(g.Manifest["root_sha256"], sum256("hello"))
}

// integrityFixture is a root ASAR with a packed file whose byte was flipped
// after the header was written, and an unpacked add-on modified after it.
func integrityFixture(t *testing.T, unpackedData string, withCompanion bool) string {
	dir := t.TempDir()
	box := fakeBox("asar",
		fakeEntry{Path: "a.js", Data: "good", SHA: "ok"},
		fakeEntry{Path: "b.js", Data: "flipped", SHA: sum256("flippeD")},
		fakeEntry{Path: "native/addon.node", Data: elfSO(), Unpacked: true, SHA: sum256(elfSO())},
	)
	p := filepath.Join(dir, "app.asar")
	os.WriteFile(p, box, 0o644)
	if withCompanion {
		writeTree(t, dir, node{path: "app.asar.unpacked/native/addon.node", data: unpackedData})
	}
	return p
}

func TestIntegrityPolicyFail(t *testing.T) {
	is := is.New(t)
	s := artSession(t)
	p := integrityFixture(t, elfSO(), true)
	_, _, e := artCall(t, s, context.Background(), "inventory_artifact", map[string]any{"path": p, "detail": "complete"})
	is.True(e != nil)
	is.Equal(e.Code, core.CodeArtifactIntegrityMismatch)
	is.Equal(e.Details["logical_path"], "b.js")
	is.Equal(e.Details["declared_sha256"], sum256("flippeD"))
	is.Equal(e.Details["calculated_sha256"], sum256("flipped"))
	is.Equal(e.Details["unpacked"], false)
	is.True(strings.Contains(e.Envelope().Error.Remediation.Action, "integrity_policy=record-and-continue"))

	// An unpacked companion signed after packing names the packager cause.
	good := filepath.Join(t.TempDir(), "app.asar")
	os.WriteFile(good, fakeBox("asar", fakeEntry{Path: "addon.node", Data: elfSO(), Unpacked: true, SHA: sum256(elfSO())}), 0o644)
	writeTree(t, filepath.Dir(good), node{path: "app.asar.unpacked/addon.node", data: elfSO() + "SIGNATURE"})
	_, _, e = artCall(t, s, context.Background(), "extract_artifact", map[string]any{"path": good})
	is.Equal(e.Code, core.CodeArtifactIntegrityMismatch)
	is.Equal(e.Details["unpacked"], true)
	is.Equal(e.Details["logical_path"], "addon.node")
	is.True(strings.Contains(e.Message, ".asar.unpacked"))
	is.True(strings.Contains(e.Message+e.Remediation, "record-and-continue"))
}

func TestIntegrityPolicyRecordAndContinue(t *testing.T) {
	is := is.New(t)
	s := artSession(t)
	p := integrityFixture(t, elfSO()+"SIGNED", true)
	_, ev := mustCall(t, s, "inventory_artifact", map[string]any{"path": p, "integrity_policy": "record-and-continue", "detail": "complete"})
	g, occ, _ := decodeGraph(t, ev)
	is.Equal(occ["a.js"]["hash_status"], "verified") // verified siblings continue
	is.Equal(occ["b.js"]["hash_status"], "mismatched")
	is.Equal(occ["native/addon.node"]["hash_status"], "mismatched")
	is.Equal(len(g.Contra), 2)
	byPath := map[string]map[string]any{}
	for _, c := range g.Contra {
		byPath[c["logical_path"].(string)] = c
		is.True(strings.HasPrefix(c["contradiction_id"].(string), "ic_"))
		is.Equal(c["trust"], "observed-untrusted")
		is.Equal(c["provenance"], "container-integrity-metadata-versus-observed-bytes")
		is.Equal(c["entry_kind"], "file")
		is.True(len(c["limitations"].([]any)) >= 1)
	}
	is.Equal(byPath["native/addon.node"]["unpacked"], true)
	is.Equal(byPath["native/addon.node"]["declared_sha256"], sum256(elfSO()))
	is.Equal(byPath["native/addon.node"]["observed_sha256"], sum256(elfSO()+"SIGNED"))
	is.Equal(byPath["b.js"]["unpacked"], false)
	is.Equal(byPath["b.js"]["parent_artifact_id"], occ["."]["artifact_id"])
	is.Equal(byPath["native/addon.node"]["parent_artifact_id"], occ["native"]["artifact_id"])
	sentence := "2 integrity contradiction(s) were recorded; mismatched content is observed-untrusted."
	is.True(strings.Contains(strings.Join(g.Limitations, "\n"), sentence))
	is.True(strings.Contains(strings.Join(ev.Limitations, "\n"), sentence))

	// Extraction writes the observed bytes and returns the contradictions.
	r, _ := mustCall(t, s, "extract_artifact", map[string]any{"path": p, "integrity_policy": "record-and-continue"})
	out := r["output_root"].(string)
	t.Cleanup(func() { os.RemoveAll(out) })
	got, err := os.ReadFile(filepath.Join(out, "native", "addon.node"))
	is.NoErr(err)
	is.Equal(string(got), elfSO()+"SIGNED")
	is.Equal(len(r["integrity_contradictions"].([]any)), 2)
}

func TestIntegrityQuarantinesNestedASAR(t *testing.T) {
	is := is.New(t)
	s := artSession(t)
	nested := string(fakeBox("asar", fakeEntry{Path: "evil.js", Data: "x"}))
	p := filepath.Join(t.TempDir(), "bundle.zip")
	os.WriteFile(p, fakeBox("zip",
		fakeEntry{Path: "app.asar", Data: nested, SHA: sum256("something else")},
		fakeEntry{Path: "ok.asar", Data: nested, SHA: sum256(nested)},
	), 0o644)
	_, ev := mustCall(t, s, "inventory_artifact", map[string]any{"path": p, "integrity_policy": "record-and-continue", "detail": "complete"})
	_, occ, _ := decodeGraph(t, ev)
	_, opened := occ["app.asar/evil.js"]
	is.True(!opened) // a contradicted nested ASAR stays opaque
	is.True(strings.Contains(strings.Join(toStrings(occ["app.asar"]["limitations"]), " "), "quarantined"))
	_, opened = occ["ok.asar/evil.js"]
	is.True(opened) // its verified sibling is expanded
}

// A missing unpacked file fails extraction under either policy and the
// inventory under fail; under record-and-continue the inventory goes on,
// with the entry unavailable and saying why.
func TestMissingUnpackedCompanion(t *testing.T) {
	t.Run("record-and-continue/inventory_artifact", func(t *testing.T) {
		is := is.New(t)
		p := integrityFixture(t, "", false)
		_, ev := mustCall(t, artSession(t), "inventory_artifact", map[string]any{"path": p, "integrity_policy": "record-and-continue", "detail": "complete"})
		g, occ, _ := decodeGraph(t, ev)
		is.Equal(occ["native/addon.node"]["hash_status"], "unavailable")
		is.Equal(occ["native/addon.node"]["artifact_id"], nil)
		is.True(strings.Contains(strings.Join(toStrings(occ["native/addon.node"]["limitations"]), " "), "missing from the archive's .unpacked companion"))
		is.Equal(occ["a.js"]["hash_status"], "verified") // the rest is inventoried
		is.Equal(occ["b.js"]["hash_status"], "mismatched")
		is.True(strings.Contains(strings.Join(g.Limitations, " "), "missing from an ASAR's .unpacked companion"))
	})
	for _, policy := range []string{"fail", "record-and-continue"} {
		for _, op := range []string{"inventory_artifact", "extract_artifact"} {
			if policy == "record-and-continue" && op == "inventory_artifact" {
				continue
			}
			t.Run(policy+"/"+op, func(t *testing.T) {
				is := is.New(t)
				p := integrityFixture(t, "", false)
				_, _, e := artCall(t, artSession(t), context.Background(), op, map[string]any{"path": p, "integrity_policy": policy})
				if policy == "fail" && e != nil && e.Code == core.CodeArtifactIntegrityMismatch {
					return // the flipped packed byte is found first under fail
				}
				is.True(e != nil)
				is.Equal(e.Code, core.CodeArtifactOperationFailed)
				is.Equal(e.Envelope().Error.Category, core.CategoryUnavailable)
				is.Equal(e.Details["reason"], "unavailable")
				is.Equal(e.Details["logical_path"], "native/addon.node")
				v, present := e.Details["calculated_sha256"]
				is.True(present && v == nil)
				is.True(strings.Contains(e.Message, "native/addon.node"))
			})
		}
	}
}

func TestArtifactLimitsAndUnsafeInput(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, b []byte) string {
		p := filepath.Join(dir, name)
		os.WriteFile(p, b, 0o644)
		return p
	}
	bomb := write("bomb.zip", fakeBox("zip", fakeEntry{Path: "zeros", Data: strings.Repeat("\x00", 100000), CSize: 10}))
	lying := write("lying.zip", fakeBox("zip", fakeEntry{Path: "zeros", Data: strings.Repeat("\x00", 100000), CSize: 10, Size: 5}))
	escape := write("escape.zip", fakeBox("zip", fakeEntry{Path: "../evil.sh", Data: "x"}))
	deep := writeTree(t, filepath.Join(dir, "deep"), node{path: strings.Repeat("d/", 25) + "f", data: "x"})
	many := writeTree(t, filepath.Join(dir, "many"), node{path: "a", data: "1"}, node{path: "b", data: "2"}, node{path: "c", data: "3"})
	cases := []struct {
		name   string
		args   map[string]any
		code   core.Code
		reason string
		limit  string
	}{
		{"zip bomb", map[string]any{"path": bomb}, core.CodeTruncated, "limit", "max_compression_ratio"},
		{"bomb behind a lying header", map[string]any{"path": lying}, core.CodeTruncated, "limit", "max_compression_ratio"},
		{"dot-dot entry", map[string]any{"path": escape}, core.CodeArtifactOperationFailed, "path", ""},
		{"too deep", map[string]any{"path": deep}, core.CodeTruncated, "limit", "max_depth"},
		{"too many", map[string]any{"path": many, "max_entries": 2}, core.CodeTruncated, "limit", "max_entries"},
		{"entry too big", map[string]any{"path": bomb, "max_entry_bytes": 1000, "max_compression_ratio": 100000}, core.CodeTruncated, "limit", "max_entry_bytes"},
		{"total too big", map[string]any{"path": bomb, "max_total_bytes": 1000, "max_compression_ratio": 100000}, core.CodeTruncated, "limit", "max_total_bytes"},
		{"long path", map[string]any{"path": deep, "max_path_bytes": 10, "max_depth": 100}, core.CodeTruncated, "limit", "max_path_bytes"},
		{"missing", map[string]any{"path": filepath.Join(dir, "absent")}, core.CodeTargetUnavailable, "", ""},
	}
	s := artSession(t)
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			is := is.New(t)
			_, _, e := artCall(t, s, context.Background(), "inventory_artifact", c.args)
			is.True(e != nil)
			is.Equal(e.Code, c.code)
			if c.reason != "" {
				is.Equal(e.Details["reason"], c.reason)
			}
			if c.limit != "" {
				is.Equal(e.Details["limit"], c.limit)
				is.Equal(e.Details["truncated"], true)
			}
		})
	}
}

func TestArtifactCancelled(t *testing.T) {
	is := is.New(t)
	s := artSession(t)
	dir := appTree(t, t.TempDir())
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, _, e := artCall(t, s, ctx, "inventory_artifact", map[string]any{"path": dir, "detail": "complete"})
	is.Equal(e.Code, core.CodeCancelled)
	recs, _ := s.Ledger().Len()
	is.Equal(recs, 0) // nothing recorded
}

func TestExtractArtifact(t *testing.T) {
	is := is.New(t)
	s := artSession(t)
	dir := appTree(t, t.TempDir())
	r, ev := mustCall(t, s, "extract_artifact", map[string]any{"path": dir})
	out := r["output_root"].(string)
	t.Cleanup(func() { os.RemoveAll(out) })
	is.True(strings.HasPrefix(out, os.TempDir()))
	is.Equal(r["containment_verified"], true)
	em := r["extraction_manifest"].(map[string]any)
	is.True(strings.HasPrefix(em["extraction_id"].(string), "aex_"))
	is.Equal(em["output_root_alias"], "$OUTPUT_ROOT")
	is.Equal(em["source_manifest_id"], r["manifest"].(map[string]any)["manifest_id"])
	arts := r["artifacts"].([]any)
	paths := map[string]map[string]any{}
	for _, a := range arts {
		m := a.(map[string]any)
		paths[m["relative_path"].(string)] = m
		b, err := os.ReadFile(filepath.Join(out, filepath.FromSlash(m["relative_path"].(string))))
		is.NoErr(err)
		is.Equal(sum256(string(b)), m["sha256"])
		is.Equal(int(m["bytes_written"].(float64)), len(b))
	}
	// The ASAR keeps its path; its entries go under .contents.
	for _, p := range []string{"resources/app.asar", "resources/app.asar.contents/main.js", "resources/app.asar.contents/addon.node", "bin/app"} {
		_, ok := paths[p]
		is.True(ok)
	}
	_, link := paths["latest"]
	is.True(!link) // only regular files, and the result says the tree's two links were left out
	is.True(slices.ContainsFunc(r["limitations"].([]any), func(l any) bool { return strings.HasPrefix(l.(string), "2 symbolic link(s) were not extracted") }))
	st, err := os.Stat(filepath.Join(out, "bin", "app"))
	is.NoErr(err)
	is.True(st.Mode()&0o100 != 0)
	is.Equal(ev.Operation, "extract_artifact")

	// Selected occurrences only.
	inv, _ := mustCall(t, s, "inventory_artifact", map[string]any{"path": dir, "detail": "complete"})
	var id string
	for _, o := range inv["occurrences"].([]any) {
		if m := o.(map[string]any); m["logical_path"] == "resources/app.asar/main.js" {
			id = m["occurrence_id"].(string)
		}
	}
	r2, _ := mustCall(t, s, "extract_artifact", map[string]any{"path": dir, "occurrence_ids": []string{id}})
	t.Cleanup(func() { os.RemoveAll(r2["output_root"].(string)) })
	is.True(r2["output_root"] != out) // a fresh directory every call
	is.Equal(len(r2["artifacts"].([]any)), 1)
	is.Equal(r2["extraction_manifest"].(map[string]any)["selected_occurrence_ids"], []any{id})

	// An unknown occurrence is invalid input.
	_, _, e := artCall(t, s, context.Background(), "extract_artifact", map[string]any{"path": dir, "occurrence_ids": []string{"occ_" + strings.Repeat("0", 64)}})
	is.Equal(e.Code, core.CodeInvalidRequest)
}

func TestExtractRefusesPlantedSymlink(t *testing.T) {
	is := is.New(t)
	s := artSession(t)
	dir := appTree(t, t.TempDir())
	outside := t.TempDir()
	var created string
	defer artifact.SetExtractHook(func(out string) {
		created = out
		// An attacker who guessed the directory plants a link where a
		// directory will be created.
		os.Symlink(outside, filepath.Join(out, "bin"))
	})()
	_, _, e := artCall(t, s, context.Background(), "extract_artifact", map[string]any{"path": dir})
	is.True(e != nil)
	is.Equal(e.Code, core.CodeArtifactOperationFailed)
	is.Equal(e.Details["reason"], "path")
	is.Equal(e.Details["cleanup"], "complete")
	entries, _ := os.ReadDir(outside)
	is.Equal(len(entries), 0) // nothing written through the link
	_, err := os.Lstat(created)
	is.True(os.IsNotExist(err)) // the output directory is gone
}

func TestExtractCancelledLeavesNothing(t *testing.T) {
	is := is.New(t)
	s := artSession(t)
	dir := appTree(t, t.TempDir())
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var created string
	defer artifact.SetExtractHook(func(out string) { created = out })()
	opens := 0
	var mu sync.Mutex
	defer setOpenHook(func(p string) {
		mu.Lock()
		defer mu.Unlock()
		if p == "main.js" {
			if opens++; opens == 2 { // the first open hashes; the second extracts
				cancel()
			}
		}
	})()
	_, _, e := artCall(t, s, ctx, "extract_artifact", map[string]any{"path": dir})
	is.True(e != nil)
	is.Equal(e.Code, core.CodeCancelled)
	is.Equal(e.Details["cleanup"], "complete")
	is.True(created != "")
	_, err := os.Lstat(created)
	is.True(os.IsNotExist(err))
}

// CompanionTwin maps a file of an ASAR's unpacked companion directory to
// the same entry inside the ASAR, at any depth, and nothing else.
func TestCompanionTwin(t *testing.T) {
	for p, want := range map[string]string{
		"app.asar.unpacked/build/addon.node":          "app.asar/build/addon.node",
		"resources/app.asar.unpacked/a.node":          "resources/app.asar/a.node",
		"x/.asar.unpacked/a.node":                     "",
		".asar.unpacked/a.node":                       "",
		"app.asar/build/addon.node":                   "",
		"app.asar.unpacked":                           "",
		"notes.asar.unpackedX/a.node":                 "",
		"a/.asar.unpacked/b/app.asar.unpacked/c.node": "a/.asar.unpacked/b/app.asar/c.node",
	} {
		got, ok := artifact.CompanionTwin(p)
		if got != want || ok != (want != "") {
			t.Errorf("CompanionTwin(%q) = %q, %v; want %q", p, got, ok, want)
		}
	}
}

// The inventory tells a bundle from a plain module or script: a bundler's
// runtime or a minified line in the first 4 KiB, a sourceMappingURL at the
// end (of a file read in several chunks too) or a source map beside it make
// a javascript-bundle; other JavaScript is format file, still of kind
// javascript. Before, every .js file was a javascript-bundle.
func TestJavaScriptBundleOrPlainScript(t *testing.T) {
	s := artSession(t)
	long := strings.Repeat("// a long hand-written file\n", 100000) // 2.8 MB: read in several chunks
	dir := writeTree(t, t.TempDir(),
		node{path: "main.js", data: "const { app } = require('electron');\napp.whenReady().then(() => {});\n"},
		node{path: "lib/esm.mjs", data: "export const a = 1;\n"},
		node{path: "dist/webpack.js", data: "/******/ (() => { // webpackBootstrap\n/******/ \tvar __webpack_modules__ = ({});\n"},
		node{path: "dist/esbuild.js", data: "var __commonJS = (cb, mod) => function __require() {};\nvar require_a = __commonJS({});\n"},
		node{path: "dist/min.js", data: "!function(){" + strings.Repeat("var a=1;", 600) + "}();"},
		node{path: "dist/mapped.js", data: "console.log(1);\n//# sourceMappingURL=mapped.js.map\n"},
		node{path: "dist/long.js", data: long + "//# sourceMappingURL=long.js.map\n"},
		node{path: "dist/beside.js", data: "console.log(2);\n"},
		node{path: "dist/beside.js.map", data: `{"version":3,"sources":["a.js"],"mappings":""}`},
		node{path: "src/long.js", data: long},
		// esbuild --minify output of a small library (234 bytes, no
		// bundler runtime), and hand-written lines of about its length:
		// spaced code, a table of numbers, a base64 literal.
		node{path: "dist/small.min.js", data: `function u(n,e){let t=null;return function(...o){t!==null&&clearTimeout(t),t=setTimeout(()=>{t=null,n.apply(this,o)},e)}}` +
			`function i(n,e,t){return Math.min(t,Math.max(e,n))}const l="1.2.3";export{i as clamp,u as debounce,l as version};` + "\n"},
		node{path: "src/spaced.js", data: "export function area(width, height) { if (width < 0 || height < 0) { throw new RangeError('negative size'); } return width * height; } // one long line\n"},
		node{path: "src/table.js", data: "export const table = [" + strings.Repeat("1,22,333,4444,", 20) + "0];\n"},
		node{path: "src/blob.js", data: "export const blob = \"" + strings.Repeat("QUJDREVGR0g=", 20) + "\";\n"},
		// Under 128 bytes: esbuild --minify of a one-line module (every
		// place a hand puts a blank has none); a hand-written one; and a
		// minified line too short to tell from a terse hand.
		node{path: "dist/tiny.min.js", data: "const t=(d,o)=>d+o;export{t as add};\n"},
		node{path: "src/tiny.js", data: "export const add = (a, b) => a + b;\n"},
		node{path: "lib/stub.js", data: "module.exports=require(\"./lib/index.js\");"},
	)
	_, ev := mustCall(t, s, "inventory_artifact", map[string]any{"path": dir, "detail": "complete"})
	_, occ, nodes := decodeGraph(t, ev)
	for p, want := range map[string]string{
		"main.js": "file", "lib/esm.mjs": "file", "src/long.js": "file", "dist/small.min.js": "javascript-bundle",
		"src/spaced.js": "file", "src/table.js": "file", "src/blob.js": "file",
		"dist/tiny.min.js": "javascript-bundle", "src/tiny.js": "file", "lib/stub.js": "file",
		"dist/webpack.js": "javascript-bundle", "dist/esbuild.js": "javascript-bundle", "dist/min.js": "javascript-bundle",
		"dist/mapped.js": "javascript-bundle", "dist/long.js": "javascript-bundle", "dist/beside.js": "javascript-bundle",
	} {
		n := nodeAt(t, occ, nodes, p)
		if n["kind"] != "javascript" || n["format"] != want {
			t.Errorf("%s: kind %v format %v, want javascript %s", p, n["kind"], n["format"], want)
		}
	}
}

// TestContainerFailureSaysItOnce: a malformed or unsafe container fails with
// a message naming what is wrong, the format and the entry once, then the
// adapter's words. Before, a corrupt ASAR read "inventory_artifact: format
// at \"main.js\": asar: format (entry \"main.js\"): asar: offset: offset
// 1000000000000000 is past the end of 2961 bytes of data (entry
// \"main.js\") at offset 838": the format twice, the reason three times,
// the entry three times. details.detail keeps the adapter's whole error.
func TestContainerFailureSaysItOnce(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, b []byte) string {
		p := filepath.Join(dir, name)
		os.WriteFile(p, b, 0o644)
		return p
	}
	broken := write("broken.asar", []byte("FAKEasar\n[{\"path\": 1}]"))
	escape := write("escape.zip", fakeBox("zip", fakeEntry{Path: "../evil.sh", Data: "x"}))
	s := artSession(t)
	for _, c := range []struct{ path, want string }{
		{broken, "inventory_artifact: malformed asar: json: cannot unmarshal number into Go struct field fakeEntry.path of type string"},
		{escape, `inventory_artifact: unsafe entry name in zip at "../evil.sh": unsafe name`},
	} {
		is := is.New(t)
		_, _, e := artCall(t, s, context.Background(), "inventory_artifact", map[string]any{"path": c.path, "detail": "complete"})
		is.True(e != nil)
		is.Equal(e.Code, core.CodeArtifactOperationFailed)
		is.Equal(e.Message, c.want)
		is.True(strings.Contains(e.Details["detail"].(string), "format") || strings.Contains(e.Details["detail"].(string), "path")) // the adapter's whole error
	}
}

// TestMisnamedASARIsSaidSo: a file named .asar whose first bytes are not an
// ASAR header (a damaged or truncated app.asar) is still inventoried as the
// file it is, but its occurrence and the graph say it was not read as an
// archive. Before, an agent asking what a damaged app.asar ships was told
// only "format file, kind resource, hash verified", as if nothing were
// wrong.
func TestMisnamedASARIsSaidSo(t *testing.T) {
	dir := t.TempDir()
	app := writeTree(t, filepath.Join(dir, "app"), node{path: "resources/app.asar", data: "\x04\x00\x00\x00garbage"}, node{path: "main.js", data: "1"})
	root := filepath.Join(dir, "app.asar")
	os.WriteFile(root, []byte("\x04\x00\x00\x00garbage"), 0o644)
	s := artSession(t)
	for _, c := range []struct{ path, logical string }{{app, "resources/app.asar"}, {root, "."}} {
		is := is.New(t)
		r, _, e := artCall(t, s, context.Background(), "inventory_artifact", map[string]any{"path": c.path, "detail": "complete"})
		is.True(e == nil)
		var occ map[string]any
		for _, o := range r["occurrences"].([]any) {
			if o.(map[string]any)["logical_path"] == c.logical {
				occ = o.(map[string]any)
			}
		}
		is.True(occ != nil)
		is.Equal(occ["limitations"], []any{"Named .asar, but its first bytes are not an ASAR header; recorded as a plain file, not expanded."})
		is.Equal(r["limitations"], []any{"1 file(s) named .asar are not ASAR archives; see the occurrences' limitations."})
	}
}

// TestMissingCompanionAdviceFitsTheCall: an unpacked file missing from its
// companion is said once, and the advice is one the call can follow. Before,
// extract_artifact under record-and-continue failed with "the bytes of
// native/addon.node are unavailable: unavailable at \"native/addon.node\":
// asar: unavailable (entry ...): companion missing" and advised calling
// again with record-and-continue, which it had just done (extraction fails
// under either policy). Under fail, leaving the file out of occurrence_ids
// is not enough either: the inventory before the writing stops at it.
func TestMissingCompanionAdviceFitsTheCall(t *testing.T) {
	for _, c := range []struct{ op, policy, advice string }{
		{"inventory_artifact", "fail", `call again with integrity_policy: "record-and-continue"`},
		{"extract_artifact", "record-and-continue", `"record-and-continue" and occurrence_ids that leave it out`},
	} {
		t.Run(c.op, func(t *testing.T) {
			is := is.New(t)
			p := integrityFixture(t, "", false)
			os.WriteFile(p, fakeBox("asar", fakeEntry{Path: "a.js", Data: "a", SHA: "ok"}, fakeEntry{Path: "native/addon.node", Data: "x", Unpacked: true}), 0o644)
			_, _, e := artCall(t, artSession(t), context.Background(), c.op, map[string]any{"path": p, "integrity_policy": c.policy})
			is.True(e != nil)
			is.Equal(e.Details["reason"], "unavailable")
			is.Equal(e.Message, c.op+": the bytes of native/addon.node are unavailable: companion missing")
			is.True(strings.Contains(e.Remediation, c.advice))
			if c.op == "extract_artifact" {
				is.True(!strings.Contains(e.Remediation, "To inventory the rest")) // not advice it has just followed
			}
		})
	}
}

// TestEscapingLinkIsNamed: a symbolic link in a ZIP (or a directory) whose
// target is absolute or climbs above the inventoried root, the first half
// of a symlink zip-slip, is recorded as before and its occurrence says so.
// Before, a ZIP entry "link" pointing at ../../etc/passwd read like any
// other link ("hash_status verified", no limitation); ASARs leave such
// links out.
func TestEscapingLinkIsNamed(t *testing.T) {
	is := is.New(t)
	p := filepath.Join(t.TempDir(), "links.zip")
	os.WriteFile(p, fakeBox("zip", fakeEntry{Path: "a/out", Kind: "symlink", Link: "../../etc/passwd"},
		fakeEntry{Path: "a/abs", Kind: "symlink", Link: "/etc/passwd"}, fakeEntry{Path: "a/in", Kind: "symlink", Link: "../b"},
		fakeEntry{Path: "b", Data: "x"}), 0o644)
	r, _, e := artCall(t, artSession(t), context.Background(), "inventory_artifact", map[string]any{"path": p, "detail": "complete"})
	is.True(e == nil)
	lims := map[string][]any{}
	for _, o := range r["occurrences"].([]any) {
		o := o.(map[string]any)
		lims[o["logical_path"].(string)] = o["limitations"].([]any)
	}
	is.Equal(lims["a/out"], []any{`Its target "../../etc/passwd" leads outside the inventoried root; rea records links and never follows or writes them.`})
	is.Equal(lims["a/abs"], []any{`Its target "/etc/passwd" leads outside the inventoried root; rea records links and never follows or writes them.`})
	is.Equal(lims["a/in"], []any{})
}
