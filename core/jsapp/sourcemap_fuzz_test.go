package jsapp

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	jsonv2 "github.com/go-json-experiment/json"

	"rea/core/internal/srcmap"
)

// FuzzSourceMap: source maps, data URLs and source paths are untrusted;
// reading them never panics, and what is read stays within its bounds.
func FuzzSourceMap(f *testing.F) {
	for _, s := range []string{
		`{"version":3,"sources":["a.js"],"sourcesContent":["x"],"names":[],"mappings":"AAAA;AACA,CAAC"}`,
		`{"version":3,"sections":[{"offset":{"line":0,"column":0},"map":{"version":3,"sources":["a"],"mappings":"AAAA"}},{"offset":{"line":1,"column":0},"map":{"version":3,"sources":["b"],"mappings":";;AAAA"}}]}`,
		`{"version":3,"sources":[],"mappings":"!!!"}`, `{"version":3,"sources":["x"],"mappings":"gggggggggggA"}`,
		`{"version":3,"sections":[{"offset":{"line":-1,"column":0},"map":{"sections":[]}}]}`, `null`, `[]`,
		"{\"Version\":3,\"SOURCES\":[\"a\xff\\ud800\"],\"mappings\":\"AAAA\",\"mappings\":\"AACA\",\"sourcesContent\":[null]}",
		`{"version":"3","sources":{},"mappings":7}`,
	} {
		f.Add([]byte(s), "line one\nline two", "data:application/json;base64,e30=", "../../x/./y.js")
	}
	f.Fuzz(func(t *testing.T, data []byte, gen, url, source string) {
		// The lenient decoder reads a map as encoding/json did.
		var was, is rawSourceMap
		wasErr, isErr := json.Unmarshal(data, &was), jsonv2.Unmarshal(data, &is, lenientJSON)
		if (wasErr == nil) != (isErr == nil) || wasErr == nil && !reflect.DeepEqual(was, is) {
			t.Fatalf("encoding/json read %+v (%v), the lenient decoder %+v (%v)", was, wasErr, is, isErr)
		}
		sm, err := parseSourceMap(data)
		if sm != nil && err == nil && !sm.Index {
			var raw rawSourceMap
			if json.Unmarshal(data, &raw) == nil {
				if n := srcmap.Count(raw.Mappings); len(sm.Segments) != n && n <= maxSourceMapSegments {
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
