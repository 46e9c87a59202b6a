package jsapp

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"runtime"
	"strconv"
	"sync"

	"rea/core"
)

// Observations and edges are most of the graph's building cost: each is
// bounded and digested into its ID. That work depends on the record alone,
// so the builder queues records as it makes them and other cores prepare
// them meanwhile; settle prepares what is left on every core and then adds
// them all in the order they were made. The graph is therefore the same
// whatever the number of cores (dedup and limits see the same order as a
// builder adding each record at once).

// pendingChunk is how many records one background job prepares.
const pendingChunk = 256

type pendingObs struct {
	n     *Node
	label string
	props map[string]any
	ev    GraphEvidence
	o     Observation // set once prepared
}

type pending struct {
	obs   []*pendingObs
	edges []*Edge // prepared in place
	// sent counts the records handed to the background workers.
	sentObs, sentEdges int
	work               chan func()
	wg                 sync.WaitGroup
	mu                 sync.Mutex
	failure            any // a worker's panic, raised again by settle
	// props, when set, keeps each prepared edge's properties as canonical
	// text instead of their map (compactProps)
	props *propText
}

func (p *pending) observation(n *Node, label string, props map[string]any, ev GraphEvidence) {
	p.obs = append(p.obs, &pendingObs{n: n, label: label, props: props, ev: ev})
	if len(p.obs)-p.sentObs >= pendingChunk {
		batch := p.obs[p.sentObs:]
		p.sentObs = len(p.obs)
		p.dispatch(func() { prepareObs(batch, p.props != nil) })
	}
}

func (p *pending) edge(e *Edge) {
	p.edges = append(p.edges, e)
	if len(p.edges)-p.sentEdges >= pendingChunk {
		batch := p.edges[p.sentEdges:]
		p.sentEdges = len(p.edges)
		p.dispatch(func() { prepareEdges(batch, p.props) })
	}
}

func prepareObs(batch []*pendingObs, lean bool) {
	for _, q := range batch {
		q.o = prepareObservation(q.n, q.label, q.props, q.ev)
		q.props, q.ev = nil, GraphEvidence{} // q.o holds what is kept of them
		if lean {
			compactObservation(q.n, &q.o)
		}
	}
}

// compactObservation replaces o's properties map with the text its lean
// row writes of them (appendLeanProps). Observations wait as pendingObs
// until the seal, and their maps (with the values they box) were the
// largest part of them; once o's ID is digested, only the seal's encoder
// reads them. An IPC channel's keep their map, which result reads
// (nodeStatus); so does an observation whose properties do not encode.
func compactObservation(n *Node, o *Observation) {
	if n.Kind == "ipc-channel" {
		return
	}
	bp := scratch()
	b, _, err := appendLeanProps((*bp)[:0], n, o, nil)
	if err != nil {
		putScratch(bp, b)
		return
	}
	o.props, o.lean, o.Properties = string(b), true, nil
	putScratch(bp, b)
}

func prepareEdges(batch []*Edge, props *propText) {
	for _, e := range batch {
		prepareEdge(e)
		props.compact(e)
	}
}

// propText holds one copy of each distinct edge properties text. An edge's
// properties map (and the strings it boxes) took about half the bytes of a
// prepared edge, which is kept until the seal; once the edge's ID is
// digested nothing but the seal's encoder reads them, and it writes them as
// this text (appendEdge). The same properties recur (an import's kind and
// specifier from many files), so the text is shared.
type propText struct {
	mu   sync.Mutex
	seen map[string]string
}

func newPropText() *propText { return &propText{seen: map[string]string{}} }

// compact replaces e's properties map with its canonical text; an edge
// whose properties do not encode keeps its map (nothing changes).
func (t *propText) compact(e *Edge) {
	if t == nil || e.Properties == nil {
		return
	}
	bp := scratch()
	b, err := core.AppendCanonical((*bp)[:0], e.Properties)
	if err != nil {
		putScratch(bp, b)
		return
	}
	t.mu.Lock()
	s, ok := t.seen[string(b)]
	if !ok {
		s = string(b)
		t.seen[s] = s
	}
	t.mu.Unlock()
	putScratch(bp, b)
	e.props, e.Properties = s, nil
}

// dispatch runs job on a background worker; with one core the job runs at
// once, as there is no other core to overlap with.
func (p *pending) dispatch(job func()) {
	if p.work == nil {
		workers := runtime.GOMAXPROCS(0) - 1
		if workers < 1 {
			job()
			return
		}
		p.work = make(chan func(), 1024)
		for range workers {
			p.wg.Go(func() {
				for job := range p.work {
					p.run(job)
				}
			})
		}
	}
	p.work <- job
}

// run runs job, keeping its panic for settle (rea's own values always
// encode, so a panic is a bug that must reach the call's recovery).
func (p *pending) run(job func()) {
	defer func() {
		if r := recover(); r != nil {
			p.mu.Lock()
			if p.failure == nil {
				p.failure = r
			}
			p.mu.Unlock()
		}
	}()
	job()
}

// settle prepares every queued record and adds them to the graph in the
// order they were made.
func (g *graphBuild) settle() {
	p := &g.pend
	restObs, restEdges := p.obs[p.sentObs:], p.edges[p.sentEdges:]
	p.sentObs, p.sentEdges = len(p.obs), len(p.edges)
	// The rest, split across every core (the background workers included).
	var rest sync.WaitGroup
	parts := max(1, runtime.GOMAXPROCS(0))
	for i := range parts {
		o := restObs[i*len(restObs)/parts : (i+1)*len(restObs)/parts]
		e := restEdges[i*len(restEdges)/parts : (i+1)*len(restEdges)/parts]
		if i == parts-1 {
			p.run(func() { prepareObs(o, p.props != nil); prepareEdges(e, p.props) })
			continue
		}
		rest.Go(func() { p.run(func() { prepareObs(o, p.props != nil); prepareEdges(e, p.props) }) })
	}
	rest.Wait()
	if p.work != nil {
		close(p.work)
		p.wg.Wait()
		p.work = nil
	}
	if p.failure != nil {
		panic(fmt.Sprint(p.failure))
	}
	// Every observation and edge is added here, at once: their sets are
	// sized for them rather than grown (and rehashed) as they fill.
	if len(g.obsSeen) == 0 {
		g.obsSeen = make(map[string]bool, len(p.obs))
	}
	if len(g.edges) == 0 {
		g.edges = make(map[string]*Edge, min(len(p.edges), jagMaxEdges))
	}
	for _, q := range p.obs {
		g.addObservation(q.n, q.o)
	}
	for _, e := range p.edges {
		g.addEdge(e)
	}
	*p = pending{}
}

// propsWithinBounds reports whether boundProps would return a copy of p
// that encodes as p does (nothing cut or truncated), so p itself can stand
// for it: most properties are a few short values, and the copies were a
// large part of the graph's memory. It errs towards false.
func propsWithinBounds(p map[string]any) bool {
	budget := jagMaxPropNodes
	// A budget left over means no list element met an exhausted budget,
	// whatever order the keys are visited in.
	return p != nil && withinBounds(p, 0, &budget) && budget > 0
}

func withinBounds(v any, depth int, budget *int) bool {
	if *budget--; *budget < 0 {
		return false
	}
	switch x := v.(type) {
	case string:
		return len(x) <= jagMaxPropString
	case map[string]any:
		if depth >= jagMaxPropDepth || len(x) > jagMaxPropKeys {
			return false
		}
		for _, e := range x {
			if !withinBounds(e, depth+1, budget) {
				return false
			}
		}
	case []any:
		if depth >= jagMaxPropDepth {
			return false
		}
		for _, e := range x {
			if !withinBounds(e, depth+1, budget) {
				return false
			}
		}
	case []string:
		// Bounding makes it the []any of the same strings, which encodes
		// the same: a node for the list, one for that []any, and one per
		// string.
		if depth >= jagMaxPropDepth {
			return false
		}
		*budget -= 1 + len(x)
		for _, e := range x {
			if len(e) > jagMaxPropString {
				return false
			}
		}
		return *budget >= 0
	case exportShapeList:
		// Its generic form: a list of objects of four scalar members.
		if depth+1 >= jagMaxPropDepth {
			return false
		}
		*budget -= 5 * len(x)
		for _, e := range x {
			if len(e.name) > jagMaxPropString || len(e.shape.Kind) > jagMaxPropString {
				return false
			}
		}
		return *budget >= 0
	}
	return true
}

// The IDs of edges and observations are digests of their canonical JSON.
// edgeDigest and observationDigest write those bytes directly, in the
// order RFC 8785 sorts their keys, instead of through a map and the
// struct reflection of their evidence (most of the digesting cost); the
// properties, the only free-form member, go through the canonical encoder.
// Any value it refuses falls back to jagDigest, which says why.

// digestScratch holds the buffers the record digests are written into
// (their bytes are hashed, never kept).
var digestScratch = sync.Pool{New: func() any { b := make([]byte, 0, 1024); return &b }}

func scratch() *[]byte { return digestScratch.Get().(*[]byte) }

func putScratch(bp *[]byte, b []byte) {
	if cap(b) <= 64<<10 {
		*bp = b[:0]
		digestScratch.Put(bp)
	}
}

func edgeDigest(e *Edge) string {
	bp := scratch()
	b := *bp
	defer func() { putScratch(bp, b) }()
	b = append(b, `{"evidence":`...)
	b = appendGraphEvidence(b, e.Evidence)
	b = appendIDStrategy(append(b, `,"identifier_strategy":`...), e.IdentifierStrategy)
	b, err := core.AppendCanonical(append(b, `,"properties":`...), e.Properties)
	if err != nil || e.Properties == nil {
		return jagDigest(map[string]any{"source_node_id": e.SourceNodeID, "target_node_id": e.TargetNodeID, "relation": e.Relation,
			"properties": e.Properties, "evidence": e.Evidence, "identifier_strategy": e.IdentifierStrategy})
	}
	b = core.AppendCanonicalString(append(b, `,"relation":`...), e.Relation)
	b = core.AppendCanonicalString(append(b, `,"source_node_id":`...), e.SourceNodeID)
	b = core.AppendCanonicalString(append(b, `,"target_node_id":`...), e.TargetNodeID)
	return hexDigest(append(b, '}'))
}

func nodeDigest(kind string, ident map[string]any) string {
	bp := scratch()
	b := *bp
	defer func() { putScratch(bp, b) }()
	b, err := core.AppendCanonical(append(b, `{"identity":`...), ident)
	if err != nil || ident == nil {
		return jagDigest(map[string]any{"kind": kind, "identity": ident})
	}
	b = core.AppendCanonicalString(append(b, `,"kind":`...), kind)
	return hexDigest(append(b, '}'))
}

func observationDigest(nodeID string, o *Observation) string {
	bp := scratch()
	b := *bp
	defer func() { putScratch(bp, b) }()
	b = append(b, `{"evidence":`...)
	b = appendGraphEvidence(b, o.Evidence)
	b = appendIDStrategy(append(b, `,"identifier_strategy":`...), o.IdentifierStrategy)
	b = append(b, `,"label":`...)
	if o.Label == nil {
		b = append(b, "null"...)
	} else {
		b = core.AppendCanonicalString(b, *o.Label)
	}
	b = core.AppendCanonicalString(append(b, `,"node_id":`...), nodeID)
	b, err := core.AppendCanonical(append(b, `,"properties":`...), o.Properties)
	if err != nil || o.Properties == nil {
		return jagDigest(map[string]any{"node_id": nodeID, "label": o.Label, "properties": o.Properties,
			"evidence": o.Evidence, "identifier_strategy": o.IdentifierStrategy})
	}
	return hexDigest(append(b, '}'))
}

func appendGraphEvidence(b []byte, ev GraphEvidence) []byte {
	b = core.AppendCanonicalString(append(b, `{"basis":`...), ev.Basis)
	b = core.AppendCanonicalString(append(b, `,"confidence":`...), ev.Confidence)
	b = append(b, `,"locations":`...)
	if ev.Locations == nil {
		b = append(b, "null"...)
	} else {
		b = append(b, '[')
		for i, l := range ev.Locations {
			if i > 0 {
				b = append(b, ',')
			}
			b = append(b, `{"offset":`...)
			if l.Offset == nil {
				b = append(b, "null"...)
			} else if o := *l.Offset; o > -1<<53 && o < 1<<53 {
				b = strconv.AppendInt(b, o, 10) // what RFC 8785 writes for an integer a double holds exactly
			} else {
				b, _ = core.AppendCanonical(b, o)
			}
			b = core.AppendCanonicalString(append(b, `,"path":`...), l.Path)
			b = append(b, '}')
		}
		b = append(b, ']')
	}
	return append(b, '}')
}

func appendIDStrategy(b []byte, s *IDStrategy) []byte {
	if s == nil {
		return append(b, "null"...)
	}
	b = core.AppendCanonicalString(append(b, `{"stability":`...), s.Stability)
	b = core.AppendCanonicalString(append(b, `,"strategy":`...), s.Strategy)
	return append(b, '}')
}

func hexDigest(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}
