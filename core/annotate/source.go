package annotate

import (
	"context"
	"errors"

	"rea/core"
	"rea/ports"
)

// noLineTable is the source facet's reason on a target without lines.
const noLineTable = "no DWARF line table (built without -g or stripped)"

// sourceFacet is inspect_address_context's source facet: where the
// engine's line tables put addr, with the inlined calls around it; null
// when they cover no code there.
func sourceFacet(ctx context.Context, c *core.Call, addr uint64) (Facet[SourceLine], error) {
	a, _, _ := c.Bound()
	sl, ok := a.(ports.SourceLocator)
	if !ok {
		return unavailable[SourceLine]("the provider does not map addresses to source lines"), nil
	}
	loc, err := sl.SourceAt(ctx, addr)
	switch {
	case err == nil:
	case ctx.Err() != nil:
		return Facet[SourceLine]{}, err
	case errors.Is(err, ports.ErrNotFound):
		return available[SourceLine](nil), nil
	case errors.Is(err, ports.ErrUnsupported):
		return unavailable[SourceLine](noLineTable), nil
	default:
		return unavailable[SourceLine](err.Error()), nil
	}
	v := &SourceLine{File: loc.File, Line: loc.Line, Column: loc.Column, Function: core.OptString(loc.Function), Inlined: []InlinedFrame{}}
	for _, in := range loc.Inlined {
		v.Inlined = append(v.Inlined, InlinedFrame{Function: core.OptString(in.Function), CallFile: core.OptString(in.CallFile), CallLine: in.CallLine})
	}
	return available(v), nil
}
