// Package artifact is rea's artifact graph family (CONTRACTS.md §15):
// inventory_artifact, inspect_artifact, compare_artifacts and
// extract_artifact over directories and containers reached through
// ports.ContainerOpener. Build, Graph and Item are also the inventory the
// JavaScript application graph (rea/core/jsapp) is built on.
package artifact

//go:generate go test -run ^TestGeneratedCompareExamplesCurrent$ . -args -update

import (
	"rea/core"
)

// artifactFamily is the artifact graph (CONTRACTS.md §15).
func Family() core.Family {
	return core.Family{Name: "artifact", Types: operationTypes, Operations: artifactOperations()}
}
