package main

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/matryer/is"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"rea/core"
)

// bigSymbols makes inspect_binary_layout's complete result larger than the
// 10 MiB response budget.
const bigSymbols = 32000

var (
	bigOnce sync.Once
	bigPath string
)

// bigELF writes (once per test binary, beside the rea binary TestMain
// builds and removes) an ELF x86-64 executable with bigSymbols function
// symbols: a minimal valid image whose layout is large.
func bigELF(t *testing.T) string {
	t.Helper()
	bigOnce.Do(func() {
		p := filepath.Join(filepath.Dir(reaBin), "many-symbols.elf")
		if err := os.WriteFile(p, synthesizeELF(bigSymbols), 0o755); err == nil {
			bigPath = p
		}
	})
	if bigPath == "" {
		t.Fatal("could not write the large ELF fixture")
	}
	return bigPath
}

func synthesizeELF(n int) []byte {
	le := binary.LittleEndian
	var strtab bytes.Buffer
	strtab.WriteByte(0)
	symtab := make([]byte, 24*(n+1))
	for i := 0; i < n; i++ {
		off := strtab.Len()
		fmt.Fprintf(&strtab, "sym_%06d_generated_function\x00", i)
		e := symtab[24*(i+1):]
		le.PutUint32(e[0:], uint32(off))
		e[4] = 1<<4 | 2 // STB_GLOBAL, STT_FUNC
		le.PutUint16(e[6:], 1)
		le.PutUint64(e[8:], 0x401000+uint64(i)*16)
		le.PutUint64(e[16:], 16)
	}
	shstr := []byte("\x00.text\x00.symtab\x00.strtab\x00.shstrtab\x00")
	const textOff = 0x1000
	text := bytes.Repeat([]byte{0xc3}, 16)
	symOff := uint64(textOff + len(text))
	symOff = (symOff + 7) &^ 7
	strOff := symOff + uint64(len(symtab))
	shstrOff := strOff + uint64(strtab.Len())
	shOff := (shstrOff + uint64(len(shstr)) + 7) &^ 7
	img := make([]byte, shOff+5*64)
	copy(img, "\x7fELF\x02\x01\x01")
	le.PutUint16(img[16:], 2)  // ET_EXEC
	le.PutUint16(img[18:], 62) // EM_X86_64
	le.PutUint32(img[20:], 1)
	le.PutUint64(img[24:], 0x401000) // entry
	le.PutUint64(img[32:], 64)       // phoff
	le.PutUint64(img[40:], shOff)
	le.PutUint16(img[52:], 64)
	le.PutUint16(img[54:], 56)
	le.PutUint16(img[56:], 2) // phnum
	le.PutUint16(img[58:], 64)
	le.PutUint16(img[60:], 5) // shnum
	le.PutUint16(img[62:], 4) // shstrndx
	ph := img[64:]
	le.PutUint32(ph[0:], 1) // PT_LOAD
	le.PutUint32(ph[4:], 5) // R+X
	le.PutUint64(ph[16:], 0x400000)
	le.PutUint64(ph[24:], 0x400000)
	le.PutUint64(ph[32:], textOff+16)
	le.PutUint64(ph[40:], textOff+16)
	le.PutUint64(ph[48:], 0x1000)
	ph = img[64+56:]
	le.PutUint32(ph[0:], 0x6474e551) // PT_GNU_STACK
	le.PutUint32(ph[4:], 6)          // RW
	copy(img[textOff:], text)
	copy(img[symOff:], symtab)
	copy(img[strOff:], strtab.Bytes())
	copy(img[shstrOff:], shstr)
	sh := func(i int, name, typ uint32, flags, addr, off, size uint64, link, info uint32, align, ent uint64) {
		h := img[shOff+uint64(i)*64:]
		le.PutUint32(h[0:], name)
		le.PutUint32(h[4:], typ)
		le.PutUint64(h[8:], flags)
		le.PutUint64(h[16:], addr)
		le.PutUint64(h[24:], off)
		le.PutUint64(h[32:], size)
		le.PutUint32(h[40:], link)
		le.PutUint32(h[44:], info)
		le.PutUint64(h[48:], align)
		le.PutUint64(h[56:], ent)
	}
	sh(1, 1, 1, 0x6, 0x401000, textOff, 16, 0, 0, 16, 0)         // .text
	sh(2, 7, 2, 0, 0, symOff, uint64(len(symtab)), 3, 1, 8, 24)  // .symtab
	sh(3, 15, 3, 0, 0, strOff, uint64(strtab.Len()), 0, 0, 1, 0) // .strtab
	sh(4, 23, 3, 0, 0, shstrOff, uint64(len(shstr)), 0, 0, 1, 0) // .shstrtab
	return img
}

func callMCP(t *testing.T, cs *sdk.ClientSession, name string, args any) (*sdk.CallToolResult, string) {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return res, res.Content[0].(*sdk.TextContent).Text
}

// TestLargeResultIsRetainedDiscoveredAndPaged: a layout larger than the
// 10 MiB budget fails with resource_constraint, stays retained, is found by
// summary discovery and is read page by page; the connection stays usable.
func TestLargeResultIsRetainedDiscoveredAndPaged(t *testing.T) {
	is := is.New(t)
	elf := bigELF(t)
	cs := mcpClient(t)

	code, details := errCode(t, call(t, cs, "inspect_binary_layout", map[string]any{"path": elf}))
	is.Equal(code, core.CodeResourceConstraint)
	is.Equal(details["resource"], "transport")
	limits := details["reported_limits"].(map[string]any)
	id := limits["evidence_id"].(string)
	ref := limits["evidence_reference"].(map[string]any)
	is.Equal(ref["evidence_id"], id)
	is.True(limits["response_bytes_at_least"].(float64) > 10<<20)

	var found struct{ Result core.BundleSummary }
	is.NoErr(json.Unmarshal([]byte(call(t, cs, "get_evidence_bundle", map[string]any{"detail": "summary",
		"filters": map[string]any{"operation": "inspect_binary_layout"}}).text), &found))
	is.Equal(found.Result.MatchingRecords, 1)
	is.Equal(string(found.Result.Records[0].EvidenceID), id)
	is.Equal(found.Result.Records[0].Retention, "complete-record")

	_, sum := evidence(t, call(t, cs, "inspect_analysis_view", map[string]any{"source": ref, "view": map[string]any{"kind": "summary"}}))
	counts := sum["summary"].(map[string]any)["counts"].(map[string]any)
	is.Equal(counts["symbols"], core.Hex(bigSymbols))

	seen := 0
	for off := 0; ; {
		ev, page := evidence(t, call(t, cs, "inspect_analysis_view", map[string]any{"source": ref,
			"view": map[string]any{"kind": "page", "collection": "symbols", "offset": off, "limit": 10000}}))
		is.Equal(ev.EvidenceLinks, []core.EvidenceID{core.EvidenceID(id)})
		for _, it := range page["items"].([]any) {
			sym := it.(map[string]any)
			is.Equal(sym["index"], core.Hex(uint64(seen+1)))
			is.Equal(sym["name"].(map[string]any)["display"], fmt.Sprintf("sym_%06d_generated_function", seen))
			seen++
		}
		next := page["coverage"].(map[string]any)["next_offset"]
		if next == nil {
			break
		}
		off = int(next.(float64))
	}
	is.Equal(seen, bigSymbols)

	_, item := evidence(t, call(t, cs, "inspect_analysis_view", map[string]any{"source": ref,
		"view": map[string]any{"kind": "item", "collection": "symbols", "selector": map[string]any{"name": "sym_012345_generated_function"}}}))
	is.Equal(item["item"].(map[string]any)["position"], float64(12345))

	// The record is too large for resources/read as well, and says so
	// without breaking the connection.
	_, err := cs.ReadResource(context.Background(), &sdk.ReadResourceParams{URI: "rea://evidence/" + id})
	is.True(err != nil && strings.Contains(err.Error(), "response budget"))
	is.True(!call(t, cs, "binary_session", map[string]any{}).isError)
}

// TestRaisedBudgetDeliversTheSameResultInline: with
// REA_MCP_MAX_RESPONSE_BYTES raised and a client whose receive buffer is
// raised to match, the same layout arrives inline over stdio.
func TestRaisedBudgetDeliversTheSameResultInline(t *testing.T) {
	is := is.New(t)
	elf := bigELF(t)
	_, details := errCode(t, call(t, mcpClient(t), "inspect_binary_layout", map[string]any{"path": elf}))
	want := details["reported_limits"].(map[string]any)["evidence_id"].(string)

	const raised = 64 << 20
	cmd := exec.Command(reaBin, "serve")
	cmd.Env = append(os.Environ(), fmt.Sprintf("%s=%d", core.MaxResponseBytesEnv, raised))
	stdin, err := cmd.StdinPipe()
	is.NoErr(err)
	stdout, err := cmd.StdoutPipe()
	is.NoErr(err)
	is.NoErr(cmd.Start())
	defer func() { stdin.Close(); cmd.Wait() }()
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "raised", Version: "1"}, nil).
		Connect(context.Background(), &sdk.IOTransport{Reader: stdout, Writer: stdin, MaxLineLength: raised}, nil)
	is.NoErr(err)
	defer cs.Close()
	res, text := callMCP(t, cs, "inspect_binary_layout", map[string]any{"path": elf})
	is.True(!res.IsError)
	is.True(len(text) > 10<<20)
	ev, err := core.ParseEvidence([]byte(text))
	is.NoErr(err)
	is.Equal(string(ev.EvidenceID), want)
	structured, _ := json.Marshal(res.StructuredContent)
	ev2, err := core.ParseEvidence(structured)
	is.NoErr(err)
	is.Equal(ev2.EvidenceID, ev.EvidenceID)
}

// TestTypeScriptClientReceivesResourceConstraint: the official client, with
// its default 10 MiB receive buffer, gets the error without throwing and
// continues on the same connection.
func TestTypeScriptClientReceivesResourceConstraint(t *testing.T) {
	is := is.New(t)
	needNodeModule(t, "@modelcontextprotocol/sdk")
	elf := bigELF(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	out, err := exec.CommandContext(ctx, "node", "testdata/budget.mjs", reaBin, elf).Output()
	is.NoErr(err)
	var s struct {
		OK     bool
		Thrown string
		Layout struct {
			IsError    bool
			Structured any
			Code       string
			Resource   string
			EvidenceID string `json:"evidence_id"`
			TextBytes  int    `json:"text_bytes"`
		}
		Found struct {
			IsError bool
			IDs     []string
		}
		Page struct {
			IsError    bool
			Items      int
			NextOffset int `json:"next_offset"`
			Parent     string
		}
		Session struct{ IsError bool }
	}
	is.NoErr(json.Unmarshal(out, &s))
	if !s.OK {
		t.Fatalf("the TypeScript client threw: %s", s.Thrown)
	}
	is.True(s.Layout.IsError)
	is.Equal(s.Layout.Structured, nil)
	is.Equal(s.Layout.Code, "resource_constraint")
	is.Equal(s.Layout.Resource, "transport")
	is.True(s.Layout.TextBytes < 8192)
	is.Equal(s.Found.IDs, []string{s.Layout.EvidenceID})
	is.True(!s.Page.IsError)
	is.Equal(s.Page.Items, 100)
	is.Equal(s.Page.NextOffset, 100)
	is.Equal(s.Page.Parent, s.Layout.EvidenceID)
	is.True(!s.Session.IsError)
}

func TestEvidenceResources(t *testing.T) {
	is := is.New(t)
	cs := mcpClient(t)
	tmpls, err := cs.ListResourceTemplates(context.Background(), nil)
	is.NoErr(err)
	var uris []string
	for _, tm := range tmpls.ResourceTemplates {
		uris = append(uris, tm.URITemplate)
		is.Equal(tm.MIMEType, "application/json")
	}
	is.Equal(uris, []string{"rea://evidence-bundle/{digest}", "rea://evidence/{evidence_id}", "rea://evidence/{evidence_id}/{section}"})

	ev, sum := evidence(t, call(t, cs, "inspect_binary_layout", map[string]any{"path": "/usr/bin/ls", "detail": "summary"}))
	// The summary answers the question most often asked of a layout.
	mit := sum["summary"].(map[string]any)["mitigations"].(map[string]any)
	is.Equal(mit["position_independent"], true)
	var snap struct {
		Result core.SnapshotResult
	}
	is.NoErr(json.Unmarshal([]byte(call(t, cs, "snapshot_evidence_bundle", map[string]any{}).text), &snap))
	is.Equal(snap.Result.Records, 2)
	rr, err := cs.ReadResource(context.Background(), &sdk.ReadResourceParams{URI: snap.Result.BundleURI})
	is.NoErr(err)
	is.Equal(len(rr.Contents), 1)
	is.Equal(rr.Contents[0].MIMEType, "application/json")
	var b core.Bundle
	is.NoErr(json.Unmarshal([]byte(rr.Contents[0].Text), &b))
	is.Equal(len(b.Records), 2)
	rr, err = cs.ReadResource(context.Background(), &sdk.ReadResourceParams{URI: "rea://evidence/" + string(ev.EvidenceID)})
	is.NoErr(err)
	got, err := core.ParseEvidence([]byte(rr.Contents[0].Text))
	is.NoErr(err)
	is.Equal(got.EvidenceID, ev.EvidenceID)

	notFound := func(uri string) {
		t.Helper()
		_, err := cs.ReadResource(context.Background(), &sdk.ReadResourceParams{URI: uri})
		var je *jsonrpc.Error
		if !errors.As(err, &je) || je.Code != sdk.CodeResourceNotFound {
			t.Fatalf("%s: want resource-not-found, got %v", uri, err)
		}
	}
	notFound("rea://evidence/ev_" + strings.Repeat("0", 64))
	notFound("rea://nothing/here")
	// close_binary clears snapshots with the ledger.
	is.True(!call(t, cs, "close_binary", map[string]any{}).isError)
	notFound(snap.Result.BundleURI)
	notFound("rea://evidence/" + string(ev.EvidenceID))
}

// TestExportHelperProcess is run by TestExportKilledMidway in a child
// process: it exports a large ledger slowly until it is killed.
func TestExportHelperProcess(t *testing.T) {
	dest := os.Getenv("REA_TEST_EXPORT_DEST")
	if dest == "" {
		t.Skip("helper process of TestExportKilledMidway")
	}
	a, err := wire(noEnv)
	if err != nil {
		t.Fatal(err)
	}
	s := core.NewSession(a.cat, a.reg, nil)
	v := "0.1.0"
	for i := 0; i < 10000; i++ {
		e := &core.Evidence{Provider: core.ProviderRef{ID: "rea", Name: "rea", Version: &v}, Operation: "test",
			Parameters: json.RawMessage(fmt.Sprintf(`{"n":%d}`, i)), NormalizedResult: json.RawMessage(fmt.Sprintf("%q", strings.Repeat("x", 1000)))}
		if err := e.Seal(); err != nil {
			t.Fatal(err)
		}
		if _, err := s.Ledger().Record(e); err != nil {
			t.Fatal(err)
		}
	}
	raw, _ := json.Marshal(map[string]any{"path": dest})
	_, err = s.Call(context.Background(), "export_evidence_bundle", raw, &core.CallOptions{Progress: slowProgress{}})
	t.Fatalf("the export should have been killed; it ended with %v", err)
}

// slowProgress stretches an export so the parent can kill it midway.
type slowProgress struct{}

func (slowProgress) Observe(string, string) { time.Sleep(300 * time.Millisecond) }
func (slowProgress) Finish(string, string)  {}

// TestExportKilledMidway SIGKILLs a process during an export: the
// destination never exists partially, and the next export publishes a
// complete file and removes the dead process's staging file.
func TestExportKilledMidway(t *testing.T) {
	is := is.New(t)
	dir := t.TempDir()
	dest := filepath.Join(dir, "bundle.json")
	cmd := exec.Command(os.Args[0], "-test.run=^TestExportHelperProcess$", "-test.count=1")
	tmp := t.TempDir() // the child's TestMain builds into TMPDIR; SIGKILL skips its cleanup
	cmd.Env = append(os.Environ(), "REA_TEST_EXPORT_DEST="+dest, "TMPDIR="+tmp)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	is.NoErr(cmd.Start())
	staging := ""
	deadline := time.Now().Add(2 * time.Minute)
	for staging == "" && time.Now().Before(deadline) {
		entries, _ := os.ReadDir(dir)
		for _, e := range entries {
			if info, err := e.Info(); err == nil && strings.Contains(e.Name(), ".rea-export.") && info.Size() > 0 {
				staging = filepath.Join(dir, e.Name())
			}
		}
		time.Sleep(5 * time.Millisecond)
	}
	if staging == "" {
		cmd.Process.Kill()
		cmd.Wait()
		t.Fatalf("no staging file appeared; child output:\n%s", out.String())
	}
	is.NoErr(cmd.Process.Signal(syscall.SIGKILL))
	_ = cmd.Wait()
	_, err := os.Lstat(dest)
	is.True(errors.Is(err, os.ErrNotExist)) // never a partial destination
	st, err := os.Stat(staging)
	is.NoErr(err)
	is.True(st.Size() > 0)

	// A later export publishes a complete bundle and cleans the stale staging.
	a, err := wire(noEnv)
	is.NoErr(err)
	s := core.NewSession(a.cat, a.reg, nil)
	defer s.Close(context.Background())
	res, err := s.Export(context.Background(), dest, nil)
	is.NoErr(err)
	is.Equal(res.Records, 0)
	_, err = os.Stat(staging)
	is.True(errors.Is(err, os.ErrNotExist))
	_, err = core.ReadBundleFile(context.Background(), dest, nil, nil)
	is.NoErr(err)
}

func TestCLIEvidenceCommands(t *testing.T) {
	is := is.New(t)
	dir := t.TempDir()
	one := filepath.Join(dir, "one.json")
	two := filepath.Join(dir, "two.json")
	_, errOut, code := runCLI(t, "evidence-export", one, "--target", "/usr/bin/ls", "--call", "list_segments {}")
	is.Equal(code, 0)
	is.Equal(errOut, "")
	// two: one's records plus a layout.
	out, _, code := runCLI(t, "--format", "json", "evidence-export", two, "--from", one,
		"--call", `inspect_binary_layout {"path":"/usr/bin/ls","detail":"summary"}`)
	is.Equal(code, 0)
	var exp core.ExportResult
	is.NoErr(json.Unmarshal([]byte(out), &exp))
	is.Equal(exp.Path, two)

	out, _, code = runCLI(t, "--format", "json", "evidence-import", two)
	is.Equal(code, 0)
	var imp struct {
		Import  core.ImportResult
		Summary core.BundleSummary
	}
	is.NoErr(json.Unmarshal([]byte(out), &imp))
	is.Equal(imp.Import.Total, exp.Records)
	is.Equal(imp.Summary.TotalRetainedRecords, exp.Records)

	out, _, code = runCLI(t, "--format", "json", "inspect-evidence-bundle", `{"path":"`+two+`","detail":"summary","filters":{"operation":"inspect_binary_layout"}}`)
	is.Equal(code, 0)
	var sum core.BundleSummary
	is.NoErr(json.Unmarshal([]byte(out), &sum))
	is.Equal(sum.MatchingRecords, 2) // the complete layout and its summary view
	// A plain path, as evidence-import takes one.
	out, _, code = runCLI(t, "--format", "json", "inspect-evidence-bundle", two, "--detail", "summary")
	is.Equal(code, 0)
	var all core.BundleSummary
	is.NoErr(json.Unmarshal([]byte(out), &all))
	is.Equal(all.MatchingRecords, exp.Records)
	// Complete detail with --format json prints the canonical bundle's
	// bytes, then a newline.
	out, _, code = runCLI(t, "--format", "json", "inspect-evidence-bundle", `{"path":"`+two+`"}`)
	is.Equal(code, 0)
	file, _ := os.ReadFile(two)
	is.Equal(strings.TrimSuffix(out, "\n"), string(file))
	out, _, code = runCLI(t, "--format", "json", "inspect-evidence-bundle", two)
	is.Equal(code, 0)
	is.Equal(strings.TrimSuffix(out, "\n"), string(file))
	// As text (the default), it is described for a person: a summary
	// line, a line per record and the links between records. Before, the
	// text was the canonical bundle on one line.
	out, _, code = runCLI(t, "inspect-evidence-bundle", two)
	is.Equal(code, 0)
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	is.Equal(lines[0], fmt.Sprintf("%s: canonical bundle, %d records, 0 unknown revisions", two, exp.Records))
	var recs []string
	for _, l := range lines {
		if strings.HasPrefix(l, "  ev_") && !strings.Contains(l, " -> ") {
			recs = append(recs, l)
		}
	}
	is.Equal(len(recs), exp.Records)
	is.True(strings.Contains(out, "list_segments  ")) // a record's operation
	is.True(strings.Contains(out, "\nlinks: 1\n"))    // the layout's summary view links its complete record
	is.True(strings.Contains(out, "(inspect_binary_layout) -> ev_"))
	for _, l := range lines {
		is.True(len(l) < 400) // no record's payload
	}
	// The same projection over MCP.
	cs := mcpClient(t)
	is.True(!call(t, cs, "import_evidence_bundle", map[string]any{"path": two}).isError)
	var mcpSum struct{ Result core.BundleSummary }
	json.Unmarshal([]byte(call(t, cs, "get_evidence_bundle", map[string]any{"detail": "summary", "filters": map[string]any{"operation": "inspect_binary_layout"}}).text), &mcpSum)
	a, _ := json.Marshal(mcpSum.Result)
	b, _ := json.Marshal(sum)
	is.Equal(string(a), string(b))

	out, _, code = runCLI(t, "compare", one, two)
	is.Equal(code, 0)
	is.True(strings.HasPrefix(out, "different: 2 added, 0 removed, 0 changed"))
	out, _, code = runCLI(t, "compare", one, one)
	is.Equal(code, 0)
	is.True(strings.HasPrefix(out, "no-differences-observed"))

	// Bad input: typed errors with their exit codes.
	tampered := filepath.Join(dir, "tampered.json")
	os.WriteFile(tampered, bytes.Replace(file, []byte(`"SHF_ALLOC"`), []byte(`"SHF_ALLOX"`), 1), 0o600)
	fifo := filepath.Join(dir, "fifo")
	syscall.Mkfifo(fifo, 0o600)
	for _, c := range []struct {
		args []string
		code int
	}{
		{[]string{"evidence-import", tampered}, 5},
		{[]string{"inspect-evidence-bundle", `{"path":"` + two + `","filters":{"operation":"x"}}`}, 2},
		{[]string{"evidence-export", two}, 2},  // exists
		{[]string{"evidence-export", fifo}, 2}, // not a regular file
		{[]string{"evidence-import", filepath.Join(dir, "absent.json")}, 2},
		{[]string{"compare", one, tampered}, 5},
	} {
		_, errOut, code := runCLI(t, c.args...)
		if code != c.code {
			t.Errorf("%v: exit %d, want %d: %s", c.args, code, c.code, errOut)
		}
	}
}

// rea call inspect_analysis_view --evidence source=@FILE passes the record
// in the inline wrapper its source takes, as the other Evidence arguments
// take the record itself.
func TestCLIViewOfEvidenceFile(t *testing.T) {
	is := is.New(t)
	out, _, code := runCLI(t, "--format", "json", "analyze-javascript-application", "testdata/jsapp/src")
	is.Equal(code, 0)
	file := filepath.Join(t.TempDir(), "app.json")
	is.NoErr(os.WriteFile(file, []byte(out), 0o600))
	out, errOut, code := runCLI(t, "--format", "json", "call", "inspect_analysis_view", `{"view":{"kind":"summary"}}`, "--evidence", "source=@"+file)
	is.Equal(errOut, "")
	is.Equal(code, 0)
	var view struct {
		NormalizedResult struct {
			Kind            string `json:"kind"`
			ParentOperation string `json:"parent_operation"`
		} `json:"normalized_result"`
	}
	is.NoErr(json.Unmarshal([]byte(out), &view))
	is.Equal(view.NormalizedResult.Kind, "summary")
	is.Equal(view.NormalizedResult.ParentOperation, "analyze_javascript_application")
}
