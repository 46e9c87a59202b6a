package jsapp

import (
	"cmp"
	"encoding/base64"
	"errors"
	"fmt"
	"net/url"
	"path"
	"slices"
	"sort"
	"strings"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"

	"rea/core/internal/srcmap"

	"rea/ports"
)

// Source maps (revision 3, index maps included) decoded without any
// library: rea needs every mapping to check ranges and to attribute bundled
// modules to original sources, which lookup-only libraries do not expose.

// smSegment is one decoded mapping: a generated position and the source
// it maps to (src -1 for a segment without a source).
type smSegment struct {
	line, col   int32
	src         int32
	sline, scol int32 // the original position (0-based) when src >= 0
}

type sourceMap struct {
	Sources        []string  // as written (sourceRoot applied)
	SourcesContent []*string // nil entries when absent
	Segments       []smSegment
	Index          bool // an index map (sections)
	// OutOfRange counts segments naming a source index that does not exist
	// or a generated line beyond the generated file.
	OutOfRange int
}

type rawSourceMap struct {
	Version        int               `json:"version"`
	SourceRoot     string            `json:"sourceRoot"`
	Sources        []*string         `json:"sources"`
	SourcesContent []*string         `json:"sourcesContent"`
	Mappings       string            `json:"mappings"`
	Sections       []rawSourceMapSec `json:"sections"`
}

type rawSourceMapSec struct {
	Offset struct {
		Line   int `json:"line"`
		Column int `json:"column"`
	} `json:"offset"`
	Map *rawSourceMap `json:"map"`
}

// jsappMaxSourceModules bounds the source-module nodes of one analysis,
// over all its maps: a 14 MB map with 100k sources cost 1.1 GB of graph.
const jsappMaxSourceModules = 10000

// maxSourceMapSegments bounds decoding (a limitation beyond it).
const maxSourceMapSegments = 4 << 20

// lenientJSON decodes an untrusted source map the way encoding/json did
// before: member names matched without regard to case, a repeated member's
// last value kept, and invalid UTF-8 in a string replaced rather than
// refused. The decoder (github.com/go-json-experiment/json, which the CDP
// engine's protocol library already links) is about three times faster
// than encoding/json on npm's maps: one pass where encoding/json validates
// and then decodes, and no reflection per string.
var lenientJSON = json.JoinOptions(json.MatchCaseInsensitiveNames(true), jsontext.AllowDuplicateNames(true), jsontext.AllowInvalidUTF8(true))

var errSourceMapSegments = errors.New("source map has more mappings than rea decodes")

func parseSourceMap(b []byte) (*sourceMap, error) {
	var raw rawSourceMap
	if err := json.Unmarshal(b, &raw, lenientJSON); err != nil {
		return nil, fmt.Errorf("source map is not JSON: %v", err)
	}
	sm := &sourceMap{}
	if len(raw.Sections) > 0 {
		sm.Index = true
		for i, sec := range raw.Sections {
			if sec.Map == nil {
				return nil, fmt.Errorf("section %d has no inline map (url sections are not followed)", i)
			}
			if len(sec.Map.Sections) > 0 {
				return nil, fmt.Errorf("section %d nests an index map", i)
			}
			if err := sm.add(sec.Map, int32(sec.Offset.Line), int32(sec.Offset.Column)); err != nil {
				return sm, err
			}
		}
		return sm, nil
	}
	if raw.Version != 3 {
		return nil, fmt.Errorf("source map version %d is not 3", raw.Version)
	}
	return sm, sm.add(&raw, 0, 0)
}

func (sm *sourceMap) add(raw *rawSourceMap, lineOff, colOff int32) error {
	base := int32(len(sm.Sources))
	for i, s := range raw.Sources {
		name := ""
		if s != nil {
			name = *s
		}
		if raw.SourceRoot != "" && !strings.Contains(name, "://") && !strings.HasPrefix(name, "/") {
			name = strings.TrimSuffix(raw.SourceRoot, "/") + "/" + name
		}
		sm.Sources = append(sm.Sources, name)
		var content *string
		if i < len(raw.SourcesContent) {
			content = raw.SourcesContent[i]
		}
		sm.SourcesContent = append(sm.SourcesContent, content)
	}
	// Sized once, not grown: no more segments than Count gives.
	if segs := srcmap.Count(raw.Mappings); segs > 0 {
		want := min(len(sm.Segments)+segs, maxSourceMapSegments)
		sm.Segments = slices.Grow(sm.Segments, want-len(sm.Segments))
	}
	out, err := srcmap.Decode(raw.Mappings, lineOff, colOff, int32(len(raw.Sources)), func(g srcmap.Segment) error {
		if len(sm.Segments) >= maxSourceMapSegments {
			return errSourceMapSegments
		}
		seg := smSegment{line: g.Line, col: g.Col, src: -1}
		if g.Src >= 0 {
			seg.src, seg.sline, seg.scol = base+g.Src, g.SLine, g.SCol
		}
		sm.Segments = append(sm.Segments, seg)
		return nil
	})
	sm.OutOfRange += out
	return err
}

// checkGenerated counts segments past the end of the generated source.
func (sm *sourceMap) checkGenerated(lines int) int {
	bad := 0
	for _, s := range sm.Segments {
		if int(s.line) >= lines {
			bad++
		}
	}
	return bad
}

// sourcesIn returns the source indices mapped from generated positions in
// [from, to) (line, col pairs), most segments first.
func (sm *sourceMap) sourcesIn(fromLine, fromCol, toLine, toCol int32) []int32 {
	lo := sort.Search(len(sm.Segments), func(i int) bool {
		s := sm.Segments[i]
		return s.line > fromLine || s.line == fromLine && s.col >= fromCol
	})
	count := map[int32]int{}
	for i := lo; i < len(sm.Segments); i++ {
		s := sm.Segments[i]
		if s.line > toLine || s.line == toLine && s.col >= toCol {
			break
		}
		if s.src >= 0 {
			count[s.src]++
		}
	}
	out := make([]int32, 0, len(count))
	for k := range count {
		out = append(out, k)
	}
	sort.Slice(out, func(i, j int) bool {
		if count[out[i]] != count[out[j]] {
			return count[out[i]] > count[out[j]]
		}
		return out[i] < out[j]
	})
	return out
}

// sourceAt returns the source index the generated position p maps to: the
// last segment at or before it on its line, as source map consumers read
// a map; -1 when none does.
func (sm *sourceMap) sourceAt(p genPos) int32 {
	i := sort.Search(len(sm.Segments), func(i int) bool {
		s := sm.Segments[i]
		return s.line > p.line || s.line == p.line && s.col > p.col
	}) - 1
	if i < 0 || sm.Segments[i].line != p.line {
		return -1
	}
	return sm.Segments[i].src
}

// originalAt returns the segment generated position p maps to, read as
// sourceAt reads it; ok is false when none does or it names no source.
func (sm *sourceMap) originalAt(p genPos) (smSegment, bool) {
	i := sort.Search(len(sm.Segments), func(i int) bool {
		s := sm.Segments[i]
		return s.line > p.line || s.line == p.line && s.col > p.col
	}) - 1
	if i < 0 || sm.Segments[i].line != p.line || sm.Segments[i].src < 0 {
		return smSegment{}, false
	}
	return sm.Segments[i], true
}

// segmentAfter reports whether a segment lies after p on p's line.
func (sm *sourceMap) segmentAfter(p genPos) bool {
	i := sort.Search(len(sm.Segments), func(i int) bool {
		s := sm.Segments[i]
		return s.line > p.line || s.line == p.line && s.col > p.col
	})
	return i < len(sm.Segments) && sm.Segments[i].line == p.line
}

// sortSegments orders segments by generated position (index maps and
// hand-written maps may not be ordered).
func (sm *sourceMap) sortSegments() {
	sort.SliceStable(sm.Segments, func(i, j int) bool {
		a, b := sm.Segments[i], sm.Segments[j]
		return a.line < b.line || a.line == b.line && a.col < b.col
	})
}

// decodeDataURL decodes a data: URL's payload (base64 or percent-encoded).
func decodeDataURL(u string) ([]byte, error) {
	rest, ok := strings.CutPrefix(u, "data:")
	if !ok {
		return nil, errors.New("not a data URL")
	}
	meta, payload, ok := strings.Cut(rest, ",")
	if !ok {
		return nil, errors.New("data URL has no payload")
	}
	if strings.HasSuffix(meta, ";base64") {
		b, err := base64.StdEncoding.DecodeString(payload)
		if err != nil {
			b, err = base64.RawStdEncoding.DecodeString(strings.TrimRight(payload, "="))
		}
		return b, err
	}
	s, err := url.PathUnescape(payload)
	return []byte(s), err
}

// resolveSourcePath turns a source map source into a logical path inside
// the app, relative to the map's directory. ok is false for URLs with a
// scheme other than file, absolute paths and paths that leave the app.
func resolveSourcePath(mapDir, source string) (p string, ok bool) {
	if i := strings.Index(source, "://"); i >= 0 {
		scheme := source[:i]
		if scheme != "file" {
			return "", false
		}
		return "", false
	}
	if strings.HasPrefix(source, "/") || source == "" {
		return "", false
	}
	joined := path.Join(mapDir, source)
	if joined == ".." || strings.HasPrefix(joined, "../") {
		return "", false
	}
	return joined, true
}

// sourceLines is what the source-map phase needs of a file's bytes: its
// line count, and the generated positions of its bundled modules. The
// bytes themselves are dropped once parsed.
type sourceLines struct {
	lines   int
	modules []modulePosition // by index in JSFacts.Modules
	calls   []callPosition   // calls (and worker creations) outside module functions whose edges a map attributes, by their site (mappedSite)
	ref     callPosition     // the sourceMappingURL comment's (off -1: none)
}

// genPos is a generated position: 0-based line and column.
type genPos struct{ line, col int32 }

// callPosition is where a call lies (endpointSite).
type callPosition struct {
	off int64
	genPos
}

// callAt returns the position of the call at off, if keepFacts kept it.
func (s *sourceLines) callAt(off int64) (genPos, bool) {
	if s == nil || off < 0 {
		return genPos{}, false
	}
	i, ok := slices.BinarySearchFunc(s.calls, off, func(c callPosition, off int64) int { return cmp.Compare(c.off, off) })
	if !ok {
		return genPos{}, false
	}
	return s.calls[i].genPos, true
}

// modulePosition is a bundled module's [start, end) as 0-based line and
// column pairs.
type modulePosition struct{ fromLine, fromCol, toLine, toCol int32 }

// keepFacts trims one file's facts to what the graph uses (see
// indexStrings: literals of 3 to 256 bytes, one per value, no more than
// the index can take) and returns what source maps need of src, or nil
// when the file names no source map.
func keepFacts(f *ports.JSFacts, src []byte) *sourceLines {
	if f == nil {
		return nil
	}
	// Filtered in place (kept never passes the string read), then copied
	// to its size so the dropped literals go with the old array. A few
	// values are told apart by a scan, more through a set.
	kept := f.Strings[:0]
	var seen map[string]struct{}
	for _, s := range f.Strings {
		if len(s.Value) < 3 || len(s.Value) > 256 {
			continue
		}
		if seen == nil && len(kept) >= 16 {
			seen = make(map[string]struct{}, 2*len(kept))
			for _, k := range kept {
				seen[k.Value] = struct{}{}
			}
		}
		if seen != nil {
			if _, dup := seen[s.Value]; dup {
				continue
			}
			seen[s.Value] = struct{}{}
		} else if slices.ContainsFunc(kept, func(k ports.JSString) bool { return k.Value == s.Value }) {
			continue
		}
		kept = append(kept, s)
		if len(kept) > jsappMaxStringIndex { // one past the cap still says the index was cut
			break
		}
	}
	f.Strings = slices.Clone(kept)
	if f.SourceMap == nil {
		return nil
	}
	out := &sourceLines{lines: lineCount(src), ref: callPosition{off: -1}}
	if r := f.SourceMap.Offset; r >= 0 && r <= int64(len(src)) {
		out.ref = callPosition{r, positionFromEnd(src, r, out.lines)}
	}
	var offs []int64
	for _, c := range f.Calls {
		if off, ok := mappedSite(c); ok && off >= 0 && c.InModule < 0 {
			offs = append(offs, off)
		}
	}
	for _, im := range f.Imports {
		if isWorkerKind(im.Kind) && im.Offset >= 0 && im.InModule < 0 {
			offs = append(offs, im.Offset) // new Worker("w.js"): located by its specifier
		}
	}
	out.calls = positionsAt(src, offs)
	if len(f.Modules) > 0 {
		offs = offs[:0]
		for _, m := range f.Modules {
			if m.Start >= 0 {
				offs = append(offs, m.Start, max(m.End, m.Start+1))
			}
		}
		at := positionsAt(src, offs)
		pos := func(off int64) genPos {
			i, _ := slices.BinarySearchFunc(at, off, func(c callPosition, off int64) int { return cmp.Compare(c.off, off) })
			if i < len(at) && at[i].off == off {
				return at[i].genPos
			}
			// Past the end of src: the last line, as a consumer would
			// read it (a bound the parser gave is within src).
			if len(at) > 0 {
				return at[len(at)-1].genPos
			}
			return genPos{}
		}
		out.modules = make([]modulePosition, len(f.Modules))
		for i, m := range f.Modules {
			if m.Start < 0 {
				continue
			}
			from, to := pos(m.Start), pos(max(m.End, m.Start+1))
			out.modules[i] = modulePosition{from.line, from.col, to.line, to.col}
		}
	}
	return out
}

// positionFromEnd is positionsAt's position of offset off of src, whose
// lineCount is lines, counted from off on: a sourceMappingURL comment ends
// the file, so this reads its last line, not the whole bundle.
func positionFromEnd(src []byte, off int64, lines int) genPos {
	line := lines - lineCount(src[off:])
	start := int(off)
	for ; start > 0; start-- {
		if c := src[start-1]; c == '\n' || c == '\r' || (c == 0xA8 || c == 0xA9) && start >= 3 && src[start-3] == 0xE2 && src[start-2] == 0x80 {
			break
		}
	}
	p := positionsAt(src[start:off], []int64{off - int64(start)})
	if len(p) == 0 {
		return genPos{int32(line), 0}
	}
	return genPos{int32(line), p[0].col}
}

// refAt is the position of the sourceMappingURL comment at off, if
// keepFacts kept it.
func (s *sourceLines) refAt(off int64) (genPos, bool) {
	if s == nil || off < 0 || s.ref.off != off {
		return genPos{}, false
	}
	return s.ref.genPos, true
}
