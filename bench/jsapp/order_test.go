//go:build unix

package main

import (
	"slices"
	"testing"
)

// rea and the -against build take turns to run right after the parse-only
// baseline, so neither is always the one that runs there.
func TestRunOrderAlternates(t *testing.T) {
	for r, want := range [][]int{{0, 1, 2}, {0, 2, 1}, {0, 1, 2}, {0, 2, 1}} {
		if got := runOrder(r, 3); !slices.Equal(got, want) {
			t.Errorf("run %d with -against: order %v, want %v", r, got, want)
		}
	}
	for r := range 3 {
		if got := runOrder(r, 2); !slices.Equal(got, []int{0, 1}) {
			t.Errorf("run %d without -against: order %v, want [0 1]", r, got)
		}
	}
}
