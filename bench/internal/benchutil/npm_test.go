package benchutil_test

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"rea/bench/internal/benchutil"
)

func TestNPMPackages(t *testing.T) {
	nm := t.TempDir()
	for _, d := range []string{"a", "@s/b", "@s/c", ".cache", "@empty"} {
		if err := os.MkdirAll(filepath.Join(nm, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(nm, "file.txt"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	got, err := benchutil.NPMPackages(nm)
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"@s/b", "@s/c", "a"}; !slices.Equal(got, want) {
		t.Fatalf("got %v, want %v", got, want)
	}
}
