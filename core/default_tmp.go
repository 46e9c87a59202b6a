package core

// Operations returns a fresh copy of every operation core declares.
func Operations() []*Operation {
	var ops []*Operation
	for _, f := range []Family{Kernel(), binaryFamily(), artifactFamily(), jsappFamily(), webFamily()} {
		ops = append(ops, f.Operations...)
	}
	return ops
}

// NewDefaultCatalog builds the catalog of every core operation.
func NewDefaultCatalog() (*Catalog, error) {
	return Assemble(Kernel(), binaryFamily(), artifactFamily(), jsappFamily(), webFamily())
}
