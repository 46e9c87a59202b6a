package jsapp

import "testing"

// TestSourceAt: a generated position maps to the source of the last
// segment at or before it on its line; a segment without a source, or
// none on the line, maps to nothing.
func TestSourceAt(t *testing.T) {
	sm := &sourceMap{Segments: []smSegment{{0, 0, 0, 0, 0}, {0, 10, 1, 0, 0}, {1, 0, -1, 0, 0}, {1, 5, 2, 0, 0}, {3, 4, 0, 0, 0}}}
	for _, tc := range []struct {
		p    genPos
		want int32
	}{
		{genPos{0, 0}, 0}, {genPos{0, 9}, 0}, {genPos{0, 10}, 1}, {genPos{0, 500}, 1},
		{genPos{1, 3}, -1}, {genPos{1, 5}, 2}, {genPos{2, 0}, -1}, {genPos{3, 3}, -1}, {genPos{3, 4}, 0},
	} {
		if got := sm.sourceAt(tc.p); got != tc.want {
			t.Errorf("sourceAt(%v) = %d, want %d", tc.p, got, tc.want)
		}
	}
}
