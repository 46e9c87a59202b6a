// Package standard assembles rea's default catalog: the kernel's own
// operations and every feature family. It is the one place that lists the
// families; cmd/rea, cmd/presentgen, the examples, the benchmarks and the
// tests that need the whole catalog use it.
package standard

import (
	"rea/core"
	"rea/core/annotate"
	"rea/core/artifact"
	"rea/core/binary"
	"rea/core/browser"
	"rea/core/diff"
	"rea/core/jsapp"
	"rea/core/process"
	"rea/core/runtime"
	"rea/core/web"
)

// Families returns the kernel's family and every feature family, freshly
// built.
func Families() []core.Family {
	return []core.Family{core.Kernel(), binary.Family(), artifact.Family(), jsapp.Family(), web.Family(), browser.Family(), process.Family(), diff.Family(), runtime.Family(), annotate.Family()}
}

// Operations returns a fresh copy of every operation of the default
// catalog, for a test or program that assembles a catalog of its own.
func Operations() []*core.Operation {
	var ops []*core.Operation
	for _, f := range Families() {
		ops = append(ops, f.Operations...)
	}
	return ops
}

// Catalog builds the default catalog.
func Catalog() (*core.Catalog, error) { return core.Assemble(Families()...) }
