package native

import (
	"context"
	"errors"
	"sync"

	"rea/ports"
)

// lazy computes a value once and caches it, unless the computation was cut
// short by its context or refused by a memory budget: a cancelled or
// refused caller must not poison later callers.
type lazy[T any] struct {
	mu   sync.Mutex
	done bool
	val  T
	err  error
}

func (l *lazy[T]) get(ctx context.Context, compute func(context.Context) (T, error)) (T, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.done {
		return l.val, l.err
	}
	v, err := compute(ctx)
	if err != nil && (ctx.Err() != nil && errors.Is(err, ctx.Err()) || errors.Is(err, ports.ErrResourceLimit)) {
		return v, err // a cancelled call, or a memory budget that may have room later
	}
	l.done, l.val, l.err = true, v, err
	return v, err
}

// peek returns the value when it has been computed without blocking.
func (l *lazy[T]) peek() (T, bool) {
	var zero T
	if !l.mu.TryLock() {
		return zero, false
	}
	defer l.mu.Unlock()
	if !l.done || l.err != nil {
		return zero, false
	}
	return l.val, true
}

// drop calls f with the value once any computation in flight has finished,
// if one was cached.
func (l *lazy[T]) drop(f func(T)) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.done && l.err == nil {
		f(l.val)
	}
}
