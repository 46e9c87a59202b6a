package native

import (
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"rea/ports"
)

// Separate debug files from debuginfod servers, as gdb and elfutils' tools
// get them: when DEBUGINFOD_URLS names servers and no local debug file was
// found, GET <url>/buildid/<build ID>/debuginfo of each in turn. The
// response is untrusted: it is written to a file in the cache directory
// (or an unlinked temporary file without one) and goes through the checks
// of a local candidate (tryDebugFile's: ELF, same machine, equal build ID)
// before it is renamed to CacheDir/<build ID>/debuginfo, so the cache holds
// only accepted files and a reader never sees a partial one. Two processes
// fetching one ID each write a temporary file of their own and the later
// rename wins; a reader holds whichever file it opened. The profile records
// the file's SHA-256 as for a local one, so Evidence does not depend on
// the network once the bytes are fixed.
//
// The cache is rea's own (Options.Debuginfod.CacheDir; cmd/rea passes
// <native cache root>/debuginfod), not elfutils' $DEBUGINFOD_CACHE_PATH:
// elfutils' cache layout is deliberately undocumented and cleaned by its
// own rules, and rea's root is the one a user already moves, turns off and
// clears (rea doctor --clear-cache) for rea.
//
// A miss is remembered as elfutils remembers it (its cache_miss_s, 600 s by
// default): when every server answered 404, an empty marker,
// CacheDir/<build ID>/miss, is written, and while it is younger than
// CacheMiss (by its modification time) an open asks no server for that
// build ID and says the same as when they were asked. A server that failed
// otherwise (a timeout, a refused file) leaves no marker: the next open
// asks again. Without a cache directory nothing is remembered.

// Settings cmd/rea reads, elfutils' names and meanings.
const (
	// EnvDebuginfodURLs is the space-separated list of server base URLs;
	// unset or empty: no server is asked.
	EnvDebuginfodURLs = "DEBUGINFOD_URLS"
	// EnvDebuginfodTimeout is seconds a server has to send its headers and
	// the first 100 KiB (or the whole file); default 90, 0 or negative: no
	// limit.
	EnvDebuginfodTimeout = "DEBUGINFOD_TIMEOUT"
	// EnvDebuginfodMaxTime is seconds a whole download may take; default
	// and 0: no limit.
	EnvDebuginfodMaxTime = "DEBUGINFOD_MAXTIME"
	// EnvDebuginfodMaxSize is the largest file fetched, in bytes; default
	// and 0: the cache's bound.
	EnvDebuginfodMaxSize = "DEBUGINFOD_MAXSIZE"
	// EnvDebuginfodRetryLimit is how many more times a server that failed
	// in a way that may pass is asked; default 2, 0: once only.
	EnvDebuginfodRetryLimit = "DEBUGINFOD_RETRY_LIMIT"
	// EnvDebuginfodHeadersFile names a file of HTTP headers sent with
	// every request, one "Name: value" per line; whitespace-only lines
	// are skipped.
	EnvDebuginfodHeadersFile = "DEBUGINFOD_HEADERS_FILE"
)

// DefaultDebuginfodRetryLimit is elfutils' default DEBUGINFOD_RETRY_LIMIT.
const DefaultDebuginfodRetryLimit = 2

// DefaultDebuginfodTimeout is elfutils' default DEBUGINFOD_TIMEOUT.
const DefaultDebuginfodTimeout = 90 * time.Second

// DefaultDebuginfodCacheMiss is elfutils' default cache_miss_s.
const DefaultDebuginfodCacheMiss = 600 * time.Second

// debuginfodMiss is the marker of a remembered miss in a build ID's
// directory of the cache.
const debuginfodMiss = "miss"

// debuginfodStarted is what a server must send within the timeout
// (elfutils' 100K).
const debuginfodStarted = 100 << 10

// Debuginfod configures the fetching of separate debug files from
// debuginfod servers. The zero value of a field means its default.
type Debuginfod struct {
	// URLs are the servers' base URLs (http or https), asked in order.
	URLs []string
	// CacheDir keeps fetched files as CacheDir/<build ID>/debuginfo, read
	// before any server is asked. "": none is kept; each open fetches into
	// a temporary file removed at once (held open until Close).
	CacheDir string
	// Timeout bounds the wait for a server's headers and first 100 KiB;
	// negative: none. Default DefaultDebuginfodTimeout.
	Timeout time.Duration
	// MaxTime bounds a whole download; 0: none.
	MaxTime time.Duration
	// MaxSize is the largest file fetched, checked against the declared
	// length before the body is read and against the bytes as they come.
	// 0, or more than Options.CacheMaxBytes: Options.CacheMaxBytes.
	MaxSize int64
	// Client makes the requests; nil: one with http.DefaultTransport.
	Client *http.Client
	// CacheMiss is how long a build ID no server had (every one answered
	// 404) is not asked for again; negative: a miss is not remembered.
	// Default DefaultDebuginfodCacheMiss. Needs CacheDir.
	CacheMiss time.Duration
	// RetryLimit is how many more times a server is asked after a failure
	// that may pass (see retryable); negative: none. Default
	// DefaultDebuginfodRetryLimit.
	RetryLimit int
	// Headers are sent with every request (DEBUGINFOD_HEADERS_FILE's: an
	// authorization, a client identity). They are never written into a
	// limitation or the profile.
	Headers http.Header
	// MaxUnusedAge is how long a fetched file no open has used is kept:
	// a cleaning round removes older ones; negative: kept until cleared.
	// Default DefaultDebuginfodMaxUnusedAge. Needs CacheDir.
	MaxUnusedAge time.Duration
	// CleanInterval is the least time between two cleaning rounds of
	// CacheDir; negative: a round before every fetch. Default
	// DefaultDebuginfodCleanInterval.
	CleanInterval time.Duration
}

// ParseDebuginfod reads the debuginfod settings from lookup (os.LookupEnv
// or a front end's environment): nil, and nothing read but
// DEBUGINFOD_URLS, when no server is named. cacheRoot is rea-native's cache
// root ("" none); the files go under its debuginfod directory.
func ParseDebuginfod(lookup func(string) (string, bool), cacheRoot string) (*Debuginfod, error) {
	v, _ := lookup(EnvDebuginfodURLs)
	urls := strings.Fields(v)
	if len(urls) == 0 {
		return nil, nil
	}
	d := &Debuginfod{URLs: urls, Timeout: DefaultDebuginfodTimeout}
	if cacheRoot != "" {
		d.CacheDir = DebuginfodCacheDir(cacheRoot)
	}
	seconds := func(env string, to *time.Duration) error {
		s, ok := lookup(env)
		if !ok || strings.TrimSpace(s) == "" {
			return nil
		}
		n, err := strconv.ParseInt(strings.TrimSpace(s), 10, 32)
		if err != nil {
			return fmt.Errorf("%s=%q: want a whole number of seconds", env, s)
		}
		*to = time.Duration(n) * time.Second
		if n <= 0 {
			*to = -1
		}
		return nil
	}
	if err := seconds(EnvDebuginfodTimeout, &d.Timeout); err != nil {
		return nil, err
	}
	if err := seconds(EnvDebuginfodMaxTime, &d.MaxTime); err != nil {
		return nil, err
	}
	if d.MaxTime < 0 {
		d.MaxTime = 0
	}
	if s, ok := lookup(EnvDebuginfodMaxSize); ok && strings.TrimSpace(s) != "" {
		n, err := strconv.ParseInt(strings.TrimSpace(s), 10, 64)
		if err != nil || n < 0 {
			return nil, fmt.Errorf("%s=%q: want a whole number of bytes (0: no bound of its own)", EnvDebuginfodMaxSize, s)
		}
		d.MaxSize = n
	}
	if s, ok := lookup(EnvDebuginfodRetryLimit); ok && strings.TrimSpace(s) != "" {
		n, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil || n < 0 {
			return nil, fmt.Errorf("%s=%q: want a whole number of retries (0: none)", EnvDebuginfodRetryLimit, s)
		}
		d.RetryLimit = n
		if n == 0 {
			d.RetryLimit = -1
		}
	}
	if name, ok := lookup(EnvDebuginfodHeadersFile); ok && strings.TrimSpace(name) != "" {
		h, err := readDebuginfodHeaders(name)
		if err != nil {
			return nil, fmt.Errorf("%s=%q: %w", EnvDebuginfodHeadersFile, name, err)
		}
		d.Headers = h
	}
	return d, nil
}

// headerName reports whether k is an HTTP field name (RFC 9110's token).
func headerName(k string) bool {
	if k == "" {
		return false
	}
	for _, c := range []byte(k) {
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || strings.IndexByte("!#$%&'*+-.^_`|~", c) >= 0) {
			return false
		}
	}
	return true
}

// headerValue reports whether v is an HTTP field value: no control
// characters but tab.
func headerValue(v string) bool {
	for _, c := range []byte(v) {
		if c < ' ' && c != '\t' || c == 0x7f {
			return false
		}
	}
	return true
}

// maxHeadersFile bounds DEBUGINFOD_HEADERS_FILE.
const maxHeadersFile = 64 << 10

// readDebuginfodHeaders reads a headers file: one "Name: value" per line
// (a CR before the newline is dropped), whitespace-only lines skipped. A
// line that is not a header is an error naming its number, not its text,
// which may hold a secret.
func readDebuginfodHeaders(name string) (http.Header, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, maxHeadersFile+1))
	if err != nil {
		return nil, err
	}
	if len(b) > maxHeadersFile {
		return nil, fmt.Errorf("more than %d bytes", maxHeadersFile)
	}
	h := http.Header{}
	for i, line := range strings.Split(string(b), "\n") {
		line = strings.TrimSuffix(line, "\r")
		if strings.TrimSpace(line) == "" {
			continue
		}
		k, v, ok := strings.Cut(line, ":")
		v = strings.TrimSpace(v)
		if !ok || !headerName(k) || !headerValue(v) {
			return nil, fmt.Errorf("line %d is not an HTTP header (Name: value)", i+1)
		}
		h.Add(k, v)
	}
	return h, nil
}

// DebuginfodCacheDir is where fetched debug files are kept under
// rea-native's cache root.
func DebuginfodCacheDir(cacheRoot string) string {
	return filepath.Join(cacheRoot, "debuginfod")
}

// DebuginfodCacheUsage counts the fetched files under dir and their bytes;
// clear removes them (and nothing that is not one, but the temporary files
// of downloads, which a process that died may have left, the markers of
// remembered misses and of the last cleaning round).
func DebuginfodCacheUsage(dir string, clear bool) (n int, bytes int64, err error) {
	des, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return 0, 0, nil
	}
	if err != nil {
		return 0, 0, fmt.Errorf("debuginfod cache: %w", err)
	}
	for _, de := range des {
		if !de.IsDir() || !isBuildIDHex(de.Name()) {
			continue
		}
		sub := filepath.Join(dir, de.Name())
		files, err := os.ReadDir(sub)
		if err != nil {
			continue // removed meanwhile
		}
		for _, f := range files {
			if f.Name() != "debuginfo" && f.Name() != debuginfodMiss && !strings.HasPrefix(f.Name(), ".debuginfo-") {
				continue
			}
			info, err := f.Info()
			if err != nil || !info.Mode().IsRegular() {
				continue
			}
			if f.Name() == "debuginfo" {
				n++
			}
			bytes += info.Size()
		}
		if clear {
			if err := os.RemoveAll(sub); err != nil {
				return n, bytes, fmt.Errorf("debuginfod cache: %w", err)
			}
		}
	}
	if clear {
		os.Remove(filepath.Join(dir, debuginfodCleaned))
	}
	return n, bytes, nil
}

func isBuildIDHex(s string) bool {
	if len(s) < 4 || len(s) > 2*maxBuildID || len(s)%2 != 0 {
		return false
	}
	_, err := hex.DecodeString(s)
	return err == nil && strings.ToLower(s) == s
}

// cacheMiss is how long a miss is remembered; 0: not at all.
func (o *Debuginfod) cacheMiss() time.Duration {
	switch {
	case o.CacheDir == "" || o.CacheMiss < 0:
		return 0
	case o.CacheMiss == 0:
		return DefaultDebuginfodCacheMiss
	}
	return o.CacheMiss
}

// missed reports whether marker records a miss younger than window (one
// dated in the future is not believed).
func missed(marker string, window time.Duration) bool {
	if window <= 0 {
		return false
	}
	st, err := os.Stat(marker)
	if err != nil || !st.Mode().IsRegular() {
		return false
	}
	age := time.Since(st.ModTime())
	return age >= 0 && age < window
}

// rememberMiss writes (or renews) marker; failing to is no failure of
// the open: the next one asks again.
func rememberMiss(marker string) {
	if os.MkdirAll(filepath.Dir(marker), 0o755) != nil {
		return
	}
	if os.WriteFile(marker, nil, 0o644) == nil {
		now := time.Now()
		os.Chtimes(marker, now, now)
	}
}

// errNotThere is a server's 404: it has no such file.
var errNotThere = errors.New("not there")

// maxSize is the bound on one download.
func (o *Debuginfod) maxSize(cacheMax int64) int64 {
	if o.MaxSize > 0 && o.MaxSize < cacheMax {
		return o.MaxSize
	}
	return cacheMax
}

// fetchDebugFile asks the servers for the debug file of build ID id (the
// cache first) and returns the first one tryDebugFile's checks accept, or
// nil.
func (a *Analysis) fetchDebugFile(ctx context.Context, target os.FileInfo, e *elfImage, id []byte) (*debugFile, debugCandidate) {
	var d *debugFile
	var at debugCandidate
	a.fetchByBuildID(ctx, target, id, "debug file", func(c debugCandidate, f *os.File, size int64) (func(string), string) {
		got, note := checkDebugFile(ctx, c, f, size, e, id, 0)
		if got == nil {
			return nil, note
		}
		return func(path string) {
			got.path, c.path = path, path
			d, at = got, c
		}, ""
	})
	return d, at
}

// fetchCheck checks candidate c, open as f (size bytes): a refusal's note,
// or, accepted, a function that takes the file as found at path (the
// cache's, or the URL when nothing is kept). It does not close f.
type fetchCheck func(c debugCandidate, f *os.File, size int64) (accept func(path string), note string)

// fetchByBuildID looks for the file of build ID id (what names it) in the
// cache, then asks each server in order, until check accepts one; it
// reports whether one was. Refusals and servers' failures (not a 404) are
// said in a.debugNotes, and so is finding none. Only ctx's error stops it
// early. A file the cache holds that is skip (the target itself) is passed
// over.
func (a *Analysis) fetchByBuildID(ctx context.Context, skip os.FileInfo, id []byte, what string, check fetchCheck) bool {
	o := a.opts.Debuginfod
	h := hex.EncodeToString(id)
	var final string
	if o.CacheDir != "" {
		final = filepath.Join(o.CacheDir, h, "debuginfo")
		c := debugCandidate{final, "debuginfod"}
		f, fst, note := c.open(skip)
		if f != nil {
			accept, why := check(c, f, fst.Size())
			if accept != nil {
				used(final, time.Now())
				accept(final)
				return true
			}
			f.Close()
			note = why
		}
		if note != "" {
			a.debugNotes = append(a.debugNotes, note)
		}
	}
	var marker string
	window := o.cacheMiss()
	if window > 0 {
		marker = filepath.Join(o.CacheDir, h, debuginfodMiss)
	}
	said := false
	remembered := missed(marker, window)
	if !remembered {
		o.cleanRound(time.Now(), a.opts.CacheMaxBytes)
	}
	for _, base := range o.URLs {
		if remembered {
			break
		}
		if ctx.Err() != nil {
			return false
		}
		u, ok := debuginfodURL(base, h)
		if !ok {
			a.debugNotes = append(a.debugNotes, fmt.Sprintf("%s names %q, which is not an http or https URL; it was not asked.", EnvDebuginfodURLs, shown(base)))
			said = true
			continue
		}
		c := debugCandidate{shown(u), "debuginfod"}
		f, size, asked, err := o.downloadRetrying(ctx, u, final, a.opts.CacheMaxBytes)
		if errors.Is(err, errNotThere) {
			continue
		}
		if err != nil {
			if ctx.Err() != nil {
				return false
			}
			times := ""
			if asked > 1 {
				times = fmt.Sprintf(" (asked %d times)", asked)
			}
			a.debugNotes = append(a.debugNotes, fmt.Sprintf("Debuginfod server %s did not give the %s of build ID %s: %v%s.", shown(base), what, h, err, times))
			said = true
			continue
		}
		accept, note := check(c, f, size)
		if accept == nil {
			discard(f, final)
			a.debugNotes = append(a.debugNotes, note)
			said = true
			continue
		}
		path := c.path
		if final != "" {
			if err := os.Rename(f.Name(), final); err != nil {
				os.Remove(f.Name())
				a.debugNotes = append(a.debugNotes, fmt.Sprintf("The %s fetched from %s was used but not kept in %s: %v.", what, c.path, o.CacheDir, err))
			} else {
				path = final
				o.sweep(time.Now(), a.opts.CacheMaxBytes, final, false)
			}
		}
		if marker != "" {
			os.Remove(marker)
		}
		accept(path)
		return true
	}
	if !said && ctx.Err() == nil {
		if marker != "" && !remembered {
			rememberMiss(marker)
		}
		var urls []string
		for _, u := range o.URLs {
			urls = append(urls, shown(u))
		}
		a.debugNotes = append(a.debugNotes, fmt.Sprintf("No debuginfod server of %s (%s) has the %s of build ID %s.", EnvDebuginfodURLs, strings.Join(urls, " "), what, h))
	}
	return false
}

// debuginfodURL is the debuginfo URL of build ID h under base, ok false
// when base is not an http or https URL with a host.
func debuginfodURL(base, h string) (string, bool) {
	p, err := url.Parse(base)
	if err != nil || (p.Scheme != "http" && p.Scheme != "https") || p.Host == "" || p.RawQuery != "" || p.Fragment != "" {
		return "", false
	}
	return strings.TrimRight(base, "/") + "/buildid/" + h + "/debuginfo", true
}

// shown is u as limitations and the profile write it: a password in it
// is not (it would be in every Evidence record).
func shown(u string) string {
	if p, err := url.Parse(u); err == nil && p.User != nil {
		return p.Redacted()
	}
	return u
}

// discard closes and removes a downloaded file that was not accepted (an
// unlinked one has no name left to remove).
func discard(f *os.File, final string) {
	f.Close()
	if final != "" {
		os.Remove(f.Name())
	}
}

// download GETs u into a new file: a temporary file beside final (to be
// renamed there once accepted), or, when final is "", one removed at once.
// It returns the file and its size; errNotThere on a 404.
func (o *Debuginfod) download(ctx context.Context, u, final string, cacheMax int64) (_ *os.File, _ int64, err error) {
	max := o.maxSize(cacheMax)
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	if o.MaxTime > 0 {
		var stop context.CancelFunc
		ctx, stop = context.WithTimeoutCause(ctx, o.MaxTime, fmt.Errorf("the download took longer than %s=%d seconds", EnvDebuginfodMaxTime, int64(o.MaxTime/time.Second)))
		defer stop()
	}
	var started atomic.Bool
	if o.Timeout > 0 {
		t := time.AfterFunc(o.Timeout, func() {
			if !started.Load() {
				cancel(fmt.Errorf("it sent less than 100 KiB within %s=%d seconds", EnvDebuginfodTimeout, int64(o.Timeout/time.Second)))
			}
		})
		defer t.Stop()
	}
	// failed says why, preferring the cause of a cancellation of our own
	// over the transport's "context canceled".
	failed := func(err error) error {
		if cause := context.Cause(ctx); cause != nil && ctx.Err() != nil {
			return cause
		}
		return err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return nil, 0, err
	}
	for k, vs := range o.Headers {
		req.Header[k] = slices.Clone(vs)
	}
	client := o.Client
	if client == nil {
		client = defaultDebuginfodClient
	}
	ports.Observe(ctx, debuginfodPhase, "asking "+shown(u))
	resp, err := client.Do(req)
	if err != nil {
		return nil, 0, passing(ctx, failed(err))
	}
	defer resp.Body.Close()
	switch {
	case resp.StatusCode == http.StatusNotFound:
		return nil, 0, errNotThere
	case resp.StatusCode >= 500 || resp.StatusCode == http.StatusTooManyRequests || resp.StatusCode == http.StatusRequestTimeout:
		return nil, 0, transient{fmt.Errorf("HTTP status %s", resp.Status)}
	case resp.StatusCode != http.StatusOK:
		return nil, 0, fmt.Errorf("HTTP status %s", resp.Status)
	case resp.ContentLength > max:
		return nil, 0, fmt.Errorf("it declares %d bytes, more than the bound of %d (%s, or the native cache's bound)", resp.ContentLength, max, EnvDebuginfodMaxSize)
	}
	var f *os.File
	if final != "" {
		// Twice: another process's cleaning round may remove the
		// directory, empty, between the two calls.
		for range 2 {
			if err = os.MkdirAll(filepath.Dir(final), 0o755); err != nil {
				return nil, 0, err
			}
			if f, err = os.CreateTemp(filepath.Dir(final), ".debuginfo-*"); !errors.Is(err, fs.ErrNotExist) {
				break
			}
		}
	} else {
		f, err = os.CreateTemp("", "rea-debuginfo-*")
		if err == nil {
			os.Remove(f.Name()) // held open: gone from the file system, read until Close
		}
	}
	if err != nil {
		return nil, 0, err
	}
	defer func() {
		if err != nil {
			discard(f, final)
		}
	}()
	n, err := io.Copy(f, &countingReader{r: io.LimitReader(resp.Body, max+1), started: &started, ctx: ctx, from: shown(u), total: resp.ContentLength})
	if err != nil {
		return nil, 0, passing(ctx, failed(err))
	}
	if n > max {
		return nil, 0, fmt.Errorf("it sent more than the bound of %d bytes (%s, or the native cache's bound)", max, EnvDebuginfodMaxSize)
	}
	if resp.ContentLength >= 0 && n != resp.ContentLength {
		return nil, 0, transient{fmt.Errorf("it sent %d of the %d bytes it declared", n, resp.ContentLength)}
	}
	started.Store(true)
	return f, n, nil
}

// transient is a failure that may pass when the server is asked again: the
// connection failed or broke, the server answered 5xx, 429 or 408, or it
// sent fewer bytes than it declared. Bounds and refusals are not (the same
// file comes again), nor are DEBUGINFOD_TIMEOUT and DEBUGINFOD_MAXTIME (a
// slow server asked again would take as long each time; elfutils asks
// again there, multiplying the wait).
type transient struct{ err error }

func (t transient) Error() string { return t.err.Error() }
func (t transient) Unwrap() error { return t.err }

// passing marks err transient unless it is one of ours: the context's own
// cancellation or a cause it was given (a timeout of the settings).
func passing(ctx context.Context, err error) error {
	if ctx.Err() != nil {
		return err
	}
	return transient{err}
}

// retries is how many more times a server is asked after a transient
// failure.
func (o *Debuginfod) retries() int {
	switch {
	case o.RetryLimit < 0:
		return 0
	case o.RetryLimit == 0:
		return DefaultDebuginfodRetryLimit
	}
	return o.RetryLimit
}

// downloadRetrying is download, asked again after a transient failure up
// to the retry limit; asked is how many times it asked.
func (o *Debuginfod) downloadRetrying(ctx context.Context, u, final string, cacheMax int64) (f *os.File, size int64, asked int, err error) {
	for {
		asked++
		f, size, err = o.download(ctx, u, final, cacheMax)
		var t transient
		if err == nil || !errors.As(err, &t) || asked > o.retries() || ctx.Err() != nil {
			return f, size, asked, err
		}
		ports.Observe(ctx, debuginfodPhase, fmt.Sprintf("asking %s again (%d of %d) after: %v", shown(u), asked+1, o.retries()+1, err))
	}
}

var defaultDebuginfodClient = &http.Client{}

// countingReader marks started once the first 100 KiB, or the end, came,
// and reports the bytes received to ctx's progress receiver each time
// another debuginfodProgressStep of them has come (and at the end).
type countingReader struct {
	r       io.Reader
	n       int64
	started *atomic.Bool
	ctx     context.Context
	from    string // the URL, as shown
	total   int64  // the declared length, -1 when not declared
	said    int64  // the count last reported
}

// debuginfodPhase is the progress phase of a debuginfod request.
const debuginfodPhase = "debuginfod"

// debuginfodProgressStep is how many bytes come between two progress
// observations of one download.
const debuginfodProgressStep = 4 << 20

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	if c.n >= debuginfodStarted || err == io.EOF {
		c.started.Store(true)
	}
	if c.ctx != nil && (c.n-c.said >= debuginfodProgressStep || err == io.EOF && c.n != c.said) {
		c.said = c.n
		of := ""
		if c.total >= 0 {
			of = " of " + strconv.FormatInt(c.total, 10)
		}
		ports.Observe(c.ctx, debuginfodPhase, fmt.Sprintf("%d%s bytes received from %s", c.n, of, c.from))
	}
	return n, err
}
