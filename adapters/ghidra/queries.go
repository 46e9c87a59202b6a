package ghidra

import (
	"context"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"unicode/utf16"
	"unicode/utf8"

	"rea/ports"
)

// pageLimit is the page size rea asks for (the bridge's maximum).
const pageLimit = 500

// maxPages bounds a paged inventory (the bridge refuses more than 1,000,000
// items anyway).
const maxPages = 1_000_000/pageLimit + 1

// addressPattern is compiled on first use (a package-level sync.OnceValue
// is init code every rea process runs).
var addressOnce struct {
	sync.Once
	re *regexp.Regexp
}

func addressPattern() *regexp.Regexp {
	addressOnce.Do(func() {
		addressOnce.re = regexp.MustCompile(`^(?:0x[0-9a-f]+|(?:[A-Za-z0-9._~-]|%[0-9A-F]{2})+:0x[0-9a-f]+)$`)
	})
	return addressOnce.re
}

// parseAddress reads bridge address text. Only the default space maps onto
// ports' uint64 addresses; other spaces (EXTERNAL:0x...) report ok false.
func parseAddress(s string) (addr uint64, ok bool, err error) {
	if !addressPattern().MatchString(s) || len(s) > 4096 {
		return 0, false, fmt.Errorf("%w: address %q out of shape", errProtocol, s)
	}
	if !strings.HasPrefix(s, "0x") {
		return 0, false, nil
	}
	v, err := strconv.ParseUint(s[2:], 16, 64)
	if err != nil {
		return 0, false, fmt.Errorf("%w: address %q over 64 bits", errProtocol, s)
	}
	return v, true, nil
}

func formatAddress(a uint64) string { return fmt.Sprintf("0x%x", a) }

type pageJSON[T any] struct {
	Items      []T  `json:"items"`
	Offset     int  `json:"offset"`
	Limit      int  `json:"limit"`
	Total      int  `json:"total"`
	NextOffset *int `json:"next_offset"`
	HasMore    bool `json:"has_more"`
}

// pages collects a whole paged inventory.
func pages[T any](ctx context.Context, a *Analysis, method string, extra map[string]any) ([]T, error) {
	var all []T
	offset := 0
	for range maxPages {
		params := map[string]any{"document": nil, "offset": offset, "limit": pageLimit}
		for k, v := range extra {
			params[k] = v
		}
		var p pageJSON[T]
		if err := a.query(ctx, method, params, &p); err != nil {
			return nil, err
		}
		all = append(all, p.Items...)
		if !p.HasMore {
			return all, nil
		}
		if p.NextOffset == nil || *p.NextOffset <= offset {
			return nil, fmt.Errorf("ghidra: %s: %w: page does not advance", method, errProtocol)
		}
		offset = *p.NextOffset
	}
	return nil, fmt.Errorf("ghidra: %s: %w: too many pages", method, errProtocol)
}

// Documents lists the one program Ghidra imported.
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
	Name        string  `json:"name"`
	Start       string  `json:"start"`
	End         string  `json:"end"`
	Readable    bool    `json:"readable"`
	Writable    bool    `json:"writable"`
	Executable  bool    `json:"executable"`
	Initialized bool    `json:"initialized"`
	FileOffset  *uint64 `json:"file_offset"`
	FileBytes   uint64  `json:"file_bytes"`
}

// Segments lists Ghidra's memory blocks (each a "section") in the default
// address space, in address order.
func (a *Analysis) Segments(ctx context.Context) ([]ports.Segment, error) {
	var raw []segmentJSON
	if err := a.query(ctx, "list_segments", map[string]any{"document": nil}, &raw); err != nil {
		return nil, err
	}
	var out []ports.Segment
	for _, s := range raw {
		start, ok1, err := parseAddress(s.Start)
		if err != nil {
			return nil, err
		}
		end, ok2, err := parseAddress(s.End)
		if err != nil {
			return nil, err
		}
		if !ok1 || !ok2 || end < start {
			continue // another address space: not a uint64 address
		}
		seg := ports.Segment{Name: s.Name, Kind: "section", Start: start, Size: end - start,
			Perms: ports.Permissions{Read: s.Readable, Write: s.Writable, Execute: s.Executable}}
		if s.FileOffset != nil && s.Initialized && s.FileBytes > 0 && *s.FileOffset+s.FileBytes >= *s.FileOffset &&
			(a.target.Size <= 0 || *s.FileOffset+s.FileBytes <= uint64(a.target.Size)) {
			seg.FileOffset, seg.FileSize = *s.FileOffset, s.FileBytes
		}
		out = append(out, seg)
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Start < out[j].Start })
	a.cacheMu.Lock()
	a.segs = out
	a.cacheMu.Unlock()
	return clone(out), nil
}

type procedureJSON struct {
	Address   string `json:"address"`
	Value     string `json:"value"`
	Truncated bool   `json:"value_truncated"`
	Procedure struct {
		External    bool    `json:"external"`
		Thunk       bool    `json:"thunk"`
		ThunkTarget *string `json:"thunk_target"`
	} `json:"procedure"`
	BodySize uint64  `json:"body_size"`
	BodyEnd  *string `json:"body_end"`
}

// Procedures lists Ghidra's functions in the default space, sorted by
// address, each address once; external functions live in the EXTERNAL
// space and have no uint64 address, so they are not listed.
func (a *Analysis) Procedures(ctx context.Context) ([]ports.Procedure, error) {
	raw, err := pages[procedureJSON](ctx, a, "list_procedures", nil)
	if err != nil {
		return nil, err
	}
	var out []ports.Procedure
	ends := map[uint64]uint64{}
	for _, r := range raw {
		addr, ok, err := parseAddress(r.Address)
		if err != nil {
			return nil, err
		}
		if !ok {
			continue
		}
		if r.BodyEnd != nil {
			end, ok, err := parseAddress(*r.BodyEnd)
			if err != nil {
				return nil, err
			}
			if ok && end >= addr {
				ends[addr] = end
			}
		}
		p := ports.Procedure{Address: addr, Name: r.Value, Source: "symbol", External: r.Procedure.External, Thunk: r.Procedure.Thunk}
		if addr+r.BodySize >= addr {
			p.Size = r.BodySize
		}
		if r.Procedure.ThunkTarget != nil && p.Thunk {
			p.ThunkTarget = *r.Procedure.ThunkTarget
		}
		out = append(out, p)
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Address < out[j].Address })
	out = dedup(out, func(p ports.Procedure) uint64 { return p.Address })
	ranges := make([]ports.FunctionRange, len(out))
	for i, p := range out {
		end, ok := ends[p.Address]
		if !ok {
			end = p.Address
		}
		ranges[i] = ports.FunctionRange{Start: p.Address, End: end, EndSource: endSource}
	}
	a.cacheMu.Lock()
	a.procs = out
	a.ranges = ranges
	a.loaded = true
	a.cacheMu.Unlock()
	return clone(out), nil
}

type nameJSON struct {
	Address string `json:"address"`
	Value   string `json:"value"`
	Symbol  struct {
		Primary  bool   `json:"primary"`
		External bool   `json:"external"`
		Type     string `json:"type"`
	} `json:"symbol"`
}

// Names lists Ghidra's symbols in the default space, sorted by address then
// name.
func (a *Analysis) Names(ctx context.Context) ([]ports.Name, error) {
	raw, err := pages[nameJSON](ctx, a, "list_names", map[string]any{"address": nil})
	if err != nil {
		return nil, err
	}
	var out []ports.Name
	for _, r := range raw {
		addr, ok, err := parseAddress(r.Address)
		if err != nil {
			return nil, err
		}
		if !ok || r.Value == "" {
			continue
		}
		kind := "label"
		switch {
		case r.Symbol.External:
			kind = "import"
		case r.Symbol.Type == "function":
			kind = "function"
		case r.Symbol.Type == "label" || r.Symbol.Type == "code":
			kind = "label"
		case r.Symbol.Type == "global_var" || r.Symbol.Type == "global" || r.Symbol.Type == "class":
			kind = "object"
		}
		out = append(out, ports.Name{Address: addr, Name: r.Value, Kind: kind})
	}
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].Address != out[j].Address {
			return out[i].Address < out[j].Address
		}
		return out[i].Name < out[j].Name
	})
	var uniq []ports.Name
	for i, n := range out {
		if i > 0 && n.Address == out[i-1].Address && n.Name == out[i-1].Name {
			continue
		}
		uniq = append(uniq, n)
	}
	return uniq, nil
}

type stringJSON struct {
	Address   string `json:"address"`
	Value     string `json:"value"`
	Truncated bool   `json:"value_truncated"`
	String    struct {
		Encoding   string `json:"encoding"`
		ByteLength int    `json:"byte_length"`
	} `json:"string"`
}

// Strings lists Ghidra's defined strings whose charset rea models (ASCII
// and UTF-16LE) and whose length agrees with their value, sorted by
// address. FileOffset is not reported by the bridge (0).
func (a *Analysis) Strings(ctx context.Context) ([]ports.String, error) {
	raw, err := pages[stringJSON](ctx, a, "list_strings", map[string]any{"address": nil})
	if err != nil {
		return nil, err
	}
	var out []ports.String
	for _, r := range raw {
		addr, ok, err := parseAddress(r.Address)
		if err != nil {
			return nil, err
		}
		if !ok || r.Value == "" || !utf8.ValidString(r.Value) || r.String.ByteLength <= 0 {
			continue
		}
		var charset string
		var encoded int
		switch strings.ToLower(r.String.Encoding) {
		case "us-ascii", "ascii", "utf-8":
			charset, encoded = "ascii", len(r.Value)
		case "utf-16", "utf-16le":
			charset, encoded = "utf-16le", 2*len(utf16.Encode([]rune(r.Value)))
		default:
			continue
		}
		if (!r.Truncated && encoded != r.String.ByteLength) || (r.Truncated && encoded >= r.String.ByteLength) {
			continue
		}
		out = append(out, ports.String{Address: addr, Value: r.Value, Charset: charset, ByteLength: r.String.ByteLength, Truncated: r.Truncated})
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Address < out[j].Address })
	return out, nil
}

// known returns the segments and procedures, listing them once.
func (a *Analysis) known(ctx context.Context) ([]ports.Segment, []ports.Procedure, error) {
	a.cacheMu.Lock()
	segs, procs, loaded := a.segs, a.procs, a.loaded
	a.cacheMu.Unlock()
	if loaded && segs != nil {
		return segs, procs, nil
	}
	var err error
	if segs, err = a.Segments(ctx); err != nil {
		return nil, nil, err
	}
	if procs, err = a.Procedures(ctx); err != nil {
		return nil, nil, err
	}
	return segs, procs, nil
}

// readChunk is the most rea asks the bridge for at once.
const readChunk = 256 << 10

// ReadBytes reads the file bytes at addr through the bridge, bounded by the
// segment's file bytes. An address in no segment with file bytes is
// ErrNotFound without asking the engine.
func (a *Analysis) ReadBytes(ctx context.Context, addr uint64, n int) ([]byte, error) {
	if err := a.usable(ctx); err != nil {
		return nil, err
	}
	segs, _, err := a.known(ctx)
	if err != nil {
		return nil, err
	}
	var seg *ports.Segment
	for i := range segs {
		s := &segs[i]
		if s.FileSize > 0 && addr >= s.Start && addr-s.Start < s.FileSize {
			seg = s
			break
		}
	}
	if seg == nil {
		return nil, fmt.Errorf("ghidra: read_bytes at 0x%x: no segment with file bytes: %w", addr, ports.ErrNotFound)
	}
	if n <= 0 {
		return []byte{}, nil
	}
	left := seg.FileSize - (addr - seg.Start)
	if uint64(n) < left {
		left = uint64(n)
	}
	out := make([]byte, 0, min(left, readChunk))
	for uint64(len(out)) < left {
		want := min(left-uint64(len(out)), readChunk)
		var r struct {
			Address string `json:"address"`
			Base64  string `json:"base64"`
		}
		at := addr + uint64(len(out))
		if err := a.query(ctx, "read_bytes", map[string]any{"document": nil, "address": formatAddress(at), "length": want}, &r); err != nil {
			return nil, err
		}
		b, err := base64.StdEncoding.DecodeString(r.Base64)
		if err != nil || uint64(len(b)) > want {
			return nil, fmt.Errorf("ghidra: read_bytes: %w: bad payload", errProtocol)
		}
		out = append(out, b...)
		if uint64(len(b)) < want {
			break
		}
	}
	return out, nil
}

// Decompile returns Ghidra's C for the procedure starting at addr. An
// address where no listed procedure starts is ErrNotFound (the bridge
// itself would resolve a containing function); an external or bodyless
// function is ErrUnsupported.
func (a *Analysis) Decompile(ctx context.Context, addr uint64) (ports.Pseudocode, error) {
	if err := a.usable(ctx); err != nil {
		return ports.Pseudocode{}, err
	}
	_, procs, err := a.known(ctx)
	if err != nil {
		return ports.Pseudocode{}, err
	}
	i := sort.Search(len(procs), func(i int) bool { return procs[i].Address >= addr })
	if i == len(procs) || procs[i].Address != addr {
		return ports.Pseudocode{}, fmt.Errorf("ghidra: decompile 0x%x: no procedure starts there: %w", addr, ports.ErrNotFound)
	}
	var text *string
	if err := a.query(ctx, "procedure_pseudo_code", map[string]any{"document": nil, "procedure": formatAddress(addr)}, &text); err != nil {
		return ports.Pseudocode{}, err
	}
	if text == nil || *text == "" {
		return ports.Pseudocode{}, fmt.Errorf("ghidra: decompile 0x%x: external or bodyless function: %w", addr, ports.ErrUnsupported)
	}
	return ports.Pseudocode{Text: *text}, nil
}

func clone[T any](s []T) []T { return append([]T(nil), s...) }

func dedup[T any](s []T, key func(T) uint64) []T {
	var out []T
	for i, v := range s {
		if i > 0 && key(v) == key(s[i-1]) {
			continue
		}
		out = append(out, v)
	}
	return out
}

type procedureInfoJSON struct {
	Name      string  `json:"name"`
	Signature *string `json:"signature"`
	Prototype *struct {
		CallingConvention string `json:"calling_convention"`
		ReturnType        string `json:"return_type"`
		Parameters        []struct {
			Name    string `json:"name"`
			Type    string `json:"type"`
			Storage string `json:"storage"`
		} `json:"parameters"`
		Variadic bool `json:"variadic"`
	} `json:"prototype"`
}

// Signature reads the prototype Ghidra's decompiler recovers (NativeAPI,
// Source "ghidra-high-function"). Where the decompiler has none (an
// external or bodyless procedure, no HighFunction) or fails on the
// procedure (decompile_failed), it reads the function database's prototype
// instead (procedure_info's prototype, a rea extension of the bridge;
// Source "ghidra-function-database"). An address where no listed procedure
// starts, or a procedure with neither, is ErrNotFound. The calling
// convention is Ghidra's name ("__stdcall", ...), "" when Ghidra has none;
// a parameter's Location is its storage's register in lower case, or
// "stack".
func (a *Analysis) Signature(ctx context.Context, addr uint64) (ports.Signature, error) {
	api, err := a.NativeAPI(ctx, addr)
	switch {
	case err == nil && api.Available:
		return highFunctionSignature(api), nil
	case err != nil && !fallsBack(err):
		return ports.Signature{}, err
	}
	var info procedureInfoJSON
	if err := a.query(ctx, "procedure_info", map[string]any{"document": nil, "procedure": formatAddress(addr)}, &info); err != nil {
		return ports.Signature{}, err
	}
	if info.Prototype == nil {
		return ports.Signature{}, fmt.Errorf("ghidra: signature 0x%x: no prototype: %w", addr, ports.ErrNotFound)
	}
	pr := info.Prototype
	sig := ports.Signature{ReturnType: pr.ReturnType, Variadic: pr.Variadic, Source: "ghidra-function-database",
		Parameters: []ports.Parameter{}}
	if cc := pr.CallingConvention; cc != "unknown" && cc != "default" {
		sig.CallingConvention = cc
	}
	for _, p := range pr.Parameters {
		sig.Parameters = append(sig.Parameters, ports.Parameter{Name: p.Name, Type: p.Type, Location: storageLocation(p.Storage)})
	}
	return sig, nil
}

// storageLocation turns Ghidra's variable storage text ("RDI:8",
// "Stack[0x8]:4") into a location: the register in lower case, "stack", or
// "" when it is neither.
func storageLocation(s string) string {
	reg, _, _ := strings.Cut(s, ":")
	switch {
	case strings.HasPrefix(reg, "Stack["):
		return "stack"
	case reg == "" || strings.ContainsAny(reg, "[], "):
		return ""
	}
	return strings.ToLower(reg)
}

// endSource says a range's end is the end of Ghidra's function body (its
// highest address plus one).
const endSource = "ghidra-function-body"

// maxBodyInstructions is the most instructions rea asks the bridge to
// decode for one function.
const maxBodyInstructions = 5000

// FunctionRanges lists one range per procedure, in the procedures' order:
// from the entry to the end of Ghidra's function body.
func (a *Analysis) FunctionRanges(ctx context.Context) ([]ports.FunctionRange, error) {
	if err := a.usable(ctx); err != nil {
		return nil, err
	}
	if _, _, err := a.known(ctx); err != nil {
		return nil, err
	}
	a.cacheMu.Lock()
	defer a.cacheMu.Unlock()
	return clone(a.ranges), nil
}

type bodyJSON struct {
	Instructions     []instructionJSON `json:"instructions"`
	InstructionCount int               `json:"instruction_count"`
	Blocks           []struct {
		Start        string `json:"start"`
		End          string `json:"end"`
		Instructions int    `json:"instructions"`
		Successors   []struct {
			Kind   string  `json:"kind"`
			Target *string `json:"target"`
		} `json:"successors"`
	} `json:"blocks"`
	Truncated bool `json:"truncated"`
}

func edgeName(s string) bool {
	switch s {
	case ports.EdgeFallthrough, ports.EdgeJump, ports.EdgeBranch, ports.EdgeJumpTable, ports.EdgeTailCall, ports.EdgeUnresolved:
		return true
	}
	return false
}

// Function decodes one procedure through the bridge's function_body (a rea
// extension: Ghidra's listing over the function body and its
// BasicBlockModel). Instructions and blocks outside the listed range, and
// anything out of shape, are a protocol error rather than passed on.
func (a *Analysis) Function(ctx context.Context, req ports.FunctionRequest) (ports.Function, error) {
	if err := a.usable(ctx); err != nil {
		return ports.Function{}, err
	}
	_, procs, err := a.known(ctx)
	if err != nil {
		return ports.Function{}, err
	}
	i := sort.Search(len(procs), func(i int) bool { return procs[i].Address >= req.Address })
	if i == len(procs) || procs[i].Address != req.Address {
		return ports.Function{}, fmt.Errorf("ghidra: function 0x%x: no procedure starts there: %w", req.Address, ports.ErrNotFound)
	}
	a.cacheMu.Lock()
	rng := a.ranges[i]
	a.cacheMu.Unlock()
	var body bodyJSON
	if err := a.query(ctx, "function_body", map[string]any{"document": nil, "procedure": formatAddress(req.Address), "max_instructions": maxBodyInstructions}, &body); err != nil {
		return ports.Function{}, err
	}
	bad := func(what string) (ports.Function, error) {
		return ports.Function{}, fmt.Errorf("ghidra: function_body 0x%x: %w: %s", req.Address, errProtocol, what)
	}
	f := ports.Function{FunctionRange: rng, Syntax: "ghidra", InstructionCount: body.InstructionCount, Truncated: body.Truncated,
		Instructions: []ports.Instruction{}, Blocks: []ports.BasicBlock{}}
	limit := len(body.Instructions)
	if req.MaxInstructions > 0 && req.MaxInstructions < limit {
		limit = req.MaxInstructions
	}
	var prev uint64
	for k, in := range body.Instructions {
		addr, ok, err := parseAddress(in.Address)
		if err != nil || !ok || addr < rng.Start || addr >= rng.End || (k > 0 && addr <= prev) {
			return bad("instruction address " + in.Address)
		}
		prev = addr
		if k >= limit {
			continue
		}
		x, err := in.decode()
		if err != nil {
			return bad(err.Error())
		}
		f.Instructions = append(f.Instructions, x)
	}
	if f.InstructionCount < len(body.Instructions) {
		f.InstructionCount = len(body.Instructions)
	}
	for _, bl := range body.Blocks {
		start, ok1, err1 := parseAddress(bl.Start)
		end, ok2, err2 := parseAddress(bl.End)
		if err1 != nil || err2 != nil || !ok1 || !ok2 || start >= end || start < rng.Start || end > rng.End {
			return bad("block " + bl.Start)
		}
		if n := len(f.Blocks); n > 0 && start < f.Blocks[n-1].End {
			return bad("overlapping block " + bl.Start)
		}
		blk := ports.BasicBlock{Start: start, End: end, Instructions: bl.Instructions}
		for _, e := range bl.Successors {
			if !edgeName(e.Kind) {
				return bad("edge kind " + e.Kind)
			}
			edge := ports.Edge{Kind: e.Kind}
			if e.Kind != ports.EdgeUnresolved && e.Target != nil {
				if t, ok, err := parseAddress(*e.Target); err == nil && ok {
					edge.Target = t
				}
			}
			blk.Successors = append(blk.Successors, edge)
		}
		f.Blocks = append(f.Blocks, blk)
	}
	return f, nil
}

type referenceJSON struct {
	From       string  `json:"from"`
	To         *string `json:"to"`
	Kind       string  `json:"kind"`
	Unresolved bool    `json:"unresolved"`
	Operand    string  `json:"operand"`
	Slot       *string `json:"slot"`
}

// refKinds are the kinds kept. The bridge lists references made by
// instructions only, so it sends no ports.RefPointer; one it sent would
// be kept as the native engine reports it.
func refKind(s string) bool {
	switch s {
	case ports.RefCall, ports.RefJump, ports.RefRead, ports.RefWrite, ports.RefAddress, ports.RefPointer:
		return true
	}
	return false
}

// references lists the document's whole reference table once (the bridge's
// paged list_references, a rea extension over Ghidra's ReferenceManager plus
// the computed calls and jumps it holds no reference for), sorted by From
// then To; both directions are filtered from it, so they always agree.
func (a *Analysis) references(ctx context.Context) ([]ports.Reference, error) {
	a.cacheMu.Lock()
	refs := a.refs
	a.cacheMu.Unlock()
	if refs != nil {
		return refs, nil
	}
	raw, err := pages[referenceJSON](ctx, a, "list_references", nil)
	if err != nil {
		return nil, err
	}
	refs = []ports.Reference{}
	for _, r := range raw {
		from, ok, err := parseAddress(r.From)
		if err != nil {
			return nil, err
		}
		if !ok || !refKind(r.Kind) {
			continue
		}
		ref := ports.Reference{From: from, Kind: r.Kind, Unresolved: r.Unresolved, Operand: r.Operand}
		if !r.Unresolved {
			if r.To == nil {
				continue
			}
			to, ok, err := parseAddress(*r.To)
			if err != nil {
				return nil, err
			}
			if !ok {
				continue // an EXTERNAL-space target has no uint64 address
			}
			ref.To = to
		}
		if r.Slot != nil {
			if s, ok, err := parseAddress(*r.Slot); err == nil && ok {
				ref.Slot = s
			}
		}
		refs = append(refs, ref)
	}
	sort.SliceStable(refs, func(i, j int) bool {
		if refs[i].From != refs[j].From {
			return refs[i].From < refs[j].From
		}
		return refs[i].To < refs[j].To
	})
	a.cacheMu.Lock()
	a.refs = refs
	a.cacheMu.Unlock()
	return refs, nil
}

// ReferencesFrom lists the references made by instructions in [start, end).
func (a *Analysis) ReferencesFrom(ctx context.Context, start, end uint64) ([]ports.Reference, error) {
	if err := a.usable(ctx); err != nil {
		return nil, err
	}
	refs, err := a.references(ctx)
	if err != nil {
		return nil, err
	}
	out := []ports.Reference{}
	for _, r := range refs {
		if r.From >= start && r.From < end {
			out = append(out, r)
		}
	}
	return out, nil
}

// ReferencesTo lists the resolved references whose target is in
// [start, end), sorted by To then From.
func (a *Analysis) ReferencesTo(ctx context.Context, start, end uint64) ([]ports.Reference, error) {
	if err := a.usable(ctx); err != nil {
		return nil, err
	}
	refs, err := a.references(ctx)
	if err != nil {
		return nil, err
	}
	out := []ports.Reference{}
	for _, r := range refs {
		if !r.Unresolved && r.To >= start && r.To < end {
			out = append(out, r)
		}
	}
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].To != out[j].To {
			return out[i].To < out[j].To
		}
		return out[i].From < out[j].From
	})
	return out, nil
}

// Disassembly bounds: the default window and the most rea asks for.
const (
	defaultWindow = 256
	maxWindow     = 4096
)

// Disassemble decodes a linear window through the bridge's disassemble (a
// rea extension over Ghidra's PseudoDisassembler, which reads the program
// without changing its listing). The window is normalized before it is
// sent: End is clamped to the end of the executable segment holding
// Address (0 or an End at or before Address means that end), and
// MaxInstructions to [1, 4096] (256 by default). An address in no
// executable segment with file bytes is ErrNotFound.
func (a *Analysis) Disassemble(ctx context.Context, req ports.DisassembleRequest) (ports.Disassembly, error) {
	if err := a.usable(ctx); err != nil {
		return ports.Disassembly{}, err
	}
	segs, _, err := a.known(ctx)
	if err != nil {
		return ports.Disassembly{}, err
	}
	var seg *ports.Segment
	for i := range segs {
		s := &segs[i]
		if s.Perms.Execute && s.FileSize > 0 && req.Address >= s.Start && req.Address-s.Start < s.FileSize {
			seg = s
			break
		}
	}
	if seg == nil {
		return ports.Disassembly{}, fmt.Errorf("ghidra: disassemble 0x%x: no code segment with file bytes: %w", req.Address, ports.ErrNotFound)
	}
	end := seg.Start + seg.FileSize
	if req.End > req.Address && req.End < end {
		end = req.End
	}
	max := req.MaxInstructions
	if max <= 0 {
		max = defaultWindow
	}
	if max > maxWindow {
		max = maxWindow
	}
	var raw struct {
		Instructions []instructionJSON `json:"instructions"`
		Truncated    bool              `json:"truncated"`
	}
	if err := a.query(ctx, "disassemble", map[string]any{"document": nil, "address": formatAddress(req.Address), "end": formatAddress(end), "max_instructions": max}, &raw); err != nil {
		return ports.Disassembly{}, err
	}
	d := ports.Disassembly{Syntax: "ghidra", Truncated: raw.Truncated, Instructions: []ports.Instruction{}}
	next := req.Address
	for _, in := range raw.Instructions {
		x, err := in.decode()
		if err != nil || x.Address != next || x.Address >= end || len(d.Instructions) >= max {
			return ports.Disassembly{}, fmt.Errorf("ghidra: disassemble 0x%x: %w: window out of shape at %s", req.Address, errProtocol, in.Address)
		}
		d.Instructions = append(d.Instructions, x)
		next = x.Address + uint64(len(x.Bytes))
	}
	return d, nil
}

type instructionJSON struct {
	Address  string  `json:"address"`
	Bytes    string  `json:"bytes"`
	Mnemonic string  `json:"mnemonic"`
	Operands string  `json:"operands"`
	Flow     string  `json:"flow"`
	Target   *string `json:"target"`
	Invalid  bool    `json:"invalid"`
}

// decode checks one bridge instruction and turns it into a ports one.
func (in instructionJSON) decode() (ports.Instruction, error) {
	addr, ok, err := parseAddress(in.Address)
	if err != nil || !ok {
		return ports.Instruction{}, fmt.Errorf("%w: instruction address %q", errProtocol, in.Address)
	}
	b, err := hex.DecodeString(in.Bytes)
	flow, known := ports.ParseFlow(in.Flow)
	if err != nil || len(b) == 0 || !known || in.Mnemonic == "" || addr+uint64(len(b)) < addr {
		return ports.Instruction{}, fmt.Errorf("%w: instruction at %s", errProtocol, in.Address)
	}
	x := ports.Instruction{Address: addr, Bytes: b, Mnemonic: strings.ToLower(in.Mnemonic), Operands: in.Operands,
		Text: strings.TrimSpace(strings.ToLower(in.Mnemonic) + " " + in.Operands), Flow: flow}
	if in.Invalid {
		x.Invalid, x.Mnemonic, x.Text, x.Operands, x.Flow = true, "(bad)", "(bad)", "", ports.FlowStop
		return x, nil
	}
	if in.Target != nil && (flow == ports.FlowCall || flow == ports.FlowJump || flow == ports.FlowBranch) {
		if t, ok, err := parseAddress(*in.Target); err == nil && ok {
			x.Target, x.HasTarget = t, true
		}
	}
	return x, nil
}
