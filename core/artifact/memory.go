package artifact

import (
	"context"
	"unsafe"

	"rea/ports"
)

// Charging the memory an inventory holds against the call's budget
// (ports.Reserve): the occurrence list as it grows, the JavaScript content
// handed to Request.Content while it is read, and the in-memory part of a
// nested archive's spill. A refusal fails the call with resource_constraint
// naming the setting (REA_MAX_CALL_MEMORY_BYTES or REA_MAX_MEMORY_BYTES).
// What the builder reserved is released when it closes.

// itemBytes estimates one occurrence: its struct, its strings and its
// index entry.
func itemBytes(it *Item) int64 {
	return int64(unsafe.Sizeof(Item{})) + int64(2*len(it.Path)+len(it.name)+len(it.inner)+len(it.fsRel)) + 64
}

// chargeItems reserves the occurrences added since the last call.
func (b *graphBuilder) chargeItems(ctx context.Context) error {
	var n int64
	for _, it := range b.items[b.charged:] {
		n += itemBytes(it)
	}
	if err := b.reserve(ctx, "the inventory's occurrences", n); err != nil {
		return err
	}
	b.charged = len(b.items)
	return nil
}

// reserve charges n bytes until the builder closes.
func (b *graphBuilder) reserve(ctx context.Context, what string, n int64) error {
	release, err := ports.Reserve(ctx, what, n)
	if err != nil {
		return err
	}
	b.mu.Lock()
	b.held = append(b.held, release)
	b.mu.Unlock()
	return nil
}

// releaseHeld drops the builder's reservations.
func (b *graphBuilder) releaseHeld() {
	b.mu.Lock()
	held := b.held
	b.held = nil
	b.mu.Unlock()
	for _, r := range held {
		r()
	}
}

// growth charges a buffer as it grows, releasing everything at done.
type growth struct {
	what     string
	held     int64
	releases []func()
}

// to makes sure n bytes are reserved, in steps of at least 1 MiB.
func (g *growth) to(ctx context.Context, n int64) error {
	if n <= g.held {
		return nil
	}
	step := max(n-g.held, 1<<20)
	r, err := ports.Reserve(ctx, g.what, step)
	if err != nil {
		return err
	}
	g.releases = append(g.releases, r)
	g.held += step
	return nil
}

func (g *growth) done() {
	for _, r := range g.releases {
		r()
	}
	g.releases, g.held = nil, 0
}
