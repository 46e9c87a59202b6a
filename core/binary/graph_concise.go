package binary

import (
	"fmt"

	"rea/core"
)

// conciseTraceNodes bounds trace_call_path's default answer without a
// goal: the procedures nearest the start, about 12 KB of nodes and edges
// (ls's main reaches 321 procedures and 675 calls, 97 KB whole).
const conciseTraceNodes = 40

// conciseNeighbours bounds trace_feature's default answer: the callees,
// and the callers, listed of each procedure using the seeds.
const conciseNeighbours = 10

// nearest is the first n nodes in the walk's breadth-first order (the
// start, then depth 1, ...) and the edges between them.
func (g *graph) nearest(n int) ([]CallGraphNode, []CallGraphEdge) {
	nodes := g.nodes[:min(n, len(g.nodes))]
	keep := map[string]bool{}
	for _, x := range nodes {
		keep[x.Address] = true
	}
	edges := []CallGraphEdge{}
	for _, e := range g.edges {
		if keep[e.From] && keep[e.To] {
			edges = append(edges, e)
		}
	}
	return core.NonNil(nodes), edges
}

// around is each root's first n callees and first n callers (in the
// order the walk found them), the roots themselves, and the edges
// between those nodes, nodes in the graph's order.
func (g *graph) around(roots []string, n int) ([]CallGraphNode, []CallGraphEdge) {
	root, keep := map[string]bool{}, map[string]bool{}
	for _, r := range roots {
		root[r], keep[r] = true, true
	}
	callees, callers := map[string]int{}, map[string]int{}
	for _, e := range g.edges {
		if root[e.From] && callees[e.From] < n {
			callees[e.From]++
			keep[e.To] = true
		}
		if root[e.To] && callers[e.To] < n {
			callers[e.To]++
			keep[e.From] = true
		}
	}
	nodes, edges := []CallGraphNode{}, []CallGraphEdge{}
	for _, x := range g.nodes {
		if keep[x.Address] {
			nodes = append(nodes, x)
		}
	}
	for _, e := range g.edges {
		if keep[e.From] && keep[e.To] {
			edges = append(edges, e)
		}
	}
	return nodes, edges
}

// leftOut says how much of the graph a concise answer lists, and how to
// get the rest; "" when it lists it all.
func (g *graph) leftOut(nodes []CallGraphNode, edges []CallGraphEdge, which string) string {
	if len(nodes) == len(g.nodes) && len(edges) == len(g.edges) {
		return ""
	}
	deepest := 0
	for _, n := range g.nodes {
		deepest = max(deepest, n.Depth)
	}
	return fmt.Sprintf("Concise: %s are listed, %d of the %d procedures and %d of the %d calls explored (to depth %d); "+
		"detail \"complete\" returns them all.", which, len(nodes), len(g.nodes), len(edges), len(g.edges), deepest)
}
