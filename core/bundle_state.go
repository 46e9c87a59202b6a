package core

import (
	"cmp"
	"iter"
	"slices"
	"sync"
)

// retainedState is what a connection keeps beside its ledger: residual
// unknowns and bundle snapshots. The zero value is empty and usable.
//
// Lock order: retainedState.mu before Ledger.mu, never the reverse, since
// unknown mutations and imports consult or fill the ledger while holding mu.
type retainedState struct {
	mu        sync.Mutex
	unknowns  map[UnknownID][]*Unknown // revisions in order
	revisions int
	snapshots map[string][]byte // bundle digest -> canonical bytes
	snapBytes int64
}

func (r *retainedState) clear() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.unknowns, r.revisions = nil, 0
	r.snapshots, r.snapBytes = nil, 0
}

// allUnknownsLocked returns every revision sorted by (unknown_id, revision).
func (r *retainedState) allUnknownsLocked() []*Unknown {
	out := make([]*Unknown, 0, r.revisions)
	for _, chain := range r.unknowns {
		out = append(out, chain...)
	}
	sortUnknowns(out)
	return out
}

func (r *retainedState) allUnknowns() []*Unknown {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.allUnknownsLocked()
}

// latestLocked returns the current revision of every unknown.
func (r *retainedState) latestLocked() map[UnknownID]*Unknown {
	out := make(map[UnknownID]*Unknown, len(r.unknowns))
	for id, chain := range r.unknowns {
		out[id] = chain[len(chain)-1]
	}
	return out
}

// bundleSource is a consistent view of the session for a bundle: the
// ledger's records and the unknowns, taken together.
func (s *Session) bundleSource() BundleSource {
	s.retained.mu.Lock()
	defer s.retained.mu.Unlock()
	recs := s.ledger.Records()
	return BundleSource{Records: slices.Values(recs), Unknowns: s.retained.allUnknownsLocked(), count: len(recs)}
}

// Unknowns returns every revision of every residual unknown of this
// connection, sorted by (unknown_id, revision).
func (s *Session) Unknowns() []*Unknown { return s.retained.allUnknowns() }

// BundleSource is what a bundle is written from.
type BundleSource struct {
	// Records yields every record once, sorted by evidence_id. It is
	// ranged twice: once for the manifests, once for the records.
	Records iter.Seq[*Evidence]
	// Unknowns are sorted by (unknown_id, revision).
	Unknowns []*Unknown
	count    int
}

// SourceOf is the BundleSource of records (sorted here) and unknowns.
func SourceOf(records []*Evidence, unknowns []*Unknown) BundleSource {
	recs := slices.Clone(records)
	slices.SortFunc(recs, func(a, b *Evidence) int { return cmp.Compare(a.EvidenceID, b.EvidenceID) })
	unks := slices.Clone(unknowns)
	sortUnknowns(unks)
	return BundleSource{Records: slices.Values(recs), Unknowns: unks, count: len(recs)}
}
