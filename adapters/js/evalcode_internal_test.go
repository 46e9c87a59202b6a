package js

import "testing"

// The breaks map every decoded byte back to its character or escape.
func TestUnescapeMappedOffsets(t *testing.T) {
	raw := []byte(`ab\n\"c\u00e9\
d\ud83d\ude00e`)
	code, breaks := unescapeMapped(raw)
	if string(code) != "ab\n\"c\u00e9d\U0001F600e" {
		t.Fatalf("code %q", code)
	}
	ev := &evalSource{breaks: breaks, size: len(code)}
	want := map[int]int64{0: 0, 1: 1, 2: 2, 3: 4, 4: 6, 5: 7, 6: 7, 7: 15, 8: 16, 12: 28}
	for dec, src := range want {
		if got := ev.fileOffset(dec); got != src {
			t.Errorf("decoded %d (%q): file offset %d, want %d", dec, code[dec], got, src)
		}
	}
}
