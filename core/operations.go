package core

import "rea/ports"

// families are the functions that declare operations. Each ops_*.go file
// registers its own family in init, so adding a family touches no shared
// list.
var families []func() []*Operation

func registerFamily(f func() []*Operation) { families = append(families, f) }

// Operations returns a fresh copy of every operation core declares.
func Operations() []*Operation {
	var ops []*Operation
	for _, f := range families {
		ops = append(ops, f()...)
	}
	return ops
}

// NewDefaultCatalog builds the catalog of every core operation.
func NewDefaultCatalog() (*Catalog, error) { return NewCatalog(Operations()) }

// capabilities maps a capability name (used in Operation.Needs) to the
// check that an analysis offers it, in registration order.
var (
	capabilities    = map[string]func(ports.Analysis) bool{}
	capabilityOrder []string
)

// registerCapability declares that the capability name is offered by an
// analysis implementing T.
func registerCapability[T any](name string) {
	capabilities[name] = func(a ports.Analysis) bool { _, ok := a.(T); return ok }
	capabilityOrder = append(capabilityOrder, name)
}

func hasCapability(a ports.Analysis, name string) bool {
	check, ok := capabilities[name]
	return ok && a != nil && check(a)
}

// nonNilSlice returns s, or an empty slice for nil, so JSON says [] not null.
func nonNilSlice[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}
