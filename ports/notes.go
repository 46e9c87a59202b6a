package ports

import (
	"context"
	"sync"
)

// CallNotes collects limitation sentences an engine reports for the one call
// whose context carries them: facts about how this answer was obtained that
// belong in its Evidence (for example that it came from an analysis
// snapshot rather than a fresh run of the engine). Core seals them with the
// call's result, once each, after the handler's own limitations. Safe for
// concurrent use.
type CallNotes struct {
	mu    sync.Mutex
	seen  map[string]bool
	items []string
}

type notesKey struct{}

// WithCallNotes returns a context that carries n to the engines it reaches.
func WithCallNotes(ctx context.Context, n *CallNotes) context.Context {
	return context.WithValue(ctx, notesKey{}, n)
}

// Note adds limitation to the notes ctx carries; without any it does
// nothing (a call outside a session, an engine test).
func Note(ctx context.Context, limitation string) {
	n, ok := ctx.Value(notesKey{}).(*CallNotes)
	if !ok || n == nil || limitation == "" {
		return
	}
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.seen[limitation] {
		return
	}
	if n.seen == nil {
		n.seen = map[string]bool{}
	}
	n.seen[limitation] = true
	n.items = append(n.items, limitation)
}

// List returns the notes in the order they were first added.
func (n *CallNotes) List() []string {
	n.mu.Lock()
	defer n.mu.Unlock()
	return append([]string(nil), n.items...)
}

// SnapshotLimitation is the sentence an engine notes when it answered a call
// from a local analysis snapshot (PROVIDERS.md §5.3).
const SnapshotLimitation = "Loaded from a local REA analysis snapshot; this call did not re-run the provider."
