package browser

import (
	"bytes"
	"compress/zlib"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"sort"

	"rea/core"
)

// compare_web_screenshots decodes PNG itself (BROWSER.md §5): only 8-bit
// RGB or RGBA, non-interlaced; CRCs are not checked. image/png checks CRCs
// and accepts more, which this contract must not.

const (
	defaultMaxPixels = 16_000_000
	maxWorkingSet    = 256 << 20
	regionCell       = 8
	maxRegions       = 256
)

var screenshotInput = `{"description":"capture_web_screenshot Evidence retained on this connection, its artifact (uri, sha256 and bytes checked when present), or any PNG as base64.","anyOf":[
 {"type":"object","additionalProperties":false,"required":["kind","evidence_id"],"properties":{"kind":{"const":"retained-evidence"},"evidence_id":{"type":"string","pattern":"^ev_[0-9a-f]{64}$"}}},
 {"type":"object","additionalProperties":false,"required":["data_base64"],
 "properties":{"uri":{"type":"string"},"sha256":{"type":"string","pattern":"^[0-9a-f]{64}$"},"bytes":{"type":"integer","minimum":1},"media_type":{"const":"image/png"},"data_base64":{"type":"string","minLength":1,"maxLength":44739244}}}]}`

func opCompareScreenshots() *core.Operation {
	return &core.Operation{
		Name:  "compare_web_screenshots",
		Title: "Compare Web Screenshots",
		Description: "Compare two PNG screenshots locally (no browser): identical, different or dimension_mismatch, with changed pixel " +
			"count and ratio (a pixel changes when any RGBA channel differs by more than channel_threshold), maximum and mean channel " +
			"difference, a perceptual luminance difference and difference hash distance, and the bounding regions of the changes. " +
			"Parameters keep a reference, or an inline PNG's SHA-256 only.",
		Kind:    core.KindApplication,
		Effects: core.Effects{Idempotent: true, MutatesSession: true},
		Input: json.RawMessage(`{"$schema":"https://json-schema.org/draft/2020-12/schema","type":"object","additionalProperties":false,"required":["before","after"],` +
			`"$defs":{"shot":` + screenshotInput + `},"properties":{"before":{"$ref":"#/$defs/shot"},"after":{"$ref":"#/$defs/shot"},` +
			`"channel_threshold":{"type":"integer","minimum":0,"maximum":255,"default":0,"description":"Largest per-channel difference still counted as unchanged."},` +
			`"maximum_pixels":{"type":"integer","minimum":1,"maximum":32000000,"default":16000000,"description":"Largest image (width × height) decoded."}}}`),
		Result:   screenshotDiffSchema,
		Examples: ex(`{"before":{"data_base64":"iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg=="},"after":{"data_base64":"iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg=="},"channel_threshold":8}`),
		Handler:  handleCompareScreenshots,
	}
}

var screenshotDiffSchema = json.RawMessage(`{"type":"object","additionalProperties":false,
"required":["schema_version","status","before","after","channel_threshold","compared_pixels","changed_pixels","changed_ratio","maximum_channel_delta","mean_channel_delta","perceptual","regions","omitted_regions","limitations"],
"properties":{"schema_version":{"const":1},"status":{"enum":["identical","different","dimension_mismatch"]},
 "before":{"type":"object","required":["width","height","sha256"],"properties":{"width":{"type":"integer"},"height":{"type":"integer"},"sha256":{"type":"string"}}},
 "after":{"type":"object","required":["width","height","sha256"],"properties":{"width":{"type":"integer"},"height":{"type":"integer"},"sha256":{"type":"string"}}},
 "channel_threshold":{"type":"integer"},"compared_pixels":{"type":"integer"},
 "changed_pixels":{"type":["integer","null"]},"changed_ratio":{"type":["number","null"]},
 "maximum_channel_delta":{"type":["integer","null"]},"mean_channel_delta":{"type":["number","null"]},
 "perceptual":{"type":["object","null"],"description":"Luminance-based difference: mean absolute luma difference (0..255) and the Hamming distance of 64-bit difference hashes.","properties":{"mean_luma_delta":{"type":"number"},"dhash_distance":{"type":"integer"}}},
 "regions":{"type":"array","description":"Bounding boxes of connected changed areas (8-pixel cells), largest first.","items":{"type":"object","required":["x","y","width","height","changed_pixels"],"properties":{"x":{"type":"integer"},"y":{"type":"integer"},"width":{"type":"integer"},"height":{"type":"integer"},"changed_pixels":{"type":"integer"}}}},
 "omitted_regions":{"type":"integer"},
 "limitations":{"type":"array","items":{"type":"string"}}}}`)

// rgba is a decoded image, 4 bytes per pixel.
type rgba struct {
	w, h int
	pix  []byte
}

type pngError struct {
	unsupported, memory bool
	msg                 string
}

func (e *pngError) Error() string { return e.msg }

// decodePNG decodes an 8-bit RGB/RGBA non-interlaced PNG.
func decodePNG(b []byte, maxPixels int) (*rgba, error) {
	bad := func(f string, a ...any) error { return &pngError{msg: fmt.Sprintf(f, a...)} }
	if len(b) < 8 || !bytes.Equal(b[:8], []byte("\x89PNG\r\n\x1a\n")) {
		return nil, bad("not a PNG (signature)")
	}
	p := b[8:]
	var w, h, ch int
	var idat []byte
	first := true
	for {
		if len(p) < 12 {
			return nil, bad("truncated chunk")
		}
		n := binary.BigEndian.Uint32(p[:4])
		typ := string(p[4:8])
		if uint64(n) > uint64(len(p)-12) {
			return nil, bad("chunk %q overruns the file", typ)
		}
		data := p[8 : 8+n]
		p = p[12+n:]
		if first {
			if typ != "IHDR" || n != 13 {
				return nil, bad("first chunk is not IHDR")
			}
			first = false
			w, h = int(binary.BigEndian.Uint32(data[0:4])), int(binary.BigEndian.Uint32(data[4:8]))
			depth, ct, comp, filt, inter := data[8], data[9], data[10], data[11], data[12]
			if w == 0 || h == 0 || comp != 0 || filt != 0 {
				return nil, bad("invalid IHDR")
			}
			if depth != 8 || (ct != 2 && ct != 6) || inter != 0 {
				return nil, &pngError{unsupported: true, msg: fmt.Sprintf("bit depth %d, colour type %d, interlace %d: only 8-bit RGB or RGBA, non-interlaced, is compared", depth, ct, inter)}
			}
			if uint64(w)*uint64(h) > uint64(maxPixels) {
				return nil, &pngError{memory: true, msg: fmt.Sprintf("%d×%d exceeds maximum_pixels %d", w, h, maxPixels)}
			}
			ch = 3
			if ct == 6 {
				ch = 4
			}
			if (w*ch+1)*h+w*h*4 > maxWorkingSet {
				return nil, &pngError{memory: true, msg: "decoding would need more than 256 MiB"}
			}
			continue
		}
		switch typ {
		case "IDAT":
			idat = append(idat, data...)
		case "IEND":
			return unfilter(idat, w, h, ch)
		}
	}
}

func unfilter(idat []byte, w, h, ch int) (*rgba, error) {
	zr, err := zlib.NewReader(bytes.NewReader(idat))
	if err != nil {
		return nil, &pngError{msg: "IDAT is not zlib: " + err.Error()}
	}
	want := (w*ch + 1) * h
	raw := make([]byte, want)
	if _, err := io.ReadFull(zr, raw); err != nil {
		return nil, &pngError{msg: "IDAT inflates to less than the image size"}
	}
	if n, _ := zr.Read(make([]byte, 1)); n != 0 {
		return nil, &pngError{msg: "IDAT inflates to more than the image size"}
	}
	stride := w * ch
	prev := make([]byte, stride)
	out := &rgba{w: w, h: h, pix: make([]byte, w*h*4)}
	for y := 0; y < h; y++ {
		row := raw[y*(stride+1)+1 : (y+1)*(stride+1)]
		ft := raw[y*(stride+1)]
		for i := range row {
			var a, c byte
			if i >= ch {
				a, c = row[i-ch], prev[i-ch]
			}
			up := prev[i]
			switch ft {
			case 0:
			case 1:
				row[i] += a
			case 2:
				row[i] += up
			case 3:
				row[i] += byte((int(a) + int(up)) / 2)
			case 4:
				row[i] += paeth(a, up, c)
			default:
				return nil, &pngError{msg: fmt.Sprintf("row %d has filter type %d", y, ft)}
			}
		}
		for x := 0; x < w; x++ {
			o := (y*w + x) * 4
			copy(out.pix[o:o+3], row[x*ch:x*ch+3])
			if ch == 4 {
				out.pix[o+3] = row[x*ch+3]
			} else {
				out.pix[o+3] = 255
			}
		}
		prev = row
	}
	return out, nil
}

// paeth prefers left, then up, then upper-left on ties.
func paeth(a, b, c byte) byte {
	p := int(a) + int(b) - int(c)
	pa, pb, pc := abs(p-int(a)), abs(p-int(b)), abs(p-int(c))
	switch {
	case pa <= pb && pa <= pc:
		return a
	case pb <= pc:
		return b
	}
	return c
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

func readScreenshot(op, side string, m CompareWebScreenshotsInputBefore, maxPixels int) (*rgba, string, error) {
	b, err := base64.StdEncoding.Strict().DecodeString(m.DataBase64)
	if err != nil {
		return nil, "", core.InvalidRequest(op, core.Issue{Path: []any{side, "data_base64"}, Reason: core.ReasonInvalidFormat, Message: "not canonical base64"})
	}
	sum := sha256.Sum256(b)
	h := hex.EncodeToString(sum[:])
	if m.SHA256 != "" && m.SHA256 != h {
		return nil, "", core.InvalidRequest(op, core.Issue{Path: []any{side, "sha256"}, Reason: core.ReasonInvalidValue, Message: "sha256 does not match data_base64"})
	}
	if m.URI != nil && *m.URI != "rea://web-screenshot/sha256/"+h {
		return nil, "", core.InvalidRequest(op, core.Issue{Path: []any{side, "uri"}, Reason: core.ReasonInvalidValue, Message: "uri does not name data_base64's digest"})
	}
	if m.Bytes != 0 && m.Bytes != len(b) {
		return nil, "", core.InvalidRequest(op, core.Issue{Path: []any{side, "bytes"}, Reason: core.ReasonInvalidValue, Message: "bytes does not match data_base64"})
	}
	img, err := decodePNG(b, maxPixels)
	if err != nil {
		var pe *pngError
		errors.As(err, &pe)
		switch {
		case pe != nil && pe.memory:
			return nil, "", &core.Error{Code: core.CodeResourceConstraint, Message: op + ": " + side + ": " + err.Error(),
				Details: map[string]any{"operation": op, "resource": "memory"}}
		case pe != nil && pe.unsupported:
			return nil, "", &core.Error{Code: core.CodeUnsupportedTarget, Message: op + ": " + side + ": " + err.Error(),
				Details: map[string]any{"operation": op, "reason": "unsupported_png"}}
		}
		return nil, "", core.InvalidRequest(op, core.Issue{Path: []any{side, "data_base64"}, Reason: core.ReasonInvalidValue, Message: "malformed PNG: " + err.Error()})
	}
	return img, h, nil
}

func handleCompareScreenshots(ctx context.Context, c *core.Call) (any, error) {
	op := c.Op.Name
	in, err := core.Input[CompareWebScreenshotsInput](c)
	if err != nil {
		return nil, err
	}
	maxPx := intOr(in.MaximumPixels, defaultMaxPixels)
	thr := intOr(in.ChannelThreshold, 0)
	var links []core.EvidenceID
	for _, side := range []struct {
		name string
		dst  *CompareWebScreenshotsInputBefore
	}{{"before", &in.Before}, {"after", &in.After}} {
		id, err := retainedScreenshot(c, side.name, side.dst)
		if err != nil {
			return nil, err
		}
		if id != "" && !slices.Contains(links, id) {
			links = append(links, id)
		}
	}
	before, bh, err := readScreenshot(op, "before", in.Before, maxPx)
	if err != nil {
		return nil, err
	}
	after, ah, err := readScreenshot(op, "after", in.After, maxPx)
	if err != nil {
		return nil, err
	}
	// The Evidence keeps a retained reference as sent and an inline PNG as
	// its digest: the answer repeats the parameters, and two 70 KB
	// screenshots came back as base64 before.
	for side, h := range map[string]string{"before": bh, "after": ah} {
		if m, _ := c.Args[side].(map[string]any); m["kind"] != "retained-evidence" {
			c.Args[side] = map[string]any{"kind": "inline", "sha256": h}
		}
	}
	res := &CompareWebScreenshotsResult{SchemaVersion: 1,
		Before:           CompareWebScreenshotsResultBefore{Width: before.w, Height: before.h, SHA256: bh},
		After:            CompareWebScreenshotsResultBefore{Width: after.w, Height: after.h, SHA256: ah},
		ChannelThreshold: thr, Regions: []CompareWebScreenshotsResultRegion{},
		Limitations: []string{"Pixels are compared channel by channel in RGBA (RGB images get alpha 255); colour profiles and gamma chunks are ignored."}}
	if before.w != after.w || before.h != after.h {
		res.Status = "dimension_mismatch"
		return &core.Observation{Result: res, Unbound: true, Confidence: core.ConfidenceDerived, Predicate: "rea.web-screenshot-diff/v1", Links: links}, nil
	}
	w, h := before.w, before.h
	cw, chh := (w+regionCell-1)/regionCell, (h+regionCell-1)/regionCell
	cells := make([]int, cw*chh)
	changed, maxDelta := 0, 0
	var sum, lumaSum float64
	for y := 0; y < h; y++ {
		if y%256 == 0 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		for x := 0; x < w; x++ {
			o := (y*w + x) * 4
			hit := false
			for k := 0; k < 4; k++ {
				d := abs(int(before.pix[o+k]) - int(after.pix[o+k]))
				sum += float64(d)
				maxDelta = max(maxDelta, d)
				if d > thr {
					hit = true
				}
			}
			lumaSum += absf(luma(before.pix[o:]) - luma(after.pix[o:]))
			if hit {
				changed++
				cells[(y/regionCell)*cw+x/regionCell]++
			}
		}
	}
	px := w * h
	status := "identical"
	if changed > 0 {
		status = "different"
	}
	regions := regionsOf(cells, cw, chh, w, h)
	omitted := 0
	if len(regions) > maxRegions {
		omitted = len(regions) - maxRegions
		regions = regions[:maxRegions]
	}
	ratio, mean := float64(changed)/float64(px), sum/float64(4*px)
	lumaDelta, dist := lumaSum/float64(px), popcount(dhash(before)^dhash(after))
	res.Status, res.ComparedPixels, res.ChangedPixels = status, px, &changed
	res.ChangedRatio = &ratio
	res.MaximumChannelDelta, res.MeanChannelDelta = &maxDelta, &mean
	res.Perceptual = &CompareWebScreenshotsResultPerceptual{MeanLumaDelta: &lumaDelta, DhashDistance: &dist}
	res.Regions, res.OmittedRegions = regions, omitted
	return &core.Observation{Result: res, Unbound: true, Confidence: core.ConfidenceDerived, Predicate: "rea.web-screenshot-diff/v1", Links: links}, nil
}

// retainedScreenshot reads the artifact of the capture_web_screenshot
// Evidence the argument side names into dst, when it is a retained
// reference, and returns the Evidence's ID ("" for an inline artifact).
func retainedScreenshot(c *core.Call, side string, dst *CompareWebScreenshotsInputBefore) (core.EvidenceID, error) {
	if m, _ := c.Args[side].(map[string]any); m["kind"] != "retained-evidence" {
		return "", nil
	}
	ev, err := c.EvidenceArg(side)
	if err != nil {
		return "", err
	}
	if ev.Operation != "capture_web_screenshot" || ev.PredicateType != "rea.web-screenshot/v1" {
		return "", &core.Error{Code: core.CodeEvidenceIntegrityMismatch,
			Message:     fmt.Sprintf("evidence %s: wrong operation (expected capture_web_screenshot, got %s)", ev.EvidenceID, ev.Operation),
			Remediation: "Pass capture_web_screenshot Evidence recorded on this connection, or its artifact inline.",
			Details:     map[string]any{"evidence_id": string(ev.EvidenceID), "reason": "wrong_operation", "expected": "capture_web_screenshot", "actual": ev.Operation}}
	}
	var r struct {
		Artifact CompareWebScreenshotsInputBefore `json:"artifact"`
	}
	if err := json.Unmarshal(ev.NormalizedResult, &r); err != nil {
		return "", core.InvalidRequest(c.Op.Name, core.Issue{Path: []any{side}, Reason: core.ReasonInvalidValue, Message: "retained screenshot does not decode: " + err.Error()})
	}
	*dst = r.Artifact
	c.KeepReference(side, ev)
	return ev.EvidenceID, nil
}

func absf(x float64) float64 {
	if x < 0 {
		return -x
	}
	return x
}

// luma is Rec. 601 luma of an RGBA pixel composited over white.
func luma(p []byte) float64 {
	a := float64(p[3]) / 255
	c := func(v byte) float64 { return float64(v)*a + 255*(1-a) }
	return 0.299*c(p[0]) + 0.587*c(p[1]) + 0.114*c(p[2])
}

// dhash is a 64-bit difference hash over a 9×8 luma thumbnail.
func dhash(img *rgba) uint64 {
	var g [8][9]float64
	for gy := 0; gy < 8; gy++ {
		for gx := 0; gx < 9; gx++ {
			x0, x1 := gx*img.w/9, max((gx+1)*img.w/9, gx*img.w/9+1)
			y0, y1 := gy*img.h/8, max((gy+1)*img.h/8, gy*img.h/8+1)
			var s float64
			n := 0
			for y := y0; y < min(y1, img.h); y++ {
				for x := x0; x < min(x1, img.w); x++ {
					s += luma(img.pix[(y*img.w+x)*4:])
					n++
				}
			}
			if n > 0 {
				g[gy][gx] = s / float64(n)
			}
		}
	}
	var hsh uint64
	for y := 0; y < 8; y++ {
		for x := 0; x < 8; x++ {
			hsh <<= 1
			if g[y][x] > g[y][x+1] {
				hsh |= 1
			}
		}
	}
	return hsh
}

func popcount(x uint64) int {
	n := 0
	for ; x != 0; x &= x - 1 {
		n++
	}
	return n
}

// regionsOf groups 8-connected changed cells into bounding boxes, largest
// (by changed pixels) first, then by position.
func regionsOf(cells []int, cw, ch, w, h int) []CompareWebScreenshotsResultRegion {
	seen := make([]bool, len(cells))
	type region struct{ x0, y0, x1, y1, n int }
	var rs []region
	for i, v := range cells {
		if v == 0 || seen[i] {
			continue
		}
		r := region{x0: i % cw, y0: i / cw, x1: i % cw, y1: i / cw}
		stack := []int{i}
		seen[i] = true
		for len(stack) > 0 {
			j := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			x, y := j%cw, j/cw
			r.n += cells[j]
			r.x0, r.y0, r.x1, r.y1 = min(r.x0, x), min(r.y0, y), max(r.x1, x), max(r.y1, y)
			for dy := -1; dy <= 1; dy++ {
				for dx := -1; dx <= 1; dx++ {
					nx, ny := x+dx, y+dy
					if nx < 0 || ny < 0 || nx >= cw || ny >= ch {
						continue
					}
					k := ny*cw + nx
					if cells[k] > 0 && !seen[k] {
						seen[k] = true
						stack = append(stack, k)
					}
				}
			}
		}
		rs = append(rs, r)
	}
	sort.Slice(rs, func(i, j int) bool {
		if rs[i].n != rs[j].n {
			return rs[i].n > rs[j].n
		}
		if rs[i].y0 != rs[j].y0 {
			return rs[i].y0 < rs[j].y0
		}
		return rs[i].x0 < rs[j].x0
	})
	out := make([]CompareWebScreenshotsResultRegion, len(rs))
	for i, r := range rs {
		x, y := r.x0*regionCell, r.y0*regionCell
		out[i] = CompareWebScreenshotsResultRegion{X: x, Y: y, Width: min((r.x1+1)*regionCell, w) - x, Height: min((r.y1+1)*regionCell, h) - y, ChangedPixels: r.n}
	}
	return out
}
