package main

import (
	"archive/zip"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/matryer/is"

	"rea/adapters/asar"
	"rea/core"
)

func sum(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

// elfAddon is an ELF64 x86-64 shared-object header, enough to classify.
func elfAddon() []byte {
	h := make([]byte, 128)
	copy(h, "\x7fELF\x02\x01\x01")
	h[16], h[18] = 3, 62
	h[32], h[54] = 64, 56
	return h
}

// appASAR is a small Electron app: packed JavaScript with a source map and a
// native add-on kept unpacked.
func appASAR() []asar.WriteEntry {
	return []asar.WriteEntry{
		{Path: "package.json", Type: asar.TypeFile, Data: []byte(`{"name":"app","main":"main.js"}`)},
		{Path: "main.js", Type: asar.TypeFile, Data: []byte("require('./build/addon.node')\n//# sourceMappingURL=main.js.map\n")},
		{Path: "main.js.map", Type: asar.TypeFile, Data: []byte(`{"version":3,"sources":["main.ts"],"mappings":"AAAA"}`)},
		{Path: "build", Type: asar.TypeDir},
		{Path: "build/addon.node", Type: asar.TypeFile, Data: elfAddon(), Unpacked: true},
	}
}

func writeASAR(t *testing.T, path string, entries []asar.WriteEntry) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := asar.WriteFile(path, entries, nil); err != nil {
		t.Fatal(err)
	}
}

func writeZip(t *testing.T, path string, files map[string][]byte) {
	t.Helper()
	var buf bytes.Buffer
	w := zip.NewWriter(&buf)
	names := make([]string, 0, len(files))
	for name := range files {
		names = append(names, name)
	}
	slices.Sort(names) // entry order is part of the bytes, so of the Evidence IDs
	for _, name := range names {
		data := files[name]
		fw, err := w.Create(name)
		if err != nil {
			t.Fatal(err)
		}
		fw.Write(data)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

type inventory struct {
	Manifest struct {
		RootFormat     string `json:"root_format"`
		RootArtifactID string `json:"root_artifact_id"`
		ManifestID     string `json:"manifest_id"`
	} `json:"manifest"`
	Nodes []struct {
		ArtifactID string `json:"artifact_id"`
		Kind       string `json:"kind"`
		Format     string `json:"format"`
		SHA256     string `json:"sha256"`
	} `json:"nodes"`
	Occurrences []struct {
		OccurrenceID string  `json:"occurrence_id"`
		ArtifactID   *string `json:"artifact_id"`
		LogicalPath  string  `json:"logical_path"`
		EntryKind    string  `json:"entry_kind"`
		HashStatus   string  `json:"hash_status"`
	} `json:"occurrences"`
	Edges []struct {
		Relation    string `json:"relation"`
		LogicalPath string `json:"logical_path"`
	} `json:"edges"`
	Contradictions []map[string]any `json:"integrity_contradictions"`
}

func (inv inventory) occ(path string) (status, kind, format, sha string, ok bool) {
	for _, o := range inv.Occurrences {
		if o.LogicalPath != path {
			continue
		}
		if o.ArtifactID == nil {
			return o.HashStatus, "", "", "", true
		}
		for _, n := range inv.Nodes {
			if n.ArtifactID == *o.ArtifactID {
				return o.HashStatus, n.Kind, n.Format, n.SHA256, true
			}
		}
	}
	return "", "", "", "", false
}

func decodeInventory(t *testing.T, ev *core.Evidence) inventory {
	t.Helper()
	var inv inventory
	if err := json.Unmarshal(ev.NormalizedResult, &inv); err != nil {
		t.Fatal(err)
	}
	return inv
}

// TestArtifactGraphWithRealContainers inventories an ASAR nested in a
// directory and in an APK (with its unpacked companion inside the APK) through
// the wired adapters.
func TestArtifactGraphWithRealContainers(t *testing.T) {
	is := is.New(t)
	cs := mcpClient(t)
	dir := t.TempDir()
	app := filepath.Join(dir, "App", "resources", "app.asar")
	writeASAR(t, app, appASAR())

	ev, _ := evidence(t, call(t, cs, "inventory_artifact", map[string]any{"path": filepath.Join(dir, "App"), "detail": "complete"}))
	inv := decodeInventory(t, ev)
	is.Equal(inv.Manifest.RootFormat, "directory")
	for p, want := range map[string][2]string{
		"resources/app.asar":                           {"container", "asar"},
		"resources/app.asar/main.js":                   {"javascript", "javascript-bundle"},
		"resources/app.asar/main.js.map":               {"source-map", "source-map"},
		"resources/app.asar/package.json":              {"package-metadata", "file"},
		"resources/app.asar/build/addon.node":          {"native-addon", "elf"},
		"resources/app.asar.unpacked/build/addon.node": {"native-addon", "elf"},
	} {
		status, kind, format, _, ok := inv.occ(p)
		if !ok || status != "verified" || kind != want[0] || format != want[1] {
			t.Errorf("%s: %v %s %s/%s, want verified %v", p, ok, status, kind, format, want)
		}
	}
	maps := 0
	for _, e := range inv.Edges {
		if e.Relation == "maps-source" {
			maps++
			is.Equal(e.LogicalPath, "resources/app.asar/main.js.map")
		}
	}
	is.Equal(maps, 1)

	// The same ASAR inside an APK, its companion inside the APK too.
	var packed bytes.Buffer
	is.NoErr(asar.Write(&packed, appASAR(), &asar.WriteOptions{UnpackedDir: filepath.Join(dir, "scratch")}))
	apk := filepath.Join(dir, "app.apk")
	writeZip(t, apk, map[string][]byte{
		"AndroidManifest.xml":                       []byte("<manifest/>"),
		"assets/app.asar":                           packed.Bytes(),
		"assets/app.asar.unpacked/build/addon.node": elfAddon(),
		"assets/inner.zip":                          []byte("PK\x05\x06" + strings.Repeat("\x00", 18)),
	})
	ev, _ = evidence(t, call(t, cs, "inventory_artifact", map[string]any{"path": apk, "detail": "complete"}))
	inv = decodeInventory(t, ev)
	is.Equal(inv.Manifest.RootFormat, "apk")
	status, kind, _, sha, ok := inv.occ("assets/app.asar/build/addon.node")
	is.True(ok)
	is.Equal(status, "verified")
	is.Equal(kind, "native-addon")
	is.Equal(sha, sum(elfAddon()))
	_, kind, format, _, _ := inv.occ("assets/inner.zip")
	is.Equal(kind, "container")
	is.Equal(format, "zip")
	_, _, _, _, ok = inv.occ("assets/inner.zip/x")
	is.True(!ok)
}

// TestArtifactIntegrityThroughASAR flips a packed byte and modifies, then
// removes, an unpacked companion of a real archive.
func TestArtifactIntegrityThroughASAR(t *testing.T) {
	cs := mcpClient(t)
	dir := t.TempDir()
	app := filepath.Join(dir, "app.asar")
	writeASAR(t, app, appASAR())
	r, err := asar.Open(app)
	if err != nil {
		t.Fatal(err)
	}
	e, _ := r.Lookup("main.js")
	r.Close()

	t.Run("packed byte flipped", func(t *testing.T) {
		is := is.New(t)
		b, _ := os.ReadFile(app)
		b[e.Offset] ^= 0xff
		flipped := filepath.Join(t.TempDir(), "app.asar")
		os.WriteFile(flipped, b, 0o644)
		// A companion reached through a link out of the archive's directory
		// is refused, so copy it.
		writeTreeFile(t, filepath.Join(flipped+".unpacked", "build", "addon.node"), elfAddon())
		code, details := errCode(t, call(t, cs, "inventory_artifact", map[string]any{"path": flipped}))
		is.Equal(code, core.CodeArtifactIntegrityMismatch)
		is.Equal(details["logical_path"], "main.js")
		is.Equal(details["unpacked"], false)
		ev, _ := evidence(t, call(t, cs, "inventory_artifact", map[string]any{"path": flipped, "integrity_policy": "record-and-continue", "detail": "complete"}))
		inv := decodeInventory(t, ev)
		is.Equal(len(inv.Contradictions), 1)
		status, _, _, _, _ := inv.occ("main.js")
		is.Equal(status, "mismatched")
		status, _, _, _, _ = inv.occ("build/addon.node")
		is.Equal(status, "verified")
	})
	t.Run("unpacked companion signed", func(t *testing.T) {
		is := is.New(t)
		companion := filepath.Join(app+".unpacked", "build", "addon.node")
		orig, _ := os.ReadFile(companion)
		os.WriteFile(companion, append(orig, "SIGNATURE"...), 0o644)
		defer os.WriteFile(companion, orig, 0o644)
		res := call(t, cs, "extract_artifact", map[string]any{"path": app})
		code, details := errCode(t, res)
		is.Equal(code, core.CodeArtifactIntegrityMismatch)
		is.Equal(details["unpacked"], true)
		is.True(strings.Contains(res.text, ".asar.unpacked"))
		is.True(strings.Contains(res.text, "record-and-continue"))
		_, m := evidence(t, call(t, cs, "extract_artifact", map[string]any{"path": app, "integrity_policy": "record-and-continue"}))
		out := m["output_root"].(string)
		defer os.RemoveAll(out)
		got, err := os.ReadFile(filepath.Join(out, "build", "addon.node"))
		is.NoErr(err)
		is.Equal(string(got), string(orig)+"SIGNATURE") // the observed bytes
		is.Equal(len(m["integrity_contradictions"].([]any)), 1)
	})
	t.Run("unpacked companion missing", func(t *testing.T) {
		is := is.New(t)
		companion := filepath.Join(app+".unpacked", "build", "addon.node")
		orig, _ := os.ReadFile(companion)
		os.Remove(companion)
		defer os.WriteFile(companion, orig, 0o644)
		for _, policy := range []string{"fail", "record-and-continue"} {
			code, details := errCode(t, call(t, cs, "extract_artifact", map[string]any{"path": app, "integrity_policy": policy}))
			is.Equal(code, core.CodeArtifactOperationFailed)
			is.Equal(details["reason"], "unavailable")
			is.Equal(details["logical_path"], "build/addon.node")
			is.Equal(details["calculated_sha256"], nil)
		}
	})
}

func TestArtifactCompareOverMCP(t *testing.T) {
	is := is.New(t)
	cs := mcpClient(t)
	dir := t.TempDir()
	v1, v2 := filepath.Join(dir, "v1.asar"), filepath.Join(dir, "v2.asar")
	writeASAR(t, v1, appASAR())
	next := appASAR()
	next[1].Data = []byte("require('./build/addon.node'); start()\n")
	writeASAR(t, v2, next)
	left, _ := evidence(t, call(t, cs, "inventory_artifact", map[string]any{"path": v1}))
	right, _ := evidence(t, call(t, cs, "inspect_artifact", map[string]any{"path": v2}))
	retained := map[string]any{
		"left":  map[string]any{"kind": "retained-evidence", "evidence_id": left.EvidenceID},
		"right": map[string]any{"kind": "retained-evidence", "evidence_id": right.EvidenceID},
	}
	ev1, m := evidence(t, call(t, cs, "compare_artifacts", retained))
	is.Equal(m["status"], "different")
	diffs := m["differences"].([]any)
	is.Equal(len(diffs), 2) // the archive itself and main.js
	is.Equal(diffs[0].(map[string]any)["logical_path"], ".")
	is.Equal(diffs[1].(map[string]any)["logical_path"], "main.js")
	var l, r any
	json.Unmarshal(mustJSON(t, left), &l)
	json.Unmarshal(mustJSON(t, right), &r)
	ev2, _ := evidence(t, call(t, cs, "compare_artifacts", map[string]any{"left": l, "right": r}))
	is.Equal(string(ev1.NormalizedResult), string(ev2.NormalizedResult))

	missing := "ev_" + strings.Repeat("0", 64)
	code, details := errCode(t, call(t, cs, "compare_artifacts", map[string]any{"left": retained["left"],
		"right": map[string]any{"kind": "retained-evidence", "evidence_id": missing}}))
	is.Equal(code, core.CodeEvidenceIntegrityMismatch)
	is.Equal(details["reason"], "missing")
}

func writeTreeFile(t *testing.T, p string, data []byte) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

func mustJSON(t *testing.T, v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestCLIInventoryAndExtract(t *testing.T) {
	is := is.New(t)
	dir := t.TempDir()
	app := filepath.Join(dir, "app.asar")
	writeASAR(t, app, appASAR())

	out, errOut, code := runCLI(t, "inventory", app)
	is.Equal(code, 0)
	is.Equal(errOut, "")
	flat := strings.Join(strings.Fields(out), " ")
	for _, want := range []string{"root asar, 5 entries (4 files,", "4 of 4 files verified, 0 contradictions", "native-addon 1", "manifest agm_", "evidence ev_"} {
		if !strings.Contains(flat, want) {
			t.Errorf("inventory output lacks %q:\n%s", want, out)
		}
	}
	out, _, code = runCLI(t, "--format", "json", "inventory", app)
	is.Equal(code, 0)
	ev, err := core.ParseEvidence([]byte(out))
	is.NoErr(err)
	is.Equal(ev.Operation, "inventory_artifact")
	inv := decodeInventory(t, ev)
	var addonOcc string
	for _, o := range inv.Occurrences {
		if o.LogicalPath == "build/addon.node" {
			addonOcc = o.OccurrenceID
		}
	}

	out, _, code = runCLI(t, "--format", "json", "extract-artifact", app, "--occurrence", addonOcc)
	is.Equal(code, 0)
	ev, err = core.ParseEvidence([]byte(out))
	is.NoErr(err)
	var res struct {
		OutputRoot string `json:"output_root"`
		Artifacts  []struct {
			RelativePath string `json:"relative_path"`
		} `json:"artifacts"`
		ContainmentVerified bool `json:"containment_verified"`
	}
	is.NoErr(json.Unmarshal(ev.NormalizedResult, &res))
	defer os.RemoveAll(res.OutputRoot)
	is.True(res.ContainmentVerified)
	is.Equal(len(res.Artifacts), 1)
	got, err := os.ReadFile(filepath.Join(res.OutputRoot, "build", "addon.node"))
	is.NoErr(err)
	is.Equal(string(got), string(elfAddon()))

	out, _, code = runCLI(t, "extract-artifact", app, "--integrity-policy", "record-and-continue")
	is.Equal(code, 0)
	is.True(strings.Contains(out, "extracted       4 files"))
	for _, l := range strings.Split(out, "\n") {
		if f := strings.Fields(l); len(f) == 2 && f[0] == "output_root" {
			os.RemoveAll(f[1])
		}
	}
	_, _, code = runCLI(t, "inventory", app, "--integrity-policy", "trust-me")
	is.Equal(code, 2)
}

func TestCLIArtifactBadInput(t *testing.T) {
	dir := t.TempDir()
	bomb := filepath.Join(dir, "bomb.zip")
	writeZip(t, bomb, map[string][]byte{"zeros.bin": make([]byte, 8<<20)})
	badASAR := filepath.Join(dir, "bad.asar")
	// The header claims 2 GiB in a file of 28 bytes.
	os.WriteFile(badASAR, []byte("\x04\x00\x00\x00\xff\xff\xff\x7f\x00\x00\x00\x00\x0c\x00\x00\x00{\"files\":{}}"), 0o644)
	cases := []struct {
		name   string
		args   []string
		code   int
		ecode  core.Code
		reason string
	}{
		{"zip bomb", []string{"inventory", bomb}, 6, core.CodeTruncated, "limit"},
		{"zip bomb extraction", []string{"extract-artifact", bomb}, 6, core.CodeTruncated, "limit"},
		{"header beyond the file", []string{"inventory", badASAR}, 7, core.CodeArtifactOperationFailed, "format"},
		{"missing path", []string{"inventory", filepath.Join(dir, "absent")}, 3, core.CodeTargetUnavailable, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			is := is.New(t)
			out, _, code := runCLI(t, append([]string{"--format", "json"}, c.args...)...)
			is.Equal(code, c.code)
			var env core.Envelope
			is.NoErr(json.Unmarshal([]byte(out), &env))
			is.Equal(env.Error.Code, c.ecode)
			if c.reason != "" {
				is.Equal(env.Error.Details["reason"], c.reason)
			}
		})
	}
	// The bomb's ratio is the limit the CLI can raise, and its advice says
	// how: 8 MiB of zeros deflate about 1,000 to 1.
	is := is.New(t)
	out, _, code := runCLI(t, "--format", "json", "inventory", bomb)
	var env core.Envelope
	is.NoErr(json.Unmarshal([]byte(out), &env))
	is.True(strings.Contains(env.Error.Remediation.Action, "--max-compression-ratio"))
	_, _, code = runCLI(t, "inventory", bomb, "--max-compression-ratio", "100000")
	is.Equal(code, 0)
}

// A ZIP whose entries climb out (zip-slip) or use backslashes is
// inventoried and extracted without them: each is named, as declared, in
// the root occurrence's limitations and in the text, and nothing is
// written outside the output root.
func TestCLIUnsafeZipEntriesAreLeftOutAndNamed(t *testing.T) {
	is := is.New(t)
	dir := t.TempDir()
	escape := filepath.Join(dir, "escape.jar")
	writeZip(t, escape, map[string][]byte{"../../evil.sh": []byte("#!/bin/sh\n"), `..\evil`: []byte("x"), "ok.txt": []byte("fine")})

	out, _, code := runCLI(t, "--format", "json", "inventory", escape)
	is.Equal(code, 0)
	ev, err := core.ParseEvidence([]byte(out))
	is.NoErr(err)
	var r struct {
		Occurrences []struct {
			LogicalPath string   `json:"logical_path"`
			Limitations []string `json:"limitations"`
		}
		Limitations []string
	}
	is.NoErr(json.Unmarshal(ev.NormalizedResult, &r))
	is.Equal(len(r.Occurrences), 2) // the root and ok.txt
	is.Equal(r.Occurrences[1].LogicalPath, "ok.txt")
	root := strings.Join(r.Occurrences[0].Limitations, "\n")
	is.True(strings.Contains(root, `Entry "../../evil.sh" (file, 10 bytes`) && strings.Contains(root, "climbs out of the archive"))
	is.True(strings.Contains(root, `Entry "..\\evil"`) && strings.Contains(root, "holds a backslash"))
	is.True(strings.Contains(strings.Join(r.Limitations, " "), "2 entr(ies) of 1 container(s) were left out"))

	text, _, code := runCLI(t, "inventory", escape)
	is.Equal(code, 0)
	is.True(strings.Contains(text, "Left out (unsafe or ambiguous names)"))
	is.True(strings.Contains(text, `Entry "../../evil.sh"`))

	out, _, code = runCLI(t, "--format", "json", "extract-artifact", escape)
	is.Equal(code, 0)
	ev, err = core.ParseEvidence([]byte(out))
	is.NoErr(err)
	var x struct {
		OutputRoot string `json:"output_root"`
		Artifacts  []struct {
			RelativePath string `json:"relative_path"`
		}
		Limitations []string
	}
	is.NoErr(json.Unmarshal(ev.NormalizedResult, &x))
	defer os.RemoveAll(x.OutputRoot)
	is.Equal(len(x.Artifacts), 1)
	is.Equal(x.Artifacts[0].RelativePath, "ok.txt")
	is.True(strings.Contains(strings.Join(x.Limitations, " "), "left out for unsafe or ambiguous names (zip-slip paths, duplicates) and not extracted"))
	for _, d := range []string{filepath.Dir(x.OutputRoot), filepath.Dir(filepath.Dir(x.OutputRoot)), dir, filepath.Dir(dir)} {
		_, err := os.Stat(filepath.Join(d, "evil.sh"))
		is.True(os.IsNotExist(err)) // nothing escaped
	}
}

// TestNPMASARInterop packs an app with npm @electron/asar (integrity on,
// unpack "*.node"); rea inventories it with every hash verified and extracts
// the same bytes @electron/asar's extractAll does.
func TestNPMASARInterop(t *testing.T) {
	is := is.New(t)
	root := needNodeModule(t, "@electron/asar")
	script := filepath.Join(root, "adapters", "asar", "testdata", "asar.cjs")
	dir := t.TempDir()
	src := filepath.Join(dir, "src")
	files := map[string]string{
		"package.json":       `{"name":"interop","main":"index.js"}`,
		"index.js":           "require('./native/addon.node')\n",
		"index.js.map":       `{"version":3,"mappings":""}`,
		"native/addon.node":  string(elfAddon()),
		"lib/deep/data.json": `{"a":1}`,
		"assets/big.bin":     strings.Repeat("0123456789abcdef", 600000), // > two 4 MiB blocks
	}
	for p, data := range files {
		full := filepath.Join(src, filepath.FromSlash(p))
		is.NoErr(os.MkdirAll(filepath.Dir(full), 0o755))
		is.NoErr(os.WriteFile(full, []byte(data), 0o644))
	}
	archive := filepath.Join(dir, "app.asar")
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, "node", script, "pack", src, archive, "*.node")
	cmd.Env = append(os.Environ(), "NODE_PATH="+filepath.Join(root, "node_modules"))
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("@electron/asar pack: %v\n%s", err, out)
	}
	_, err := os.Stat(filepath.Join(archive+".unpacked", "native", "addon.node"))
	is.NoErr(err) // npm kept the add-on unpacked

	out, _, code := runCLI(t, "--format", "json", "inventory", archive)
	is.Equal(code, 0)
	ev, err := core.ParseEvidence([]byte(out))
	is.NoErr(err)
	inv := decodeInventory(t, ev)
	is.Equal(inv.Manifest.RootFormat, "asar")
	for p, data := range files {
		status, _, _, sha, ok := inv.occ(p)
		if !ok || status != "verified" || sha != sum([]byte(data)) {
			t.Errorf("%s: found %v, status %s, sha %s", p, ok, status, sha)
		}
	}
	_, kind, _, _, _ := inv.occ("native/addon.node")
	is.Equal(kind, "native-addon")

	out, _, code = runCLI(t, "--format", "json", "extract-artifact", archive)
	is.Equal(code, 0)
	ev, err = core.ParseEvidence([]byte(out))
	is.NoErr(err)
	var res struct {
		OutputRoot string `json:"output_root"`
	}
	is.NoErr(json.Unmarshal(ev.NormalizedResult, &res))
	defer os.RemoveAll(res.OutputRoot)
	ref := filepath.Join(dir, "ref")
	cmd = exec.CommandContext(ctx, "node", script, "extract", archive, ref)
	cmd.Env = append(os.Environ(), "NODE_PATH="+filepath.Join(root, "node_modules"))
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("@electron/asar extractAll: %v\n%s", err, out)
	}
	for p := range files {
		a, err := os.ReadFile(filepath.Join(res.OutputRoot, filepath.FromSlash(p)))
		is.NoErr(err)
		b, err := os.ReadFile(filepath.Join(ref, filepath.FromSlash(p)))
		is.NoErr(err)
		is.Equal(sum(a), sum(b))
	}
}

// analyze_javascript_application on a ZIP with a zip-slip entry analyzes
// the rest and names the entry as an unknown, since its result holds no
// occurrences to carry the name.
func TestJSAppNamesUnsafeZipEntries(t *testing.T) {
	is := is.New(t)
	app := filepath.Join(t.TempDir(), "app.zip")
	writeZip(t, app, map[string][]byte{"package.json": []byte(`{"name":"a","main":"index.js"}`),
		"index.js": []byte(`fetch("https://api.example.com/v1/x")`), "../../evil.js": []byte(`require("child_process")`)})
	out, errOut, code := runCLI(t, "--format", "json", "analyze-javascript-application", app)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	ev, err := core.ParseEvidence([]byte(out))
	is.NoErr(err)
	var r struct {
		Unknowns []struct {
			Kind, Path, Detail string
		}
		Limitations []string
	}
	is.NoErr(json.Unmarshal(ev.NormalizedResult, &r))
	var named bool
	for _, u := range r.Unknowns {
		named = named || u.Kind == "unsafe-archive-entry" && u.Path == "." && strings.Contains(u.Detail, `Entry "../../evil.js"`)
	}
	is.True(named)
	is.True(strings.Contains(strings.Join(r.Limitations, " "), "the unknowns of kind unsafe-archive-entry name them"))
}

// An Electron resources directory holds app.asar and its app.asar.unpacked
// companion; the ASAR reads its unpacked add-on from the companion, so the
// inventory lists the one file at both paths. Before, inspect_artifact said
// the application "ships 2 native add-on(s)" (and proposed extracting both)
// and analyze_javascript_application counted native_addons 2. Now both
// count the add-on once, at its place in the ASAR; a second add-on with
// other bytes under the companion would still count.
func TestASARCompanionIsCountedOnce(t *testing.T) {
	is := is.New(t)
	dir := t.TempDir()
	writeASAR(t, filepath.Join(dir, "app.asar"), appASAR())
	s := jaSession(t)
	var insp struct {
		Hypotheses []struct {
			Statement string   `json:"statement"`
			Basis     []string `json:"basis"`
		} `json:"hypotheses"`
		NextProbes []struct {
			Arguments map[string]any `json:"arguments"`
		} `json:"next_probes"`
	}
	is.NoErr(json.Unmarshal(jaCall(t, s, "inspect_artifact", map[string]any{"path": dir}).NormalizedResult, &insp))
	var addons []string
	for _, h := range insp.Hypotheses {
		if strings.Contains(h.Statement, "native add-on") {
			is.True(strings.Contains(h.Statement, "ships 1 native add-on(s)"))
			addons = h.Basis
		}
	}
	is.Equal(addons, []string{"app.asar/build/addon.node"})
	is.Equal(len(insp.NextProbes[0].Arguments["occurrence_ids"].([]any)), 1)
	r := decodeApp(t, jaCall(t, s, "analyze_javascript_application", map[string]any{"path": dir}))
	is.Equal(r.Statistics["native_addons"], 1)

	// Other bytes under the companion are another add-on.
	writeTreeFile(t, filepath.Join(dir, "app.asar.unpacked", "build", "other.node"), append(elfAddon(), 1))
	r = decodeApp(t, jaCall(t, s, "analyze_javascript_application", map[string]any{"path": dir}))
	is.Equal(r.Statistics["native_addons"], 2)
}
