package artifact

import (
	"io"
	"os"
)

// artSpillMem is the bytes of a nested ASAR kept in memory; beyond it the
// bytes go to a temporary file. A ZIP of a few deflated ASARs inflated to
// a gigabyte held per call when every member was buffered whole.
const artSpillMem = 4 << 20

// artSpill holds the bytes of a nested ASAR read out of a container (whose
// members are streams, while the ASAR reader needs random access): in
// memory while small, then in an unlinked temporary file, so they cost disk
// rather than memory and nothing is left behind even if rea is killed.
type artSpill struct {
	buf []byte
	f   *os.File
	n   int64
}

func (b *graphBuilder) newSpill() *artSpill {
	s := &artSpill{}
	b.mu.Lock()
	b.spills = append(b.spills, s)
	b.mu.Unlock()
	return s
}

func (s *artSpill) write(p []byte) error {
	if s.f == nil && len(s.buf)+len(p) <= artSpillMem {
		s.buf = append(s.buf, p...)
		s.n += int64(len(p))
		return nil
	}
	if s.f == nil {
		f, err := os.CreateTemp("", "rea-spill-*")
		if err != nil {
			return err
		}
		os.Remove(f.Name()) // unlinked: the open file is all that remains
		s.f = f
		if _, err := f.Write(s.buf); err != nil {
			return err
		}
		s.buf = nil
	}
	_, err := s.f.Write(p)
	s.n += int64(len(p))
	return err
}

// readerAt returns the bytes for reading; a file reader is an io.Closer
// whose owner closes it (the box that reads it).
func (s *artSpill) readerAt() (io.ReaderAt, int64) {
	if s.f != nil {
		return s.f, s.n
	}
	return artReaderAt(s.buf), s.n
}

func (s *artSpill) close() {
	if s.f != nil {
		s.f.Close()
	}
	s.buf = nil
}
