package native

import (
	"context"
	"slices"
)

// NoReturnStarts lists the starts of the procedures discovery takes not to
// return (named and inferred, noreturn.go), in address order.
func NoReturnStarts(ctx context.Context, a *Analysis) ([]uint64, error) {
	return codeOp(a, ctx, "no-return starts", func(p *program) ([]uint64, error) {
		var out []uint64
		for addr, ok := range p.noret {
			if ok {
				out = append(out, addr)
			}
		}
		slices.Sort(out)
		return out, nil
	})
}
