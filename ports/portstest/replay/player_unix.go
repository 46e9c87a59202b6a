//go:build unix

package replay

import (
	"context"
	"fmt"
	"net"
	"os"
	"syscall"
)

// Pipe serves the transcript on one end of a connected Unix socket pair and
// returns the other end, for engines reached over a process's pipes.
func (p *Player) Pipe(ctx context.Context) (net.Conn, error) {
	fds, err := syscall.Socketpair(syscall.AF_UNIX, syscall.SOCK_STREAM, 0)
	if err != nil {
		return nil, fmt.Errorf("replay: socketpair: %w", err)
	}
	conns := make([]net.Conn, 2)
	for i, fd := range fds {
		f := os.NewFile(uintptr(fd), fmt.Sprintf("replay-%d", i))
		conns[i], err = net.FileConn(f)
		f.Close()
		if err != nil {
			for _, c := range conns[:i] {
				c.Close()
			}
			return nil, fmt.Errorf("replay: socketpair: %w", err)
		}
	}
	p.stop = func() { conns[0].Close() }
	go p.serve(ctx, conns[0])
	p.t.Cleanup(func() { p.Close() })
	return conns[1], nil
}
