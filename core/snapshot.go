package core

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
)

// Snapshot bounds: per connection, at most 16 snapshots and 64 MiB.
const (
	MaxSnapshots     = 16
	MaxSnapshotBytes = 64 << 20
)

// SnapshotResult is snapshot_evidence_bundle's result.
type SnapshotResult struct {
	BundleDigest    string `json:"bundle_digest"`
	BundleURI       string `json:"bundle_uri"`
	Bytes           int64  `json:"bytes"`
	Records         int    `json:"records"`
	Unknowns        int    `json:"unknowns"`
	Scope           string `json:"scope"`
	SurvivesSession bool   `json:"survives_session"`
}

// BundleURIPrefix is the scheme and path of snapshot resources.
const BundleURIPrefix = "rea://evidence-bundle/"

var errSnapshotFull = errors.New("snapshot budget exhausted")

// limitedBuffer fails a write that would exceed max.
type limitedBuffer struct {
	bytes.Buffer
	max int64
}

func (b *limitedBuffer) Write(p []byte) (int, error) {
	if int64(b.Len()+len(p)) > b.max {
		return 0, errSnapshotFull
	}
	return b.Buffer.Write(p)
}

// Snapshot freezes the session's current bundle under its digest (the
// SHA-256 of its canonical bytes) for resources/read. Snapshotting an
// unchanged bundle again returns the same snapshot.
func (s *Session) Snapshot(ctx context.Context) (*SnapshotResult, error) {
	src := s.bundleSource()
	r := &s.retained
	r.mu.Lock()
	room := int64(MaxSnapshotBytes) - r.snapBytes
	r.mu.Unlock()
	buf := &limitedBuffer{max: max(room, 0)}
	h := sha256.New()
	st, err := WriteBundle(ctx, io.MultiWriter(buf, h), src, nil)
	if err != nil {
		if errors.Is(err, errSnapshotFull) {
			// It may still be an existing snapshot: compute its digest alone.
			h.Reset()
			st, err = WriteBundle(ctx, h, src, nil)
			if err != nil {
				return nil, AsError("snapshot_evidence_bundle", err)
			}
			digest := hex.EncodeToString(h.Sum(nil))
			r.mu.Lock()
			_, have := r.snapshots[digest]
			r.mu.Unlock()
			if have {
				return snapshotResult(digest, st), nil
			}
			return nil, snapshotLimit("bytes", MaxSnapshotBytes, fmt.Sprintf("the %d-byte bundle does not fit the %d bytes left of the snapshot budget", st.Bytes, room))
		}
		return nil, AsError("snapshot_evidence_bundle", err)
	}
	digest := hex.EncodeToString(h.Sum(nil))
	r.mu.Lock()
	defer r.mu.Unlock()
	if _, have := r.snapshots[digest]; have {
		return snapshotResult(digest, st), nil
	}
	if len(r.snapshots) >= MaxSnapshots {
		return nil, snapshotLimit("snapshots", MaxSnapshots, fmt.Sprintf("this connection already holds %d snapshots", MaxSnapshots))
	}
	if r.snapBytes+st.Bytes > MaxSnapshotBytes { // another snapshot landed meanwhile
		return nil, snapshotLimit("bytes", MaxSnapshotBytes, "the snapshot budget is exhausted")
	}
	if r.snapshots == nil {
		r.snapshots = map[string][]byte{}
	}
	r.snapshots[digest] = buf.Bytes()
	r.snapBytes += st.Bytes
	return snapshotResult(digest, st), nil
}

func snapshotResult(digest string, st BundleStats) *SnapshotResult {
	return &SnapshotResult{BundleDigest: digest, BundleURI: BundleURIPrefix + digest, Bytes: st.Bytes, Records: st.Records,
		Unknowns: st.Unknowns, Scope: "session", SurvivesSession: false}
}

func snapshotLimit(limit string, maximum int, why string) *Error {
	return &Error{Code: CodeTruncated, Message: "snapshot_evidence_bundle: " + why,
		Remediation: "Release snapshots you no longer need with release_evidence_bundle, or export the bundle with export_evidence_bundle.",
		Details:     map[string]any{"operation": "snapshot_evidence_bundle", "limit": limit, "maximum": maximum, "truncated": true}}
}

// ReleaseSnapshot drops a snapshot; releasing an unknown digest is not an
// error and reports false.
func (s *Session) ReleaseSnapshot(digest string) bool {
	r := &s.retained
	r.mu.Lock()
	defer r.mu.Unlock()
	b, ok := r.snapshots[digest]
	if ok {
		delete(r.snapshots, digest)
		r.snapBytes -= int64(len(b))
	}
	return ok
}

// snapshotBytes returns a snapshot's canonical bytes.
func (s *Session) snapshotBytes(digest string) ([]byte, bool) {
	r := &s.retained
	r.mu.Lock()
	defer r.mu.Unlock()
	b, ok := r.snapshots[digest]
	return b, ok
}
