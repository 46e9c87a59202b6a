package gdbremote

import (
	"context"
	"errors"
	"os"
	"path/filepath"

	"rea/ports"
)

// Bounds on the loader's structures read from the program's memory.
const (
	maxDynamicEntries = 1024
	maxLinkMapEntries = 4096
	maxLibraryName    = 4096
)

// Dynamic-section tags and the layout of the loader's r_debug and link_map
// in words (glibc's and musl's share it: the debugger interface of
// <link.h>). A dynamic entry is two words (tag, value); r_debug.r_map
// follows the int r_version, padded to a word; link_map is l_addr (the
// load bias), l_name (the path the loader opened), l_ld, l_next.
const (
	dtNull  = 0
	dtDebug = 21

	rDebugMap = 1
	lmAddr    = 0
	lmName    = 1
	lmNext    = 3
)

// loaderLibraries reads the loaded libraries from the dynamic loader's own
// list in the program's memory, for a server that has no
// qXfer:libraries-svr4 (QEMU's user-mode stub): the executable's DT_DEBUG
// entry, which the loader fills before the entry point, points at its
// r_debug, whose r_map heads the link_map chain. The first entry is the
// executable itself. A static executable has no dynamic section and no
// libraries. Paths are the program's: under an emulator with a sysroot, a
// library's file is looked up under it first.
func (s *session) loaderLibraries(ctx context.Context, bias uint64) ([]ports.TraceModule, error) {
	if s.target == nil || s.target.dynamic == 0 {
		return nil, nil
	}
	w := s.conv.word
	var debug uint64
	for i, at := 0, bias+s.target.dynamic; i < maxDynamicEntries; i, at = i+1, at+2*w {
		tag, err := s.readAddr(ctx, at)
		if err != nil {
			return nil, s.memoryErr("dynamic section", err)
		}
		if tag == dtNull {
			break
		}
		if tag == dtDebug {
			if debug, err = s.readAddr(ctx, at+w); err != nil {
				return nil, s.memoryErr("dynamic section", err)
			}
			break
		}
	}
	if debug == 0 {
		return nil, nil // no loader list to read: no libraries known
	}
	lm, err := s.readAddr(ctx, debug+rDebugMap*w)
	if err != nil {
		return nil, s.memoryErr("loader's r_debug", err)
	}
	var out []ports.TraceModule
	seen := map[uint64]bool{}
	for ; lm != 0 && !seen[lm] && len(seen) < maxLinkMapEntries; lm, err = s.readAddr(ctx, lm+lmNext*w) {
		if err != nil {
			return nil, s.memoryErr("loader's link map", err)
		}
		seen[lm] = true
		addr, err := s.readAddr(ctx, lm+lmAddr*w)
		if err != nil {
			return nil, s.memoryErr("loader's link map", err)
		}
		namePtr, err := s.readAddr(ctx, lm+lmName*w)
		if err != nil {
			return nil, s.memoryErr("loader's link map", err)
		}
		name, err := s.readText(ctx, "", namePtr, maxLibraryName, true)
		if err != nil {
			return nil, err
		}
		if len(name.Text) == 0 || name.Truncated {
			continue // the executable, the vDSO, or a name too long to trust
		}
		n := string(name.Text)
		out = append(out, ports.TraceModule{Name: n, Path: s.hostPath(n), LoadBias: addr})
	}
	if err != nil {
		return nil, s.memoryErr("loader's link map", err)
	}
	return out, nil
}

// hostPath is the file behind a path the program opened: under the
// emulator's sysroot when it has one there.
func (s *session) hostPath(p string) string {
	if s.sysroot != "" && filepath.IsAbs(p) {
		if q := filepath.Join(s.sysroot, p); fileExists(q) {
			return q
		}
	}
	return p
}

func fileExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

// memoryErr keeps a broken connection as it is and makes an error reply (an
// unreadable address) a protocol error naming what was being read.
func (s *session) memoryErr(what string, err error) error {
	var er *errorReply
	if errors.As(err, &er) {
		return protoErr("%s: unreadable memory: %v", what, err)
	}
	return err
}
