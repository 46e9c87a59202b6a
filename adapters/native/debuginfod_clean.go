package native

import (
	"cmp"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// Cleaning the fetched files, as elfutils' client cleans its cache: before
// a fetch, at most once per CleanInterval (the modification time of
// CacheDir/cleaned says when the last round began), a round removes the
// debug files no open has used for MaxUnusedAge (an open that takes one
// from the cache renews its modification time), the markers of misses past
// their window, the temporary files of downloads nobody has written to for
// staleDownload (a process that died mid-download left them; a live
// download writes at least every DEBUGINFOD_TIMEOUT or ends), and the
// build-ID directories left empty. The fetched files are also bounded in
// size, by the native cache's bound (Options.CacheMaxBytes), apart from the
// analysis snapshots under the same root: after a round and after each
// fetch that adds a file, the least recently used files go until the rest
// fit, never the one just fetched. A file removed while another process
// reads it stays readable to that process (it holds it open); a download
// that finds the directory it made removed by a round makes it again.

// DefaultDebuginfodMaxUnusedAge is elfutils' default max_unused_age_s.
const DefaultDebuginfodMaxUnusedAge = 7 * 24 * time.Hour

// DefaultDebuginfodCleanInterval is elfutils' default
// cache_clean_interval_s.
const DefaultDebuginfodCleanInterval = 24 * time.Hour

// staleDownload is how long a download's temporary file may go untouched
// before a round removes it.
const staleDownload = time.Hour

// debuginfodCleaned marks the last cleaning round, under CacheDir.
const debuginfodCleaned = "cleaned"

func (o *Debuginfod) maxUnusedAge() time.Duration {
	if o.MaxUnusedAge == 0 {
		return DefaultDebuginfodMaxUnusedAge
	}
	return o.MaxUnusedAge
}

func (o *Debuginfod) cleanInterval() time.Duration {
	if o.CleanInterval == 0 {
		return DefaultDebuginfodCleanInterval
	}
	return o.CleanInterval
}

// cleanRound runs a cleaning round of CacheDir when CleanInterval has
// passed since the last one began (or no round is recorded, or the mark is
// dated in the future).
func (o *Debuginfod) cleanRound(now time.Time, bound int64) {
	if o.CacheDir == "" {
		return
	}
	mark := filepath.Join(o.CacheDir, debuginfodCleaned)
	if st, err := os.Stat(mark); err == nil {
		if age := now.Sub(st.ModTime()); age >= 0 && age < o.cleanInterval() {
			return
		}
	}
	if os.MkdirAll(o.CacheDir, 0o755) != nil || os.WriteFile(mark, nil, 0o644) != nil {
		return // a cache that cannot be written is not cleaned either
	}
	os.Chtimes(mark, now, now)
	o.sweep(now, bound, "", true)
}

// fetchedFile is a debug file (or a supplementary file) in the cache.
type fetchedFile struct {
	path string
	size int64
	used time.Time
}

// sweep removes what a round removes when aged, then the least recently
// used files past bound but keep.
func (o *Debuginfod) sweep(now time.Time, bound int64, keep string, aged bool) {
	des, err := os.ReadDir(o.CacheDir)
	if err != nil {
		return
	}
	maxAge, window := o.maxUnusedAge(), o.cacheMiss()
	old := func(t time.Time, d time.Duration) bool { return d >= 0 && now.Sub(t) >= d }
	var files []fetchedFile
	var total int64
	for _, de := range des {
		if !de.IsDir() || !isBuildIDHex(de.Name()) {
			continue
		}
		sub := filepath.Join(o.CacheDir, de.Name())
		ents, err := os.ReadDir(sub)
		if err != nil {
			continue
		}
		left := len(ents)
		for _, e := range ents {
			info, err := e.Info()
			if err != nil || !info.Mode().IsRegular() {
				continue
			}
			p := filepath.Join(sub, e.Name())
			var gone bool
			switch name := e.Name(); {
			case name == "debuginfo":
				gone = aged && p != keep && old(info.ModTime(), maxAge)
				if !gone {
					files = append(files, fetchedFile{p, info.Size(), info.ModTime()})
					total += info.Size()
				}
			case name == debuginfodMiss:
				gone = aged && (window <= 0 || old(info.ModTime(), window))
			case strings.HasPrefix(name, ".debuginfo-"):
				gone = aged && old(info.ModTime(), staleDownload)
			}
			if gone && os.Remove(p) == nil {
				left--
			}
		}
		if aged && left == 0 {
			os.Remove(sub) // fails, harmlessly, when a download began in it since
		}
	}
	if total <= bound {
		return
	}
	slices.SortFunc(files, func(a, b fetchedFile) int { return cmp.Or(a.used.Compare(b.used), cmp.Compare(a.path, b.path)) })
	for _, f := range files {
		if total <= bound {
			break
		}
		if f.path != keep && os.Remove(f.path) == nil {
			total -= f.size
		}
	}
}

// used renews a cached file's modification time: the open that took it
// from the cache used it now. A cache that cannot be written keeps its
// times (and its files age as fetched).
func used(path string, now time.Time) {
	os.Chtimes(path, now, now)
}
