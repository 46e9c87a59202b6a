package main

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/matryer/is"
)

// With DEBUGINFOD_URLS naming a server and no local debug file, rea fetches
// a stripped program's debug file by build ID into its native cache
// (debuginfod/<id>/debuginfo): the profile names it, the Evidence ID is the
// same on the next run, which reads the cache without asking, and differs
// from the one without; rea doctor lists the fetched file and clears it.
func TestDebuginfodURLs(t *testing.T) {
	is := is.New(t)
	for _, tool := range []string{"gcc", "objcopy", "strip", "readelf"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s is not installed: apt install %s", tool, map[bool]string{true: "gcc", false: "binutils"}[tool == "gcc"])
		}
	}
	dir := t.TempDir()
	full, prog, dbg := filepath.Join(dir, "full"), filepath.Join(dir, "prog"), filepath.Join(dir, "prog.debug")
	for _, s := range [][]string{
		{"gcc", "-g", "-O1", "-Wl,--build-id", "-o", full, "testdata/hello.c"},
		{"objcopy", "--only-keep-debug", full, dbg},
		{"strip", "--strip-all", "-o", prog, full},
	} {
		if out, err := exec.Command(s[0], s[1:]...).CombinedOutput(); err != nil {
			t.Fatalf("%v: %v\n%s", s, err, out)
		}
	}
	out, err := exec.Command("readelf", "-n", prog).Output()
	is.NoErr(err)
	_, id, _ := strings.Cut(string(out), "Build ID: ")
	id = strings.TrimSpace(strings.SplitN(id, "\n", 2)[0])
	file, err := os.ReadFile(dbg)
	is.NoErr(err)
	var hits atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		if r.URL.Path != "/buildid/"+id+"/debuginfo" {
			http.NotFound(w, r)
			return
		}
		w.Write(file)
	}))
	defer srv.Close()
	cache := filepath.Join(dir, "cache")

	rea := func(urls string, args ...string) []byte {
		t.Helper()
		ctx, cancel := context.WithTimeout(context.Background(), cliLimit)
		defer cancel()
		cmd := exec.CommandContext(ctx, reaBin, append([]string{"--format", "json"}, args...)...)
		cmd.Env = append(os.Environ(), "REA_DEBUG_FILE_DIRECTORIES=", "REA_NATIVE_CACHE_DIR="+cache, "DEBUGINFOD_URLS="+urls)
		dieWithTests(cmd)
		var o, e bytes.Buffer
		cmd.Stdout, cmd.Stderr = &o, &e
		if err := cmd.Run(); err != nil && args[0] != "doctor" {
			t.Fatalf("rea %v: %v\n%s", args, err, e.String())
		}
		return o.Bytes()
	}
	overview := func(urls string) (evID string, params map[string]any) {
		var v map[string]any
		is.NoErr(json.Unmarshal(rea(urls, "analyze", prog), &v))
		ov := v["overview"].(map[string]any)
		return ov["evidence_id"].(string), ov["analysis_profile"].(map[string]any)["parameters"].(map[string]any)
	}
	id1, p1 := overview(srv.URL)
	is.Equal(hits.Load(), int32(1))
	id2, _ := overview(srv.URL)
	is.Equal(hits.Load(), int32(1)) // the cache's
	idOff, pOff := overview("")
	is.Equal(id1, id2)
	is.True(id1 != idOff)
	kept := filepath.Join(cache, "debuginfod", id, "debuginfo")
	d := p1["debug_file"].(map[string]any)
	is.Equal(d["path"], kept)
	is.Equal(d["found_by"], "debuginfod")
	is.Equal(pOff["debug_file"], nil)

	doctor := func(args ...string) string {
		var v struct {
			Checks []struct{ Name, Detail string }
		}
		is.NoErr(json.Unmarshal(rea("", append([]string{"doctor"}, args...)...), &v))
		for _, c := range v.Checks {
			if c.Name == "cache:rea-native-debuginfod" {
				return c.Detail
			}
		}
		t.Fatal("rea doctor lists no cache:rea-native-debuginfod")
		return ""
	}
	is.True(strings.HasPrefix(doctor(), filepath.Join(cache, "debuginfod")+" holds 1 entries"))
	is.True(strings.Contains(doctor("--clear-cache"), " cleared 1 entries"))
	_, err = os.Stat(kept)
	is.True(os.IsNotExist(err))
}
