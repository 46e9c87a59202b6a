// Package codeloc reads a code-location argument ("address", a
// procedure's start or goal) the same way for every tool: the binary
// family's and the annotation family's address inputs call Resolve, fed
// by a Target over what each side knows of the bound target, and every
// family refuses an unknown name with UnknownName.
//
// The forms, tried in this order: 0x hex or decimal; an analyst's name
// (set_address_name); the engine's name of a procedure, then of a label
// (the engine's name still works after a rename); sub_<hex>, the name of
// an address that has none (and FUN_<hex>, fcn.<hex>: other engines'
// names of the same kind, SyntheticAddress); and NAME+OFFSET (main+0x10, main+16) for any
// of those names, when the whole string is no name itself (a label such
// as "*ABS*+0x9f550@plt" stays one name).
//
// The mapped rule: a resolved address must lie in a section or load
// segment (ports.Holding), or carry a name (a procedure, a label or an
// analyst's name: a linker's _end lies one past the last mapped byte and
// is still an address list_names reports). A tool whose contract needs
// other addresses opts out (Options.Unmapped). The refusal is
// invalid_request with an out_of_range issue naming the address and the
// nearest mapped segment on each side (details: reason address_unmapped,
// address, nearest_segments).
package codeloc

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"rea/core"
	"rea/ports"
)

// The schema property of an address input and its description, the same
// in every family.
const (
	AddressProp         = `"address": {"type":"string","minLength":1,"maxLength":4096,"description":"` + Text + `.","examples":["0x401000"]}`
	OptionalAddressProp = `"address": {"type":"string","minLength":1,"maxLength":4096,"description":"` + Text + `; defaults to the cursor's.","examples":["0x401000"]}`
	Text                = "0x hex, decimal, a name (analyst's, procedure, label, sub_401000) or name+0x10"
)

// Target is what a family knows of the bound target's names and mapping.
// Implementations are called on the request's goroutine only; the slices
// and map they return are read, never kept or changed.
type Target interface {
	// AnalystNames returns the analysts' names by address (nil when none).
	AnalystNames(ctx context.Context) (map[uint64]string, error)
	// EngineNames returns the engine's procedures and labels, in any
	// order (nil when the engine lists none).
	EngineNames(ctx context.Context) ([]ports.Procedure, []ports.Name, error)
	// Segments returns the sections and load segments the target maps;
	// listed is false when the engine lists none (nothing is checked).
	Segments(ctx context.Context) (segs []ports.Segment, listed bool, err error)
}

// Options changes what Resolve accepts; nil means the defaults.
type Options struct {
	// Unmapped accepts an address outside every segment (the caller then
	// says what it means there).
	Unmapped bool
}

// Expected texts of the unknown-name refusal, by the kind of argument.
const (
	ExpectLocation  = "0x hex, decimal, or a name from list_names or list_procedures"
	ExpectProcedure = "the name or address of a procedure (list_procedures)"
)

// Resolve reads s, the code-location argument at path of operation op.
func Resolve(ctx context.Context, op string, path []any, s string, t Target, opts *Options) (uint64, error) {
	var o Options
	if opts != nil {
		o = *opts
	}
	at, ok, err := Lookup(ctx, t, s)
	if errors.Is(err, ErrOverflow) {
		return 0, core.InvalidRequest(op, core.Issue{Path: path, Reason: core.ReasonOutOfRange, Message: err.Error()})
	} else if err != nil {
		return 0, err
	}
	if !ok {
		sugs, err := Suggestions(ctx, t, s)
		if err != nil {
			return 0, err
		}
		return 0, UnknownName(op, path, s, "procedure, label or address", ExpectLocation, sugs)
	}
	if o.Unmapped {
		return at, nil
	}
	return at, Check(ctx, op, path, at, t)
}

// Lookup resolves s in any of the forms Resolve takes, with no mapped
// check; false when s is none of them. Its errors are the Target's and an
// offset that overflows 64 bits.
func Lookup(ctx context.Context, t Target, s string) (uint64, bool, error) {
	at, ok, err := lookup(ctx, t, s)
	if err != nil || ok {
		return at, ok, err
	}
	base, off, cut := splitOffset(s)
	if !cut {
		return 0, false, nil
	}
	if at, ok, err = lookup(ctx, t, base); err != nil || !ok {
		return 0, false, err
	}
	if at+off < at {
		return 0, false, fmt.Errorf("%s+%#x %w", base, off, ErrOverflow)
	}
	return at + off, true, nil
}

// ErrOverflow is what Lookup's error for NAME+OFFSET past 2^64 wraps.
var ErrOverflow = errors.New("overflows 64 bits")

// lookup resolves a number or one name (no offset).
func lookup(ctx context.Context, t Target, s string) (uint64, bool, error) {
	if a, err := core.ParseHex(s); err == nil {
		return a, true, nil
	}
	an, err := t.AnalystNames(ctx)
	if err != nil {
		return 0, false, err
	}
	at, found := uint64(0), false
	for a, n := range an {
		if n == s && (!found || a < at) {
			at, found = a, true
		}
	}
	if found {
		return at, true, nil
	}
	procs, labels, err := t.EngineNames(ctx)
	if err != nil {
		return 0, false, err
	}
	for _, p := range procs {
		if p.Name == s && (!found || p.Address < at) {
			at, found = p.Address, true
		}
	}
	if found {
		return at, true, nil
	}
	for _, n := range labels {
		if n.Name == s && (!found || n.Address < at) {
			at, found = n.Address, true
		}
	}
	if found {
		return at, true, nil
	}
	if a, ok := SyntheticAddress(s); ok {
		return a, true, nil
	}
	return 0, false, nil
}

// splitOffset cuts NAME+OFFSET at its last "+": OFFSET is 0x hex or
// decimal, NAME not empty.
func splitOffset(s string) (string, uint64, bool) {
	i := strings.LastIndexByte(s, '+')
	if i <= 0 {
		return "", 0, false
	}
	off, err := core.ParseHex(s[i+1:])
	if err != nil {
		return "", 0, false
	}
	return s[:i], off, true
}

// HasOffset reports whether s has the NAME+OFFSET shape (OFFSET 0x hex or
// decimal), which a location argument reads as an offset when s is no name
// itself: an analyst's name of that shape is refused.
func HasOffset(s string) bool {
	_, _, ok := splitOffset(s)
	return ok
}

// SubAddress reads sub_<hex>, the name every location argument gives an
// address with no name of its own.
func SubAddress(s string) (uint64, bool) {
	h, ok := strings.CutPrefix(s, "sub_")
	if !ok {
		return 0, false
	}
	a, err := strconv.ParseUint(h, 16, 64)
	return a, err == nil
}

// SyntheticAddress reads the names engines make up for a procedure at an
// address: sub_<hex> (rea, IDA, Hopper), FUN_<hex> (Ghidra) and
// fcn.<hex> (radare2), hex in either case. An agent carries them from one
// engine's output to another's, where the procedure may have a real name.
func SyntheticAddress(s string) (uint64, bool) {
	for _, p := range []string{"sub_", "FUN_", "fcn."} {
		if h, ok := strings.CutPrefix(s, p); ok {
			a, err := strconv.ParseUint(h, 16, 64)
			return a, err == nil
		}
	}
	return 0, false
}

// NearestProcedure is the procedure of procs that holds at (of nested
// ones, the one starting last), else the one starting nearest to it on either side (the
// lower of two as near); false when procs is empty. It names what an
// agent may have meant by an address where no procedure starts.
func NearestProcedure(procs []ports.Procedure, at uint64) (ports.Procedure, bool) {
	best, found, holds := ports.Procedure{}, false, false
	dist := func(p ports.Procedure) uint64 { return max(p.Address, at) - min(p.Address, at) }
	for _, p := range procs {
		h := p.Address <= at && at-p.Address < p.Size
		switch {
		case !found, h && !holds, h && p.Address > best.Address,
			!h && !holds && (dist(p) < dist(best) || (dist(p) == dist(best) && p.Address < best.Address)):
			best, found, holds = p, true, h
		}
	}
	return best, found
}

// Check is nil when at is mapped by the mapped rule (or the target lists
// no segments), else the out_of_range refusal of the argument at path.
func Check(ctx context.Context, op string, path []any, at uint64, t Target) error {
	segs, listed, err := t.Segments(ctx)
	if err != nil || !listed || ports.Holding(segs, at) != nil {
		return err
	}
	an, err := t.AnalystNames(ctx)
	if err != nil {
		return err
	}
	if _, ok := an[at]; ok {
		return nil
	}
	procs, labels, err := t.EngineNames(ctx)
	if err != nil {
		return err
	}
	for _, p := range procs {
		if p.Address == at {
			return nil
		}
	}
	for _, n := range labels {
		if n.Address == at {
			return nil
		}
	}
	return Unmapped(op, path, at, segs)
}

// Segment is one entry of an out_of_range refusal's nearest_segments.
type Segment struct {
	Name  string `json:"name"`
	Start string `json:"start"`
	End   string `json:"end"` // exclusive
}

// Nearest returns the mapped segment ending nearest below at and the one
// starting nearest above it (each nil when there is none).
func Nearest(segs []ports.Segment, at uint64) (below, above *ports.Segment) {
	for k := range segs {
		s := &segs[k]
		if s.Size == 0 || (s.Start == 0 && !s.Perms.Read && !s.Perms.Execute) {
			continue // maps nothing (ports.Holding)
		}
		end := s.Start + s.Size
		if end <= at && (below == nil || end > below.Start+below.Size || (end == below.Start+below.Size && s.Size < below.Size)) {
			below = s
		}
		if s.Start > at && (above == nil || s.Start < above.Start || (s.Start == above.Start && s.Size < above.Size)) {
			above = s
		}
	}
	return below, above
}

// Unmapped is the refusal of at, the argument at path, which no segment of
// segs maps: out_of_range, naming the nearest segment on each side.
func Unmapped(op string, path []any, at uint64, segs []ports.Segment) *core.Error {
	return unmapped(op, path, at, segs, core.Hex(at)+" lies outside every segment")
}

// EngineUnmapped is the same refusal when the engine, not rea's view of
// the segments, maps no byte at at (an engine that keeps annotations
// itself refused a change there with ports.ErrNotFound, cause): the same
// code, issue and details, nearest_segments from segs (empty when the
// target lists none), and a message saying the engine refused it.
func EngineUnmapped(op string, path []any, at uint64, segs []ports.Segment, cause error) *core.Error {
	e := unmapped(op, path, at, segs, fmt.Sprintf("the engine maps no byte at %s (%v)", core.Hex(at), cause))
	e.Err = cause
	return e
}

func unmapped(op string, path []any, at uint64, segs []ports.Segment, msg string) *core.Error {
	below, above := Nearest(segs, at)
	var near []Segment
	var text []string
	for _, s := range []*ports.Segment{below, above} {
		if s == nil {
			continue
		}
		seg := Segment{Name: s.Name, Start: core.Hex(s.Start), End: core.Hex(s.Start + s.Size)}
		near = append(near, seg)
		side := "below"
		if s == above {
			side = "above"
		}
		text = append(text, fmt.Sprintf("%s %s-%s %s", seg.Name, seg.Start, seg.End, side))
	}
	if len(text) > 0 {
		msg += "; nearest: " + strings.Join(text, ", ")
	}
	e := core.InvalidRequest(op, core.Issue{Path: path, Reason: core.ReasonOutOfRange, Message: msg + " (list_segments)"})
	e.Remediation = "Use an address inside a segment (list_segments)."
	e.Details["reason"] = "address_unmapped"
	e.Details["address"] = core.Hex(at)
	e.Details["nearest_segments"] = append([]Segment{}, near...)
	return e
}

// UnknownName is every tool's refusal of a name that names nothing it
// takes: invalid_request with an invalid_value issue at path whose message
// reads `no WHAT is named "S"` (and the suggestions, if any), expected the
// argument's forms, details.reason unknown_name and details.suggestions
// the names close to s (empty when none).
func UnknownName(op string, path []any, s, what, expected string, suggestions []string) *core.Error {
	msg := fmt.Sprintf("no %s is named %q", what, s)
	if len(suggestions) > 0 {
		msg += "; did you mean " + strings.Join(suggestions, ", ") + "?"
	}
	e := core.InvalidRequest(op, core.Issue{Path: path, Reason: core.ReasonInvalidValue, Message: msg, Expected: expected})
	e.Details["reason"] = "unknown_name"
	e.Details["suggestions"] = append([]string{}, suggestions...)
	return e
}

// Suggestions are the names of t close to s (Suggest).
func Suggestions(ctx context.Context, t Target, s string) ([]string, error) {
	an, err := t.AnalystNames(ctx)
	if err != nil {
		return nil, err
	}
	procs, labels, err := t.EngineNames(ctx)
	if err != nil {
		return nil, err
	}
	names := make([]string, 0, len(procs)+len(labels)+len(an))
	for _, p := range procs {
		names = append(names, p.Name)
	}
	for _, n := range labels {
		names = append(names, n.Name)
	}
	for _, n := range an {
		names = append(names, n)
	}
	return Suggest(names, s), nil
}
