// Package arfile walks Unix ar archives (System V/GNU and BSD variants):
// the static libraries (.a) that adapters/native reads for signature
// libraries and adapters/ar offers as containers. An archive is untrusted
// input: every header, size and name is checked against the file before
// anything is read, and Limits cap what one archive may cost. It is not
// an adapter of its own and imports only the standard library.
//
// Layout: the magic "!<arch>\n", then members, each a 60-byte header
// (name[16] mtime[12] uid[6] gid[6] mode[8] size[10] "`\n") followed by
// size bytes padded to an even offset. GNU names end with '/'; the member
// "/" (or "/SYM64/") is the symbol index, "//" the table of long names,
// and "/N" a long name at offset N of that table, ended by "/\n". BSD
// names a long member "#1/N": the name is the first N bytes of its data;
// its symbol index is "__.SYMDEF" (or "__.SYMDEF SORTED", "__.SYMDEF_64").
// A thin archive ("!<thin>\n") holds only paths to its members, which are
// not read.
package arfile

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// The archive's magic strings and the size of a member header.
const (
	Magic      = "!<arch>\n"
	ThinMagic  = "!<thin>\n"
	HeaderSize = 60
)

// ErrThin is the error for a thin archive: its members are files elsewhere.
var ErrThin = errors.New("thin archive: its members are separate files named by path, which are not read")

// Error is a malformed archive, or one over Limits, with the byte offset of
// the fault.
type Error struct {
	Off int64
	Msg string
	// Limit names the bound exceeded ("names": the long-name table,
	// "name": one BSD name), or is empty for malformed input.
	Limit string
}

func (e *Error) Error() string { return fmt.Sprintf("ar archive: %s at offset %d", e.Msg, e.Off) }

// Member is one member of an archive: its name and where its header and
// data lie in the archive.
type Member struct {
	// Name as declared: a GNU name's trailing '/' and a BSD name's
	// trailing NULs dropped; empty when the header names nothing. Untrusted.
	Name string
	// Header is the offset of the member's header; Off and Size locate its
	// data (after a BSD name).
	Header, Off, Size int64
	// Mode is the header's octal mode, 0 when it does not parse.
	Mode uint32
}

// Limits bound what one archive may cost.
type Limits struct {
	Names int64 // bytes of the GNU long-name table
	Name  int64 // bytes of one BSD name
}

// IsArchive reports whether head starts with the magic of an ar archive
// (thin or not).
func IsArchive(head []byte) bool {
	return bytes.HasPrefix(head, []byte(Magic)) || bytes.HasPrefix(head, []byte(ThinMagic))
}

// Walk calls fn for each member of the ar archive of size bytes in r, in
// order, the symbol index and the long-name table left out, and stops at
// the first error fn returns, which it returns. It fails with ErrThin on a
// thin archive and with an *Error on a file that is no archive or a header
// that does not parse, points past the end of the file or exceeds lim.
func Walk(r io.ReaderAt, size int64, lim Limits, fn func(Member) error) error {
	var magic [8]byte
	if n, _ := r.ReadAt(magic[:], 0); n < len(magic) || size < int64(len(magic)) {
		return &Error{Off: 0, Msg: "file too short for the ar magic"}
	}
	switch string(magic[:]) {
	case Magic:
	case ThinMagic:
		return ErrThin
	default:
		return &Error{Off: 0, Msg: "no ar magic"}
	}
	var names []byte // the GNU long-name table
	var hdr [HeaderSize]byte
	for off := int64(len(Magic)); off < size; {
		if off%2 == 1 {
			off++ // data is padded to an even offset
			if off >= size {
				break
			}
		}
		if size-off < HeaderSize {
			return &Error{Off: off, Msg: "member header cut short by the end of the file"}
		}
		if _, err := r.ReadAt(hdr[:], off); err != nil {
			return &Error{Off: off, Msg: "member header: " + err.Error()}
		}
		if hdr[58] != '`' || hdr[59] != '\n' {
			return &Error{Off: off + 58, Msg: "member header without its terminator"}
		}
		n, err := strconv.ParseInt(strings.TrimRight(string(hdr[48:58]), " "), 10, 64)
		if err != nil || n < 0 {
			return &Error{Off: off + 48, Msg: fmt.Sprintf("member size %q is not a decimal number", strings.TrimSpace(string(hdr[48:58])))}
		}
		data := off + HeaderSize
		if n > size-data {
			return &Error{Off: off + 48, Msg: fmt.Sprintf("member of %d bytes extends beyond the end of the file", n)}
		}
		raw := strings.TrimRight(string(hdr[:16]), " ")
		m := Member{Header: off, Off: data, Size: n}
		if mode, err := strconv.ParseUint(strings.TrimSpace(string(hdr[40:48])), 8, 32); err == nil {
			m.Mode = uint32(mode)
		}
		index := false
		switch {
		case raw == "/" || raw == "/SYM64/" || raw == "__.SYMDEF" || raw == "__.SYMDEF SORTED":
			index = true // the symbol index: members are found by walking the archive
		case raw == "//":
			if n > lim.Names {
				return &Error{Off: off, Msg: fmt.Sprintf("long-name table of %d bytes exceeds the %d-byte bound", n, lim.Names), Limit: "names"}
			}
			names = make([]byte, n)
			if _, err := r.ReadAt(names, data); err != nil {
				return &Error{Off: data, Msg: "long-name table: " + err.Error()}
			}
			index = true
		case strings.HasPrefix(raw, "#1/"): // BSD: the name leads the data
			k, err := strconv.ParseInt(raw[3:], 10, 64)
			if err != nil || k < 0 || k > n || k > lim.Name {
				e := &Error{Off: off, Msg: fmt.Sprintf("BSD member name length %q is not valid", raw[3:])}
				if err == nil && k >= 0 && k <= n {
					e.Limit = "name"
				}
				return e
			}
			b := make([]byte, k)
			if _, err := r.ReadAt(b, data); err != nil {
				return &Error{Off: data, Msg: "BSD member name: " + err.Error()}
			}
			m.Name = string(bytes.TrimRight(b, "\x00"))
			m.Off, m.Size = data+k, n-k
			index = strings.HasPrefix(m.Name, "__.SYMDEF")
		case len(raw) > 1 && raw[0] == '/' && raw[1] >= '0' && raw[1] <= '9': // GNU long name
			k, err := strconv.ParseInt(raw[1:], 10, 64)
			if err != nil || k < 0 || k >= int64(len(names)) {
				return &Error{Off: off, Msg: fmt.Sprintf("long name %q is not in the long-name table", raw)}
			}
			rest := names[k:]
			if i := bytes.Index(rest, []byte("/\n")); i >= 0 {
				rest = rest[:i]
			} else if i := bytes.IndexByte(rest, '\n'); i >= 0 {
				rest = rest[:i]
			}
			m.Name = string(rest)
		default:
			m.Name = strings.TrimSuffix(raw, "/")
		}
		if !index {
			if err := fn(m); err != nil {
				return err
			}
		}
		off = data + n
	}
	return nil
}
