package core

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io"
	"strconv"
)

// canonicalForm selects which view of a record writeCanonical streams.
type canonicalForm int

const (
	formFull       canonicalForm = iota // the complete record
	formProjection                      // the semantic projection (the ID's input)
	formMasked                          // the record with subject name and local_path blanked (ledger equality)
)

// AppendCanonicalEvidence appends the JCS encoding of a sealed or parsed
// record to dst (writeCanonical's full form).
func AppendCanonicalEvidence(dst []byte, e *Evidence) ([]byte, error) {
	w := &appendWriter{dst}
	err := e.writeCanonical(w, formFull)
	return w.b, err
}

type appendWriter struct{ b []byte }

func (a *appendWriter) Write(p []byte) (int, error) { a.b = append(a.b, p...); return len(p), nil }

// writeCanonical streams the JCS bytes of one form of e into w without
// re-encoding its JSON payloads, which Seal and ParseEvidence leave in
// canonical form: they are written as they are, between runs of the small
// fields, which are written directly. Keys are ASCII and written in JCS
// order.
func (e *Evidence) writeCanonical(w io.Writer, form canonicalForm) error {
	var werr error
	b := make([]byte, 0, 1024)
	spill := func(name string, raw json.RawMessage) { // the run so far, then the payload named name
		b = append(AppendCanonicalString(append(b, ','), name), ':')
		for _, p := range [][]byte{b, payload(raw)} {
			if werr == nil {
				_, werr = w.Write(p)
			}
		}
		b = b[:0]
	}
	b = append(b, `{"analysis_profile":`...)
	b, err := appendCanonicalProfile(b, e.AnalysisProfile)
	if err != nil {
		return err
	}
	b = append(b, `,"authority":`...)
	b = AppendCanonicalString(b, e.Authority)
	b = append(b, `,"confidence":`...)
	b = AppendCanonicalString(b, e.Confidence)
	b = append(b, `,"environment":`...)
	if env := e.Environment; env == nil {
		b = append(b, "null"...)
	} else {
		b = appendFields(b, "architecture", env.Architecture, "id", env.ID, "isolation", env.Isolation, "platform", env.Platform)
	}
	if form != formProjection {
		b = append(b, `,"evidence_id":`...)
		b = AppendCanonicalString(b, string(e.EvidenceID))
	}
	b = append(b, `,"evidence_links":[`...)
	for i, l := range e.EvidenceLinks {
		if i > 0 {
			b = append(b, ',')
		}
		b = AppendCanonicalString(b, string(l))
	}
	b = append(b, `],"limitations":[`...)
	for i, l := range e.Limitations {
		if i > 0 {
			b = append(b, ',')
		}
		b = AppendCanonicalString(b, l)
	}
	locs, err := CanonicalJSON(NonNil(e.Locations))
	if err != nil {
		return err
	}
	b = append(append(b, `],"locations":`...), locs...)
	spill("normalized_result", e.NormalizedResult)
	b = append(b, `,"operation":`...)
	b = AppendCanonicalString(b, e.Operation)
	spill("parameters", e.Parameters)
	b = append(b, `,"predicate_type":`...)
	b = AppendCanonicalString(b, e.PredicateType)
	b = append(b, `,"provider":`...)
	b = appendProviderRef(b, e.Provider)
	spill("raw_result", e.RawResult)
	b = append(b, `,"subject":`...)
	if sub := e.Subject; sub == nil {
		b = append(b, "null"...)
	} else {
		b = append(b, `{"architecture":`...)
		b = appendNullableString(b, sub.Architecture)
		b = append(b, `,"digest":{"sha256":`...)
		b = AppendCanonicalString(b, sub.Digest.SHA256)
		b = append(b, `},"format":`...)
		b = AppendCanonicalString(b, sub.Format)
		if form != formProjection { // the projection holds what was observed, not where it was read
			name, path := sub.Name, sub.LocalPath
			if form == formMasked {
				name, path = "", ""
			}
			b = append(b, `,"local_path":`...)
			b = AppendCanonicalString(b, path)
			b = append(b, `,"name":`...)
			b = AppendCanonicalString(b, name)
		}
		b = append(b, '}')
	}
	b = append(b, '}')
	if werr == nil {
		_, werr = w.Write(b)
	}
	return werr
}

func payload(raw json.RawMessage) []byte {
	if len(raw) == 0 {
		return []byte("null")
	}
	return raw
}

// appendFields writes an object of string fields given in JCS key order.
func appendFields(dst []byte, kv ...string) []byte {
	dst = append(dst, '{')
	for i := 0; i < len(kv); i += 2 {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = AppendCanonicalString(dst, kv[i])
		dst = append(dst, ':')
		dst = AppendCanonicalString(dst, kv[i+1])
	}
	return append(dst, '}')
}

func appendNullableString(dst []byte, s *string) []byte {
	if s == nil {
		return append(dst, "null"...)
	}
	return AppendCanonicalString(dst, *s)
}

func appendProviderRef(dst []byte, p ProviderRef) []byte {
	dst = append(dst, `{"id":`...)
	dst = AppendCanonicalString(dst, p.ID)
	dst = append(dst, `,"name":`...)
	dst = AppendCanonicalString(dst, p.Name)
	dst = append(dst, `,"version":`...)
	dst = appendNullableString(dst, p.Version)
	return append(dst, '}')
}

func appendCanonicalProfile(dst []byte, p *Profile) ([]byte, error) {
	if p == nil {
		return append(dst, "null"...), nil
	}
	params := p.Parameters
	if len(params) == 0 {
		params = json.RawMessage("null")
	}
	c, err := Canonicalize(params) // small, and not canonicalized by ParseEvidence
	if err != nil {
		return nil, err
	}
	dst = append(dst, `{"digest":`...)
	dst = AppendCanonicalString(dst, p.Digest)
	dst = append(dst, `,"parameters":`...)
	dst = append(dst, c...)
	dst = append(dst, `,"provider":`...)
	dst = appendFields(dst, "id", p.Provider.ID, "name", p.Provider.Name, "version", p.Provider.Version)
	dst = append(dst, `,"provider_profile_schema_version":`...)
	dst = strconv.AppendInt(dst, int64(p.ProviderProfileSchemaVersion), 10)
	dst = append(dst, `,"schema_version":`...)
	dst = strconv.AppendInt(dst, int64(p.SchemaVersion), 10)
	return append(dst, '}'), nil
}

// digestForm returns the hex SHA-256 and byte length of one canonical form.
func (e *Evidence) digestForm(form canonicalForm) (string, int64, error) {
	h, n := sha256.New(), int64(0)
	if err := e.writeCanonical(&countWriter{w: h, n: &n}, form); err != nil {
		return "", 0, err
	}
	return hex.EncodeToString(h.Sum(nil)), n, nil
}

// WriteCanonical streams the record's canonical JSON to w.
func (e *Evidence) WriteCanonical(w io.Writer) error { return e.writeCanonical(w, formFull) }
