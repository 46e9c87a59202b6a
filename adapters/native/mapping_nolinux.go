//go:build unix && !linux

package native

// dontNeed is not used here: a mapping's pages stay resident until it is
// unmapped.
var dontNeed func([]byte)
