// Package jsapp is rea's JavaScript application graph family (CONTRACTS.md
// §16): analyze_javascript_application from ports.JavaScriptEngine facts,
// the workflows over the graph (feature tracing, version and export shape
// comparison, reconstruction ledgers) and its views. It builds on the
// artifact graph's inventory (rea/core/artifact).
package jsapp

import (
	"rea/core"
)

// jsappFamily is the JavaScript Application Graph (CONTRACTS.md §16) and
// the workflows over it.
func Family() core.Family {
	return core.Family{Name: "jsapp", Types: operationTypes, Operations: jsappOperations(),
		Viewers: map[string]core.Viewer{"analyze_javascript_application": jsappView}}
}
