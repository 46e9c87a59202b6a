package jsapp

import "strconv"

// unknownHandler records, as an unknown, why the function that handles
// channel in call i of asset a is not known, when the engine says why
// (ports.JSFunction.Unknown: a const object's member assigned in a
// function, say), and returns the node that stands for that function (in
// handlerFn, "" when the engine gave no reason). The channel is handled
// by the function node, defined_in the file that registers it, as a
// resolved handler is: a trace from the channel stops at the file
// (traceRules' defined_in), since the file's other code is not known to be
// the handler's, and says why (unresolvedHandlerNotes). The node is the
// member's path in the file, apart from a resolved handler's node of the
// same path, which holds the calls of a known body.
func (b *jsappBuilder) unknownHandler(a *jsAsset, i int, channel string, off int64) handlerFn {
	for _, f := range a.facts.Functions {
		if f.Call != i || f.Arg != 1 || f.Unknown == "" {
			continue
		}
		c := a.facts.Calls[i]
		what, name := "handler", ""
		if len(c.Args) > 1 {
			if s := argumentText(c.Args[1]); s != "" {
				what, name = "handler "+s, s
			}
		}
		detail := c.Callee + "(" + strconv.Quote(channel) + ") " + what + " is not known: " + f.Unknown
		scope := a.path
		if c.InModule >= 0 {
			scope = b.callSite(a, c.InModule)
		}
		label := name
		if label == "" {
			label = c.Callee + "(" + strconv.Quote(channel) + ") handler"
		}
		props := map[string]any{"path": a.path, "channel": channel, "registered_by": c.Callee, "handler": "unresolved", "unknown": detail}
		if name != "" {
			props["name"] = name
		}
		fn := b.g.node("javascript-function", b.localKey("javascript-function", scope+"#"+label+"#unresolved:"+channel), label, props, b.at(a, off))
		at := fn
		if at == "" {
			at = a.nodeID
		}
		b.st.unknown("unresolved-handler", at, a.path, off, detail)
		return handlerFn{fn: fn}
	}
	return handlerFn{}
}

// unresolvedHandlerNotes are a trace's limitations for the handlers it
// reached whose function is not known (unknownHandler): each names its
// unknown and the file the trace stopped at.
func unresolvedHandlerNotes(ix *appIndex, seen map[string]bool) []string {
	var out []string
	for _, id := range jaKeys(seen) {
		n := ix.nodes[id]
		if n == nil || n.Kind != "javascript-function" || n.propString("handler") != "unresolved" {
			continue
		}
		out = append(out, "The trace stops at "+n.propString("path")+" for the handler that is not known ("+n.propString("unknown")+"); what it runs was not followed.")
	}
	return out
}
