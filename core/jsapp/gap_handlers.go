package jsapp

import "strconv"

// unknownHandler records, as an unknown, why the function that handles
// channel in call i of asset a is not known, when the engine says why
// (ports.JSFunction.Unknown: a const object's member assigned in a
// function, say). The channel is still handled by the file (handler:
// unresolved); the unknown says what would have to be known.
func (b *jsappBuilder) unknownHandler(a *jsAsset, i int, channel string, off int64) {
	for _, f := range a.facts.Functions {
		if f.Call != i || f.Arg != 1 || f.Unknown == "" {
			continue
		}
		c := a.facts.Calls[i]
		what := "handler"
		if len(c.Args) > 1 {
			if s := argumentText(c.Args[1]); s != "" {
				what = "handler " + s
			}
		}
		b.st.unknown("unresolved-handler", a.nodeID, a.path, off, c.Callee+"("+strconv.Quote(channel)+") "+what+" is not known: "+f.Unknown)
		return
	}
}
