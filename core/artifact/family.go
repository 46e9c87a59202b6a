package artifact

import (
	"rea/core"
)

// artifactFamily is the artifact graph (CONTRACTS.md §15).
func Family() core.Family {
	return core.Family{Name: "artifact", Operations: artifactOperations()}
}
