package core_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/matryer/is"

	"rea/core"
)

func bndExportSession(t *testing.T, records int) *core.Session {
	t.Helper()
	s := bndSession(t)
	for i := 0; i < records; i++ {
		bndRecord(t, s, i, "r")
	}
	return s
}

func TestExportRefusals(t *testing.T) {
	s := bndExportSession(t, 3)
	dir := t.TempDir()
	existing := filepath.Join(dir, "existing.json")
	os.WriteFile(existing, []byte("keep"), 0o644)
	target := filepath.Join(dir, "target.json")
	os.WriteFile(target, []byte("target"), 0o644)
	link := filepath.Join(dir, "link.json")
	os.Symlink(target, link)
	fifo := filepath.Join(dir, "fifo.json")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skip("mkfifo:", err)
	}
	sub := filepath.Join(dir, "sub")
	os.Mkdir(sub, 0o755)
	cases := []struct {
		name      string
		args      map[string]any
		code      core.Code
		reason    string
		unchanged string
	}{
		{"existing without overwrite", map[string]any{"path": existing}, core.CodeInvalidRequest, "exists", existing},
		{"symlink", map[string]any{"path": link, "overwrite": true}, core.CodeInvalidRequest, "not-file", target},
		{"fifo", map[string]any{"path": fifo, "overwrite": true}, core.CodeInvalidRequest, "not-file", ""},
		{"directory", map[string]any{"path": sub, "overwrite": true}, core.CodeInvalidRequest, "not-file", ""},
		{"missing directory", map[string]any{"path": filepath.Join(dir, "nope", "x.json")}, core.CodeInvalidRequest, "missing", ""},
		{"NUL in the path", map[string]any{"path": filepath.Join(dir, "a\x00b.json")}, core.CodeInvalidRequest, "path", ""},
		{"name too long", map[string]any{"path": filepath.Join(dir, strings.Repeat("n", 300)+".json")}, core.CodeInvalidRequest, "path", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			is := is.New(t)
			var before []byte
			if c.unchanged != "" {
				before, _ = os.ReadFile(c.unchanged)
			}
			e := bndErr(t, s, "export_evidence_bundle", c.args)
			is.Equal(e.Code, c.code)
			is.Equal(e.Details["reason"], c.reason)
			is.Equal(e.Details["operation"], "write")
			if c.unchanged != "" {
				after, _ := os.ReadFile(c.unchanged)
				is.Equal(string(after), string(before))
			}
			st, err := os.Lstat(link)
			is.NoErr(err)
			is.True(st.Mode()&os.ModeSymlink != 0) // never replaced
		})
	}
	is := is.New(t)
	is.Equal(bndErr(t, s, "export_evidence_bundle", map[string]any{"path": "rel.json"}).Code, core.CodeInvalidRequest)
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		is.True(!strings.Contains(e.Name(), ".rea-export.")) // no staging left behind
	}
}

func TestExportPublishesAtomically(t *testing.T) {
	is := is.New(t)
	s := bndExportSession(t, 5)
	dir := t.TempDir()
	path := filepath.Join(dir, "out.json")
	_, res := bndCall(t, s, "export_evidence_bundle", map[string]any{"path": path})
	is.Equal(res["records"], float64(5))
	st, err := os.Stat(path)
	is.NoErr(err)
	is.Equal(st.Mode().Perm(), os.FileMode(0o600))
	is.Equal(res["bytes"], float64(st.Size()))
	// overwrite replaces the regular file with a complete bundle.
	bndRecord(t, s, 99, "more")
	_, res = bndCall(t, s, "export_evidence_bundle", map[string]any{"path": path, "overwrite": true})
	is.Equal(res["records"], float64(6))
	_, _, err = bndRead(must(os.ReadFile(path)), nil)
	is.NoErr(err)
}

func must(b []byte, err error) []byte {
	if err != nil {
		panic(err)
	}
	return b
}

func TestExportCancelledMidwayLeavesNothing(t *testing.T) {
	is := is.New(t)
	s := bndExportSession(t, 3000)
	dir := t.TempDir()
	path := filepath.Join(dir, "out.json")
	os.WriteFile(path, []byte("previous"), 0o600)
	ctx, cancel := context.WithCancel(context.Background())
	var staged []string
	restore := core.SetExportHook(func(n int) {
		if n == 1000 {
			entries, _ := os.ReadDir(dir)
			for _, e := range entries {
				staged = append(staged, e.Name())
			}
			cancel()
		}
	})
	defer restore()
	_, err := s.Call(ctx, "export_evidence_bundle", bndArgs(t, map[string]any{"path": path, "overwrite": true}), nil)
	is.Equal(core.AsError("t", err).Code, core.CodeCancelled)
	is.Equal(len(staged), 2) // the destination and the staging file, while writing
	b, _ := os.ReadFile(path)
	is.Equal(string(b), "previous") // unchanged
	entries, _ := os.ReadDir(dir)
	is.Equal(len(entries), 1) // staging removed
}

func TestExportRemovesStaleStagingOfDeadProcesses(t *testing.T) {
	is := is.New(t)
	s := bndExportSession(t, 1)
	dir := t.TempDir()
	// A pid that cannot be alive (above pid_max) and our own parent's.
	dead := filepath.Join(dir, ".out.json.rea-export.2147483646.0011223344556677.tmp")
	live := filepath.Join(dir, ".out.json.rea-export."+strconv.Itoa(os.Getppid())+".8899aabbccddeeff.tmp")
	other := filepath.Join(dir, ".other.json.rea-export.2147483646.0011223344556677.tmp")
	for _, p := range []string{dead, live, other} {
		os.WriteFile(p, []byte("partial"), 0o600)
	}
	bndCall(t, s, "export_evidence_bundle", map[string]any{"path": filepath.Join(dir, "out.json")})
	_, err := os.Stat(dead)
	is.True(errors.Is(err, os.ErrNotExist))
	_, err = os.Stat(live)
	is.NoErr(err)
	_, err = os.Stat(other)
	is.NoErr(err)
}
