package artifact

import (
	"crypto/sha256"
	"encoding/hex"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"rea/core"
)

// The artifact graph hashes tens of thousands of small records (every ID is
// a Digest) and the whole graph (graph_sha256), and its result is sealed as
// Evidence of tens of MB. Going through encoding/json and Canonicalize for
// each costs more than hashing the archive's bytes, so the records write
// their RFC 8785 form directly: keys are fixed ASCII names written in sorted
// order, strings that need no escaping are copied and others go through
// AppendCanonicalString, and integers are plain decimals. The output is
// byte-identical to CanonicalJSON (canonical_internal_test.go checks it);
// the records and InventoryArtifactResult implement core.CanonicalAppender,
// so sealing writes them once, and MarshalJSON uses the same bytes.

// appendStr appends s as a canonical JSON string: printable ASCII other than
// '"' and '\\' stands for itself; anything else takes the general path.
func appendStr(b []byte, s string) []byte {
	if !plainString(s) {
		return core.AppendCanonicalString(b, s)
	}
	b = append(b, '"')
	b = append(b, s...)
	return append(b, '"')
}

// plainString reports whether s is printable ASCII without '"' or '\\',
// eight bytes at a time: a word has a byte below 0x20 when
// (x - 0x20…) &^ x & 0x80… is not zero, and a byte equal to c when x ^ c…
// has a zero byte (exact for ASCII words).
func plainString(s string) bool {
	const lo, hi = 0x0101010101010101, 0x8080808080808080
	i := 0
	for ; i+8 <= len(s); i += 8 {
		x := uint64(s[i]) | uint64(s[i+1])<<8 | uint64(s[i+2])<<16 | uint64(s[i+3])<<24 |
			uint64(s[i+4])<<32 | uint64(s[i+5])<<40 | uint64(s[i+6])<<48 | uint64(s[i+7])<<56
		q, bs := x^(0x22*lo), x^(0x5c*lo)
		if (x|(x-0x20*lo)&^x|(q-lo)&^q|(bs-lo)&^bs)&hi != 0 {
			return false
		}
	}
	for ; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c == '"' || c == '\\' || c >= 0x80 {
			return false
		}
	}
	return true
}

func appendOptStr(b []byte, s *string) []byte {
	if s == nil {
		return append(b, "null"...)
	}
	return appendStr(b, *s)
}

func appendOptInt(b []byte, n *int64) []byte {
	if n == nil {
		return append(b, "null"...)
	}
	return strconv.AppendInt(b, *n, 10)
}

// appendStrs writes a list of strings; nil is the empty list.
func appendStrs(b []byte, ss []string) []byte {
	b = append(b, '[')
	for i, s := range ss {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendStr(b, s)
	}
	return append(b, ']')
}

// jcsField is one member of a flat object written by appendJCSObject, for
// the few digests of mixed shape.
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
		return appendStr(b, x)
	case *string:
		return appendOptStr(b, x)
	case bool:
		return strconv.AppendBool(b, x)
	case int:
		return strconv.AppendInt(b, int64(x), 10)
	case int64:
		return strconv.AppendInt(b, x, 10)
	case *int64:
		return appendOptInt(b, x)
	case []string:
		return appendStrs(b, x)
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
		b = appendStr(b, f.key)
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

// digester computes the graph's IDs with one reusable buffer; each
// goroutine has its own.
type digester struct {
	buf []byte
	out []byte
}

// id returns prefix followed by the hex SHA-256 of b.
func (d *digester) id(prefix string, b []byte) string {
	sum := sha256.Sum256(b)
	d.out = append(d.out[:0], prefix...)
	d.out = hex.AppendEncode(d.out, sum[:])
	return string(d.out)
}

// artifactID is "art_" + Digest({schema_version, sha256}).
func (d *digester) artifactID(sha string) string {
	d.buf = append(d.buf[:0], `{"schema_version":`...)
	d.buf = strconv.AppendInt(d.buf, artifactSchemaVersion, 10)
	d.buf = append(d.buf, `,"sha256":`...)
	d.buf = appendStr(d.buf, sha)
	d.buf = append(d.buf, '}')
	return d.id("art_", d.buf)
}

// occurrenceID is "occ_" + Digest({root_artifact_id, logical_path, entry_kind}).
func (d *digester) occurrenceID(root, logicalPath, kind string) string {
	d.buf = append(d.buf[:0], `{"entry_kind":`...)
	d.buf = appendStr(d.buf, kind)
	d.buf = append(d.buf, `,"logical_path":`...)
	d.buf = appendStr(d.buf, logicalPath)
	d.buf = append(d.buf, `,"root_artifact_id":`...)
	d.buf = appendStr(d.buf, root)
	d.buf = append(d.buf, '}')
	return d.id("occ_", d.buf)
}

// edgeID is "edge_" + Digest({parent_artifact_id, child_artifact_id,
// relation, occurrence_id, logical_path}).
func (d *digester) edgeID(e *Edge) string {
	d.buf = append(d.buf[:0], `{"child_artifact_id":`...)
	d.buf = appendStr(d.buf, e.ChildArtifactID)
	d.buf = append(d.buf, `,"logical_path":`...)
	d.buf = appendOptStr(d.buf, e.LogicalPath)
	d.buf = append(d.buf, `,"occurrence_id":`...)
	d.buf = appendStr(d.buf, e.OccurrenceID)
	d.buf = append(d.buf, `,"parent_artifact_id":`...)
	d.buf = appendStr(d.buf, e.ParentArtifactID)
	d.buf = append(d.buf, `,"relation":`...)
	d.buf = appendStr(d.buf, e.Relation)
	d.buf = append(d.buf, '}')
	return d.id("edge_", d.buf)
}

// digestChunk is how many items a digesting goroutine takes at a time.
const digestChunk = 256

// parallel calls fn on consecutive ranges of [0, n), chunk indexes at a
// time, on every core, each goroutine with its own scratch S (one call, on
// this goroutine, when one chunk holds them all). Every index is written
// by one call only, so the result does not depend on the number of cores.
func parallel[S any](n, chunk int, fn func(lo, hi int, s *S)) {
	workers := min(runtime.GOMAXPROCS(0), (n+chunk-1)/chunk)
	if workers <= 1 {
		if n > 0 {
			fn(0, n, new(S))
		}
		return
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			s := new(S)
			for {
				lo := int(next.Add(int64(chunk))) - chunk
				if lo >= n {
					return
				}
				fn(lo, min(lo+chunk, n), s)
			}
		})
	}
	wg.Wait()
}

// AppendCanonicalJSON appends the node's canonical form.
func (n *Node) AppendCanonicalJSON(b []byte) []byte {
	b = append(b, `{"architecture":`...)
	b = appendOptStr(b, n.Architecture)
	b = append(b, `,"artifact_id":`...)
	b = appendStr(b, n.ArtifactID)
	b = append(b, `,"content_state":`...)
	b = appendStr(b, n.ContentState)
	b = append(b, `,"executable":`...)
	b = strconv.AppendBool(b, n.Executable)
	b = append(b, `,"format":`...)
	b = appendStr(b, n.Format)
	b = append(b, `,"kind":`...)
	b = appendStr(b, n.Kind)
	b = append(b, `,"limitations":`...)
	b = appendStrs(b, n.Limitations)
	b = append(b, `,"media_type":`...)
	b = appendOptStr(b, n.MediaType)
	b = append(b, `,"sha256":`...)
	b = appendStr(b, n.SHA256)
	b = append(b, `,"size":`...)
	b = strconv.AppendInt(b, n.Size, 10)
	return append(b, '}')
}

// AppendCanonicalJSON appends the occurrence's canonical form.
func (o *Occurrence) AppendCanonicalJSON(b []byte) []byte {
	b = append(b, `{"artifact_id":`...)
	b = appendOptStr(b, o.ArtifactID)
	b = append(b, `,"compressed_size":`...)
	b = appendOptInt(b, o.CompressedSize)
	b = append(b, `,"declared_size":`...)
	b = appendOptInt(b, o.DeclaredSize)
	b = append(b, `,"encrypted":`...)
	b = strconv.AppendBool(b, o.Encrypted)
	b = append(b, `,"entry_kind":`...)
	b = appendStr(b, o.EntryKind)
	b = append(b, `,"executable":`...)
	b = strconv.AppendBool(b, o.Executable)
	b = append(b, `,"hash_status":`...)
	b = appendStr(b, o.HashStatus)
	b = append(b, `,"limitations":`...)
	b = appendStrs(b, o.Limitations)
	b = append(b, `,"logical_path":`...)
	b = appendStr(b, o.LogicalPath)
	b = append(b, `,"occurrence_id":`...)
	b = appendStr(b, o.OccurrenceID)
	b = append(b, `,"parent_occurrence_id":`...)
	b = appendOptStr(b, o.ParentOccurrenceID)
	b = append(b, `,"source_location":`...)
	if l := o.SourceLocation; l == nil {
		b = append(b, "null"...)
	} else {
		b = append(b, `{"length":`...)
		b = strconv.AppendInt(b, l.Length, 10)
		b = append(b, `,"offset":`...)
		b = strconv.AppendInt(b, l.Offset, 10)
		b = append(b, '}')
	}
	return append(b, '}')
}

// AppendCanonicalJSON appends the edge's canonical form.
func (e *Edge) AppendCanonicalJSON(b []byte) []byte {
	if e.Producer != nil {
		panic("core: jcs: edge producers are not supported")
	}
	b = append(b, `{"child_artifact_id":`...)
	b = appendStr(b, e.ChildArtifactID)
	b = append(b, `,"edge_id":`...)
	b = appendStr(b, e.EdgeID)
	b = append(b, `,"logical_path":`...)
	b = appendOptStr(b, e.LogicalPath)
	b = append(b, `,"occurrence_id":`...)
	b = appendStr(b, e.OccurrenceID)
	b = append(b, `,"ordinal":`...)
	b = strconv.AppendInt(b, int64(e.Ordinal), 10)
	b = append(b, `,"parent_artifact_id":`...)
	b = appendStr(b, e.ParentArtifactID)
	b = append(b, `,"producer":null,"relation":`...)
	b = appendStr(b, e.Relation)
	return append(b, '}')
}

// AppendCanonicalJSON appends the contradiction's canonical form.
func (c *Contradiction) AppendCanonicalJSON(b []byte) []byte {
	return appendJCSObject(b, jcsField{"contradiction_id", c.ContradictionID}, jcsField{"declared_sha256", c.DeclaredSHA256},
		jcsField{"entry_kind", c.EntryKind}, jcsField{"limitations", c.Limitations}, jcsField{"logical_path", c.LogicalPath},
		jcsField{"observed_sha256", c.ObservedSHA256}, jcsField{"occurrence_id", c.OccurrenceID},
		jcsField{"parent_artifact_id", c.ParentArtifactID}, jcsField{"provenance", c.Provenance}, jcsField{"trust", c.Trust},
		jcsField{"unpacked", c.Unpacked})
}

// AppendCanonicalJSON appends the extracted file's canonical form.
func (a *ExtractArtifactResultArtifact) AppendCanonicalJSON(b []byte) []byte {
	return appendJCSObject(b, jcsField{"artifact_id", a.ArtifactID}, jcsField{"bytes_written", a.BytesWritten},
		jcsField{"created", a.Created}, jcsField{"relative_path", a.RelativePath}, jcsField{"sha256", a.SHA256})
}

// MarshalJSON writes the canonical form, which encoding/json then only
// has to validate.
func (n Node) MarshalJSON() ([]byte, error)          { return n.AppendCanonicalJSON(nil), nil }
func (o Occurrence) MarshalJSON() ([]byte, error)    { return o.AppendCanonicalJSON(nil), nil }
func (e Edge) MarshalJSON() ([]byte, error)          { return e.AppendCanonicalJSON(nil), nil }
func (c Contradiction) MarshalJSON() ([]byte, error) { return c.AppendCanonicalJSON(nil), nil }
func (a ExtractArtifactResultArtifact) MarshalJSON() ([]byte, error) {
	return a.AppendCanonicalJSON(nil), nil
}

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

// chunkBufs are streamList's chunk buffers, handed from one list to the next
// by a caller that writes several (a graph writes four) so that each list
// does not grow its own.
type chunkBufs [][]byte

// streamList writes the canonical array of n records to emit, in order, in
// chunks encoded on every core a bounded window ahead of emit. emit must not
// keep the bytes it is given. bufs, when not nil, lends the chunk buffers
// and gets them back.
//
// A chunk's buffer travels with it: an encoder takes a free buffer before it
// takes the next chunk number, and hands the buffer to that chunk's own
// channel; emit gives it back once written. So no two chunks ever share a
// buffer, and at most window chunks are taken and not yet written. (Slots
// indexed by chunk modulo the window let the encoder of a later chunk take
// the slot first when the encoder of an earlier one was delayed between
// taking its number and its slot, and emit then wrote the later chunk in
// the earlier one's place: a test of 300 lists failed within about 100.)
func streamList(n int, item func([]byte, int) []byte, emit func([]byte), bufs *chunkBufs) {
	emit([]byte{'['})
	const chunk = 512
	chunks := (n + chunk - 1) / chunk
	encode := func(c int, b []byte) []byte {
		for i := c * chunk; i < min((c+1)*chunk, n); i++ {
			if i > 0 {
				b = append(b, ',')
			}
			b = item(b, i)
		}
		return b
	}
	if bufs == nil {
		bufs = &chunkBufs{}
	}
	workers := min(runtime.GOMAXPROCS(0), chunks)
	if workers <= 1 {
		if len(*bufs) == 0 {
			*bufs = append(*bufs, nil)
		}
		b := (*bufs)[0]
		for c := range chunks {
			b = encode(c, b[:0])
			emit(b)
		}
		(*bufs)[0] = b
		emit([]byte{']'})
		return
	}
	window := 4 * workers
	free := make(chan []byte, window)
	for i := range window {
		var b []byte
		if i < len(*bufs) {
			b = (*bufs)[i]
		}
		free <- b
	}
	done := make([]chan []byte, chunks)
	for c := range done {
		done[c] = make(chan []byte, 1)
	}
	var next, largest atomic.Int64
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for {
				b := <-free
				c := int(next.Add(1)) - 1
				if c >= chunks {
					free <- b
					return
				}
				if b == nil {
					// A new buffer is made as large as the largest chunk
					// so far, rather than grown to it by doubling.
					b = make([]byte, 0, largest.Load()*5/4)
				}
				b = encode(c, b[:0])
				if n := int64(len(b)); n > largest.Load() {
					largest.Store(n) // a hint: a lost race only costs a doubling
				}
				done[c] <- b
			}
		})
	}
	for c := range chunks {
		b := <-done[c]
		emit(b)
		free <- b
	}
	wg.Wait()
	*bufs = (*bufs)[:0]
	for range window {
		*bufs = append(*bufs, <-free)
	}
	emit([]byte{']'})
}

// writeGraph writes the canonical form of {edges, integrity_contradictions,
// nodes, occurrences} (keys in sorted order) to emit.
func writeGraph(nodes []Node, occs []Occurrence, edges []Edge, ics []Contradiction, emit func([]byte)) {
	var bufs chunkBufs
	emit([]byte(`{"edges":`))
	streamList(len(edges), func(b []byte, i int) []byte { return edges[i].AppendCanonicalJSON(b) }, emit, &bufs)
	emit([]byte(`,"integrity_contradictions":`))
	streamList(len(ics), func(b []byte, i int) []byte { return ics[i].AppendCanonicalJSON(b) }, emit, &bufs)
	emit([]byte(`,"nodes":`))
	streamList(len(nodes), func(b []byte, i int) []byte { return nodes[i].AppendCanonicalJSON(b) }, emit, &bufs)
	emit([]byte(`,"occurrences":`))
	streamList(len(occs), func(b []byte, i int) []byte { return occs[i].AppendCanonicalJSON(b) }, emit, &bufs)
	emit([]byte{'}'})
}

// graphDigest is Digest({nodes, occurrences, edges, integrity_contradictions}),
// streamed into the hash one chunk of records at a time. It also returns
// the length of the canonical text of each list (edges, contradictions,
// nodes, occurrences), so the result can be written into a buffer of the
// right size.
func graphDigest(nodes []Node, occs []Occurrence, edges []Edge, ics []Contradiction) (string, int) {
	h := sha256.New()
	n := 0
	writeGraph(nodes, occs, edges, ics, func(b []byte) { h.Write(b); n += len(b) })
	return hex.EncodeToString(h.Sum(nil)), n
}

// AppendCanonicalJSON appends the result's canonical form: the text the
// graph was sealed with when it has one (the same bytes, written once),
// else the fields encoded on every core.
func (r *InventoryArtifactResult) AppendCanonicalJSON(b []byte) []byte {
	if r.Summary != nil {
		return r.appendConcise(b)
	}
	if r.text != nil {
		if len(b) == 0 {
			return r.text[:len(r.text):len(r.text)]
		}
		return append(b, r.text...)
	}
	b, _ = r.appendText(b)
	return b
}

// textMarks locates parts of a result's text: each list of the graph
// ([start, end) of its array) and the values of graph_sha256 and
// manifest_id (inside their quotes).
type textMarks struct {
	edges, ics, nodes, occs [2]int
	graphSHA, manifestID    int
}

// appendText writes the result's canonical form, its lists encoded on every
// core.
func (r *InventoryArtifactResult) appendText(b []byte) ([]byte, textMarks) {
	var marks textMarks
	var bufs chunkBufs
	emit := func(p []byte) { b = append(b, p...) }
	// An empty graph list (nodes, occurrences, edges: a one-file
	// artifact has no edges) is left out, as encoding/json leaves out
	// these omitempty fields (the concise form has none of them); its
	// span is empty.
	b = append(b, '{')
	list := func(key string, n int, isNil bool, item func([]byte, int) []byte) [2]int {
		omit := n == 0 && key != `"integrity_contradictions":`
		if !omit {
			if b[len(b)-1] != '{' {
				b = append(b, ',')
			}
			b = append(b, key...)
		}
		start := len(b)
		switch {
		case omit:
		case isNil:
			b = append(b, "null"...)
		default:
			streamList(n, item, emit, &bufs)
		}
		return [2]int{start, len(b)}
	}
	marks.edges = list(`"edges":`, len(r.Edges), r.Edges == nil, func(b []byte, i int) []byte { return r.Edges[i].AppendCanonicalJSON(b) })
	marks.ics = list(`"integrity_contradictions":`, len(r.IntegrityContradictions), r.IntegrityContradictions == nil,
		func(b []byte, i int) []byte { return r.IntegrityContradictions[i].AppendCanonicalJSON(b) })
	b = append(b, `,"limitations":`...)
	if r.Limitations == nil {
		b = append(b, "null"...)
	} else {
		b = appendStrs(b, r.Limitations)
	}
	l := &r.Limits
	b = append(b, `,"limits":{"max_compression_ratio":`...)
	b = strconv.AppendInt(b, l.MaxCompressionRatio, 10)
	b = append(b, `,"max_depth":`...)
	b = strconv.AppendInt(b, int64(l.MaxDepth), 10)
	b = append(b, `,"max_entries":`...)
	b = strconv.AppendInt(b, int64(l.MaxEntries), 10)
	b = append(b, `,"max_entry_bytes":`...)
	b = strconv.AppendInt(b, l.MaxEntryBytes, 10)
	b = append(b, `,"max_path_bytes":`...)
	b = strconv.AppendInt(b, int64(l.MaxPathBytes), 10)
	b = append(b, `,"max_total_bytes":`...)
	b = strconv.AppendInt(b, l.MaxTotalBytes, 10)
	m := &r.Manifest
	b = append(b, `},"manifest":{"edge_count":`...)
	b = strconv.AppendInt(b, int64(m.EdgeCount), 10)
	b = append(b, `,"graph_sha256":`...)
	marks.graphSHA = len(b) + 1
	b = appendStr(b, m.GraphSHA256)
	b = append(b, `,"manifest_id":`...)
	marks.manifestID = len(b) + 1
	b = appendStr(b, m.ManifestID)
	b = append(b, `,"node_count":`...)
	b = strconv.AppendInt(b, int64(m.NodeCount), 10)
	b = append(b, `,"occurrence_count":`...)
	b = strconv.AppendInt(b, int64(m.OccurrenceCount), 10)
	b = append(b, `,"root_artifact_id":`...)
	b = appendStr(b, m.RootArtifactID)
	b = append(b, `,"root_format":`...)
	b = appendStr(b, m.RootFormat)
	b = append(b, `,"root_sha256":`...)
	b = appendStr(b, m.RootSHA256)
	b = append(b, `,"schema_version":`...)
	b = strconv.AppendInt(b, int64(m.SchemaVersion), 10)
	b = append(b, '}')
	marks.nodes = list(`"nodes":`, len(r.Nodes), r.Nodes == nil, func(b []byte, i int) []byte { return r.Nodes[i].AppendCanonicalJSON(b) })
	marks.occs = list(`"occurrences":`, len(r.Occurrences), r.Occurrences == nil, func(b []byte, i int) []byte { return r.Occurrences[i].AppendCanonicalJSON(b) })
	p := &r.Provenance
	b = append(b, `,"provenance":{"integrity_policy":`...)
	b = appendStr(b, p.IntegrityPolicy)
	b = append(b, `,"method":`...)
	b = appendStr(b, p.Method)
	b = append(b, `,"root_kind":`...)
	b = appendStr(b, p.RootKind)
	b = append(b, `,"tool":`...)
	b = appendStr(b, p.Tool)
	return append(b, "}}"...), marks
}

// textEstimate is a little more than the length of the result's text, so
// that it is written into one buffer: each record's fixed part plus its
// variable strings.
func (r *InventoryArtifactResult) textEstimate() int {
	n := 64 << 10
	for i := range r.Nodes {
		n += 400 + len(r.Nodes[i].Format) + len(r.Nodes[i].Kind) + 2*len(r.Nodes[i].ContentState)
		for _, l := range r.Nodes[i].Limitations {
			n += len(l) + 8
		}
	}
	for i := range r.Occurrences {
		o := &r.Occurrences[i]
		n += 420 + 2*len(o.LogicalPath)
		for _, l := range o.Limitations {
			n += len(l) + 8
		}
	}
	for i := range r.Edges {
		n += 400 + 2*len(r.Edges[i].Relation)
		if p := r.Edges[i].LogicalPath; p != nil {
			n += 2 * len(*p)
		}
	}
	for i := range r.IntegrityContradictions {
		n += 1024 + 2*len(r.IntegrityContradictions[i].LogicalPath)
	}
	for _, l := range r.Limitations {
		n += len(l) + 8
	}
	return n
}

// sealText writes the result's text once, with the graph's digest and
// manifest ID computed from its lists and written into it: the graph's
// records are encoded once for both.
func (r *InventoryArtifactResult) sealText(manifestID func(graphSHA string) string) (text []byte, graphSHA, mid string) {
	zeros := strings.Repeat("0", 64)
	r.Manifest.GraphSHA256, r.Manifest.ManifestID = zeros, "agm_"+zeros
	text, m := r.appendText(make([]byte, 0, r.textEstimate()))
	h := sha256.New()
	for _, part := range []struct {
		key  string
		span [2]int
	}{{`{"edges":`, m.edges}, {`,"integrity_contradictions":`, m.ics}, {`,"nodes":`, m.nodes}, {`,"occurrences":`, m.occs}} {
		h.Write([]byte(part.key))
		if part.span[0] == part.span[1] {
			h.Write([]byte("[]")) // a list left out of the text is empty in the digest
		}
		h.Write(text[part.span[0]:part.span[1]])
	}
	h.Write([]byte{'}'})
	graphSHA = hex.EncodeToString(h.Sum(nil))
	mid = manifestID(graphSHA)
	r.Manifest.GraphSHA256, r.Manifest.ManifestID = graphSHA, mid
	if len(mid) != len(zeros)+4 || !plainString(mid) {
		text, _ = r.appendText(nil) // not the placeholder's length: write it again
	} else {
		copy(text[m.graphSHA:], graphSHA)
		copy(text[m.manifestID:], mid)
	}
	r.text = text
	return text, graphSHA, mid
}

// fileDigest is Digest(artifacts) of an extraction.
func filesDigest(arts []ExtractArtifactResultArtifact) string {
	sum := sha256.Sum256(appendJCSList(nil, len(arts), func(b []byte, i int) []byte { return arts[i].AppendCanonicalJSON(b) }))
	return hex.EncodeToString(sum[:])
}
