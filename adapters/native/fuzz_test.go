package native_test

import (
	"os"
	"testing"
)

// FuzzNewAnalysis parses arbitrary bytes and calls every lister: no panic,
// and only typed errors. Seeds are the committed corpus under
// testdata/fuzz/FuzzNewAnalysis (crashers found so far, and truncated
// headers) plus the fixtures that can be built here, whole and truncated.
func FuzzNewAnalysis(f *testing.F) {
	for name, limit := range map[string]int{
		"c": 1 << 20, "c-stripped": 1 << 20, "c-dwarf": 1 << 20,
		"go-linux-arm64": 4 << 10, "go-windows-amd64": 4 << 10, "go-darwin-arm64": 8 << 10,
	} {
		if fixtures[name].slow && testing.Short() {
			continue
		}
		path, err := buildFixture(f.Context(), name)
		if err != nil {
			continue // the committed corpus still seeds the fuzzer
		}
		data, err := os.ReadFile(path)
		if err != nil {
			f.Fatal(err)
		}
		data = data[:min(len(data), limit)]
		f.Add(data)
		for _, n := range []int{64, 256, 1024} {
			f.Add(data[:min(len(data), n)])
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		listAll(t, data)
	})
}
