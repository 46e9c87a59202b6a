package jsapp

import (
	"fmt"
	"testing"

	"github.com/matryer/is"
)

// takeCase: may a trace in direction dir, on a node of kind at reached by
// r, take an edge of relation the way w onto a node of kind onto?
type takeCase struct {
	dir      dirs
	relation string
	w        way
	at       string
	r        *reach
	onto     string
	member   string
	want     bool
}

// The cases every row of traceRules answers; each row has one its
// absence or its opposite would answer otherwise
// (TestTraceRulesCasesCatchEveryMutation).
var (
	byExposes = &reach{relation: "exposes", way: backward}
	bySource  = &reach{relation: "contains", way: backward}
	byImport  = &reach{relation: "imports", way: forward}
	byOpen    = &reach{relation: "calls", way: forward, member: "open"}

	takeCases = []takeCase{
		// Relations without a row: forward outward, backward inward.
		{outgoing, "imports", forward, "javascript-asset", nil, "javascript-asset", "", true},
		{twoWay, "imports", forward, "javascript-asset", nil, "javascript-asset", "", true},
		{incoming, "imports", forward, "javascript-asset", nil, "javascript-asset", "", false},
		{incoming, "imports", backward, "javascript-asset", nil, "javascript-asset", "", true},
		{twoWay, "imports", backward, "javascript-asset", nil, "javascript-asset", "", true},
		{outgoing, "imports", backward, "javascript-asset", nil, "javascript-asset", "", false},
		// defined_in: up in every direction, down only outward.
		{incoming, "defined_in", forward, "javascript-function", nil, "javascript-asset", "", true},
		{outgoing, "defined_in", forward, "javascript-function", nil, "javascript-asset", "", true},
		{outgoing, "defined_in", backward, "javascript-asset", nil, "javascript-function", "", true},
		{twoWay, "defined_in", backward, "javascript-asset", nil, "javascript-function", "", true},
		{incoming, "defined_in", backward, "javascript-asset", nil, "javascript-function", "", false},
		// exposes: forward in every direction, but not on from one of the
		// preload's APIs in an incoming trace.
		{incoming, "exposes", forward, "electron-preload", nil, "context-bridge-api", "", true},
		{incoming, "exposes", forward, "electron-preload", byImport, "context-bridge-api", "", true},
		{incoming, "exposes", forward, "electron-preload", byExposes, "context-bridge-api", "", false},
		{twoWay, "exposes", forward, "electron-preload", byExposes, "context-bridge-api", "", true},
		{outgoing, "exposes", forward, "electron-preload", nil, "context-bridge-api", "", true},
		{incoming, "exposes", backward, "context-bridge-api", nil, "electron-preload", "", true},
		// contains: not down from a source map reached from one of its
		// sources; from an archive, or a source map otherwise reached, yes.
		{outgoing, "contains", forward, "source-map", bySource, "source-module", "", false},
		{twoWay, "contains", forward, "source-map", bySource, "source-module", "", false},
		{outgoing, "contains", forward, "source-map", byImport, "source-module", "", true},
		{outgoing, "contains", forward, "source-map", nil, "source-module", "", true},
		{outgoing, "contains", forward, "asar-archive", bySource, "javascript-asset", "", true},
		{incoming, "contains", forward, "source-map", nil, "source-module", "", false},
		{incoming, "contains", backward, "source-module", nil, "source-map", "", true},
		// persists_to: taken as relations without a row are.
		{outgoing, "persists_to", forward, "javascript-function", nil, "storage-key", "", true},
		{incoming, "persists_to", forward, "javascript-function", nil, "storage-key", "", false},
		{incoming, "persists_to", backward, "storage-key", nil, "javascript-function", "", true},
		{outgoing, "persists_to", backward, "storage-key", nil, "javascript-function", "", false},
		// The member of an exposed API the walk came through: renderer.js
		// calls window.notes.open, so not on to the channel log sends, and
		// back from log's channel not to open's callers.
		{outgoing, "invokes", forward, "context-bridge-api", byOpen, "ipc-channel", "open", true},
		{outgoing, "sends", forward, "context-bridge-api", byOpen, "ipc-channel", "log", false},
		{outgoing, "sends", forward, "context-bridge-api", byImport, "ipc-channel", "log", true},
		{incoming, "calls", backward, "context-bridge-api", &reach{"sends", backward, "log"}, "javascript-asset", "open", false},
		{incoming, "calls", backward, "context-bridge-api", &reach{"sends", backward, "log"}, "javascript-asset", "log", true},
		{incoming, "calls", backward, "context-bridge-api", &reach{"sends", backward, "log"}, "javascript-asset", "", true},
		// Member names bind on their API alone: a channel two APIs invoke
		// leads back to both.
		{twoWay, "invokes", backward, "ipc-channel", &reach{"invokes", forward, "open"}, "context-bridge-api", "launch", true},
		// Rows of their own name no member; were one to, it would not bind.
		{outgoing, "defined_in", forward, "context-bridge-api", byOpen, "javascript-asset", "log", true},
		{outgoing, "defined_in", backward, "context-bridge-api", byOpen, "javascript-function", "log", true},
		{incoming, "exposes", forward, "context-bridge-api", byOpen, "context-bridge-api", "log", true},
		{outgoing, "contains", forward, "context-bridge-api", byOpen, "source-module", "log", true},
		{outgoing, "persists_to", forward, "context-bridge-api", byOpen, "storage-key", "log", true},
		{incoming, "persists_to", backward, "context-bridge-api", byOpen, "javascript-function", "log", true},
		// Never onto a package or the artifact, whatever the relation.
		{twoWay, "imports", forward, "javascript-asset", nil, "package", "", false},
		{twoWay, "contains", backward, "javascript-asset", nil, "artifact", "", false},
		{incoming, "defined_in", forward, "javascript-function", nil, "package", "", false},
	}

	// endCases: is a node reached by r a leaf of a trace in dir?
	endCases = []struct {
		dir  dirs
		r    *reach
		want bool
	}{
		{outgoing, &reach{"defined_in", forward, ""}, true},
		{twoWay, &reach{"defined_in", forward, ""}, true},
		{incoming, &reach{"defined_in", forward, ""}, false},
		{outgoing, &reach{"defined_in", backward, ""}, false},
		{outgoing, byImport, false},
		{incoming, &reach{"imports", backward, ""}, false},
		{outgoing, &reach{"exposes", forward, ""}, false},
		{twoWay, bySource, false},
		{outgoing, &reach{"contains", forward, ""}, false},
		{outgoing, &reach{"persists_to", forward, ""}, false},
		{incoming, &reach{"persists_to", backward, ""}, false},
		{outgoing, nil, false},
	}

	// againCases: does a step onto a node already reached end a path of
	// its own (fromHere: the node was first reached from the same node)?
	againCases = []struct {
		relation string
		w        way
		fromHere bool
		want     bool
	}{
		{"persists_to", forward, false, true},
		{"persists_to", forward, true, true},
		{"persists_to", backward, true, true},
		{"persists_to", backward, false, false},
		{"imports", forward, true, false},
		{"imports", backward, true, false},
		{"defined_in", forward, true, false},
		{"defined_in", backward, true, false},
		{"exposes", forward, true, false},
		{"contains", forward, true, false},
	}
)

// ruleFailures lists the cases the rules in force answer otherwise.
func ruleFailures() []string {
	var out []string
	for _, c := range takeCases {
		if got := mayTake(c.dir, c.r, move{relation: c.relation, way: c.w, at: c.at, onto: c.onto, member: c.member}); got != c.want {
			out = append(out, fmt.Sprintf("take %s %v (member %q) in %v at %s after %v onto %s = %v", c.relation, c.w, c.member, c.dir, c.at, c.r, c.onto, got))
		}
	}
	for _, c := range endCases {
		if got := endsAt(c.dir, c.r); got != c.want {
			out = append(out, fmt.Sprintf("ends in %v after %v = %v", c.dir, c.r, got))
		}
	}
	for _, c := range againCases {
		if got := stepsAgain(c.relation, c.w, c.fromHere); got != c.want {
			out = append(out, fmt.Sprintf("again %s %v fromHere %v = %v", c.relation, c.w, c.fromHere, got))
		}
	}
	return out
}

// TestTraceRules: the walk's rules answer each case as the trace tools
// document (ARCHITECTURE.md, "Traces are concise by default").
func TestTraceRules(t *testing.T) {
	for _, f := range ruleFailures() {
		t.Error(f)
	}
}

// TestTraceRulesCasesCatchEveryMutation: the cases pin every row of
// traceRules: dropping a row, flipping the directions it is taken, ends
// or repeats in, or losing its exception each change some case's answer.
func TestTraceRulesCasesCatchEveryMutation(t *testing.T) {
	is := is.New(t)
	defer func(saved map[ruleKey]traceRule) { traceRuleIndex = saved }(traceRuleIndex)
	mutants := map[string][]traceRule{}
	for i, r := range traceRules {
		name := fmt.Sprintf("%q %v", r.relation, r.way)
		mutate := func(what string, f func(*traceRule)) {
			rules := append([]traceRule(nil), traceRules...)
			f(&rules[i])
			mutants[name+" "+what] = rules
		}
		mutants[name+" dropped"] = append(append([]traceRule(nil), traceRules[:i]...), traceRules[i+1:]...)
		mutate("taken in the other directions", func(r *traceRule) { r.in ^= anyDir })
		mutate("ending in the other directions", func(r *traceRule) { r.ends ^= anyDir })
		mutate("keeping the member elsewhere", func(r *traceRule) {
			r.sameMemberAt = map[string]string{"": "context-bridge-api", "context-bridge-api": "ipc-channel"}[r.sameMemberAt]
		})
		mutate("repeating otherwise", func(r *traceRule) {
			r.again = map[again]again{againNever: againAlways, againFromHere: againNever, againAlways: againFromHere}[r.again]
		})
		if r.unless != nil {
			mutate("without its exception", func(r *traceRule) { r.unless = nil })
			mutate("with its exception in the other directions", func(r *traceRule) {
				u := *r.unless
				u.in ^= anyDir
				r.unless = &u
			})
		}
	}
	for name, rules := range mutants {
		traceRuleIndex = indexRules(rules)
		if len(ruleFailures()) == 0 {
			t.Errorf("row %s: no case notices", name)
		}
	}
	traceRuleIndex = indexRules(traceRules)
	is.Equal(len(ruleFailures()), 0)
}
