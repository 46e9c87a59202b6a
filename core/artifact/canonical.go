package artifact

import (
	"crypto/sha256"
	"encoding/hex"
	"sort"
	"strconv"

	"rea/core"
)

// The artifact graph hashes tens of thousands of small records (every ID is
// a Digest) and the whole graph (graph_sha256). Going through
// encoding/json and Canonicalize for each costs more than hashing the
// archive's bytes, so the records write their RFC 8785 form directly: keys
// are fixed ASCII names written in sorted order, strings go through
// AppendCanonicalString and integers are plain decimals. The result is
// byte-identical to CanonicalJSON (artifact_canonical_internal_test.go checks
// it), and MarshalJSON uses the same bytes.

// jcsObject writes a canonical object from fields given in any order.
type jcsField struct {
	key string
	val any // string, nil, bool, int, int64, *int64, []string, jcsRaw
}

// jcsRaw is a value already in canonical form.
type jcsRaw []byte

func appendJCSValue(b []byte, v any) []byte {
	switch x := v.(type) {
	case nil:
		return append(b, "null"...)
	case string:
		return core.AppendCanonicalString(b, x)
	case *string:
		if x == nil {
			return append(b, "null"...)
		}
		return core.AppendCanonicalString(b, *x)
	case bool:
		return strconv.AppendBool(b, x)
	case int:
		return strconv.AppendInt(b, int64(x), 10)
	case int64:
		return strconv.AppendInt(b, x, 10)
	case *int64:
		if x == nil {
			return append(b, "null"...)
		}
		return strconv.AppendInt(b, *x, 10)
	case []string:
		b = append(b, '[')
		for i, s := range x {
			if i > 0 {
				b = append(b, ',')
			}
			b = core.AppendCanonicalString(b, s)
		}
		return append(b, ']')
	case jcsRaw:
		return append(b, x...)
	}
	panic("core: jcs: unsupported value")
}

// appendJCSObject writes fields sorted by key (all keys are ASCII, where
// UTF-16 and byte order agree).
func appendJCSObject(b []byte, fields ...jcsField) []byte {
	if !sort.SliceIsSorted(fields, func(i, j int) bool { return fields[i].key < fields[j].key }) {
		sort.Slice(fields, func(i, j int) bool { return fields[i].key < fields[j].key })
	}
	b = append(b, '{')
	for i, f := range fields {
		if i > 0 {
			b = append(b, ',')
		}
		b = core.AppendCanonicalString(b, f.key)
		b = append(b, ':')
		b = appendJCSValue(b, f.val)
	}
	return append(b, '}')
}

// fastDigest is Digest of a flat object.
func fastDigest(fields ...jcsField) string {
	sum := sha256.Sum256(appendJCSObject(nil, fields...))
	return hex.EncodeToString(sum[:])
}

func (n *Node) appendJCS(b []byte) []byte {
	return appendJCSObject(b, jcsField{"architecture", n.Architecture}, jcsField{"artifact_id", n.ArtifactID},
		jcsField{"content_state", n.ContentState}, jcsField{"executable", n.Executable}, jcsField{"format", n.Format},
		jcsField{"kind", n.Kind}, jcsField{"limitations", artStrings(n.Limitations)}, jcsField{"media_type", n.MediaType},
		jcsField{"sha256", n.SHA256}, jcsField{"size", n.Size})
}

func (o *Occurrence) appendJCS(b []byte) []byte {
	var loc any
	if o.SourceLocation != nil {
		loc = jcsRaw(appendJCSObject(nil, jcsField{"length", o.SourceLocation.Length}, jcsField{"offset", o.SourceLocation.Offset}))
	}
	return appendJCSObject(b, jcsField{"artifact_id", o.ArtifactID}, jcsField{"compressed_size", o.CompressedSize},
		jcsField{"declared_size", o.DeclaredSize}, jcsField{"encrypted", o.Encrypted}, jcsField{"entry_kind", o.EntryKind},
		jcsField{"executable", o.Executable}, jcsField{"hash_status", o.HashStatus}, jcsField{"limitations", artStrings(o.Limitations)},
		jcsField{"logical_path", o.LogicalPath}, jcsField{"occurrence_id", o.OccurrenceID},
		jcsField{"parent_occurrence_id", o.ParentOccurrenceID}, jcsField{"source_location", loc})
}

func (e *Edge) appendJCS(b []byte) []byte {
	if e.Producer != nil {
		panic("core: jcs: edge producers are not supported")
	}
	return appendJCSObject(b, jcsField{"child_artifact_id", e.ChildArtifactID}, jcsField{"edge_id", e.EdgeID},
		jcsField{"logical_path", e.LogicalPath}, jcsField{"occurrence_id", e.OccurrenceID}, jcsField{"ordinal", e.Ordinal},
		jcsField{"parent_artifact_id", e.ParentArtifactID}, jcsField{"producer", nil}, jcsField{"relation", e.Relation})
}

func (c *Contradiction) appendJCS(b []byte) []byte {
	return appendJCSObject(b, jcsField{"contradiction_id", c.ContradictionID}, jcsField{"declared_sha256", c.DeclaredSHA256},
		jcsField{"entry_kind", c.EntryKind}, jcsField{"limitations", artStrings(c.Limitations)}, jcsField{"logical_path", c.LogicalPath},
		jcsField{"observed_sha256", c.ObservedSHA256}, jcsField{"occurrence_id", c.OccurrenceID},
		jcsField{"parent_artifact_id", c.ParentArtifactID}, jcsField{"provenance", c.Provenance}, jcsField{"trust", c.Trust},
		jcsField{"unpacked", c.Unpacked})
}

func (a *ExtractArtifactResultArtifact) appendJCS(b []byte) []byte {
	return appendJCSObject(b, jcsField{"artifact_id", a.ArtifactID}, jcsField{"bytes_written", a.BytesWritten},
		jcsField{"created", a.Created}, jcsField{"relative_path", a.RelativePath}, jcsField{"sha256", a.SHA256})
}

// MarshalJSON writes the canonical form, which encoding/json then only
// has to validate.
func (n Node) MarshalJSON() ([]byte, error)                          { return n.appendJCS(nil), nil }
func (o Occurrence) MarshalJSON() ([]byte, error)                    { return o.appendJCS(nil), nil }
func (e Edge) MarshalJSON() ([]byte, error)                          { return e.appendJCS(nil), nil }
func (c Contradiction) MarshalJSON() ([]byte, error)                 { return c.appendJCS(nil), nil }
func (a ExtractArtifactResultArtifact) MarshalJSON() ([]byte, error) { return a.appendJCS(nil), nil }

// appendJCSList writes a canonical array of n records.
func appendJCSList(b []byte, n int, item func([]byte, int) []byte) []byte {
	b = append(b, '[')
	for i := range n {
		if i > 0 {
			b = append(b, ',')
		}
		b = item(b, i)
	}
	return append(b, ']')
}

// graphDigest is Digest({nodes, occurrences, edges, integrity_contradictions}),
// streamed into the hash one record at a time (keys in sorted order).
func graphDigest(nodes []Node, occs []Occurrence, edges []Edge, ics []Contradiction) string {
	h := sha256.New()
	buf := make([]byte, 0, 4096)
	list := func(key string, n int, item func([]byte, int) []byte) {
		buf = core.AppendCanonicalString(buf[:0], key)
		buf = append(buf, ':', '[')
		h.Write(buf)
		for i := range n {
			buf = buf[:0]
			if i > 0 {
				buf = append(buf, ',')
			}
			buf = item(buf, i)
			h.Write(buf)
		}
		h.Write([]byte{']'})
	}
	h.Write([]byte{'{'})
	list("edges", len(edges), func(b []byte, i int) []byte { return edges[i].appendJCS(b) })
	h.Write([]byte{','})
	list("integrity_contradictions", len(ics), func(b []byte, i int) []byte { return ics[i].appendJCS(b) })
	h.Write([]byte{','})
	list("nodes", len(nodes), func(b []byte, i int) []byte { return nodes[i].appendJCS(b) })
	h.Write([]byte{','})
	list("occurrences", len(occs), func(b []byte, i int) []byte { return occs[i].appendJCS(b) })
	h.Write([]byte{'}'})
	return hex.EncodeToString(h.Sum(nil))
}

// filesDigest is Digest(artifacts) of an extraction.
func filesDigest(arts []ExtractArtifactResultArtifact) string {
	sum := sha256.Sum256(appendJCSList(nil, len(arts), func(b []byte, i int) []byte { return arts[i].appendJCS(b) }))
	return hex.EncodeToString(sum[:])
}
