package native_test

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/matryer/is"

	"rea/adapters/native"
	"rea/ports"
)

// debugServer serves debug files by build ID as a debuginfod server does
// (GET /buildid/<hex>/debuginfo), counting the requests.
type debugServer struct {
	files map[string][]byte // build ID (hex) to the file
	hits  atomic.Int32
	// serve, when set, answers instead (after the count).
	serve func(w http.ResponseWriter, r *http.Request, file []byte)
}

func (s *debugServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.hits.Add(1)
	id, ok := strings.CutPrefix(r.URL.Path, "/buildid/")
	id, ok2 := strings.CutSuffix(id, "/debuginfo")
	file, have := s.files[id]
	if !ok || !ok2 || !have {
		http.NotFound(w, r)
		return
	}
	if s.serve != nil {
		s.serve(w, r, file)
		return
	}
	w.Header().Set("Content-Length", fmt.Sprint(len(file)))
	w.Write(file)
}

// serveDebug starts a debuginfod-like server over the build's debug file.
func serveDebug(t *testing.T, b debugBuild, tls bool) (*debugServer, *httptest.Server) {
	t.Helper()
	file, err := os.ReadFile(b.byID)
	if err != nil {
		t.Fatal(err)
	}
	s := &debugServer{files: map[string][]byte{b.id: file}}
	var srv *httptest.Server
	if tls {
		srv = httptest.NewTLSServer(s)
	} else {
		srv = httptest.NewServer(s)
	}
	t.Cleanup(srv.Close)
	return s, srv
}

// openDebuginfod opens path with no local debug directories and d.
func openDebuginfod(ctx context.Context, path string, d *native.Debuginfod) (*native.Analysis, error) {
	an, err := native.New(&native.Options{Debuginfod: d}).Open(ctx, ports.Target{Path: path})
	if err != nil {
		return nil, err
	}
	return an.(*native.Analysis), nil
}

func mustOpenDebuginfod(t *testing.T, path string, d *native.Debuginfod) *native.Analysis {
	t.Helper()
	a, err := openDebuginfod(context.Background(), path, d)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { a.Close(context.Background()) })
	return a
}

func limitations(t *testing.T, a *native.Analysis) []string {
	t.Helper()
	lims, err := a.Limitations(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return lims
}

// cacheFiles lists what the cache directory holds, as paths relative to it,
// but the mark of the last cleaning round (TestDebuginfodClean checks it).
func cacheFiles(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && p != filepath.Join(dir, "cleaned") {
			rel, _ := filepath.Rel(dir, p)
			out = append(out, rel)
		}
		return nil
	})
	return out
}

// A stripped program with no local debug file gets it from the second of
// two servers (the first has none: a 404 is passed over), over HTTP and
// HTTPS, with what a local debug file gives; the file is kept in the cache
// and the next open reads it there without asking, with the same profile.
func TestDebuginfodFetch(t *testing.T) {
	b := buildDebug(t, "", "-Wl,--build-id")
	local := openWith(t, b.stripped, b.root)
	wantP, wantN := procsAndNames(t, local)
	for _, tls := range []bool{false, true} {
		t.Run(fmt.Sprintf("tls=%v", tls), func(t *testing.T) {
			is := is.New(t)
			s, srv := serveDebug(t, b, tls)
			none := httptest.NewServer(http.NotFoundHandler())
			defer none.Close()
			cache := t.TempDir()
			d := &native.Debuginfod{URLs: []string{none.URL, srv.URL + "/"}, CacheDir: cache, Client: srv.Client()}

			a := mustOpenDebuginfod(t, b.stripped, d)
			p := debugParam(a)
			is.True(p != nil)
			kept := filepath.Join(cache, b.id, "debuginfo")
			is.Equal(p["path"], kept)
			is.Equal(p["found_by"], "debuginfod")
			is.Equal(p["sha256"], sha256Of(t, b.byID))
			is.Equal(p["used_for"], []string{"symbols", "dwarf"})
			is.Equal(cacheFiles(t, cache), []string{filepath.Join(b.id, "debuginfo")})
			gotP, gotN := procsAndNames(t, a)
			is.Equal(gotP, wantP)
			is.Equal(gotN, wantN)
			is.Equal(limitations(t, a), []string(nil))
			sig, err := a.Signature(context.Background(), procAddr(t, a, "add"))
			is.NoErr(err)
			is.Equal(sigText("add", sig), "int add(int a, int b)")
			is.Equal(s.hits.Load(), int32(1))

			again := mustOpenDebuginfod(t, b.stripped, d)
			is.Equal(s.hits.Load(), int32(1)) // from the cache
			is.Equal(debugParam(again), p)
			is.Equal(native.CacheProfileDigest(context.Background(), again), native.CacheProfileDigest(context.Background(), a))

			n, bytes, err := native.DebuginfodCacheUsage(cache, true)
			is.NoErr(err)
			is.Equal(n, 1)
			is.Equal(bytes, int64(len(s.files[b.id])))
			is.Equal(cacheFiles(t, cache), []string(nil))
		})
	}
}

// The debug file of a program processed by dwz names its supplementary
// file, which is fetched by that file's build ID as well (as gdb does): the
// signatures are those of the build without dwz, and both files come from
// the cache the next time.
func TestDebuginfodSupplementary(t *testing.T) {
	is := is.New(t)
	b := buildDWZ(t, "", false, false)
	s := &debugServer{files: map[string][]byte{b.supID: mustRead(t, b.sup)}}
	for _, p := range dwzPrograms {
		s.files[buildIDOf(t, b.stripped[p])] = mustRead(t, b.debug[p])
	}
	srv := httptest.NewServer(s)
	defer srv.Close()
	cache := t.TempDir()
	d := &native.Debuginfod{URLs: []string{srv.URL}, CacheDir: cache}
	a := mustOpenDebuginfod(t, b.stripped["prog1"], d)
	is.Equal(debugParam(a)["found_by"], "debuginfod")
	is.Equal(supParam(a), map[string]any{"path": filepath.Join(cache, b.supID, "debuginfo"), "sha256": sha256Of(t, b.sup), "found_by": "debuginfod"})
	is.Equal(limitations(t, a), []string(nil))
	want, got := signaturesAt(t, openWith(t, b.plain["prog1"]), a)
	is.True(len(want) >= 2)
	is.Equal(got, want)
	is.Equal(s.hits.Load(), int32(2))
	again := mustOpenDebuginfod(t, b.stripped["prog1"], d)
	is.Equal(debugParam(again), debugParam(a))
	is.Equal(s.hits.Load(), int32(2))

	// A server without it: the debug file alone, and the limitation says so.
	delete(s.files, b.supID)
	a = mustOpenDebuginfod(t, b.stripped["prog2"], &native.Debuginfod{URLs: []string{srv.URL}, CacheDir: t.TempDir()})
	is.Equal(debugParam(a)["found_by"], "debuginfod")
	is.Equal(supParam(a), nil)
	lims := limitations(t, a)
	is.Equal(len(lims), 1)
	is.True(strings.Contains(lims[0], "has the supplementary (dwz) file of build ID "+b.supID))
}

// Without a cache directory the file is fetched into a temporary file that
// is removed at once; the profile names the URL it came from, without the
// password in it.
func TestDebuginfodNoCache(t *testing.T) {
	is := is.New(t)
	b := buildDebug(t, "", "-Wl,--build-id")
	s, srv := serveDebug(t, b, false)
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	d := &native.Debuginfod{URLs: []string{strings.Replace(srv.URL, "http://", "http://rea:secret@", 1)}}
	a := mustOpenDebuginfod(t, b.stripped, d)
	p := debugParam(a)
	is.Equal(p["path"], strings.Replace(srv.URL, "http://", "http://rea:xxxxx@", 1)+"/buildid/"+b.id+"/debuginfo")
	is.Equal(p["sha256"], sha256Of(t, b.byID))
	is.Equal(cacheFiles(t, tmp), []string(nil))
	mustOpenDebuginfod(t, b.stripped, d)
	is.Equal(s.hits.Load(), int32(2))
}

// A local debug file is preferred: no server is asked.
func TestDebuginfodLocalFirst(t *testing.T) {
	is := is.New(t)
	b := buildDebug(t, "", "-Wl,--build-id")
	s, srv := serveDebug(t, b, false)
	an, err := native.New(&native.Options{DebugFileDirectories: []string{b.root},
		Debuginfod: &native.Debuginfod{URLs: []string{srv.URL}, CacheDir: t.TempDir()}}).Open(context.Background(), ports.Target{Path: b.stripped})
	is.NoErr(err)
	defer an.Close(context.Background())
	is.Equal(debugParam(an.(*native.Analysis))["found_by"], "build-id")
	is.Equal(s.hits.Load(), int32(0))
}

// Every way a server can fail is a limitation naming it, the analysis is
// what it is without a debug file, and nothing is left in the cache but,
// for a 404, the marker that remembers the miss.
func TestDebuginfodRefusals(t *testing.T) {
	b := buildDebug(t, "", "-Wl,--build-id")
	other := buildDebug(t, "", "-Wl,--build-id", "-DOTHER_BUILD", "-O2")
	offP, offN := procsAndNames(t, openWith(t, b.stripped))
	var cutShort atomic.Bool
	otherFile, err := os.ReadFile(other.byID)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name  string
		serve func(w http.ResponseWriter, r *http.Request, file []byte)
		opts  native.Debuginfod
		want  string
		cut   bool // the server's writes fail: the download stopped at the bound
	}{
		{name: "not-there", serve: func(w http.ResponseWriter, r *http.Request, _ []byte) { http.NotFound(w, r) },
			want: "No debuginfod server of DEBUGINFOD_URLS"},
		{name: "server-error", serve: func(w http.ResponseWriter, r *http.Request, _ []byte) { http.Error(w, "boom", 500) },
			want: "HTTP status 500 Internal Server Error"},
		{name: "slow-headers", opts: native.Debuginfod{Timeout: 100 * time.Millisecond},
			serve: func(w http.ResponseWriter, r *http.Request, _ []byte) { <-r.Context().Done() },
			want:  "less than 100 KiB within DEBUGINFOD_TIMEOUT"},
		{name: "slow-body", opts: native.Debuginfod{Timeout: 100 * time.Millisecond},
			serve: func(w http.ResponseWriter, r *http.Request, file []byte) {
				w.Header().Set("Content-Length", fmt.Sprint(len(file)))
				w.Write(file[:1000])
				w.(http.Flusher).Flush()
				<-r.Context().Done()
			},
			want: "less than 100 KiB within DEBUGINFOD_TIMEOUT"},
		{name: "max-time", opts: native.Debuginfod{MaxTime: 100 * time.Millisecond, Timeout: -1},
			serve: func(w http.ResponseWriter, r *http.Request, file []byte) {
				w.Header().Set("Content-Length", fmt.Sprint(len(file)))
				w.Write(file[:len(file)/2])
				w.(http.Flusher).Flush()
				<-r.Context().Done()
			},
			want: "longer than DEBUGINFOD_MAXTIME"},
		{name: "declared-too-big", opts: native.Debuginfod{MaxSize: 1000}, want: "declares"},
		{name: "sent-too-big", opts: native.Debuginfod{MaxSize: 1000},
			serve: func(w http.ResponseWriter, r *http.Request, file []byte) { // chunked: no length declared
				w.Write(file[:500])
				w.(http.Flusher).Flush()
				// 64 MiB more, which no socket buffers: the client stops
				// reading at the bound, so a write fails before the end.
				chunk := make([]byte, 64<<10)
				for range 1024 {
					if _, err := w.Write(chunk); err != nil {
						cutShort.Store(true)
						return
					}
				}
			},
			want: "sent more than the bound of 1000 bytes", cut: true},
		{name: "truncated", serve: func(w http.ResponseWriter, r *http.Request, file []byte) {
			w.Header().Set("Content-Length", fmt.Sprint(len(file)))
			w.Write(file[:len(file)/2])
		}, want: "unexpected EOF"},
		{name: "wrong-build", serve: func(w http.ResponseWriter, r *http.Request, _ []byte) { w.Write(otherFile) },
			want: "its build ID " + other.id + " differs from the target's " + b.id},
		{name: "not-elf", serve: func(w http.ResponseWriter, r *http.Request, _ []byte) { w.Write([]byte("<html>proxy login</html>")) },
			want: "not a readable ELF file"},
	} {
		t.Run(c.name, func(t *testing.T) {
			is := is.New(t)
			cutShort.Store(false)
			s, srv := serveDebug(t, b, false)
			s.serve = c.serve
			cache := t.TempDir()
			d := c.opts
			d.URLs, d.CacheDir = []string{srv.URL}, cache
			a := mustOpenDebuginfod(t, b.stripped, &d)
			is.Equal(debugParam(a), nil)
			lims := limitations(t, a)
			is.Equal(len(lims), 1)
			is.True(strings.Contains(lims[0], c.want)) // the limitation says why
			gotP, gotN := procsAndNames(t, a)
			is.Equal(gotP, offP)
			is.Equal(gotN, offN)
			var kept []string
			if c.name == "not-there" {
				kept = []string{filepath.Join(b.id, "miss")} // the miss remembered
			}
			is.Equal(cacheFiles(t, cache), kept)
			srv.Close() // the handler has returned
			is.Equal(cutShort.Load(), c.cut)
		})
	}
}

// A server that redirects is followed; a URL that is not http or https is
// said and passed over.
func TestDebuginfodRedirect(t *testing.T) {
	is := is.New(t)
	b := buildDebug(t, "", "-Wl,--build-id")
	s, srv := serveDebug(t, b, false)
	mirror := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, srv.URL+r.URL.Path, http.StatusFound)
	}))
	defer mirror.Close()
	a := mustOpenDebuginfod(t, b.stripped, &native.Debuginfod{URLs: []string{"ftp://mirror.example/", mirror.URL}, CacheDir: t.TempDir()})
	is.Equal(debugParam(a)["sha256"], sha256Of(t, b.byID))
	is.Equal(s.hits.Load(), int32(1))
	lims := limitations(t, a)
	is.Equal(len(lims), 1)
	is.True(strings.Contains(lims[0], `"ftp://mirror.example/", which is not an http or https URL`))
}

// A file in the cache that is not the target's (another build written
// there by hand, a corrupt file) is refused, said, and replaced by the
// server's.
func TestDebuginfodCacheRefetch(t *testing.T) {
	is := is.New(t)
	b := buildDebug(t, "", "-Wl,--build-id")
	other := buildDebug(t, "", "-Wl,--build-id", "-DOTHER_BUILD", "-O2")
	s, srv := serveDebug(t, b, false)
	cache := t.TempDir()
	kept := filepath.Join(cache, b.id, "debuginfo")
	copyFile(t, other.byID, kept)
	a := mustOpenDebuginfod(t, b.stripped, &native.Debuginfod{URLs: []string{srv.URL}, CacheDir: cache})
	is.Equal(debugParam(a)["sha256"], sha256Of(t, b.byID))
	is.Equal(sha256Of(t, kept), sha256Of(t, b.byID))
	is.Equal(s.hits.Load(), int32(1))
	lims := limitations(t, a)
	is.Equal(len(lims), 1)
	is.True(strings.Contains(lims[0], kept+" (found by debuginfod) was not used: its build ID "+other.id))
}

// A build ID no server has (every one answered 404) is remembered, as
// elfutils' cache_miss_s does, by an empty marker in the cache: the next
// open asks no server and says what the first said; once the marker is
// older than the window the servers are asked again, and a server that
// has the file by then gives it (the marker goes). A server that failed
// otherwise leaves no marker; without a cache nothing is remembered; the
// cache's clear removes the marker.
func TestDebuginfodMissRemembered(t *testing.T) {
	is := is.New(t)
	b := buildDebug(t, "", "-Wl,--build-id")
	s := &debugServer{files: map[string][]byte{}}
	srv := httptest.NewServer(s)
	defer srv.Close()
	cache := t.TempDir()
	marker := filepath.Join(cache, b.id, "miss")
	d := &native.Debuginfod{URLs: []string{srv.URL}, CacheDir: cache}

	first := mustOpenDebuginfod(t, b.stripped, d)
	is.Equal(debugParam(first), nil)
	is.Equal(s.hits.Load(), int32(1))
	is.Equal(cacheFiles(t, cache), []string{filepath.Join(b.id, "miss")})
	lims := limitations(t, first)
	is.Equal(len(lims), 1)
	is.True(strings.Contains(lims[0], "has the debug file of build ID "+b.id))
	again := mustOpenDebuginfod(t, b.stripped, d)
	is.Equal(s.hits.Load(), int32(1)) // remembered
	is.Equal(limitations(t, again), lims)

	// Older than the window (the default's 600 s): asked again, and the
	// marker renewed.
	old := time.Now().Add(-native.DefaultDebuginfodCacheMiss - time.Minute)
	is.NoErr(os.Chtimes(marker, old, old))
	mustOpenDebuginfod(t, b.stripped, d)
	is.Equal(s.hits.Load(), int32(2))
	mustOpenDebuginfod(t, b.stripped, d)
	is.Equal(s.hits.Load(), int32(2))

	// A window of one's own, and a server that has the file by then.
	is.NoErr(os.Chtimes(marker, old, old))
	s.files[b.id] = mustRead(t, b.byID)
	a := mustOpenDebuginfod(t, b.stripped, &native.Debuginfod{URLs: []string{srv.URL}, CacheDir: cache, CacheMiss: time.Minute})
	is.Equal(s.hits.Load(), int32(3))
	is.Equal(debugParam(a)["found_by"], "debuginfod")
	is.Equal(cacheFiles(t, cache), []string{filepath.Join(b.id, "debuginfo")})

	// A server's failure other than a 404 is not remembered, nor is a
	// miss without a cache or with a negative window.
	fail := &debugServer{files: map[string][]byte{b.id: nil}, serve: func(w http.ResponseWriter, _ *http.Request, _ []byte) {
		http.Error(w, "busy", http.StatusServiceUnavailable)
	}}
	failSrv := httptest.NewServer(fail)
	defer failSrv.Close()
	for _, d := range []*native.Debuginfod{
		{URLs: []string{failSrv.URL}, CacheDir: t.TempDir(), RetryLimit: -1},
		{URLs: []string{srv.URL + "/none"}},
		{URLs: []string{srv.URL + "/none"}, CacheDir: t.TempDir(), CacheMiss: -1},
	} {
		before := fail.hits.Load() + s.hits.Load()
		mustOpenDebuginfod(t, b.stripped, d)
		mustOpenDebuginfod(t, b.stripped, d)
		is.Equal(fail.hits.Load()+s.hits.Load(), before+2)
		if d.CacheDir != "" {
			is.Equal(cacheFiles(t, d.CacheDir), []string(nil))
		}
	}

	// The cache's clear removes a marker.
	none := t.TempDir()
	mustOpenDebuginfod(t, b.stripped, &native.Debuginfod{URLs: []string{srv.URL + "/none"}, CacheDir: none})
	is.Equal(cacheFiles(t, none), []string{filepath.Join(b.id, "miss")})
	n, _, err := native.DebuginfodCacheUsage(none, true)
	is.NoErr(err)
	is.Equal(n, 0)
	is.Equal(cacheFiles(t, none), []string(nil))
}

// Two opens fetching one build ID at once both get the file, with the same
// digest, and the cache ends with one copy and no temporary file.
func TestDebuginfodConcurrent(t *testing.T) {
	is := is.New(t)
	b := buildDebug(t, "", "-Wl,--build-id")
	s, srv := serveDebug(t, b, false)
	var arrived sync.WaitGroup
	arrived.Add(2)
	both := make(chan struct{})
	go func() { arrived.Wait(); close(both) }()
	s.serve = func(w http.ResponseWriter, r *http.Request, file []byte) {
		arrived.Done()
		select { // both requests in flight before either is answered
		case <-both:
		case <-r.Context().Done():
			return
		}
		w.Write(file)
	}
	cache := t.TempDir()
	d := &native.Debuginfod{URLs: []string{srv.URL}, CacheDir: cache}
	var wg sync.WaitGroup
	got := make([]map[string]any, 2)
	errs := make([]error, 2)
	for i := range 2 {
		wg.Go(func() {
			a, err := openDebuginfod(context.Background(), b.stripped, d)
			if errs[i] = err; err == nil {
				got[i] = debugParam(a)
				a.Close(context.Background())
			}
		})
	}
	wg.Wait()
	is.NoErr(errs[0])
	is.NoErr(errs[1])
	is.Equal(s.hits.Load(), int32(2))
	is.Equal(got[0]["sha256"], sha256Of(t, b.byID))
	is.Equal(got[0], got[1])
	is.Equal(cacheFiles(t, cache), []string{filepath.Join(b.id, "debuginfo")})
}

// Cancelling the open while a server has not answered ends the open with
// the context's error, and leaves nothing behind.
func TestDebuginfodCancel(t *testing.T) {
	is := is.New(t)
	b := buildDebug(t, "", "-Wl,--build-id")
	s, srv := serveDebug(t, b, false)
	ctx, cancel := context.WithCancel(context.Background())
	s.serve = func(w http.ResponseWriter, r *http.Request, file []byte) {
		cancel()
		<-r.Context().Done()
	}
	cache := t.TempDir()
	_, err := openDebuginfod(ctx, b.stripped, &native.Debuginfod{URLs: []string{srv.URL}, CacheDir: cache})
	is.True(errors.Is(err, context.Canceled))
	is.Equal(cacheFiles(t, cache), []string(nil))
}

// The settings: nothing but DEBUGINFOD_URLS is read when it names no
// server; elfutils' meanings otherwise.
func TestParseDebuginfod(t *testing.T) {
	is := is.New(t)
	env := func(m map[string]string, read *[]string) func(string) (string, bool) {
		return func(k string) (string, bool) {
			*read = append(*read, k)
			v, ok := m[k]
			return v, ok
		}
	}
	var read []string
	d, err := native.ParseDebuginfod(env(map[string]string{"DEBUGINFOD_TIMEOUT": "5"}, &read), "/cache")
	is.NoErr(err)
	is.Equal(d, (*native.Debuginfod)(nil))
	is.Equal(read, []string{"DEBUGINFOD_URLS"})
	d, _ = native.ParseDebuginfod(env(map[string]string{"DEBUGINFOD_URLS": "  "}, &read), "/cache")
	is.Equal(d, (*native.Debuginfod)(nil))

	d, err = native.ParseDebuginfod(env(map[string]string{"DEBUGINFOD_URLS": "https://a.example  http://b.example/x "}, &read), "/cache")
	is.NoErr(err)
	is.Equal(d, &native.Debuginfod{URLs: []string{"https://a.example", "http://b.example/x"}, CacheDir: "/cache/debuginfod", Timeout: 90 * time.Second})
	d, err = native.ParseDebuginfod(env(map[string]string{"DEBUGINFOD_URLS": "http://a", "DEBUGINFOD_TIMEOUT": "0", "DEBUGINFOD_MAXTIME": "30", "DEBUGINFOD_MAXSIZE": "1000"}, &read), "")
	is.NoErr(err)
	is.Equal(d, &native.Debuginfod{URLs: []string{"http://a"}, Timeout: -1, MaxTime: 30 * time.Second, MaxSize: 1000})
	for _, bad := range []map[string]string{
		{"DEBUGINFOD_URLS": "http://a", "DEBUGINFOD_TIMEOUT": "soon"},
		{"DEBUGINFOD_URLS": "http://a", "DEBUGINFOD_MAXTIME": "1.5"},
		{"DEBUGINFOD_URLS": "http://a", "DEBUGINFOD_MAXSIZE": "-1"},
	} {
		_, err := native.ParseDebuginfod(env(bad, &read), "")
		is.True(err != nil)
	}
}

// elfutils' debuginfod, started over a directory laid out as Debian's
// -dbgsym packages install their files (usr/lib/debug/.build-id/xx/rest.debug),
// serves the stripped program's debug file to rea-native, which takes it as
// it takes a local one.
func TestDebuginfodLive(t *testing.T) {
	needToolPkg(t, "debuginfod", "debuginfod")
	is := is.New(t)
	b := buildDebug(t, "", "-Wl,--build-id")
	dir := t.TempDir()
	files := filepath.Join(dir, "files")
	debugDir := filepath.Join(files, "usr", "lib", "debug")
	byID := func(id string) string { return filepath.Join(debugDir, ".build-id", id[:2], id[2:]+".debug") }
	copyFile(t, b.byID, byID(b.id))
	// dwz's, as a -dbgsym package holds them: the debug file, its
	// supplementary file under .dwz.
	z := buildDWZ(t, "", false, false)
	zID := buildIDOf(t, z.stripped["prog1"])
	copyFile(t, z.debug["prog1"], byID(zID))
	copyFile(t, z.sup, filepath.Join(debugDir, ".dwz", "x86_64-linux-gnu", "common.debug"))
	base := startDebuginfod(t, dir, files)

	// debuginfod indexes in the background: wait until it has the files
	// (it answers HEAD with 400).
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	for _, id := range []string{b.id, zID, z.supID} {
		for {
			req, _ := http.NewRequestWithContext(ctx, http.MethodGet, base+"/buildid/"+id+"/debuginfo", nil)
			resp, err := http.DefaultClient.Do(req)
			if err == nil {
				resp.Body.Close()
				if resp.StatusCode == http.StatusOK {
					break
				}
			}
			select {
			case <-ctx.Done():
				t.Fatalf("debuginfod did not index %s's %s: %v", files, id, err)
			case <-time.After(100 * time.Millisecond):
			}
		}
	}
	cache := t.TempDir()
	d := &native.Debuginfod{URLs: []string{base}, CacheDir: cache}
	a := mustOpenDebuginfod(t, b.stripped, d)
	p := debugParam(a)
	is.Equal(p["found_by"], "debuginfod")
	is.Equal(p["path"], filepath.Join(cache, b.id, "debuginfo"))
	is.Equal(p["sha256"], sha256Of(t, b.byID))
	wantP, wantN := procsAndNames(t, openWith(t, b.stripped, b.root))
	gotP, gotN := procsAndNames(t, a)
	is.Equal(gotP, wantP)
	is.Equal(gotN, wantN)

	// Another build's ID is a 404 there: not found, and said so.
	other := buildDebug(t, "", "-Wl,--build-id", "-DOTHER_BUILD", "-O2")
	o := mustOpenDebuginfod(t, other.stripped, d)
	is.Equal(debugParam(o), nil)
	lims := limitations(t, o)
	is.Equal(len(lims), 1)
	is.True(strings.Contains(lims[0], "No debuginfod server of DEBUGINFOD_URLS ("+base+") has the debug file of build ID "+other.id))

	za := mustOpenDebuginfod(t, z.stripped["prog1"], d)
	is.Equal(supParam(za), map[string]any{"path": filepath.Join(cache, z.supID, "debuginfo"), "sha256": sha256Of(t, z.sup), "found_by": "debuginfod"})
	is.Equal(limitations(t, za), []string(nil))
	want, got := signaturesAt(t, openWith(t, z.plain["prog1"]), za)
	is.Equal(got, want)
}

// startDebuginfod starts debuginfod over files, its database and
// temporary files in dir, and stops it when the test ends. The port is
// one the kernel just handed out and took back (debuginfod takes no port
// 0); a start that loses it to another process is tried again.
func startDebuginfod(t *testing.T, dir, files string) string {
	t.Helper()
	for try := 0; ; try++ {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		port := ln.Addr().(*net.TCPAddr).Port
		ln.Close()
		ctx, cancel := context.WithCancel(context.Background())
		cmd := exec.CommandContext(ctx, "debuginfod", "-p", fmt.Sprint(port), "-d", filepath.Join(dir, "db.sqlite"), "-F", files, "-t", "1")
		cmd.Env = append(os.Environ(), "TMPDIR="+dir, "HOME="+dir)
		cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
		cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGTERM) }
		cmd.WaitDelay = 5 * time.Second
		var stderr strings.Builder
		cmd.Stdout, cmd.Stderr = &stderr, &stderr
		if err := cmd.Start(); err != nil {
			cancel()
			t.Fatal(err)
		}
		exited := make(chan struct{})
		go func() { cmd.Wait(); close(exited) }()
		stop := func() {
			cancel()
			<-exited
		}
		base := fmt.Sprintf("http://127.0.0.1:%d", port)
		// Up when /metrics answers; an exit first means the port was lost.
		up := false
		for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); {
			if resp, err := http.Get(base + "/metrics"); err == nil {
				resp.Body.Close()
				up = true
				break
			}
			select {
			case <-exited:
			case <-time.After(100 * time.Millisecond):
				continue
			}
			break
		}
		if up {
			t.Cleanup(stop)
			return base
		}
		stop()
		if try == 2 {
			t.Fatalf("debuginfod did not start: %s", stderr.String())
		}
	}
}
