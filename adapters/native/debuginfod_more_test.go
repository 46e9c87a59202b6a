package native_test

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/matryer/is"

	"rea/adapters/native"
	"rea/ports"
)

// DEBUGINFOD_HEADERS_FILE's headers go with every request: a server that
// wants a token gets it, and the token is written nowhere in the result.
func TestDebuginfodHeaders(t *testing.T) {
	is := is.New(t)
	b := buildDebug(t, "", "-Wl,--build-id")
	const secret = "Bearer s3cr3t-t0ken"
	s, srv := serveDebug(t, b, false)
	var sawAgent atomic.Value
	s.serve = func(w http.ResponseWriter, r *http.Request, file []byte) {
		sawAgent.Store(r.Header.Get("X-Client"))
		if r.Header.Get("Authorization") != secret {
			http.Error(w, "who are you", http.StatusUnauthorized)
			return
		}
		w.Write(file)
	}
	headers := filepath.Join(t.TempDir(), "headers")
	is.NoErr(os.WriteFile(headers, []byte("\n  \t\nAuthorization: "+secret+"\r\nX-Client:rea-test\n"), 0o600))
	lookup := func(m map[string]string) func(string) (string, bool) {
		return func(k string) (string, bool) { v, ok := m[k]; return v, ok }
	}

	// Without the file the server refuses, and says so.
	d, err := native.ParseDebuginfod(lookup(map[string]string{"DEBUGINFOD_URLS": srv.URL}), "")
	is.NoErr(err)
	a := mustOpenDebuginfod(t, b.stripped, d)
	is.Equal(debugParam(a), nil)
	lims := limitations(t, a)
	is.Equal(len(lims), 1)
	is.True(strings.Contains(lims[0], "HTTP status 401"))
	is.Equal(s.hits.Load(), int32(1)) // a 401 is not asked again

	d, err = native.ParseDebuginfod(lookup(map[string]string{"DEBUGINFOD_URLS": srv.URL, "DEBUGINFOD_HEADERS_FILE": headers}), t.TempDir())
	is.NoErr(err)
	is.Equal(d.Headers, http.Header{"Authorization": {secret}, "X-Client": {"rea-test"}})
	a = mustOpenDebuginfod(t, b.stripped, d)
	p := debugParam(a)
	is.True(p != nil)
	is.Equal(p["found_by"], "debuginfod")
	is.Equal(sawAgent.Load(), "rea-test")
	is.Equal(limitations(t, a), []string(nil))
	is.True(!strings.Contains(fmt.Sprint(a.Profile()), "s3cr3t"))

	// A file that is not headers is refused at once, naming the line and
	// not its text; so is one that cannot be read.
	for name, text := range map[string]string{
		"no-colon":     "Authorization " + secret + "\n",
		"bad-name":     "X Client: s3cr3t\n",
		"control-char": "X-Client: s3cr3t\x01\n",
	} {
		bad := filepath.Join(t.TempDir(), name)
		is.NoErr(os.WriteFile(bad, []byte("X-Ok: 1\n"+text), 0o600))
		_, err := native.ParseDebuginfod(lookup(map[string]string{"DEBUGINFOD_URLS": srv.URL, "DEBUGINFOD_HEADERS_FILE": bad}), "")
		is.True(err != nil)
		is.True(strings.Contains(err.Error(), "DEBUGINFOD_HEADERS_FILE") && strings.Contains(err.Error(), "line 2"))
		is.True(!strings.Contains(err.Error(), "s3cr3t"))
	}
	_, err = native.ParseDebuginfod(lookup(map[string]string{"DEBUGINFOD_URLS": srv.URL, "DEBUGINFOD_HEADERS_FILE": filepath.Join(t.TempDir(), "absent")}), "")
	is.True(err != nil)
	// And DEBUGINFOD_RETRY_LIMIT: 0 means once only; not a number is refused.
	d, err = native.ParseDebuginfod(lookup(map[string]string{"DEBUGINFOD_URLS": srv.URL, "DEBUGINFOD_RETRY_LIMIT": "0"}), "")
	is.NoErr(err)
	is.Equal(d.RetryLimit, -1)
	d, err = native.ParseDebuginfod(lookup(map[string]string{"DEBUGINFOD_URLS": srv.URL, "DEBUGINFOD_RETRY_LIMIT": "5"}), "")
	is.NoErr(err)
	is.Equal(d.RetryLimit, 5)
	for _, v := range []string{"-1", "two"} {
		_, err = native.ParseDebuginfod(lookup(map[string]string{"DEBUGINFOD_URLS": srv.URL, "DEBUGINFOD_RETRY_LIMIT": v}), "")
		is.True(err != nil)
	}
}

// A failure that may pass (a 5xx, a broken body, a refused connection) is
// asked again up to the retry limit; a timeout of the settings, a bound
// and a 4xx are not.
func TestDebuginfodRetry(t *testing.T) {
	b := buildDebug(t, "", "-Wl,--build-id")
	for _, c := range []struct {
		name  string
		fails int // the first fails requests fail, the rest serve the file
		fail  func(w http.ResponseWriter, r *http.Request, file []byte)
		limit int
		opts  native.Debuginfod
		hits  int32
		upTo  bool // hits is a bound: the timeout can end a request before the server counts it
		found bool
		want  string
	}{
		{name: "503-then-file", fails: 2, fail: func(w http.ResponseWriter, _ *http.Request, _ []byte) { http.Error(w, "busy", 503) },
			hits: 3, found: true},
		{name: "503-no-retries", fails: 2, fail: func(w http.ResponseWriter, _ *http.Request, _ []byte) { http.Error(w, "busy", 503) },
			limit: -1, hits: 1, want: "HTTP status 503 Service Unavailable."},
		{name: "500-always", fails: 100, fail: func(w http.ResponseWriter, _ *http.Request, _ []byte) { http.Error(w, "boom", 500) },
			hits: 3, want: "HTTP status 500 Internal Server Error (asked 3 times)."},
		{name: "500-limit-4", fails: 100, fail: func(w http.ResponseWriter, _ *http.Request, _ []byte) { http.Error(w, "boom", 500) },
			limit: 4, hits: 5, want: "(asked 5 times)."},
		{name: "truncated-then-file", fails: 1, fail: func(w http.ResponseWriter, _ *http.Request, file []byte) {
			w.Header().Set("Content-Length", fmt.Sprint(len(file)))
			w.Write(file[:len(file)/2])
		}, hits: 2, found: true},
		{name: "403", fails: 100, fail: func(w http.ResponseWriter, _ *http.Request, _ []byte) { http.Error(w, "no", 403) },
			hits: 1, want: "HTTP status 403 Forbidden."},
		{name: "timeout", fails: 100, opts: native.Debuginfod{Timeout: 100 * time.Millisecond},
			fail: func(w http.ResponseWriter, r *http.Request, _ []byte) { <-r.Context().Done() },
			hits: 1, upTo: true, want: "DEBUGINFOD_TIMEOUT"},
		{name: "bound", fails: 100, opts: native.Debuginfod{MaxSize: 1000},
			fail: func(w http.ResponseWriter, _ *http.Request, file []byte) {
				w.Header().Set("Content-Length", fmt.Sprint(len(file)))
				w.Write(file)
			}, hits: 1, want: "declares"},
	} {
		t.Run(c.name, func(t *testing.T) {
			is := is.New(t)
			s, srv := serveDebug(t, b, false)
			s.serve = func(w http.ResponseWriter, r *http.Request, file []byte) {
				if int(s.hits.Load()) <= c.fails {
					c.fail(w, r, file)
					return
				}
				w.Write(file)
			}
			d := c.opts
			d.URLs, d.CacheDir, d.RetryLimit = []string{srv.URL}, t.TempDir(), c.limit
			a := mustOpenDebuginfod(t, b.stripped, &d)
			srv.Close()
			if c.upTo {
				is.True(s.hits.Load() <= c.hits) // asked once at most: a timeout is not retried
			} else {
				is.Equal(s.hits.Load(), c.hits)
			}
			is.Equal(debugParam(a) != nil, c.found)
			lims := limitations(t, a)
			if c.found {
				is.Equal(lims, []string(nil))
				is.Equal(cacheFiles(t, d.CacheDir), []string{filepath.Join(b.id, "debuginfo")}) // no temporary file left
				return
			}
			is.Equal(len(lims), 1)
			is.True(strings.Contains(lims[0], c.want)) // the limitation says why (and how often it asked)
			is.Equal(cacheFiles(t, d.CacheDir), []string(nil))
		})
	}
	t.Run("refused-connection", func(t *testing.T) {
		is := is.New(t)
		var dials atomic.Int32
		tr := &http.Transport{DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
			dials.Add(1)
			return nil, fmt.Errorf("connection refused (test)")
		}}
		d := &native.Debuginfod{URLs: []string{"http://debuginfod.invalid"}, Client: &http.Client{Transport: tr}}
		a := mustOpenDebuginfod(t, b.stripped, d)
		is.Equal(dials.Load(), int32(3))
		lims := limitations(t, a)
		is.Equal(len(lims), 1)
		is.True(strings.Contains(lims[0], "connection refused (test)") && strings.HasSuffix(lims[0], "(asked 3 times)."))
	})
}

// The fetched files are cleaned as elfutils cleans its cache: at most once
// per interval, before a fetch, files unused for the age, dead downloads,
// expired miss markers and empty directories go; a file an open takes from
// the cache is used (its time renewed); and the files are bounded in size,
// the least recently used going first, never the one just fetched.
func TestDebuginfodClean(t *testing.T) {
	is := is.New(t)
	b := buildDebug(t, "", "-Wl,--build-id")
	other := buildDebug(t, "", "-Wl,--build-id", "-DOTHER_BUILD", "-O2")
	s, srv := serveDebug(t, b, false)
	s.files[other.id] = mustRead(t, other.byID)
	cache := t.TempDir()
	now := time.Now()
	ago := func(d time.Duration) time.Time { return now.Add(-d) }
	put := func(rel string, size int, at time.Time) string {
		p := filepath.Join(cache, rel)
		is.NoErr(os.MkdirAll(filepath.Dir(p), 0o755))
		is.NoErr(os.WriteFile(p, make([]byte, size), 0o644))
		is.NoErr(os.Chtimes(p, at, at))
		return p
	}
	week := native.DefaultDebuginfodMaxUnusedAge
	put("aaaa0001/debuginfo", 100, ago(week+time.Hour))                         // unused for more than a week: goes
	put("aaaa0002/debuginfo", 100, ago(week-time.Hour))                         // used within the week: stays
	put("aaaa0002/.debuginfo-123", 50, ago(2*time.Hour))                        // a dead download: goes
	put("aaaa0003/.debuginfo-456", 50, ago(time.Minute))                        // a live one: stays
	put("aaaa0004/miss", 0, ago(native.DefaultDebuginfodCacheMiss+time.Minute)) // expired: goes, and its directory
	put("not-a-build-id/debuginfo", 100, ago(30*24*time.Hour))                  // not ours: stays
	d := &native.Debuginfod{URLs: []string{srv.URL}, CacheDir: cache}

	a := mustOpenDebuginfod(t, b.stripped, d)
	is.Equal(debugParam(a)["found_by"], "debuginfod")
	is.Equal(sorted(cacheFiles(t, cache)), sorted([]string{"aaaa0002/debuginfo", "aaaa0003/.debuginfo-456", filepath.Join(b.id, "debuginfo"), "not-a-build-id/debuginfo"}))
	_, err := os.Stat(filepath.Join(cache, "aaaa0001"))
	is.True(os.IsNotExist(err)) // its directory too
	_, err = os.Stat(filepath.Join(cache, "aaaa0004"))
	is.True(os.IsNotExist(err))
	mark, err := os.Stat(filepath.Join(cache, "cleaned"))
	is.NoErr(err)
	is.True(now.Sub(mark.ModTime()) < time.Minute)

	// Within the interval no round runs: an old file stays, even when
	// another fetch happens.
	put("aaaa0005/debuginfo", 100, ago(week+time.Hour))
	mustOpenDebuginfod(t, other.stripped, d)
	_, err = os.Stat(filepath.Join(cache, "aaaa0005", "debuginfo"))
	is.NoErr(err)

	// A file taken from the cache is used now: a later round keeps it.
	kept := filepath.Join(cache, b.id, "debuginfo")
	is.NoErr(os.Chtimes(kept, ago(week+time.Hour), ago(week+time.Hour)))
	hits := s.hits.Load()
	mustOpenDebuginfod(t, b.stripped, d)
	is.Equal(s.hits.Load(), hits) // from the cache
	st, err := os.Stat(kept)
	is.NoErr(err)
	is.True(now.Sub(st.ModTime()) < time.Minute)
	is.NoErr(os.Chtimes(filepath.Join(cache, "cleaned"), ago(25*time.Hour), ago(25*time.Hour)))
	is.NoErr(os.Remove(filepath.Join(cache, other.id, "debuginfo")))
	mustOpenDebuginfod(t, other.stripped, d) // a fetch: the round runs
	_, err = os.Stat(kept)
	is.NoErr(err)
	_, err = os.Stat(filepath.Join(cache, "aaaa0005", "debuginfo"))
	is.True(os.IsNotExist(err))

	// The size bound: the least recently used go until the rest fit, and
	// never the file just fetched.
	is.NoErr(os.RemoveAll(cache))
	sizeOf := func(p string) int64 { st, err := os.Stat(p); is.NoErr(err); return st.Size() }
	oldest := put("bbbb0001/debuginfo", 1000, ago(3*time.Hour))
	newer := put("bbbb0002/debuginfo", 1000, ago(2*time.Hour))
	bound := sizeOf(b.byID) + 1500
	open := func(path string) *native.Analysis {
		an, err := native.New(&native.Options{Debuginfod: d, CacheMaxBytes: bound}).Open(context.Background(), ports.Target{Path: path})
		is.NoErr(err)
		t.Cleanup(func() { an.Close(context.Background()) })
		return an.(*native.Analysis)
	}
	is.Equal(debugParam(open(b.stripped))["found_by"], "debuginfod")
	is.Equal(sorted(cacheFiles(t, cache)), sorted([]string{"bbbb0002/debuginfo", filepath.Join(b.id, "debuginfo")}))
	_, err = os.Stat(oldest)
	is.True(os.IsNotExist(err))
	bound = sizeOf(other.byID) + 500 // room for the new file only
	is.Equal(debugParam(open(other.stripped))["found_by"], "debuginfod")
	is.Equal(cacheFiles(t, cache), []string{filepath.Join(other.id, "debuginfo")})
	_, err = os.Stat(newer)
	is.True(os.IsNotExist(err))

	// The clear removes the round's mark with the files.
	_, _, err = native.DebuginfodCacheUsage(cache, true)
	is.NoErr(err)
	_, err = os.Stat(filepath.Join(cache, "cleaned"))
	is.True(os.IsNotExist(err))
}

func sorted(s []string) []string { return slices.Sorted(slices.Values(s)) }
