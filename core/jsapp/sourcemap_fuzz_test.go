package jsapp

import (
	"encoding/json"
	"strings"
	"testing"
)

// FuzzSourceMap: source maps, data URLs and source paths are untrusted;
// reading them never panics, and what is read stays within its bounds.
func FuzzSourceMap(f *testing.F) {
	for _, s := range []string{
		`{"version":3,"sources":["a.js"],"sourcesContent":["x"],"names":[],"mappings":"AAAA;AACA,CAAC"}`,
		`{"version":3,"sections":[{"offset":{"line":0,"column":0},"map":{"version":3,"sources":["a"],"mappings":"AAAA"}},{"offset":{"line":1,"column":0},"map":{"version":3,"sources":["b"],"mappings":";;AAAA"}}]}`,
		`{"version":3,"sources":[],"mappings":"!!!"}`, `{"version":3,"sources":["x"],"mappings":"gggggggggggA"}`,
		`{"version":3,"sections":[{"offset":{"line":-1,"column":0},"map":{"sections":[]}}]}`, `null`, `[]`,
	} {
		f.Add([]byte(s), "line one\nline two", "data:application/json;base64,e30=", "../../x/./y.js")
	}
	f.Fuzz(func(t *testing.T, data []byte, gen, url, source string) {
		sm, err := parseSourceMap(data)
		if sm != nil && err == nil && !sm.Index {
			var raw rawSourceMap
			if json.Unmarshal(data, &raw) == nil {
				if n := countSegments(raw.Mappings); len(sm.Segments) != n && n <= maxSourceMapSegments {
					t.Fatalf("%d segments decoded, %d counted in %q", len(sm.Segments), n, raw.Mappings)
				}
			}
		}
		if sm != nil {
			sm.sortSegments()
			sm.checkGenerated(strings.Count(gen, "\n") + 1)
			for _, r := range [][4]int32{{0, 0, 0, 10}, {0, 0, 1 << 20, 0}, {5, 5, 2, 2}, {-1, -1, 3, 3}} {
				for _, i := range sm.sourcesIn(r[0], r[1], r[2], r[3]) {
					if i < 0 || int(i) >= len(sm.Sources) {
						t.Fatalf("source index %d of %d", i, len(sm.Sources))
					}
				}
			}
			if len(sm.SourcesContent) != len(sm.Sources) {
				t.Fatalf("%d sources, %d contents", len(sm.Sources), len(sm.SourcesContent))
			}
		}
		decodeDataURL(url)
		if p, ok := resolveSourcePath("dist", source); ok && (strings.HasPrefix(p, "../") || p == ".." || strings.HasPrefix(p, "/")) {
			t.Fatalf("%q resolved outside the app: %q", source, p)
		}
	})
}

// TestVLQDigits: each base64 digit decodes to its value, alone and as a
// continuation, and any other byte is refused.
func TestVLQDigits(t *testing.T) {
	const digits = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
	for d := range 32 { // a single digit: sign in bit 0, value above it
		v, next, err := vlq(digits[d:d+1], 0)
		want := int32(d >> 1)
		if d&1 == 1 {
			want = -want
		}
		if err != nil || next != 1 || v != want {
			t.Fatalf("%q: %d %d %v, want %d", digits[d], v, next, err, want)
		}
	}
	for d := 32; d < 64; d++ { // a continuation digit, then "B" (1 << 5 before the sign)
		v, next, err := vlq(digits[d:d+1]+"B", 0)
		raw := int64(d&31) | 1<<5
		want := int32(raw >> 1)
		if raw&1 == 1 {
			want = -want
		}
		if err != nil || next != 2 || v != want {
			t.Fatalf("%q: %d %d %v, want %d", digits[d:d+1]+"B", v, next, err, want)
		}
	}
	for c := range 256 {
		if strings.IndexByte(digits, byte(c)) >= 0 {
			continue
		}
		if _, _, err := vlq(string([]byte{byte(c)}), 0); err == nil {
			t.Fatalf("byte %#x decoded", c)
		}
	}
	for m, want := range map[string]int{"": 0, ";;": 0, "AAAA": 1, "AAAA,CAAC;;AACA": 3, ",A,,B;": 2} {
		if got := countSegments(m); got != want {
			t.Fatalf("countSegments(%q) = %d, want %d", m, got, want)
		}
	}
}
