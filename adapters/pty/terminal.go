//go:build linux

package pty

import (
	"fmt"
	"io"
	"os"
	"strings"
	"syscall"
	"unsafe"

	"github.com/charmbracelet/x/vt"
	cpty "github.com/creack/pty"

	"rea/ports"
)

// openPTY opens a pseudo-terminal of the given size. creack/pty puts the
// master in blocking mode (it calls Fd); the master is re-opened as a
// non-blocking descriptor so that reads go through the runtime poller and
// closing it ends a pending read.
func openPTY(cols, rows int) (master, slave *os.File, err error) {
	m, s, err := cpty.Open()
	if err != nil {
		return nil, nil, fmt.Errorf("pty: open: %w", err)
	}
	if err := cpty.Setsize(s, &cpty.Winsize{Cols: uint16(cols), Rows: uint16(rows)}); err != nil {
		m.Close()
		s.Close()
		return nil, nil, fmt.Errorf("pty: set size: %w", err)
	}
	fd, err := syscall.Dup(int(m.Fd()))
	m.Close()
	if err != nil {
		s.Close()
		return nil, nil, fmt.Errorf("pty: dup: %w", err)
	}
	syscall.CloseOnExec(fd)
	if err := syscall.SetNonblock(fd, true); err != nil {
		syscall.Close(fd)
		s.Close()
		return nil, nil, fmt.Errorf("pty: non-blocking: %w", err)
	}
	return os.NewFile(uintptr(fd), "/dev/ptmx"), s, nil
}

// setSize resizes the terminal through the master without making it
// blocking again.
func setSize(master *os.File, cols, rows int) error {
	rc, err := master.SyscallConn()
	if err != nil {
		return err
	}
	ws := cpty.Winsize{Cols: uint16(cols), Rows: uint16(rows)}
	var errno syscall.Errno
	err = rc.Control(func(fd uintptr) {
		_, _, errno = syscall.Syscall(syscall.SYS_IOCTL, fd, syscall.TIOCSWINSZ, uintptr(unsafe.Pointer(&ws)))
	})
	if err != nil {
		return err
	}
	if errno != 0 {
		return errno
	}
	return nil
}

// screen wraps the terminal emulator. The emulator writes its answers to
// terminal queries to a pipe that must be read, or Write blocks; the answers
// are discarded (the captured program gets no reply, as from a terminal that
// does not implement the query).
type screen struct {
	emu  *vt.Emulator
	done chan struct{}
}

func newScreen(cols, rows, scrollback int) *screen {
	s := &screen{emu: vt.NewEmulator(cols, rows), done: make(chan struct{})}
	s.emu.SetScrollbackSize(scrollback)
	go func() {
		defer close(s.done)
		io.Copy(io.Discard, s.emu)
	}()
	return s
}

func (s *screen) write(text string) { s.emu.WriteString(text) }

func (s *screen) resize(cols, rows int) { s.emu.Resize(cols, rows) }

// frame renders the viewport: rows lines, right-trimmed.
func (s *screen) frame() ports.RenderedFrame {
	cols, rows := s.emu.Width(), s.emu.Height()
	lines := strings.Split(s.emu.String(), "\n")
	out := make([]string, rows)
	for i := 0; i < rows && i < len(lines); i++ {
		out[i] = strings.TrimRight(lines[i], " ")
	}
	pos := s.emu.CursorPosition()
	buf := ports.BufferNormal
	if s.emu.IsAltScreen() {
		buf = ports.BufferAlternate
	}
	return ports.RenderedFrame{
		Columns: cols, Rows: rows, CursorX: pos.X, CursorY: pos.Y,
		ActiveBuffer: buf, Lines: out, SerializedState: s.emu.Render(),
	}
}

// close ends the emulator's answer pipe and waits for the reader to stop.
// Emulator.Close would do it too, but it writes a flag that Read reads
// without synchronization; closing the pipe's write end (which InputPipe
// returns) ends the reader without touching that flag.
func (s *screen) close() error {
	var err error
	if pw, ok := s.emu.InputPipe().(*io.PipeWriter); ok {
		err = pw.CloseWithError(io.EOF)
	} else {
		err = s.emu.Close()
	}
	<-s.done
	return err
}
