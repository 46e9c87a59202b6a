package jsapp

import "strings"

// The rules by which trace_application_feature walks the application
// graph. The walk (handleTraceFeature) asks them, and only them, whether
// it may take an edge from the node it stands on: a new relation with a
// way of its own is one row of traceRules.

// way is which way a trace takes an edge: forward, from its source to its
// target, or backward, from its target to its source ("imports by").
type way uint8

const (
	forward way = iota
	backward
)

func (w way) String() string { return [...]string{"forward", "backward"}[w] }

// dirs is a set of trace directions (the input's direction).
type dirs uint8

const (
	outgoing dirs = 1 << iota
	incoming
	twoWay // direction "both"

	outward = outgoing | twoWay // the directions that go on from a node along its edges
	inward  = incoming | twoWay // the directions that go back from a node to what leads to it
	anyDir  = outgoing | incoming | twoWay
)

func (d dirs) String() string {
	var names []string
	for i, n := range []string{"outgoing", "incoming", "both"} {
		if d&(1<<i) != 0 {
			names = append(names, n)
		}
	}
	return strings.Join(names, "|")
}

// dirOf is the input's direction as a set of one; anything but outgoing
// and incoming walks both ways, as the default does.
func dirOf(s string) dirs {
	switch s {
	case "outgoing":
		return outgoing
	case "incoming":
		return incoming
	}
	return twoWay
}

// again says whether a step onto a node the walk already reached still
// ends a path of its own (it is never a node of its own).
type again uint8

const (
	againNever    again = iota
	againFromHere       // when the node was first reached from the same node, through another edge
	againAlways         // whichever step reached the node first
)

// after names how the walk reached the node it stands on: the edge's
// relation and way, the node's kind ("" any), and the trace directions
// that hold to it.
type after struct {
	relation string
	way      way
	kind     string
	in       dirs
}

// traceRule is how a trace takes the edges of one relation one way.
type traceRule struct {
	relation string // "" for every relation without a row of its own
	way      way
	in       dirs   // the trace directions that take the step
	unless   *after // the step is not taken from a node reached so
	ends     dirs   // in these directions the node the step reaches is a leaf
	again    again  // a step onto a node already reached: a path of its own?
	// sameMemberAt: on a node of this kind (an exposed API), an edge that
	// names one of its members (a renderer's call of window.notes.open,
	// the IPC call written in that member) is not taken when the walk
	// reached the node by an edge naming another. Members are the API's:
	// elsewhere (a channel two APIs invoke) their names do not bind.
	sameMemberAt string
}

// traceRules is every way a trace takes an edge. Relations without a row
// go forward in an outward trace and backward in an inward one, keeping
// to the member of an exposed API the walk came through: renderer.js
// calls window.notes.open, so its trace goes on through the channel open
// invokes, not the one log sends, and an incoming trace from log's channel
// does not reach renderer.js.
var traceRules = []traceRule{
	{relation: "", way: forward, in: outward, sameMemberAt: "context-bridge-api"},
	{relation: "", way: backward, in: inward, sameMemberAt: "context-bridge-api"},

	// A function and the file that defines it are one body of code. Down,
	// file to function, in an outward trace: a file's trace goes on into
	// its handlers, whose calls go from them. Up, function to file, in
	// every direction: an incoming trace from a handler goes on to its
	// file and what loads that, never down into the file's other
	// functions; an outward one ends at the file, whose other code (its
	// other handlers, its imports) is not the function's: a channel's
	// trace is its handler's calls and the file they are in.
	{relation: "defined_in", way: forward, in: anyDir, ends: outward},
	{relation: "defined_in", way: backward, in: outward},

	// A preload's exposes edge points to the API it exposes, but what
	// calls the API calls into the preload: an incoming trace goes on from
	// the preload to its APIs and so to the renderers that call them
	// (window.notes.open). Not when it came from one of them: an API whose
	// member invokes the channel is the way to its renderers (ipc <
	// window.notes < renderer.js), and the preload's other APIs are not on
	// it.
	{relation: "exposes", way: forward, in: anyDir, unless: &after{relation: "exposes", way: backward, in: incoming}},

	// A source map contains every source of its bundle: reached from one
	// of them, it is no way to the others, whose calls and modules are
	// theirs.
	{relation: "contains", way: forward, in: outward, unless: &after{relation: "contains", way: backward, kind: "source-map", in: anyDir}},

	// Each call on a storage key is a path of its own: a handler's
	// unlinkSync(p) beside another's writeFileSync(p), whichever step
	// reached the key first; back from the key, each call of the same
	// function.
	{relation: "persists_to", way: forward, in: outward, again: againAlways},
	{relation: "persists_to", way: backward, in: inward, again: againFromHere},
}

// traceBarriers are the node kinds a trace never steps onto: from a
// package or the artifact root everything is reachable, and the trace
// would be the whole application.
var traceBarriers = map[string]bool{"package": true, "artifact": true}

type ruleKey struct {
	relation string
	way      way
}

var traceRuleIndex = indexRules(traceRules)

func indexRules(rules []traceRule) map[ruleKey]traceRule {
	m := make(map[ruleKey]traceRule, len(rules))
	for _, r := range rules {
		k := ruleKey{r.relation, r.way}
		if _, dup := m[k]; dup {
			panic("jsapp: two trace rules for " + r.relation + " " + r.way.String())
		}
		m[k] = r
	}
	return m
}

// ruleFor is the rule for a relation taken one way.
func ruleFor(relation string, w way) traceRule {
	if r, ok := traceRuleIndex[ruleKey{relation, w}]; ok {
		return r
	}
	return traceRuleIndex[ruleKey{"", w}]
}

// reach is how the walk reached a node: nil at a seed.
type reach struct {
	relation string
	way      way
	member   string // the member of an exposed API the edge names, if any
}

// move is an edge the walk may take: its relation, the way, the kinds of
// the node it leaves (at) and the node it reaches (onto), and the member
// of an exposed API it names ("" none).
type move struct {
	relation string
	way      way
	at, onto string
	member   string
}

// edgeMember is the member of an exposed API an edge names, if any.
func edgeMember(e *Edge) string {
	s, _ := e.Properties["member"].(string)
	return s
}

// waysFor orders the ways a trace in direction d looks at a node's edges:
// its own way first (what a breadth-first walk reaches first keeps the
// shortest path).
func waysFor(d dirs) [2]way {
	if d == incoming {
		return [2]way{backward, forward}
	}
	return [2]way{forward, backward}
}

// mayTake reports whether a trace in direction d, standing on a node it
// reached by r (nil at a seed), takes m.
func mayTake(d dirs, r *reach, m move) bool {
	if traceBarriers[m.onto] {
		return false
	}
	rule := ruleFor(m.relation, m.way)
	if rule.in&d == 0 {
		return false
	}
	if r == nil {
		return true
	}
	if u := rule.unless; u != nil && u.in&d != 0 && u.relation == r.relation && u.way == r.way && (u.kind == "" || u.kind == m.at) {
		return false
	}
	return rule.sameMemberAt != m.at || m.member == "" || r.member == "" || m.member == r.member
}

// endsAt reports whether a node reached by r is a leaf of a trace in
// direction d.
func endsAt(d dirs, r *reach) bool {
	return r != nil && ruleFor(r.relation, r.way).ends&d != 0
}

// stepsAgain reports whether a step of relation the way w onto a node
// already reached ends a path of its own; fromHere: the node was first
// reached from the node the step leaves.
func stepsAgain(relation string, w way, fromHere bool) bool {
	switch ruleFor(relation, w).again {
	case againAlways:
		return true
	case againFromHere:
		return fromHere
	}
	return false
}
