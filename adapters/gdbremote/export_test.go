package gdbremote

import (
	"context"
	"io"
	"time"

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
func (f *fakeEndpoint) close(context.Context, time.Duration) ([]ports.SignalAttempt, error) {
	if c, ok := f.ReadWriter.(io.Closer); ok {
		c.Close()
	}
	return nil, nil
}
