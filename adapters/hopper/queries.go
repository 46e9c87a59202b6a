package hopper

import (
	"context"
	"encoding/hex"
	"fmt"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"sync"

	"rea/ports"
)

const (
	pageLimit = 500
	maxPages  = 1_000_000/pageLimit + 1
	readChunk = 4096 // the bridge's read_bytes maximum
)

var addressRE struct {
	sync.Once
	re *regexp.Regexp
}

// addressPattern is compiled on first use, so the package has no start-up
// work.
func addressPattern() *regexp.Regexp {
	addressRE.Do(func() { addressRE.re = regexp.MustCompile(`^0x[0-9a-f]{1,16}$`) })
	return addressRE.re
}

// parseAddress reads bridge address text ("0x" and lowercase hex).
func parseAddress(s string) (uint64, error) {
	if !addressPattern().MatchString(s) {
		return 0, fmt.Errorf("%w: address %q out of shape", errProtocol, s)
	}
	return strconv.ParseUint(s[2:], 16, 64)
}

func formatAddress(a uint64) string { return fmt.Sprintf("0x%x", a) }

type item struct {
	Address    string  `json:"address"`
	Value      string  `json:"value"`
	Truncated  bool    `json:"value_truncated"`
	ByteLength *int    `json:"byte_length"`
	End        *string `json:"end"` // list_procedures: the procedure's exclusive end, when Hopper knows it
}

type page struct {
	Items      []item `json:"items"`
	Offset     int    `json:"offset"`
	Limit      int    `json:"limit"`
	Total      int    `json:"total"`
	NextOffset *int   `json:"next_offset"`
	HasMore    bool   `json:"has_more"`
}

// pages collects a whole paged inventory, sorted by address then value.
func (a *Analysis) pages(ctx context.Context, method string) ([]item, error) {
	var all []item
	offset := 0
	for range maxPages {
		var p page
		if err := a.query(ctx, method, map[string]any{"offset": offset, "limit": pageLimit}, &p); err != nil {
			return nil, err
		}
		all = append(all, p.Items...)
		if !p.HasMore {
			sort.SliceStable(all, func(i, j int) bool {
				if all[i].Address != all[j].Address {
					ai, _ := parseAddress(all[i].Address)
					aj, _ := parseAddress(all[j].Address)
					return ai < aj
				}
				return all[i].Value < all[j].Value
			})
			return all, nil
		}
		if p.NextOffset == nil || *p.NextOffset <= offset {
			return nil, fmt.Errorf("hopper: %s: %w: page does not advance", method, errProtocol)
		}
		offset = *p.NextOffset
	}
	return nil, fmt.Errorf("hopper: %s: %w: too many pages", method, errProtocol)
}

// Documents lists the document Hopper opened.
func (a *Analysis) Documents(ctx context.Context) ([]ports.Document, error) {
	var names []string
	if err := a.query(ctx, "list_documents", map[string]any{}, &names); err != nil {
		return nil, err
	}
	out := make([]ports.Document, 0, len(names))
	for _, n := range names {
		out = append(out, ports.Document{Name: n, Format: a.target.Format, Architecture: a.target.Architecture})
	}
	return out, nil
}

type segmentJSON struct {
	Name       string  `json:"name"`
	Start      string  `json:"start"`
	End        string  `json:"end"`
	FileOffset *uint64 `json:"file_offset"`
	FileBytes  uint64  `json:"file_bytes"`
}

// Segments lists Hopper's segments in address order. Hopper reports no
// permissions (PROVIDERS.md §2.4), so none are claimed.
func (a *Analysis) Segments(ctx context.Context) ([]ports.Segment, error) {
	var raw []segmentJSON
	if err := a.query(ctx, "list_segments", map[string]any{}, &raw); err != nil {
		return nil, err
	}
	out := make([]ports.Segment, 0, len(raw))
	for _, s := range raw {
		start, err := parseAddress(s.Start)
		if err != nil {
			return nil, err
		}
		end, err := parseAddress(s.End)
		if err != nil {
			return nil, err
		}
		if end < start {
			return nil, fmt.Errorf("%w: segment %q ends before it starts", errProtocol, s.Name)
		}
		seg := ports.Segment{Name: s.Name, Kind: "segment", Start: start, Size: end - start}
		if s.FileOffset != nil && s.FileBytes > 0 && *s.FileOffset+s.FileBytes >= *s.FileOffset &&
			(a.target.Size <= 0 || *s.FileOffset+s.FileBytes <= uint64(a.target.Size)) {
			seg.FileOffset, seg.FileSize = *s.FileOffset, min(s.FileBytes, seg.Size)
		}
		out = append(out, seg)
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Start < out[j].Start })
	a.cacheMu.Lock()
	a.segs, a.hasSegs = out, true
	a.cacheMu.Unlock()
	return slices.Clone(out), nil
}

// Procedures lists Hopper's procedures by entry point, each address once.
// The list is kept until a rename (renamed) drops it.
func (a *Analysis) Procedures(ctx context.Context) ([]ports.Procedure, error) {
	if err := a.lazy.Usable(ctx); err != nil {
		return nil, err
	}
	a.cacheMu.Lock()
	procs := a.procs
	a.cacheMu.Unlock()
	if procs != nil {
		return slices.Clone(procs), nil
	}
	raw, err := a.pages(ctx, "list_procedures")
	if err != nil {
		return nil, err
	}
	out := make([]ports.Procedure, 0, len(raw))
	ranges := make([]ports.FunctionRange, 0, len(raw))
	for _, r := range raw {
		addr, err := parseAddress(r.Address)
		if err != nil {
			return nil, err
		}
		if len(out) > 0 && out[len(out)-1].Address == addr {
			continue
		}
		p := ports.Procedure{Address: addr, Name: r.Value, Source: "symbol"}
		end := addr
		if r.End != nil {
			e, err := parseAddress(*r.End)
			if err != nil {
				return nil, err
			}
			if e >= addr {
				end, p.Size = e, e-addr
			}
		}
		out = append(out, p)
		ranges = append(ranges, ports.FunctionRange{Start: addr, End: end, EndSource: endSource})
	}
	a.cacheMu.Lock()
	a.procs, a.ranges = out, ranges
	a.cacheMu.Unlock()
	return slices.Clone(out), nil
}

// endSource names where a Hopper procedure's end comes from: the end of its
// last basic block.
const endSource = "hopper-basic-blocks"

// Names lists Hopper's named addresses, sorted by address then name.
func (a *Analysis) Names(ctx context.Context) ([]ports.Name, error) {
	raw, err := a.pages(ctx, "list_names")
	if err != nil {
		return nil, err
	}
	out := make([]ports.Name, 0, len(raw))
	for _, r := range raw {
		addr, err := parseAddress(r.Address)
		if err != nil {
			return nil, err
		}
		if r.Value == "" {
			continue
		}
		out = append(out, ports.Name{Address: addr, Name: r.Value, Kind: "label"})
	}
	return out, nil
}

// Strings lists the strings Hopper found, sorted by address.
func (a *Analysis) Strings(ctx context.Context) ([]ports.String, error) {
	raw, err := a.pages(ctx, "list_strings")
	if err != nil {
		return nil, err
	}
	segs, err := a.segments(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]ports.String, 0, len(raw))
	for _, r := range raw {
		addr, err := parseAddress(r.Address)
		if err != nil {
			return nil, err
		}
		if r.Value == "" {
			continue
		}
		if !isASCII(r.Value) {
			continue // ports knows ASCII and UTF-16LE literals; Hopper does not say which encoding it decoded
		}
		s := ports.String{Address: addr, Value: r.Value, Charset: "ascii", ByteLength: len(r.Value)}
		if r.Truncated && r.ByteLength != nil && *r.ByteLength > len(r.Value) {
			s.Truncated, s.ByteLength = true, *r.ByteLength
		}
		if seg, ok := segmentAt(segs, addr); ok {
			s.Section = seg.Name
			if seg.FileSize > 0 && addr-seg.Start < seg.FileSize {
				s.FileOffset = seg.FileOffset + addr - seg.Start
			}
		}
		out = append(out, s)
	}
	return out, nil
}

func (a *Analysis) segments(ctx context.Context) ([]ports.Segment, error) {
	a.cacheMu.Lock()
	segs, ok := a.segs, a.hasSegs
	a.cacheMu.Unlock()
	if ok {
		return segs, nil
	}
	return a.Segments(ctx)
}

func (a *Analysis) procedures(ctx context.Context) ([]ports.Procedure, error) {
	a.cacheMu.Lock()
	procs := a.procs
	a.cacheMu.Unlock()
	if procs != nil {
		return procs, nil
	}
	return a.Procedures(ctx)
}

func segmentAt(segs []ports.Segment, addr uint64) (ports.Segment, bool) {
	for _, s := range segs {
		if addr >= s.Start && addr-s.Start < s.Size {
			return s, true
		}
	}
	return ports.Segment{}, false
}

type bytesJSON struct {
	Address  string `json:"address"`
	Returned int    `json:"returned_bytes"`
	Hex      string `json:"bytes_hex"`
}

// ReadBytes reads up to n bytes at addr, bounded by the segment's file
// bytes, through the bridge in 4 KiB requests. ErrNotFound when addr is in
// no segment with file bytes.
func (a *Analysis) ReadBytes(ctx context.Context, addr uint64, n int) ([]byte, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	segs, err := a.segments(ctx)
	if err != nil {
		return nil, err
	}
	var seg ports.Segment
	found := false
	for _, s := range segs {
		if s.FileSize > 0 && addr >= s.Start && addr-s.Start < s.FileSize {
			seg, found = s, true
			break
		}
	}
	if !found {
		return nil, fmt.Errorf("hopper: no segment with file bytes maps %s: %w", formatAddress(addr), ports.ErrNotFound)
	}
	if n <= 0 {
		return []byte{}, nil
	}
	want := min(uint64(n), seg.FileSize-(addr-seg.Start))
	out := make([]byte, 0, want)
	for uint64(len(out)) < want {
		at := addr + uint64(len(out))
		chunk := min(want-uint64(len(out)), readChunk)
		var r bytesJSON
		if err := a.query(ctx, "read_bytes", map[string]any{"address": formatAddress(at), "length": chunk}, &r); err != nil {
			return nil, err
		}
		b, err := hex.DecodeString(r.Hex)
		if err != nil || len(b) != r.Returned || uint64(len(b)) > chunk || r.Address != formatAddress(at) {
			return nil, fmt.Errorf("hopper: read_bytes: %w: reply out of shape", errProtocol)
		}
		if len(b) == 0 {
			break
		}
		out = append(out, b...)
	}
	return out, nil
}

// Decompile returns Hopper's pseudo-code of the procedure starting at addr
// (ErrNotFound where none starts).
func (a *Analysis) Decompile(ctx context.Context, addr uint64) (ports.Pseudocode, error) {
	if err := ctx.Err(); err != nil {
		return ports.Pseudocode{}, err
	}
	procs, err := a.procedures(ctx)
	if err != nil {
		return ports.Pseudocode{}, err
	}
	if _, ok := slices.BinarySearchFunc(procs, addr, func(p ports.Procedure, a uint64) int {
		switch {
		case p.Address < a:
			return -1
		case p.Address > a:
			return 1
		}
		return 0
	}); !ok {
		return ports.Pseudocode{}, fmt.Errorf("hopper: no procedure starts at %s: %w", formatAddress(addr), ports.ErrNotFound)
	}
	var text string
	if err := a.query(ctx, "procedure_pseudo_code", map[string]any{"procedure": formatAddress(addr)}, &text); err != nil {
		return ports.Pseudocode{}, err
	}
	if text == "" {
		return ports.Pseudocode{}, fmt.Errorf("hopper: empty pseudo-code for %s: %w", formatAddress(addr), ports.ErrUnsupported)
	}
	return ports.Pseudocode{Text: text}, nil
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] > 0x7f {
			return false
		}
	}
	return true
}
