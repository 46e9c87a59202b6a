//go:build linux

package pty

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"syscall"

	"rea/ports"
)

// A filesystem checkpoint walks each observation root with lstat over sorted
// children, never following a link, bounded by the entry count, the depth
// and the bytes hashed.

const outsideRoot = "<outside-declared-root>"

type walker struct {
	ctx    context.Context
	limits ports.CaptureLimits
	out    []ports.FileEntry
	trunc  ports.FilesystemTruncation
	reason map[string]bool
	budget int64
}

func snapshot(ctx context.Context, roots []string, limits ports.CaptureLimits) ([]ports.FileEntry, ports.FilesystemTruncation) {
	w := &walker{ctx: ctx, limits: limits, reason: map[string]bool{}, budget: limits.FileBytes}
	w.trunc = ports.FilesystemTruncation{
		FilesLimit: limits.Files, DepthLimit: limits.FilesystemDepth, HashBudgetBytes: limits.FileBytes,
		EnumerationReasons: []string{}, HashOmissions: []ports.HashOmission{},
	}
	for i, root := range roots {
		w.walk(root, "root_"+strconv.Itoa(i)+":", root, ".", 0)
	}
	for _, r := range []string{ports.TruncFilesLimit, ports.TruncDepthLimit, ports.TruncIdentityChanged} {
		if w.reason[r] {
			w.trunc.EnumerationReasons = append(w.trunc.EnumerationReasons, r)
		}
	}
	w.trunc.EnumerationTruncated = len(w.trunc.EnumerationReasons) > 0
	if w.out == nil {
		w.out = []ports.FileEntry{}
	}
	return w.out, w.trunc
}

func (w *walker) truncate(reason string) { w.reason[reason] = true }

func (w *walker) walk(root, prefix, abs, rel string, depth int64) {
	if w.ctx.Err() != nil {
		w.truncate(ports.TruncFilesLimit)
		return
	}
	if int64(len(w.out)) >= w.limits.Files {
		w.truncate(ports.TruncFilesLimit)
		return
	}
	info, err := os.Lstat(abs)
	if err != nil {
		return // absent: a created or deleted path shows as a difference
	}
	e := ports.FileEntry{Path: prefix + rel, Mode: uint32(info.Mode().Perm()), Size: info.Size()}
	switch {
	case info.Mode().IsRegular():
		e.Type = ports.FileRegular
		e.SHA256 = w.hash(abs, e.Path, info)
	case info.IsDir():
		e.Type = ports.FileDirectory
		e.Size = 0
	case info.Mode()&fs.ModeSymlink != 0:
		e.Type = ports.FileSymlink
		target, err := os.Readlink(abs)
		if err == nil {
			e.SymlinkTarget = linkTarget(root, abs, target)
		}
	default:
		e.Type = ports.FileOther
	}
	w.out = append(w.out, e)
	if !info.IsDir() {
		return
	}
	if depth >= w.limits.FilesystemDepth {
		w.truncate(ports.TruncDepthLimit)
		return
	}
	d, err := os.Open(abs)
	if err != nil {
		return
	}
	dinfo, err := d.Stat()
	if err != nil || !os.SameFile(info, dinfo) {
		d.Close()
		w.truncate(ports.TruncIdentityChanged)
		return
	}
	names, _ := d.Readdirnames(-1)
	d.Close()
	sort.Strings(names)
	for _, n := range names {
		child := n
		if rel != "." {
			child = rel + "/" + n
		}
		w.walk(root, prefix, filepath.Join(abs, n), child, depth+1)
	}
}

// linkTarget keeps a link's target when it resolves inside root, as written,
// else the outside placeholder.
func linkTarget(root, abs, target string) string {
	resolved := target
	if !filepath.IsAbs(target) {
		resolved = filepath.Join(filepath.Dir(abs), target)
	}
	resolved = filepath.Clean(resolved)
	if resolved == root || strings.HasPrefix(resolved, root+string(filepath.Separator)) {
		return target
	}
	return outsideRoot
}

// hash reads a regular file with O_NOFOLLOW within the remaining budget and
// returns "" when it did not: over budget, or changed while read.
func (w *walker) hash(abs, path string, info os.FileInfo) string {
	if info.Size() > w.budget {
		w.trunc.HashOmissions = append(w.trunc.HashOmissions, ports.HashOmission{
			Path: path, SizeBytes: info.Size(), RemainingBudgetBytes: w.budget, Reason: ports.HashOmitBudget,
		})
		return ""
	}
	omit := func() string {
		w.trunc.HashOmissions = append(w.trunc.HashOmissions, ports.HashOmission{
			Path: path, SizeBytes: info.Size(), RemainingBudgetBytes: w.budget, Reason: ports.HashOmitChanged,
		})
		return ""
	}
	f, err := os.OpenFile(abs, os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
	if err != nil {
		return omit()
	}
	defer f.Close()
	h := sha256.New()
	n, err := io.Copy(h, io.LimitReader(f, info.Size()+1))
	after, serr := f.Stat()
	if err != nil || serr != nil || n != info.Size() || !os.SameFile(info, after) ||
		after.Size() != info.Size() || !after.ModTime().Equal(info.ModTime()) {
		return omit()
	}
	w.budget -= n
	w.trunc.HashedBytes += n
	return hex.EncodeToString(h.Sum(nil))
}

// effects compares two checkpoints path by path, in path order.
func effects(before, after []ports.FileEntry, bt, at ports.FilesystemTruncation) []ports.FileEffect {
	b := map[string]ports.FileEntry{}
	a := map[string]ports.FileEntry{}
	var paths []string
	for _, e := range before {
		b[e.Path] = e
		paths = append(paths, e.Path)
	}
	for _, e := range after {
		if _, ok := b[e.Path]; !ok {
			paths = append(paths, e.Path)
		}
		a[e.Path] = e
	}
	sort.Strings(paths)
	truncated := bt.EnumerationTruncated || at.EnumerationTruncated
	out := make([]ports.FileEffect, 0, len(paths))
	for _, p := range paths {
		be, inB := b[p]
		ae, inA := a[p]
		eff := ports.FileEffect{Path: p}
		switch {
		case inB && !inA && truncated:
			eff.Effect, eff.Reason = ports.EffectUnknown, "absent after, but the after checkpoint was truncated"
		case !inB && inA && truncated:
			eff.Effect, eff.Reason = ports.EffectUnknown, "absent before, but the before checkpoint was truncated"
		case !inB:
			eff.Effect = ports.EffectCreated
		case !inA:
			eff.Effect = ports.EffectDeleted
		case be.Type != ae.Type || be.Mode != ae.Mode || be.Size != ae.Size || be.SymlinkTarget != ae.SymlinkTarget:
			eff.Effect = ports.EffectModified
		case be.Type == ports.FileRegular && (be.SHA256 == "" || ae.SHA256 == ""):
			eff.Effect, eff.Reason = ports.EffectUnknown, "content not hashed at both checkpoints"
		case be.SHA256 != ae.SHA256:
			eff.Effect = ports.EffectModified
		default:
			eff.Effect = ports.EffectUnchanged
		}
		out = append(out, eff)
	}
	return out
}
