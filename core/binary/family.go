package binary

import (
	"rea/core"
)

// binaryFamily is the native workflows: the provider primitives, the code
// workflows composed from them, the binary layout, their views and the
// analyze_function bundle summary.
func Family() core.Family {
	ops := append(nativeOperations(), codeOperations()...)
	ops = append(ops, layoutOperations()...)
	return core.Family{Name: "binary", Operations: ops,
		Viewers:     map[string]core.Viewer{"analyze_function": nativeView, "inspect_binary_layout": layoutView},
		Summarizers: map[string]core.Summarizer{"analyze_function": dossierSummary}}
}

// dossierSummary is analyze_function's native_dossier in a bundle summary.
func dossierSummary(e *core.Evidence) (map[string]any, bool) {
	if e.PredicateType != core.DefaultPredicate {
		return nil, false
	}
	return nativeDossier(e), true
}
