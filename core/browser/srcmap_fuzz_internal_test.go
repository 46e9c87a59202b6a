package browser

import "testing"

// FuzzDecodePositions: source maps come from the page's server, so
// decodePositions reads untrusted bytes. It must never panic, and every
// position it gives must name one of the map's sources at a line from 1
// and a column from 0.
func FuzzDecodePositions(f *testing.F) {
	f.Add([]byte(`{"version":3,"sources":["a.js","b.js"],"names":[],"mappings":"AACE,kBCEE;AAAA"}`), 1, 18)
	f.Add([]byte(`{"version":3,"sections":[{"offset":{"line":1,"column":4},"map":{"version":3,"sources":["x.ts"],"mappings":"AAAA,CAAC"}}]}`), 2, 5)
	f.Add([]byte(`{"version":3,"sources":[null],"mappings":"AAAA,gggggggggG;;;D"}`), 1, 0)
	f.Fuzz(func(t *testing.T, b []byte, line, col int) {
		pm, ok := decodePositions(b)
		if !ok {
			return
		}
		if o := pm.original(line, col); o != nil && (o.Line < 1 || o.Column < 0) {
			t.Fatalf("original(%d, %d) = %+v", line, col, o)
		}
	})
}
