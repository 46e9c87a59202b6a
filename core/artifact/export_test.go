package artifact

import (
	"context"
	"sync/atomic"
)

// SetExtractHook makes extract_artifact call f with its output directory
// right after creating it; the returned function restores the previous hook.
func SetExtractHook(f func(outputRoot string)) func() {
	prev := extractHook
	extractHook = f
	return func() { extractHook = prev }
}

// CountBuilds counts the graphs inventory_artifact builds from now on; the
// returned function reads the count, and restore puts the builder back.
func CountBuilds() (count func() int, restore func()) {
	prev := buildGraph
	var n atomic.Int64
	buildGraph = func(ctx context.Context, req Request) (*Graph, error) {
		n.Add(1)
		return prev(ctx, req)
	}
	return func() int { return int(n.Load()) }, func() { buildGraph = prev }
}
