package process

import (
	"encoding/json"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/matryer/is"

	"rea/core"
)

// syntheticTrace is a trace of n hits of two breakpoints, each hit with a
// text argument of about width bytes, none when width is negative (widths vary by a byte from hit to hit so
// that sizes land on either side of the page's budget).
func syntheticTrace(n, width int) (*TraceNativeCallsResult, map[string]any) {
	r := &TraceNativeCallsResult{Program: TraceProgram{SHA256: strings.Repeat("a", 64)}, Convention: "sysv", Architecture: "x86-64",
		Breakpoints: []TraceBreakpoint{{Name: "f", Address: "0x1000", Parameters: []TraceParameter{}}, {Name: "g", Address: "0x1100", Parameters: []TraceParameter{}}},
		Coverage:    TraceCoverage{StopReason: "exited", Notes: []string{}}}
	var raw []any
	for i := range n {
		h := TraceHit{Sequence: i, Breakpoint: i % 2, Name: "f", Address: "0x1000", Arguments: []TraceArgument{}, Caller: core.OptString("0x1161")}
		if width >= 0 {
			text := strings.Repeat("x", width+i%3) + "<&>" // json.Marshal escapes these: sizes must count it
			h.Arguments = append(h.Arguments, TraceArgument{Register: "rdi", Value: "0x1", String: &TraceString{Text: &text}})
		}
		r.Hits = append(r.Hits, h)
		raw = append(raw, map[string]any{"sequence": i})
	}
	return r, map[string]any{"hits": raw, "modules": []any{}}
}

// oldPage is the page as tracePage made it when it encoded the whole
// result to measure it and each candidate page again.
func oldPage(result *TraceNativeCallsResult) (paged bool, hits int) {
	if len(result.Hits) <= tracePageHits {
		return false, 0
	}
	if b, err := json.Marshal(result); err == nil && len(b) <= tracePageBytes {
		return false, 0
	}
	page := pageHead(result)
	n := min(len(result.Hits), tracePageHits)
	for ; ; n /= 2 {
		page.Hits = result.Hits[:n]
		if b, err := json.Marshal(&page); n <= tracePageMinHits || (err == nil && len(b) <= tracePageBytes) {
			break
		}
	}
	return true, n
}

// pageHead is a page of result without its hits.
func pageHead(result *TraceNativeCallsResult) TraceNativeCallsResult {
	page := *result
	total := len(result.Hits)
	page.Coverage.HitsRecorded = &total
	page.Breakpoints = slices.Clone(result.Breakpoints)
	counts := make([]int, len(page.Breakpoints))
	for _, h := range result.Hits {
		counts[h.Breakpoint]++
	}
	for i := range page.Breakpoints {
		page.Breakpoints[i].Hits = &counts[i]
	}
	return page
}

// withText gives r's first hit an argument pointing at l bytes of text.
func withText(r *TraceNativeCallsResult, l int) *TraceNativeCallsResult {
	c := *r
	c.Hits = slices.Clone(r.Hits)
	text := strings.Repeat("y", l)
	c.Hits[0].Arguments = []TraceArgument{{Register: "rdi", Value: "0x1", String: &TraceString{Text: &text}}}
	return &c
}

func encodedLen(t *testing.T, v any) int {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return len(b)
}

// pageOfTrace measures without encoding every hit, and pages exactly as
// encoding the whole did: the same traces stay whole, and a page lists as
// many hits, across the budget's edge (a byte more or less per hit) and
// for pages of each length.
func TestPageOfTraceAsEncodingTheWholeDid(t *testing.T) {
	for _, n := range []int{64, 65, 66, 80, 130, 400} {
		for _, width := range []int{-1, 0, 5, 10, 20, 40, 100, 160, 170, 175, 180, 185, 190, 200, 230, 300, 400, 600, 1200, 2500} {
			r, raw := syntheticTrace(n, width)
			wantPaged, wantHits := oldPage(r)
			page, pageRaw := pageOfTrace(r, raw)
			if (page != nil) != wantPaged || (page != nil && len(page.Hits) != wantHits) {
				got := -1
				if page != nil {
					got = len(page.Hits)
				}
				t.Errorf("%d hits of %d bytes: paged %v (%d hits), want %v (%d hits)", n, width, page != nil, got, wantPaged, wantHits)
				continue
			}
			if page != nil {
				rh, _ := pageRaw["hits"].([]any)
				if len(rh) != wantHits || *page.Coverage.HitsRecorded != n || *page.Breakpoints[0].Hits+*page.Breakpoints[1].Hits != n {
					t.Errorf("%d hits of %d bytes: the page's raw hits or counts are wrong", n, width)
				}
			}
		}
	}
}

// At the budget's very edge: a trace of 65 hits exactly tracePageBytes
// long stays whole and one a byte longer is paged; a page of 64 hits
// exactly that long lists 64, and one a byte longer 32.
func TestPageOfTraceAtTheEdge(t *testing.T) {
	is := is.New(t)
	small, raw := syntheticTrace(65, -1)
	whole := tracePageBytes - encodedLen(t, withText(small, 0))
	for l, paged := range map[int]bool{whole - 1: false, whole: false, whole + 1: true} {
		page, _ := pageOfTrace(withText(small, l), raw)
		is.Equal(page != nil, paged)
	}
	large, raw := syntheticTrace(100, -1)
	head := pageHead(withText(large, 0))
	head.Hits = head.Hits[:tracePageHits]
	full := tracePageBytes - encodedLen(t, &head)
	for l, want := range map[int]int{full - 1: 64, full: 64, full + 1: 32} {
		page, _ := pageOfTrace(withText(large, l), raw)
		is.True(page != nil)
		is.Equal(len(page.Hits), want)
		_, old := oldPage(withText(large, l))
		is.Equal(old, want)
	}
}

// Deciding whether a large trace is paged allocates about the page, not
// the trace: before, tracePage encoded all of it to measure it (and the
// kernel then encoded it again to seal it), 10 MB here for 20,000 hits.
func TestPageOfTraceDoesNotEncodeEveryHit(t *testing.T) {
	is := is.New(t)
	r, raw := syntheticTrace(20000, 400)
	whole, err := json.Marshal(r)
	is.NoErr(err)
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	page, _ := pageOfTrace(r, raw)
	runtime.ReadMemStats(&after)
	is.True(page != nil)
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > uint64(len(whole))/8 {
		t.Errorf("paging a trace of %d bytes allocated %d bytes", len(whole), alloc)
	}
}

// BenchmarkPageOfTrace pages a trace of 10,000 hits (the default
// max_hits) as tracePage does now ("measured") and as it did when it
// encoded the whole trace to measure it ("encoded").
func BenchmarkPageOfTrace(b *testing.B) {
	r, raw := syntheticTrace(10000, 40)
	b.Run("measured", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			pageOfTrace(r, raw)
		}
	})
	b.Run("encoded", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			oldPage(r)
		}
	})
}
