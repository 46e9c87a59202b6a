package diff

import "rea/core"

// Family is the native diffing family.
func Family() core.Family {
	return core.Family{Name: "diff", Types: operationTypes, Operations: []*core.Operation{opCompareFunctions(), opCompareBinaries(), opFindChangedBehavior(), opBuildCallPath(), opCorrelateStaticAndRuntime()}}
}
