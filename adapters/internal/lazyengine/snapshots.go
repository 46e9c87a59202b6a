package lazyengine

import (
	"context"
	"encoding/json"
	"sync"

	"rea/ports"
	"rea/snapshot"
)

// Snapshots keeps one analysis's engine answers in an analysis snapshot
// (package rea/snapshot, PROVIDERS.md §5) and answers later sessions on the
// same key from it, so they need not start the engine. Each entry is one
// query's raw answer, named by its method and parameters. Invalidation is by
// key only: another target digest, engine build or profile digest is
// another partition. The zero value (no root) never hits and keeps nothing.
type Snapshots struct {
	Store snapshot.Store
	Key   snapshot.Key

	mu    sync.Mutex
	hits  []string        // operations answered from the snapshot, in order
	wrote map[string]bool // entries this session's engine answered
	off   bool            // the session changed the engine's state
}

func entryName(method string, params map[string]any) (string, bool) {
	b, err := json.Marshal(params)
	if err != nil {
		return "", false
	}
	return method + " " + string(b), true
}

// Get decodes the kept answer to method(params) into out and reports
// whether there was one. A hit on an entry another session wrote is
// recorded (Hits) and observed on ctx as ports.SnapshotLimitation, so the
// result's Evidence says it came from a snapshot.
func (s *Snapshots) Get(ctx context.Context, method string, params map[string]any, out any) bool {
	s.mu.Lock()
	off := s.off
	s.mu.Unlock()
	if off || !s.Store.Enabled() {
		return false
	}
	name, ok := entryName(method, params)
	if !ok {
		return false
	}
	b, ok, _ := s.Store.Get(s.Key, name)
	if !ok || json.Unmarshal(b, out) != nil {
		return false
	}
	s.mu.Lock()
	own := s.wrote[name]
	if !own {
		s.hits = append(s.hits, method)
	}
	s.mu.Unlock()
	if !own { // an entry this engine wrote moments ago is not a snapshot's answer
		ports.Observe(ctx, "analysis_snapshot", ports.SnapshotLimitation)
		ports.Note(ctx, ports.SnapshotLimitation)
	}
	return true
}

// Put keeps the engine's raw answer to method(params). A snapshot that
// cannot be written only makes the next session slower.
func (s *Snapshots) Put(method string, params map[string]any, raw json.RawMessage) {
	s.mu.Lock()
	off := s.off
	s.mu.Unlock()
	if off || !s.Store.Enabled() {
		return
	}
	name, ok := entryName(method, params)
	if !ok || s.Store.Put(s.Key, name, raw) != nil {
		return
	}
	s.mu.Lock()
	if s.wrote == nil {
		s.wrote = map[string]bool{}
	}
	s.wrote[name] = true
	s.mu.Unlock()
}

// Stop ends the use of the snapshot for this session: once a session has
// changed the engine's state (a comment, a name), its answers are no longer
// the analysis of the bytes alone, so they are neither kept nor replaced by
// the snapshot's.
func (s *Snapshots) Stop() {
	s.mu.Lock()
	s.off = true
	s.mu.Unlock()
}

// Hits lists, in order, the operations answered from the snapshot.
func (s *Snapshots) Hits() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.hits...)
}
