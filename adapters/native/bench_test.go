package native_test

import (
	"context"
	"os"
	"testing"

	"rea/adapters/native"
)

// BenchmarkOpenAndList opens /usr/bin/ls and computes every list.
func BenchmarkOpenAndList(b *testing.B) {
	if _, err := os.Stat(ls); err != nil {
		b.Skip("/usr/bin/ls is missing")
	}
	ctx := context.Background()
	for b.Loop() {
		a, err := native.OpenFile(ctx, ls)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := a.Documents(ctx); err != nil {
			b.Fatal(err)
		}
		if _, err := a.Segments(ctx); err != nil {
			b.Fatal(err)
		}
		if _, err := a.Procedures(ctx); err != nil {
			b.Fatal(err)
		}
		if _, err := a.Names(ctx); err != nil {
			b.Fatal(err)
		}
		if _, err := a.Strings(ctx); err != nil {
			b.Fatal(err)
		}
		a.Close(ctx)
	}
}
