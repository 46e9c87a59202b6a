package portstest

import (
	"cmp"
	"errors"
	"fmt"
	"slices"

	"rea/ports"
)

// Checks of the code capabilities' results, each derived from the doc
// comment of its interface in rea/ports.

var flows = map[ports.Flow]bool{
	ports.FlowNext: true, ports.FlowCall: true, ports.FlowJump: true,
	ports.FlowBranch: true, ports.FlowReturn: true, ports.FlowStop: true,
}

func checkInstruction(in ports.Instruction) error {
	if len(in.Bytes) == 0 {
		return fmt.Errorf("instruction at 0x%x: no bytes", in.Address)
	}
	if in.Address+uint64(len(in.Bytes)) < in.Address {
		return fmt.Errorf("instruction at 0x%x: overflows", in.Address)
	}
	if !flows[in.Flow] {
		return fmt.Errorf("instruction at 0x%x: flow %q", in.Address, in.Flow)
	}
	if in.HasTarget && in.Flow != ports.FlowCall && in.Flow != ports.FlowJump && in.Flow != ports.FlowBranch {
		return fmt.Errorf("instruction at 0x%x: target 0x%x with flow %q", in.Address, in.Target, in.Flow)
	}
	if in.Invalid && (in.Mnemonic != "(bad)" || in.Flow != ports.FlowStop) {
		return fmt.Errorf("instruction at 0x%x: invalid but mnemonic %q flow %q", in.Address, in.Mnemonic, in.Flow)
	}
	if !in.Invalid && in.Mnemonic == "" {
		return fmt.Errorf("instruction at 0x%x: empty mnemonic", in.Address)
	}
	return nil
}

// checkDisassembly checks the window's contiguity and bounds for req.
func checkDisassembly(d ports.Disassembly, req ports.DisassembleRequest) error {
	if req.MaxInstructions > 0 && len(d.Instructions) > req.MaxInstructions {
		return fmt.Errorf("disassemble 0x%x: %d instructions, more than the %d asked", req.Address, len(d.Instructions), req.MaxInstructions)
	}
	next := req.Address
	for i, in := range d.Instructions {
		if in.Address != next {
			return fmt.Errorf("disassemble 0x%x: instruction %d at 0x%x, want 0x%x (a linear sweep is contiguous from the request's address)", req.Address, i, in.Address, next)
		}
		if req.End > req.Address && in.Address >= req.End {
			return fmt.Errorf("disassemble 0x%x: instruction %d at 0x%x at or after the end 0x%x", req.Address, i, in.Address, req.End)
		}
		if err := checkInstruction(in); err != nil {
			return fmt.Errorf("disassemble 0x%x: %w", req.Address, err)
		}
		next = in.Address + uint64(len(in.Bytes))
	}
	return nil
}

// checkRanges checks FunctionRanges against Procedures (procs may be nil
// when the analysis lists none).
func checkRanges(ranges []ports.FunctionRange, procs []ports.Procedure, hasProcs bool) error {
	if hasProcs && len(ranges) != len(procs) {
		return fmt.Errorf("%d function ranges for %d procedures: want one per procedure", len(ranges), len(procs))
	}
	for i, r := range ranges {
		if r.End < r.Start {
			return fmt.Errorf("range %d: end 0x%x before start 0x%x", i, r.End, r.Start)
		}
		if r.EndSource == "" {
			return fmt.Errorf("range %d at 0x%x: empty end source", i, r.Start)
		}
		if i > 0 && r.Start <= ranges[i-1].Start {
			return fmt.Errorf("range %d at 0x%x not after range %d at 0x%x: want sorted by start", i, r.Start, i-1, ranges[i-1].Start)
		}
		if hasProcs && r.Start != procs[i].Address {
			return fmt.Errorf("range %d starts at 0x%x, procedure %d at 0x%x: want the procedures' order", i, r.Start, i, procs[i].Address)
		}
	}
	return nil
}

// checkParts checks ProcedureParts against the ranges: sorted, not
// overlapping, each part of a listed procedure and in no procedure's range.
func checkParts(parts []ports.ProcedurePart, ranges []ports.FunctionRange) error {
	for i, p := range parts {
		if p.End <= p.Start || i > 0 && p.Start < parts[i-1].End {
			return fmt.Errorf("part %d [0x%x, 0x%x): empty, unsorted or overlapping the one before", i, p.Start, p.End)
		}
		if _, ok := slices.BinarySearchFunc(ranges, p.Procedure, func(r ports.FunctionRange, t uint64) int { return cmp.Compare(r.Start, t) }); !ok {
			return fmt.Errorf("part 0x%x: its procedure 0x%x is not listed", p.Start, p.Procedure)
		}
		for _, r := range ranges {
			if r.Start < p.End && p.Start < r.End {
				return fmt.Errorf("part [0x%x, 0x%x) overlaps procedure 0x%x's range", p.Start, p.End, r.Start)
			}
		}
	}
	return nil
}

var edgeKinds = map[string]bool{
	ports.EdgeFallthrough: true, ports.EdgeJump: true, ports.EdgeBranch: true,
	ports.EdgeJumpTable: true, ports.EdgeTailCall: true, ports.EdgeUnresolved: true, ports.EdgeException: true,
}

// checkFunction checks one Function against the range FunctionRanges gave
// and the request.
func checkFunction(f ports.Function, want ports.FunctionRange, req ports.FunctionRequest, parts ...ports.ProcedurePart) error {
	if f.FunctionRange != want {
		return fmt.Errorf("function 0x%x: range %+v, FunctionRanges says %+v", req.Address, f.FunctionRange, want)
	}
	if req.MaxInstructions > 0 && len(f.Instructions) > req.MaxInstructions {
		return fmt.Errorf("function 0x%x: %d instructions, more than the %d asked", req.Address, len(f.Instructions), req.MaxInstructions)
	}
	if len(f.Instructions) > f.InstructionCount {
		return fmt.Errorf("function 0x%x: %d instructions returned but a count of %d", req.Address, len(f.Instructions), f.InstructionCount)
	}
	// The range's instructions, then each part's (parts by start).
	spans := []ports.FunctionRange{want}
	for _, p := range parts {
		if p.Procedure == want.Start {
			spans = append(spans, p.FunctionRange)
		}
	}
	slices.SortFunc(spans[1:], func(a, b ports.FunctionRange) int { return cmp.Compare(a.Start, b.Start) })
	span := 0
	for i, in := range f.Instructions {
		k := slices.IndexFunc(spans, func(r ports.FunctionRange) bool { return in.Address >= r.Start && in.Address < r.End })
		if k < 0 {
			return fmt.Errorf("function 0x%x: instruction %d at 0x%x outside [0x%x, 0x%x) and the procedure's parts", req.Address, i, in.Address, f.Start, f.End)
		}
		if k < span || i > 0 && k == span && in.Address <= f.Instructions[i-1].Address {
			return fmt.Errorf("function 0x%x: instruction %d at 0x%x not after 0x%x", req.Address, i, in.Address, f.Instructions[i-1].Address)
		}
		span = k
		if err := checkInstruction(in); err != nil {
			return fmt.Errorf("function 0x%x: %w", req.Address, err)
		}
	}
	for i, b := range f.Blocks {
		inPart := slices.ContainsFunc(parts, func(p ports.ProcedurePart) bool {
			return p.Procedure == want.Start && b.Start >= p.Start && b.End <= p.End
		})
		if b.Start >= b.End || !inPart && (b.Start < f.Start || b.End > f.End) {
			return fmt.Errorf("function 0x%x: block %d [0x%x, 0x%x) empty or outside [0x%x, 0x%x)", req.Address, i, b.Start, b.End, f.Start, f.End)
		}
		if i > 0 && b.Start < f.Blocks[i-1].End {
			return fmt.Errorf("function 0x%x: block %d at 0x%x overlaps or precedes block %d ending at 0x%x", req.Address, i, b.Start, i-1, f.Blocks[i-1].End)
		}
		for _, e := range b.Successors {
			if !edgeKinds[e.Kind] {
				return fmt.Errorf("function 0x%x: block 0x%x: edge kind %q", req.Address, b.Start, e.Kind)
			}
			if e.Kind == ports.EdgeUnresolved && e.Target != 0 {
				return fmt.Errorf("function 0x%x: block 0x%x: unresolved edge with target 0x%x", req.Address, b.Start, e.Target)
			}
		}
	}
	return nil
}

var refKinds = map[string]bool{
	ports.RefCall: true, ports.RefJump: true, ports.RefRead: true, ports.RefWrite: true, ports.RefAddress: true, ports.RefPointer: true,
}

func checkReference(r ports.Reference) error {
	if !refKinds[r.Kind] {
		return fmt.Errorf("reference 0x%x -> 0x%x: kind %q", r.From, r.To, r.Kind)
	}
	if r.Unresolved && r.To != 0 {
		return fmt.Errorf("reference 0x%x: unresolved with target 0x%x", r.From, r.To)
	}
	return nil
}

// checkRefsFrom checks ReferencesFrom(start, end).
func checkRefsFrom(refs []ports.Reference, start, end uint64) error {
	for i, r := range refs {
		if r.From < start || r.From >= end {
			return fmt.Errorf("references from [0x%x, 0x%x): reference %d from 0x%x is outside", start, end, i, r.From)
		}
		if err := checkReference(r); err != nil {
			return err
		}
		if i > 0 && cmpFrom(refs[i-1], r) > 0 {
			return fmt.Errorf("references from: %d (0x%x -> 0x%x) before %d (0x%x -> 0x%x): want sorted by From then To",
				i-1, refs[i-1].From, refs[i-1].To, i, r.From, r.To)
		}
	}
	return nil
}

// checkRefsTo checks ReferencesTo(start, end).
func checkRefsTo(refs []ports.Reference, start, end uint64) error {
	for i, r := range refs {
		if r.Unresolved {
			return fmt.Errorf("references to: reference %d from 0x%x is unresolved", i, r.From)
		}
		if r.To < start || r.To >= end {
			return fmt.Errorf("references to [0x%x, 0x%x): reference %d to 0x%x is outside", start, end, i, r.To)
		}
		if err := checkReference(r); err != nil {
			return err
		}
		if i > 0 && cmpTo(refs[i-1], r) > 0 {
			return fmt.Errorf("references to: %d (0x%x -> 0x%x) before %d (0x%x -> 0x%x): want sorted by To then From",
				i-1, refs[i-1].From, refs[i-1].To, i, r.From, r.To)
		}
	}
	return nil
}

func cmpFrom(a, b ports.Reference) int {
	return cmp.Or(cmp.Compare(a.From, b.From), cmp.Compare(a.To, b.To))
}
func cmpTo(a, b ports.Reference) int {
	return cmp.Or(cmp.Compare(a.To, b.To), cmp.Compare(a.From, b.From))
}

// checkRefsAgree checks that the resolved references of from are those of
// to, as multisets of (From, To, Kind).
func checkRefsAgree(from, to []ports.Reference) error {
	type key struct {
		from, to uint64
		kind     string
	}
	count := map[key]int{}
	for _, r := range from {
		if !r.Unresolved {
			count[key{r.From, r.To, r.Kind}]++
		}
	}
	for _, r := range to {
		k := key{r.From, r.To, r.Kind}
		if count[k] == 0 {
			return fmt.Errorf("ReferencesTo lists %s 0x%x -> 0x%x, which ReferencesFrom does not", r.Kind, r.From, r.To)
		}
		count[k]--
	}
	for k, n := range count {
		if n > 0 {
			return fmt.Errorf("ReferencesFrom lists %s 0x%x -> 0x%x, which ReferencesTo does not", k.kind, k.from, k.to)
		}
	}
	return nil
}

var effectKinds = map[string]bool{ports.EffectMemoryWrite: true, ports.EffectCall: true, ports.EffectReturn: true}

// checkValueFlow checks one procedure's value flow within its range r.
func checkValueFlow(vf ports.ValueFlow, r ports.FunctionRange) error {
	if vf.OmittedOperations < 0 || vf.OmittedInputs < 0 || vf.OmittedEdges < 0 {
		return fmt.Errorf("value flow 0x%x: negative omission count", r.Start)
	}
	ops := map[uint64]bool{}
	for i, op := range vf.Operations {
		if op.Address < r.Start || (r.End > r.Start && op.Address >= r.End) {
			return fmt.Errorf("value flow 0x%x: operation %d at 0x%x outside [0x%x, 0x%x)", r.Start, i, op.Address, r.Start, r.End)
		}
		if i > 0 && op.Address <= vf.Operations[i-1].Address {
			return fmt.Errorf("value flow 0x%x: operation %d at 0x%x not after 0x%x", r.Start, i, op.Address, vf.Operations[i-1].Address)
		}
		ops[op.Address] = true
	}
	// A truncated flow may name instructions it did not list.
	known := func(a uint64) bool { return vf.Truncated || ops[a] }
	for i, du := range vf.DefUses {
		if du.Location == "" || !known(du.Def) || !known(du.Use) {
			return fmt.Errorf("value flow 0x%x: def-use %d (0x%x -> 0x%x %q) names no operation or no location", r.Start, i, du.Def, du.Use, du.Location)
		}
		if i > 0 {
			p := vf.DefUses[i-1]
			if cmp.Or(cmp.Compare(p.Use, du.Use), cmp.Compare(p.Def, du.Def), cmp.Compare(p.Location, du.Location)) > 0 {
				return fmt.Errorf("value flow 0x%x: def-use %d not after %d: want sorted by Use, Def, Location", r.Start, i, i-1)
			}
		}
	}
	for i, e := range vf.Effects {
		if !effectKinds[e.Kind] {
			return fmt.Errorf("value flow 0x%x: effect %d kind %q", r.Start, i, e.Kind)
		}
		if !known(e.Address) {
			return fmt.Errorf("value flow 0x%x: effect %d at 0x%x is no operation", r.Start, i, e.Address)
		}
		if i > 0 && e.Address < vf.Effects[i-1].Address {
			return fmt.Errorf("value flow 0x%x: effect %d at 0x%x before 0x%x", r.Start, i, e.Address, vf.Effects[i-1].Address)
		}
		for _, d := range e.Definitions {
			if !known(d) {
				return fmt.Errorf("value flow 0x%x: effect at 0x%x: definition 0x%x is no operation", r.Start, e.Address, d)
			}
		}
	}
	for i, p := range vf.Parameters {
		if p.Location == "" || p.Position < 0 || p.Uses < 0 {
			return fmt.Errorf("value flow 0x%x: parameter %d %+v", r.Start, i, p)
		}
	}
	if !slices.IsSortedFunc(vf.ParameterUses, func(a, b ports.ParameterUse) int { return cmp.Compare(a.Address, b.Address) }) {
		return fmt.Errorf("value flow 0x%x: parameter uses not sorted by address", r.Start)
	}
	for _, u := range vf.ParameterUses {
		if !known(u.Address) {
			return fmt.Errorf("value flow 0x%x: parameter use at 0x%x is no operation", r.Start, u.Address)
		}
	}
	return nil
}

// isAny reports whether err matches one of targets.
func isAny(err error, targets ...error) bool {
	for _, t := range targets {
		if errors.Is(err, t) {
			return true
		}
	}
	return false
}
