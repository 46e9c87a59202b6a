package core

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io"
	"sync"
)

// writerPool reuses the buffers that writeCanonical streams through.
var writerPool = sync.Pool{New: func() any { return bufio.NewWriterSize(nil, 16<<10) }}

// canonicalForm selects which view of a record writeCanonical streams.
type canonicalForm int

const (
	formFull       canonicalForm = iota // the complete record
	formProjection                      // the semantic projection (the ID's input)
	formMasked                          // the record with subject name and local_path blanked (ledger equality)
)

// writeCanonical streams the JCS bytes of one form of e into w without
// re-encoding its JSON payloads, which Seal and ParseEvidence leave in
// canonical form. Keys are ASCII, so byte order is UTF-16 order.
func (e *Evidence) writeCanonical(w io.Writer, form canonicalForm) error {
	bw := writerPool.Get().(*bufio.Writer)
	bw.Reset(w)
	defer func() { bw.Reset(nil); writerPool.Put(bw) }()
	var scratch []byte
	small := func(v any) ([]byte, error) {
		scratch = scratch[:0]
		c, err := CanonicalJSON(v)
		return c, err
	}
	first := true
	field := func(name string, raw []byte) {
		if !first {
			bw.WriteByte(',')
		}
		first = false
		bw.Write(AppendCanonicalString(nil, name))
		bw.WriteByte(':')
		bw.Write(raw)
	}
	enc := func(name string, v any) error {
		c, err := small(v)
		if err != nil {
			return err
		}
		field(name, c)
		return nil
	}
	bw.WriteByte('{')
	if err := enc("analysis_profile", e.AnalysisProfile); err != nil {
		return err
	}
	if err := enc("authority", e.Authority); err != nil {
		return err
	}
	if err := enc("confidence", e.Confidence); err != nil {
		return err
	}
	if err := enc("environment", e.Environment); err != nil {
		return err
	}
	if form != formProjection {
		if err := enc("evidence_id", e.EvidenceID); err != nil {
			return err
		}
	}
	if err := enc("evidence_links", NonNil(e.EvidenceLinks)); err != nil {
		return err
	}
	if err := enc("limitations", NonNil(e.Limitations)); err != nil {
		return err
	}
	if err := enc("locations", NonNil(e.Locations)); err != nil {
		return err
	}
	field("normalized_result", payload(e.NormalizedResult))
	if err := enc("operation", e.Operation); err != nil {
		return err
	}
	field("parameters", payload(e.Parameters))
	if err := enc("predicate_type", e.PredicateType); err != nil {
		return err
	}
	if err := enc("provider", e.Provider); err != nil {
		return err
	}
	field("raw_result", payload(e.RawResult))
	var subject any
	if s := e.Subject; s != nil {
		switch form {
		case formProjection:
			subject = projSubject{Digest: s.Digest, Format: s.Format, Architecture: s.Architecture}
		case formMasked:
			m := *s
			m.Name, m.LocalPath = "", ""
			subject = m
		default:
			subject = s
		}
	}
	if err := enc("subject", subject); err != nil {
		return err
	}
	bw.WriteByte('}')
	return bw.Flush()
}

func payload(raw json.RawMessage) []byte {
	if len(raw) == 0 {
		return []byte("null")
	}
	return raw
}

// countingHash hashes and counts what is written.
type countingHash struct {
	h interface {
		io.Writer
		Sum([]byte) []byte
	}
	n int64
}

func (c *countingHash) Write(p []byte) (int, error) {
	c.n += int64(len(p))
	return c.h.Write(p)
}

// digestForm returns the hex SHA-256 and byte length of one canonical form.
func (e *Evidence) digestForm(form canonicalForm) (string, int64, error) {
	ch := &countingHash{h: sha256.New()}
	if err := e.writeCanonical(ch, form); err != nil {
		return "", 0, err
	}
	return hex.EncodeToString(ch.h.Sum(nil)), ch.n, nil
}

// WriteCanonical streams the record's canonical JSON to w.
func (e *Evidence) WriteCanonical(w io.Writer) error { return e.writeCanonical(w, formFull) }
