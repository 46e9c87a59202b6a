package diff

import (
	"context"

	"rea/core"
)

// CompareBinaries matches the functions of the binaries at in.LeftPath (the
// older) and in.RightPath and lists what changed (the types are in
// typed_ops.go). It opens both files itself and needs no open target.
func CompareBinaries(ctx context.Context, s *core.Session, in CompareBinariesInput) (CompareBinariesResult, *core.Evidence, error) {
	return core.Invoke[CompareBinariesResult](ctx, s, "compare_binaries", in)
}
