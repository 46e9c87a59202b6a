package browser

import (
	"encoding/json"
	"errors"
	"sort"

	"rea/core/internal/srcmap"
)

// Original positions for analyze_web_bundle's findings: a fetched v3
// source map is decoded so that each finding's generated line and column
// also name the original source, line and column the bundler wrote down,
// which is what an agent asking "where in the sources is this request
// sent?" needs. The mappings are decoded by core/internal/srcmap, as
// core/jsapp's are (a family may not import a sibling); this keeps only the
// segments that name a source, by generated line, for lookups.

// maxMapSegments bounds one map's decoded segments; a larger map gives no
// original positions (the findings keep their generated ones).
const maxMapSegments = 4 << 20

type mapSegment struct {
	col, src, sline, scol int32
}

// positionMap is a decoded source map: per generated line (0-based), its
// segments that name a source, in column order.
type positionMap struct {
	sources []string
	lines   map[int32][]mapSegment
}

type rawPositionMap struct {
	Sources  []*string `json:"sources"`
	Mappings string    `json:"mappings"`
	Sections []struct {
		Offset struct {
			Line   int32 `json:"line"`
			Column int32 `json:"column"`
		} `json:"offset"`
		Map *rawPositionMap `json:"map"`
	} `json:"sections"`
}

// decodePositions decodes b (a v3 map or an index map of inline maps); it
// reports false for a map it cannot read or one beyond maxMapSegments.
func decodePositions(b []byte) (*positionMap, bool) {
	var raw rawPositionMap
	if json.Unmarshal(b, &raw) != nil {
		return nil, false
	}
	pm := &positionMap{lines: map[int32][]mapSegment{}}
	n := 0
	if len(raw.Sections) > 0 {
		for _, sec := range raw.Sections {
			if sec.Map == nil || len(sec.Map.Sections) > 0 || sec.Offset.Line < 0 || sec.Offset.Column < 0 {
				return nil, false
			}
			if !pm.add(sec.Map, sec.Offset.Line, sec.Offset.Column, &n) {
				return nil, false
			}
		}
	} else if !pm.add(&raw, 0, 0, &n) {
		return nil, false
	}
	for l, segs := range pm.lines {
		sort.SliceStable(segs, func(i, j int) bool { return segs[i].col < segs[j].col })
		pm.lines[l] = segs
	}
	return pm, true
}

func (pm *positionMap) add(raw *rawPositionMap, lineOff, colOff int32, n *int) bool {
	base := int32(len(pm.sources))
	for _, s := range raw.Sources {
		name := ""
		if s != nil {
			name = *s
		}
		pm.sources = append(pm.sources, name)
	}
	_, err := srcmap.Decode(raw.Mappings, lineOff, colOff, int32(len(raw.Sources)), func(g srcmap.Segment) error {
		if g.Src < 0 || g.SLine < 0 || g.SCol < 0 || g.Col < 0 {
			return nil
		}
		if *n++; *n > maxMapSegments {
			return errTooManySegments
		}
		pm.lines[g.Line] = append(pm.lines[g.Line], mapSegment{col: g.Col, src: base + g.Src, sline: g.SLine, scol: g.SCol})
		return nil
	})
	return err == nil
}

var errTooManySegments = errors.New("too many segments")

// original maps a generated position (1-based line, 0-based UTF-16 column,
// rea's code locations) to the last segment at or before it on that line,
// as browsers' devtools resolve a position; nil when the line has none.
func (pm *positionMap) original(line, col int) *BundleOriginalLocation {
	segs := pm.lines[int32(line-1)]
	i := sort.Search(len(segs), func(i int) bool { return segs[i].col > int32(col) })
	if i == 0 {
		return nil
	}
	s := segs[i-1]
	return &BundleOriginalLocation{Source: pm.sources[s.src], Line: int(s.sline) + 1, Column: int(s.scol)}
}
