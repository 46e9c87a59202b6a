package ports

import (
	"context"
	"errors"
	"fmt"
)

// MemoryAccount charges the large buffers a call holds (whole string
// tables, source maps, archive members) against the call's and the
// process's memory budgets, before they are allocated. Reserve returns a
// release function to call once the buffer is dropped, or a *LimitError.
// It is safe for concurrent use.
type MemoryAccount interface {
	Reserve(what string, n int64) (release func(), err error)
}

type memoryKey struct{}

// WithMemory returns a context that carries a to the engines it reaches.
func WithMemory(ctx context.Context, a MemoryAccount) context.Context {
	return context.WithValue(ctx, memoryKey{}, a)
}

// Reserve charges n bytes for what to the account ctx carries; without
// one it always succeeds. Call release when the buffer is dropped.
func Reserve(ctx context.Context, what string, n int64) (release func(), err error) {
	if a, ok := ctx.Value(memoryKey{}).(MemoryAccount); ok && a != nil {
		return a.Reserve(what, n)
	}
	return func() {}, nil
}

// ErrResourceLimit is wrapped by every *LimitError.
var ErrResourceLimit = errors.New("resource limit")

// LimitError is a refused reservation: what needed Requested bytes, and
// Limit (the setting that raises it, e.g. REA_MAX_CALL_MEMORY_BYTES) allows
// Max with InUse already held.
type LimitError struct {
	What                  string
	Limit                 string
	Max, InUse, Requested int64
}

func (e *LimitError) Error() string {
	return fmt.Sprintf("%s needs %d bytes; %s allows %d and %d are in use", e.What, e.Requested, e.Limit, e.Max, e.InUse)
}

func (e *LimitError) Unwrap() error { return ErrResourceLimit }
