package artifact

import (
	"context"

	"rea/core"
)

// Inventory runs inventory_artifact: the artifact graph of the directory or
// container at in.Path (the types are in typed_ops.go). It needs no open
// target.
func Inventory(ctx context.Context, s *core.Session, in InventoryArtifactInput) (InventoryArtifactResult, *core.Evidence, error) {
	return core.Invoke[InventoryArtifactResult](ctx, s, "inventory_artifact", in)
}
