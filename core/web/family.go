package web

import (
	"rea/core"
)

// webFamily is the comparison of supplied web captures.
func Family() core.Family {
	return core.Family{Name: "web", Operations: webOperations()}
}
