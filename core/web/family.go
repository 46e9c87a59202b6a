// Package web is rea's web capture comparison family: compare_web_captures
// over supplied passive or scenario captures.
package web

//go:generate go test -run ^TestGeneratedSchemasCurrent$ . -args -update

import (
	"rea/core"
)

// webFamily is the comparison of supplied web captures.
func Family() core.Family {
	return core.Family{Name: "web", Types: operationTypes, Operations: webOperations()}
}
