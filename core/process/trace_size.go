package process

// CanonicalSize bounds the length of the trace's canonical JSON (a bound
// close above it, from the lengths of its texts and a fixed allowance for
// each object's keys and numbers), so that sealing a large trace writes
// into one buffer: 10,000 hits take about 3 MB, which growing the buffer
// copied many times over.
func (r *TraceNativeCallsResult) CanonicalSize() int {
	n := 512 + len(r.Program.SHA256) + len(r.Convention) + len(r.Architecture)
	for _, s := range r.Coverage.Notes {
		n += 8 + textSize(s)
	}
	for i := range r.Breakpoints {
		b := &r.Breakpoints[i]
		n += 160 + len(b.Name) + len(b.Address) + optSize(b.Module) + procSize(b.Procedure) + optSize(b.ParametersSource)
		for _, p := range b.Parameters {
			n += 48 + optSize(p.Name) + optSize(p.Type) + optSize(p.Register)
		}
	}
	for i := range r.Hits {
		n += hitSize(&r.Hits[i])
	}
	return n
}

// hitSize bounds a hit's canonical JSON with its comma: its keys and
// punctuation take at most 200 bytes, each argument's 56.
func hitSize(h *TraceHit) int {
	n := 200 + textSize(h.Name) + len(h.Address) + procSize(h.Procedure) + optSize(h.Caller) + optSize(h.CallSite) +
		optSize(h.CallerModule) + procSize(h.CallerProcedure) + optSize(h.ReturnValue) + optSize(h.ReturnBits)
	if h.ReturnBits != nil {
		n += 16
	}
	if h.TailCallFrom != nil {
		n += 40
	}
	for i := range h.Arguments {
		a := &h.Arguments[i]
		n += 56 + len(a.Register) + len(a.Value) + optSize(a.Bits) + optSize(a.Parameter) + optSize(a.ValueAtReturn) +
			stringSize(a.String) + stringSize(a.StringAtReturn) + optSize(a.Stack) + optSize(a.TLS)
		if a.PointsTo != nil {
			p := a.PointsTo
			n += 96 + optSize(p.Module) + len(p.Address) + len(p.Section) + optSize(p.Name) + procSize(p.Procedure)
		}
		if a.Mapping != nil {
			n += 48 + optSize(a.Mapping.File) + len(a.Mapping.Offset)
		}
		if a.Bits != nil || a.ValueAtReturn != nil || a.Stack != nil || a.TLS != nil {
			n += 64
		}
		if a.StackThread != nil || a.TLSThread != nil || a.Heap {
			n += 64
		}
	}
	return n
}

func procSize(p *TraceProcedure) int {
	if p == nil {
		return 4
	}
	return 26 + len(p.Address) + optSize(p.Name)
}

func stringSize(s *TraceString) int {
	if s == nil {
		return 4
	}
	return 32 + optSize(s.Text)
}

func optSize(s *string) int {
	if s == nil {
		return 4
	}
	return textSize(*s)
}

// textSize bounds a string's JSON: quotes, and escapes for a backslash
// or a control character in one byte of eight (\xNN texts hold one
// backslash in four).
func textSize(s string) int { return 2 + len(s) + len(s)/4 }
