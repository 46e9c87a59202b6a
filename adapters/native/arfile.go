package native

import (
	"fmt"
	"io"

	"rea/adapters/internal/arfile"
)

// Unix ar archives (System V/GNU and BSD variants), read to find the ELF
// relocatable objects a signature library holds (libmatch.go). The
// archive is walked by adapters/internal/arfile, which adapters/ar shares;
// the bounds below cap what one archive may cost here.

const (
	arMagic     = arfile.Magic
	arThinMagic = arfile.ThinMagic
	// maxArMembers bounds the members read from one archive (glibc's
	// libc.a has about 1,800).
	maxArMembers = 1 << 17
	// maxArNames bounds the GNU long-name table.
	maxArNames = 16 << 20
)

// errThinArchive: the archive's members are files elsewhere.
var errThinArchive = arfile.ErrThin

// arMember is one member of an archive: its name and where its data lies
// in the archive.
type arMember struct {
	name string
	off  int64
	size int64
}

// readArchive lists the named members of the ar archive of size bytes in
// r, the symbol index and the long-name table left out. It fails on a thin
// archive, a file that is no archive, or a header that does not parse or
// points past the end of the file.
func readArchive(r io.ReaderAt, size int64) ([]arMember, error) {
	var out []arMember
	err := arfile.Walk(r, size, arfile.Limits{Names: maxArNames, Name: maxSymbolName}, func(m arfile.Member) error {
		if m.Name == "" {
			return nil
		}
		if len(out) >= maxArMembers {
			return &arfile.Error{Off: m.Header, Msg: fmt.Sprintf("more than %d members", maxArMembers)}
		}
		out = append(out, arMember{name: m.Name, off: m.Off, size: m.Size})
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}
