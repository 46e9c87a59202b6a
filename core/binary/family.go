// Package binary is rea's native workflows family: the operations over an
// open binary's provider primitives (list_*, search_*, binary_overview), the
// code primitives and the workflows composed from them (analyze_function,
// get_call_graph, find_code_for_string, trace_call_path, ...), the binary
// layout (inspect_binary_layout), the native views of inspect_analysis_view,
// and analyze_function's bundle summarizer. Any engine that answers the
// ports primitives gets these operations.
package binary

import (
	"rea/core"
)

// binaryFamily is the native workflows: the provider primitives, the code
// workflows composed from them, the binary layout, their views and the
// analyze_function bundle summary.
func Family() core.Family {
	var ops []*core.Operation
	for _, op := range append(nativeOperations(), codeOperations()...) {
		if op.NeedsTarget || len(op.Needs) > 0 {
			op = withArchLimitations(op)
		}
		ops = append(ops, op)
	}
	ops = append(ops, layoutOperations()...)
	return core.Family{Name: "binary", Types: operationTypes, Operations: ops,
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
