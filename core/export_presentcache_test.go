package core

// Cached reports whether op is presented from the embedded cache (tests
// only).
func Cached(op *Operation) bool { return op.cached() != nil }

// PresentedJSON is the embedded presentation cache (tests only).
var PresentedJSON = presentedJSON
