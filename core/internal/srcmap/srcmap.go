// Package srcmap decodes the "mappings" of a revision 3 source map: the
// base64 VLQ segments, their generated lines and columns and the original
// source, line and column each names. It is the one decoder of that
// untrusted text; core/jsapp (the application graph's source modules and
// original positions) and core/browser (analyze_web_bundle's original
// positions) each keep what they need of the segments. Standard library
// only.
package srcmap

import (
	"errors"
	"fmt"
)

// Segment is one decoded mapping: a generated position (0-based line,
// column) and, when Src >= 0, the index of the source it names in the
// map's own sources list and the original 0-based line and column. Src is
// -1 for a segment without a source, or one naming a source index the map
// does not have (counted by Decode).
type Segment struct {
	Line, Col   int32
	Src         int32
	SLine, SCol int32
}

// Decode calls seg for each segment of m in order, the first generated
// line being lineOff and the columns on it moved by colOff (an index map's
// section offset); nsrc is the map's number of sources. It returns the
// number of segments naming a source index outside [0, nsrc), and the
// first error: a malformed value, or seg's own.
func Decode(m string, lineOff, colOff, nsrc int32, seg func(Segment) error) (outOfRange int, err error) {
	line, col := lineOff, int32(0)
	var src, sline, scol int32
	for i := 0; i < len(m); {
		switch m[i] {
		case ';':
			line++
			col = 0
			i++
			continue
		case ',':
			i++
			continue
		}
		var fields [5]int32
		k := 0
		for i < len(m) && m[i] != ',' && m[i] != ';' {
			v, next, err := vlq(m, i)
			if err != nil {
				return outOfRange, err
			}
			if k < 5 {
				fields[k] = v
			}
			k++
			i = next
		}
		col += fields[0]
		gc := col
		if line == lineOff {
			gc += colOff
		}
		s := Segment{Line: line, Col: gc, Src: -1}
		if k >= 4 {
			src += fields[1]
			sline += fields[2]
			scol += fields[3]
			if src < 0 || src >= nsrc {
				outOfRange++
			} else {
				s.Src, s.SLine, s.SCol = src, sline, scol
			}
		}
		if err := seg(s); err != nil {
			return outOfRange, err
		}
	}
	return outOfRange, nil
}

// Count counts the segments of m (the runs of bytes other than ',' and
// ';'): no more than Decode gives, for sizing a list once.
func Count(m string) int {
	n, sep := 0, true
	for i := 0; i < len(m); i++ {
		c := m[i]
		if c == ',' || c == ';' {
			sep = true
		} else if sep {
			n++
			sep = false
		}
	}
	return n
}

// vlqDigit maps a base64 character to its value plus one (0 for any other
// byte).
var vlqDigit = func() (t [256]uint8) {
	for i, c := range "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/" {
		t[c] = uint8(i + 1)
	}
	return t
}()

func vlq(s string, i int) (int32, int, error) {
	var v, shift int64
	for {
		if i >= len(s) {
			return 0, i, errors.New("source map mappings end inside a value")
		}
		d := int(vlqDigit[s[i]]) - 1
		if d < 0 {
			return 0, i, fmt.Errorf("source map mappings hold %q at %d", s[i], i)
		}
		i++
		v |= int64(d&31) << shift
		shift += 5
		if shift > 35 {
			return 0, i, errors.New("source map mapping value overflows")
		}
		if d&32 == 0 {
			break
		}
	}
	neg := v&1 == 1
	v >>= 1
	if neg {
		v = -v
	}
	return int32(v), i, nil
}
