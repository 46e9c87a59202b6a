package jsapp

import (
	"context"
	"fmt"
	"strings"
)

// traceWalk is trace_application_feature's breadth-first walk from its
// seeds; each node is reached once (shortest path), so cycles end. Which
// edges it takes is traceRules' (trace_rules.go).
type traceWalk struct {
	ix        *appIndex
	d         dirs
	lim       traceLimits
	edgeByID  map[string]*Edge
	steps     []step
	seen      map[string]bool
	edgesSeen map[string]bool
	from      map[string]int // the step each node was first reached from

	// What the limits left out: the edges the rules would take on from a
	// node at max_depth (to the node beyond), and the nodes max_nodes kept
	// out (seeds among them).
	beyondDepth map[string]string
	overNodes   map[string]bool
}

func newTraceWalk(ix *appIndex, d dirs, lim traceLimits, seeds []string) *traceWalk {
	w := &traceWalk{ix: ix, d: d, lim: lim, edgeByID: map[string]*Edge{}, seen: map[string]bool{}, edgesSeen: map[string]bool{},
		from: map[string]int{}, beyondDepth: map[string]string{}, overNodes: map[string]bool{}}
	for _, e := range ix.res.Graph.Edges {
		w.edgeByID[e.EdgeID] = e
	}
	// Every seed is a node of the trace: a broad seed (a substring every
	// path holds) is cut at max_nodes like the walk.
	for _, s := range seeds {
		if len(w.seen) >= lim.nodes {
			w.overNodes[s] = true
			continue
		}
		w.seen[s] = true
		w.from[s] = -1
		w.steps = append(w.steps, step{node: s, prev: -1})
	}
	return w
}

// run walks until no step leads on or the limits end it.
func (w *traceWalk) run(ctx context.Context) error {
	for i := 0; i < len(w.steps); i++ {
		if i%4096 == 0 && ctx.Err() != nil {
			return ctx.Err()
		}
		st := w.steps[i]
		if st.again {
			continue
		}
		if st.dep >= w.lim.depth {
			w.next(i, func(e *Edge, _ way, other string) { w.beyondDepth[e.EdgeID] = other })
			continue
		}
		w.next(i, func(e *Edge, wy way, other string) {
			w.edgesSeen[e.EdgeID] = true
			if w.seen[other] {
				if stepsAgain(e.Relation, wy, w.from[other] == i) {
					w.steps = append(w.steps, step{node: other, edge: e.EdgeID, way: wy, prev: i, dep: st.dep + 1, again: true})
				}
				return
			}
			if len(w.seen) >= w.lim.nodes {
				w.overNodes[other] = true
				return
			}
			w.seen[other] = true
			w.from[other] = i
			w.steps = append(w.steps, step{node: other, edge: e.EdgeID, way: wy, prev: i, dep: st.dep + 1})
		})
	}
	return nil
}

// next calls f with each edge the rules let step i take, in the order the
// walk takes them, and the node it leads to.
func (w *traceWalk) next(i int, f func(e *Edge, wy way, other string)) {
	st := w.steps[i]
	var r *reach
	if st.edge != "" {
		e := w.edgeByID[st.edge]
		r = &reach{relation: e.Relation, way: st.way, member: edgeMember(e)}
	}
	if endsAt(w.d, r) {
		return
	}
	at := w.ix.nodes[st.node].Kind
	for _, wy := range waysFor(w.d) {
		edges := w.ix.out[st.node]
		if wy == backward {
			edges = w.ix.in[st.node]
		}
		for _, e := range edges {
			other := e.TargetNodeID
			if wy == backward {
				other = e.SourceNodeID
			}
			if k := w.ix.nodes[other]; k != nil && mayTake(w.d, r, move{relation: e.Relation, way: wy, at: at, onto: k.Kind, member: edgeMember(e)}) {
				f(e, wy, other)
			}
		}
	}
}

// cuts names each limit that left something out, and what: the edges
// max_depth left unfollowed to nodes the trace never reached, the nodes
// max_nodes kept out, the paths max_paths left out (pathsLeft). Nil when
// the walk ran out of edges.
func (w *traceWalk) cuts(pathsLeft int) []TraceCut {
	var out []TraceCut
	depth := 0
	for _, other := range w.beyondDepth {
		if !w.seen[other] {
			depth++
		}
	}
	for _, c := range []TraceCut{{"max_depth", w.lim.depth, depth, "edges"}, {"max_nodes", w.lim.nodes, len(w.overNodes), "nodes"}, {"max_paths", w.lim.paths, pathsLeft, "paths"}} {
		if c.Left > 0 {
			out = append(out, c)
		}
	}
	return out
}

// stoppedBy says, for the Evidence's limitations, which limits cut a
// trace and what to raise.
func stoppedBy(cuts []TraceCut) string {
	if len(cuts) == 0 {
		return ""
	}
	var parts []string
	for _, c := range cuts {
		unit := c.Unit
		if c.Left == 1 {
			unit = strings.TrimSuffix(unit, "s")
		}
		parts = append(parts, fmt.Sprintf("%s (%d) left %d %s out", c.Limit, c.Value, c.Left, unit))
	}
	return "The trace stopped: " + strings.Join(parts, "; ") + ". Raise limits." + cuts[0].Limit + " to see what it left out."
}
