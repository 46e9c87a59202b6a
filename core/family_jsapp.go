package core

// jsappFamily is the JavaScript Application Graph (CONTRACTS.md §16) and
// the workflows over it.
func jsappFamily() Family {
	return Family{Name: "jsapp", Operations: jsappOperations(),
		Viewers: map[string]Viewer{"analyze_javascript_application": jsappView}}
}
