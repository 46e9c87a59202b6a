package ports

import (
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"sync/atomic"
	"unicode/utf8"
)

// UnsafeName returns why name, a slash-separated path a container declares
// (without a directory's trailing slash), is unsafe as a relative path, as
// a RejectedEntry reason (absolute, nul, backslash, utf8, dot-dot, dot,
// empty), or "" when it is safe. The container adapters share it, so every
// format rejects the same names for the same reasons.
func UnsafeName(name string) string {
	switch {
	case name == "":
		return "empty"
	case strings.IndexByte(name, 0) >= 0:
		return "nul"
	case strings.ContainsRune(name, '\\'):
		return "backslash"
	case strings.HasPrefix(name, "/") || filepath.VolumeName(name) != "" || len(name) >= 2 && name[1] == ':':
		return "absolute"
	case !utf8.ValidString(name):
		return "utf8"
	}
	for c := range strings.SplitSeq(name, "/") {
		switch c {
		case "..":
			return "dot-dot"
		case ".":
			return "dot"
		case "":
			return "empty"
		}
	}
	return ""
}

// ContainerLimitError is a container's failure of reason limit: limit names the
// ContainerLimits field (max_entry_bytes, ...), value the amount in unit
// that passed maxv.
func ContainerLimitError(format, limit, path string, value, maxv int64, unit string) error {
	return &ContainerError{Format: format, Reason: ContainerLimit, Limit: limit, Path: path,
		Err: fmt.Errorf("%d %s > %d", value, unit, maxv)}
}

// EntryReader is a file's bytes as a Container's Open returns them: it
// fails with a ContainerLimitError once the file passes MaxEntry bytes or the
// container's reads (Total, shared by every Open) pass MaxTotal, and a read
// error is a ContainerError of reason io. The tar and ar adapters use it.
type EntryReader struct {
	Format, Path       string
	R                  io.Reader
	MaxEntry, MaxTotal int64
	Total              *atomic.Int64
	n                  int64
}

// Read implements io.Reader.
func (f *EntryReader) Read(p []byte) (int, error) {
	k, err := f.R.Read(p)
	if k > 0 {
		f.n += int64(k)
		total := f.Total.Add(int64(k))
		switch {
		case f.n > f.MaxEntry:
			return 0, ContainerLimitError(f.Format, "max_entry_bytes", f.Path, f.n, f.MaxEntry, "bytes")
		case total > f.MaxTotal:
			return 0, ContainerLimitError(f.Format, "max_total_bytes", f.Path, total, f.MaxTotal, "bytes read")
		}
	}
	if err != nil && err != io.EOF {
		err = &ContainerError{Format: f.Format, Reason: ContainerIO, Path: f.Path, Err: err}
	}
	return k, err
}

// Close implements io.Closer; the reader holds nothing of its own.
func (f *EntryReader) Close() error { return nil }
