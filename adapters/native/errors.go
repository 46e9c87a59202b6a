package native

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"strconv"
	"strings"

	"rea/ports"
)

// recoverInto turns a panic in a std parser (they can panic on corrupt input)
// into a FormatError. Deferred directly by every parse and list computation.
func recoverInto(format, what string, err *error) {
	if r := recover(); r != nil {
		*err = &ports.FormatError{Format: format, Offset: -1, Msg: fmt.Sprintf("%s: corrupt input (%v)", what, r)}
	}
}

// classify keeps typed errors and turns a std parser's error into a
// FormatError carrying the byte offset the parser reported, if any.
func classify(format string, err error) error {
	var fe *ports.FormatError
	var pe *fs.PathError
	switch {
	case err == nil:
		return nil
	case errors.As(err, &fe), errors.As(err, &pe),
		errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded),
		errors.Is(err, ports.ErrUnsupported), errors.Is(err, fs.ErrClosed), errors.Is(err, ports.ErrResourceLimit):
		return err
	case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
		return &ports.FormatError{Format: format, Offset: -1, Msg: "truncated: unexpected end of file", Truncated: true}
	}
	msg := err.Error()
	return &ports.FormatError{Format: format, Offset: offsetIn(msg), Msg: msg}
}

// offsetIn extracts the offset from debug/elf and debug/macho error messages
// ("... in record at byte 0x40"), whose offset field is unexported.
func offsetIn(msg string) int64 {
	const marker = "at byte 0x"
	i := strings.LastIndex(msg, marker)
	if i < 0 {
		return -1
	}
	hex := msg[i+len(marker):]
	if j := strings.IndexFunc(hex, func(r rune) bool { return !strings.ContainsRune("0123456789abcdefABCDEF", r) }); j >= 0 {
		hex = hex[:j]
	}
	off, err := strconv.ParseInt(hex, 16, 64)
	if err != nil {
		return -1
	}
	return off
}

// source is the file being analysed, with bounds-checked reads.
type source struct {
	r      io.ReaderAt
	size   int64
	format string
	m      *mapping // the file mapped read-only, or nil
	// over replaces some of the file's bytes (a relocatable object's
	// sections with their relocations applied, elf_rel.go), or is nil.
	over *overlay
}

// view returns the n bytes at absolute offset off like read, but without a
// copy when the file is mapped: the caller must not modify them, must hold
// a pin on the mapping (Analysis.enter) while it reads them and must not
// keep them past it.
func (s source) view(off, n uint64) ([]byte, error) {
	if s.over != nil && s.contains(off, n) {
		if b, ok := s.over.within(off, n); ok {
			return b, nil
		}
		if s.over.touches(off, n) {
			return s.read(off, n)
		}
	}
	if s.m == nil || s.m.data == nil || !s.contains(off, n) || uint64(len(s.m.data)) != uint64(s.size) {
		return s.read(off, n)
	}
	return s.m.data[off : off+n : off+n], nil
}

// read returns n bytes at absolute offset off, or a FormatError when they are
// not all inside the file. It never allocates more than the file holds.
func (s source) read(off, n uint64) ([]byte, error) {
	if !s.contains(off, n) {
		return nil, &ports.FormatError{Format: s.format, Offset: int64(min(off, 1<<62)),
			Msg: fmt.Sprintf("%d bytes extend beyond the end of the file (%d bytes)", n, s.size), Size: s.size, Truncated: true}
	}
	buf := make([]byte, n)
	m, err := s.r.ReadAt(buf, int64(off))
	if m == len(buf) {
		s.over.apply(buf, off)
		return buf, nil
	}
	if err == nil || errors.Is(err, io.EOF) {
		err = io.ErrUnexpectedEOF
	}
	return nil, err
}

// contains reports whether [off, off+n) lies inside the file.
func (s source) contains(off, n uint64) bool {
	size := uint64(s.size)
	return off <= size && n <= size-off
}

// clamp cuts [off, off+n) to the file and reports the bytes left.
func (s source) clamp(off, n uint64) uint64 {
	size := uint64(s.size)
	if off >= size {
		return 0
	}
	return min(n, size-off)
}

// cstring reads a NUL-terminated string of at most max bytes at off.
func (s source) cstring(off uint64, max uint64) (string, error) {
	n := s.clamp(off, max)
	if n == 0 {
		return "", &ports.FormatError{Format: s.format, Offset: int64(min(off, 1<<62)), Msg: "string beyond the end of the file"}
	}
	b, err := s.read(off, n)
	if err != nil {
		return "", err
	}
	if i := strings.IndexByte(string(b), 0); i >= 0 {
		return string(b[:i]), nil
	}
	return "", &ports.FormatError{Format: s.format, Offset: int64(off), Msg: "unterminated string"}
}
