package native

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// Unix ar archives (System V/GNU and BSD variants), read to find the ELF
// relocatable objects a signature library holds (libmatch.go). An archive
// is untrusted input: every header, size and name is checked against the
// file before anything is read, and the bounds below cap what one archive
// may cost.
//
// Layout: the magic "!<arch>\n", then members, each a 60-byte header
// (name[16] mtime[12] uid[6] gid[6] mode[8] size[10] "`\n") followed by
// size bytes padded to an even offset. GNU names end with '/'; the member
// "/" (or "/SYM64/") is the symbol index, "//" the table of long names,
// and "/N" a long name at offset N of that table, ended by "/\n". BSD
// names a long member "#1/N": the name is the first N bytes of its data.
// A thin archive ("!<thin>\n") holds only paths to its members, which are
// not read.

const (
	arMagic     = "!<arch>\n"
	arThinMagic = "!<thin>\n"
	arHeader    = 60
	// maxArMembers bounds the members read from one archive (glibc's
	// libc.a has about 1,800).
	maxArMembers = 1 << 17
	// maxArNames bounds the GNU long-name table.
	maxArNames = 16 << 20
)

// errThinArchive: the archive's members are files elsewhere.
var errThinArchive = errors.New("thin archive: its members are separate files named by path, which are not read")

// arMember is one member of an archive: its name and where its data lies
// in the archive.
type arMember struct {
	name string
	off  int64
	size int64
}

// arError is a malformed archive, with the byte offset of the fault.
type arError struct {
	off int64
	msg string
}

func (e *arError) Error() string { return fmt.Sprintf("ar archive: %s at offset %d", e.msg, e.off) }

// readArchive lists the members of the ar archive of size bytes in r, the
// symbol index and the long-name table left out. It fails on a thin
// archive, a file that is no archive, or a header that does not parse or
// points past the end of the file.
func readArchive(r io.ReaderAt, size int64) ([]arMember, error) {
	var magic [8]byte
	if n, _ := r.ReadAt(magic[:], 0); n < len(magic) {
		return nil, &arError{off: 0, msg: "file too short for the ar magic"}
	}
	switch string(magic[:]) {
	case arMagic:
	case arThinMagic:
		return nil, errThinArchive
	default:
		return nil, &arError{off: 0, msg: "no ar magic"}
	}
	var out []arMember
	var names []byte // the GNU long-name table
	var hdr [arHeader]byte
	for off := int64(len(arMagic)); off < size; {
		if off%2 == 1 {
			off++ // data is padded to an even offset
			if off >= size {
				break
			}
		}
		if size-off < arHeader {
			return nil, &arError{off: off, msg: "member header cut short by the end of the file"}
		}
		if _, err := r.ReadAt(hdr[:], off); err != nil {
			return nil, &arError{off: off, msg: "member header: " + err.Error()}
		}
		if hdr[58] != '`' || hdr[59] != '\n' {
			return nil, &arError{off: off + 58, msg: "member header without its terminator"}
		}
		n, err := strconv.ParseInt(strings.TrimRight(string(hdr[48:58]), " "), 10, 64)
		if err != nil || n < 0 {
			return nil, &arError{off: off + 48, msg: fmt.Sprintf("member size %q is not a decimal number", strings.TrimSpace(string(hdr[48:58])))}
		}
		data := off + arHeader
		if n > size-data {
			return nil, &arError{off: off + 48, msg: fmt.Sprintf("member of %d bytes extends beyond the end of the file", n)}
		}
		raw := strings.TrimRight(string(hdr[:16]), " ")
		m := arMember{off: data, size: n}
		switch {
		case raw == "/" || raw == "/SYM64/" || raw == "__.SYMDEF" || raw == "__.SYMDEF SORTED":
			// the symbol index: members are found by walking the archive
		case raw == "//":
			if n > maxArNames {
				return nil, &arError{off: off, msg: fmt.Sprintf("long-name table of %d bytes exceeds the %d-byte bound", n, maxArNames)}
			}
			names = make([]byte, n)
			if _, err := r.ReadAt(names, data); err != nil {
				return nil, &arError{off: data, msg: "long-name table: " + err.Error()}
			}
		case strings.HasPrefix(raw, "#1/"): // BSD: the name leads the data
			k, err := strconv.ParseInt(raw[3:], 10, 64)
			if err != nil || k < 0 || k > n || k > maxSymbolName {
				return nil, &arError{off: off, msg: fmt.Sprintf("BSD member name length %q is not valid", raw[3:])}
			}
			b := make([]byte, k)
			if _, err := r.ReadAt(b, data); err != nil {
				return nil, &arError{off: data, msg: "BSD member name: " + err.Error()}
			}
			m.name = string(bytes.TrimRight(b, "\x00"))
			m.off, m.size = data+k, n-k
			if strings.HasPrefix(m.name, "__.SYMDEF") {
				m.name = ""
			}
		case len(raw) > 1 && raw[0] == '/' && raw[1] >= '0' && raw[1] <= '9': // GNU long name
			k, err := strconv.ParseInt(raw[1:], 10, 64)
			if err != nil || k < 0 || k >= int64(len(names)) {
				return nil, &arError{off: off, msg: fmt.Sprintf("long name %q is not in the long-name table", raw)}
			}
			rest := names[k:]
			if i := bytes.Index(rest, []byte("/\n")); i >= 0 {
				rest = rest[:i]
			} else if i := bytes.IndexByte(rest, '\n'); i >= 0 {
				rest = rest[:i]
			}
			m.name = string(rest)
		default:
			m.name = strings.TrimSuffix(raw, "/")
		}
		if m.name != "" {
			if len(out) >= maxArMembers {
				return nil, &arError{off: off, msg: fmt.Sprintf("more than %d members", maxArMembers)}
			}
			out = append(out, m)
		}
		off = data + n
	}
	return out, nil
}
