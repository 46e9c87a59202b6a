package jsapp

import "rea/core"

// canonicalArray and sealMembers encode the large parts of a result once,
// with the kernel's encoders: an array encoded on every core and kept as
// its runs (core.CanonicalArray), and an object with an ID whose large
// members are referenced, not copied (core.SealObject). Sealing the
// Evidence writes them as they are.
func canonicalArray[T any](items []T) (core.Canonical, error) { return core.CanonicalArray(items) }

func sealMembers(obj map[string]any, idKey, prefix string) (core.Canonical, string, error) {
	return core.SealObject(obj, idKey, prefix)
}

// lazyRows encodes n rows as one canonical array, each row built by row(i)
// on the core that writes it (core.CanonicalArrayFunc's runs), so the rows
// of the large tables are neither built on one core nor held all at once.
// row must only read what it shares.
func lazyRows(n int, row func(i int) any) (core.Canonical, error) {
	return core.CanonicalArrayFunc(n, func(dst []byte, i int) ([]byte, error) { return core.AppendCanonical(dst, row(i)) })
}
