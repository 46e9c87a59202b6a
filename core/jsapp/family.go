package jsapp

import (
	"rea/core"
)

// jsappFamily is the JavaScript Application Graph (CONTRACTS.md §16) and
// the workflows over it.
func Family() core.Family {
	return core.Family{Name: "jsapp", Operations: jsappOperations(),
		Viewers: map[string]core.Viewer{"analyze_javascript_application": jsappView}}
}
