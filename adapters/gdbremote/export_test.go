package gdbremote

import (
	"bufio"
	"context"
	"errors"
	"io"

	"rea/ports"
)

// SetTap makes t report every packet to tap.
func SetTap(t *Tracer, tap func(dir byte, payload []byte)) { t.tap = tap }

// SetDial makes t talk to rw instead of launching gdbserver.
func SetDial(t *Tracer, dial func(ctx context.Context, req ports.TraceRequest) (io.ReadWriter, error)) {
	t.dial = func(ctx context.Context, req ports.TraceRequest) (endpoint, error) {
		rw, err := dial(ctx, req)
		if err != nil {
			return nil, err
		}
		return &fakeEndpoint{rw}, nil
	}
}

type fakeEndpoint struct{ io.ReadWriter }

func (f *fakeEndpoint) lineage(context.Context) ports.ProcessLineage {
	return ports.ProcessLineage{Status: ports.LineageUnavailable, Reason: ports.LineageReasonNoProcessTable}
}
func (f *fakeEndpoint) log() string { return "" }
func (f *fakeEndpoint) close(context.Context) ([]ports.SignalAttempt, error) {
	if c, ok := f.ReadWriter.(io.Closer); ok {
		c.Close()
	}
	return nil, nil
}

// ReadPacket reads one frame as the client does: kind '$', '%', '+' or '-',
// the decoded payload, and whether the checksum was bad.
func ReadPacket(r *bufio.Reader) (kind byte, payload []byte, badSum bool, err error) {
	f, err := readFrame(r, MaxPacket)
	return f.kind, f.payload, f.badSum, err
}

// AppendPacket frames payload.
func AppendPacket(dst, payload []byte) []byte { return appendPacket(dst, payload) }

// ParseStop parses a stop reply and reports its kind, signal and thread.
func ParseStop(p []byte) (kind byte, signal int, thread string, err error) {
	s, err := parseStop(p)
	return s.kind, s.signal, s.thread.String(), err
}

// ParseTdesc parses a target description from documents by name.
func ParseTdesc(docs map[string][]byte) (arch string, regs map[string][3]int, err error) {
	td, err := parseTdesc(func(name string) ([]byte, error) {
		d, ok := docs[name]
		if !ok {
			return nil, errors.New("no document " + name)
		}
		return d, nil
	})
	if err != nil {
		return "", nil, err
	}
	regs = map[string][3]int{}
	for _, r := range td.regs {
		regs[r.name] = [3]int{r.number, r.bits, r.offset}
	}
	return td.arch, regs, nil
}
