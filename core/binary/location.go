package binary

import (
	"context"

	"rea/core"
	"rea/core/codeloc"
	"rea/ports"
)

// A code location argument ("address") is read by codeloc.Resolve, as the
// annotation family's are: 0x hex or decimal, an analyst's name, the
// engine's name of a procedure or a label, sub_<hex>, NAME+OFFSET; an
// address outside every segment is refused unless the tool opts out. The
// schema property and its description are codeloc's, as the annotation
// family's are.
const (
	addressProp         = codeloc.AddressProp
	optionalAddressProp = codeloc.OptionalAddressProp
)

// callTarget is codeloc's view of the analysis c is bound to: the
// analysts' names (Call.AnalystNames), the engine's procedures and labels
// when it lists them, its sections and load segments.
type callTarget struct{ c *core.Call }

func (t callTarget) AnalystNames(ctx context.Context) (map[uint64]string, error) {
	return t.c.AnalystNames(ctx), nil
}

func (t callTarget) EngineNames(ctx context.Context) (procs []ports.Procedure, labels []ports.Name, err error) {
	if _, lerr := analysisFor[ports.ProcedureLister](t.c); lerr == nil {
		if procs, err = procedures(ctx, t.c); err != nil {
			return nil, nil, err
		}
	}
	if _, lerr := analysisFor[ports.NameLister](t.c); lerr == nil {
		if labels, err = names(ctx, t.c); err != nil {
			return nil, nil, err
		}
	}
	return procs, labels, nil
}

func (t callTarget) Segments(ctx context.Context) ([]ports.Segment, bool, error) {
	sl, err := analysisFor[ports.SegmentLister](t.c)
	if err != nil {
		return nil, false, nil
	}
	segs, err := sl.Segments(ctx)
	if err != nil {
		return nil, false, err
	}
	if ll, lerr := analysisFor[loadSegmentLister](t.c); lerr == nil {
		loads, err := ll.LoadSegments(ctx)
		if err != nil {
			return nil, false, err
		}
		segs = append(segs[:len(segs):len(segs)], loads...)
	}
	return segs, true, nil
}

// locationArg resolves s, the value of the code-location argument arg,
// refusing an address outside every segment (codeloc's mapped rule).
func locationArg(ctx context.Context, c *core.Call, arg, s string) (uint64, error) {
	return codeloc.Resolve(ctx, c.Op.Name, []any{arg}, s, callTarget{c}, nil)
}

// anyLocationArg is locationArg accepting an address outside every
// segment, for a tool that says what it means there.
func anyLocationArg(ctx context.Context, c *core.Call, arg, s string) (uint64, error) {
	return codeloc.Resolve(ctx, c.Op.Name, []any{arg}, s, callTarget{c}, &codeloc.Options{Unmapped: true})
}

// addressLocation is the Evidence location of one address argument, which
// a listing filtered to that address carries even when nothing is there.
func addressLocation(at uint64) []core.Location {
	return []core.Location{{Kind: "address", Address: core.Hex(at)}}
}
