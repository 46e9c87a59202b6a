package cli

import (
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"
	"time"
)

// extractDirName is what os.MkdirTemp("", "rea-extract-") makes
// (core/artifact's extraction): the prefix and a decimal number.
var extractDirName = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^rea-extract-[0-9]+$`) })

// staleAge is how old an extraction must be before doctor calls it stale:
// its output is the deliverable of the call that made it, so a fresh one
// is left to its reader.
const staleAge = time.Hour

// tempDir is one extraction directory doctor found.
type tempDir struct {
	Path     string    `json:"path"`
	Modified time.Time `json:"modified"`
	Stale    bool      `json:"stale"`
	Reason   string    `json:"reason,omitempty"` // why it is kept
	Removed  bool      `json:"removed,omitempty"`
	Error    string    `json:"error,omitempty"`
}

// findExtractDirs lists rea's extraction directories in root. A directory
// is stale only when its name is rea's, it is a real directory (not a
// link) owned by the current user, it is older than staleAge and no
// process has its working directory or an open file inside it.
func findExtractDirs(root string, now time.Time) []tempDir {
	ents, err := os.ReadDir(root)
	if err != nil {
		return nil
	}
	var out []tempDir
	var candidates []int
	for _, ent := range ents {
		if !extractDirName().MatchString(ent.Name()) {
			continue
		}
		p := filepath.Join(root, ent.Name())
		st, err := os.Lstat(p)
		if err != nil || !st.IsDir() {
			continue // a link or a file of that name is not rea's
		}
		d := tempDir{Path: p, Modified: st.ModTime().UTC()}
		switch {
		case !ownedByMe(st):
			d.Reason = "owned by another user"
		case now.Sub(st.ModTime()) < staleAge:
			d.Reason = "made within the last hour"
		default:
			d.Stale = true
			candidates = append(candidates, len(out))
		}
		out = append(out, d)
	}
	if len(candidates) > 0 {
		var paths []string
		for _, i := range candidates {
			paths = append(paths, out[i].Path)
		}
		inUse, known := pathsInUse(paths)
		for _, i := range candidates {
			switch {
			case !known:
				out[i].Stale, out[i].Reason = false, "cannot tell whether a process uses it on this system"
			case inUse[out[i].Path]:
				out[i].Stale, out[i].Reason = false, "in use by a running process"
			}
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	return out
}

// cleanExtractDirs removes the stale directories, checking each again
// just before removing it.
func cleanExtractDirs(dirs []tempDir) {
	for i := range dirs {
		d := &dirs[i]
		if !d.Stale {
			continue
		}
		st, err := os.Lstat(d.Path)
		if err != nil || !st.IsDir() || !ownedByMe(st) {
			d.Error = "changed since it was found; left alone"
			continue
		}
		if inUse, known := pathsInUse([]string{d.Path}); !known || inUse[d.Path] {
			d.Error = "in use; left alone"
			continue
		}
		if err := os.RemoveAll(d.Path); err != nil {
			d.Error = err.Error()
			continue
		}
		d.Removed = true
	}
}

// pathsInUse reports which of dirs hold a process's working directory or
// an open file, from /proc; known is false where /proc cannot say.
func pathsInUse(dirs []string) (inUse map[string]bool, known bool) {
	procs, err := os.ReadDir("/proc")
	if err != nil {
		return nil, false
	}
	inUse = map[string]bool{}
	mark := func(target string) {
		for _, d := range dirs {
			if target == d || strings.HasPrefix(target, d+string(filepath.Separator)) {
				inUse[d] = true
			}
		}
	}
	seen := 0
	for _, p := range procs {
		if strings.Trim(p.Name(), "0123456789") != "" {
			continue
		}
		base := filepath.Join("/proc", p.Name())
		if cwd, err := os.Readlink(filepath.Join(base, "cwd")); err == nil {
			seen++
			mark(cwd)
		}
		fds, err := os.ReadDir(filepath.Join(base, "fd"))
		if err != nil {
			continue
		}
		for _, fd := range fds {
			if t, err := os.Readlink(filepath.Join(base, "fd", fd.Name())); err == nil {
				mark(t)
			}
		}
	}
	// Our own /proc entry is always readable; none means no usable /proc.
	return inUse, seen > 0
}
