package core

// binaryFamily is the native workflows: the provider primitives, the code
// workflows composed from them, the binary layout, their views and the
// analyze_function bundle summary.
func binaryFamily() Family {
	ops := append(nativeOperations(), codeOperations()...)
	ops = append(ops, layoutOperations()...)
	return Family{Name: "binary", Operations: ops,
		Viewers:     map[string]Viewer{"analyze_function": nativeView, "inspect_binary_layout": layoutView},
		Summarizers: map[string]Summarizer{"analyze_function": dossierSummary}}
}

// dossierSummary is analyze_function's native_dossier in a bundle summary.
func dossierSummary(e *Evidence) (map[string]any, bool) {
	if e.PredicateType != DefaultPredicate {
		return nil, false
	}
	return nativeDossier(e), true
}
