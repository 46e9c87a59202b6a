package binary

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"unicode/utf8"

	"rea/ports"

	"rea/core"
)

func layoutOperations() []*core.Operation { return []*core.Operation{opInspectBinaryLayout()} }

// Layout JSON: every number is a "0x" hex string (CONTRACTS.md §17).
type (
	layoutName struct {
		Display       string          `json:"display"`
		BytesBase64   *string         `json:"bytes_base64"`
		Location      *layoutLocation `json:"location"`
		UnknownReason *string         `json:"unknown_reason"`
	}
	layoutLocation struct {
		Kind    string `json:"kind"` // string-table or file-offset
		Section string `json:"section,omitempty"`
		Offset  string `json:"offset"`
	}
	layoutRange struct {
		Start string `json:"start"`
		End   string `json:"end"`
	}
	layoutSection struct {
		Index      string       `json:"index"`
		Name       layoutName   `json:"name"`
		Type       string       `json:"type"`
		Flags      []string     `json:"flags"`
		Address    string       `json:"address"`
		FileOffset string       `json:"file_offset"`
		Size       string       `json:"size"`
		FileSize   string       `json:"file_size"`
		FileRange  *layoutRange `json:"file_range"`
		Link       string       `json:"link"`
		Info       string       `json:"info"`
		Alignment  string       `json:"alignment"`
		EntrySize  string       `json:"entry_size"`
		Compressed bool         `json:"compressed"`
	}
	layoutPerms struct {
		Read    bool `json:"read"`
		Write   bool `json:"write"`
		Execute bool `json:"execute"`
	}
	layoutSegment struct {
		Index           string       `json:"index"`
		Type            string       `json:"type"`
		FileOffset      string       `json:"file_offset"`
		FileSize        string       `json:"file_size"`
		FileRange       *layoutRange `json:"file_range"`
		VirtualAddress  string       `json:"virtual_address"`
		PhysicalAddress string       `json:"physical_address"`
		MemorySize      string       `json:"memory_size"`
		Alignment       string       `json:"alignment"`
		Permissions     *layoutPerms `json:"permissions"`
		Sections        []string     `json:"sections"`
	}
	layoutSymbol struct {
		Table        string     `json:"table"`
		Index        string     `json:"index"`
		Name         layoutName `json:"name"`
		Value        string     `json:"value"`
		Size         string     `json:"size"`
		Type         string     `json:"type"`
		Binding      string     `json:"binding"`
		Visibility   string     `json:"visibility"`
		SectionIndex string     `json:"section_index"`
		Section      *string    `json:"section"`
		Version      *string    `json:"version"`
	}
	layoutRelocation struct {
		Section     string      `json:"section"`
		Index       string      `json:"index"`
		Offset      string      `json:"offset"`
		Type        string      `json:"type"`
		SymbolIndex string      `json:"symbol_index"`
		Symbol      *layoutName `json:"symbol"`
		// Addend is the two's-complement value of r_addend; null for REL.
		Addend *string `json:"addend"`
	}
	layoutPacked struct {
		Section    string   `json:"section"`
		FileOffset string   `json:"file_offset"`
		Size       string   `json:"size"`
		Entries    string   `json:"entries"`
		Addresses  []string `json:"addresses"`
	}
	layoutArea struct {
		Section string `json:"section"`
		Address string `json:"address"`
		Size    string `json:"size"`
	}
	// InspectBinaryLayoutResult is inspect_binary_layout's complete
	// normalized_result (detail "summary" gives its summary view instead).
	InspectBinaryLayoutResult struct {
		Artifact struct {
			Path   string `json:"path"`
			SHA256 string `json:"sha256"`
			Bytes  string `json:"bytes"`
		} `json:"artifact"`
		Format       string `json:"format"`
		Architecture struct {
			Machine   string `json:"machine"`
			Bits      int    `json:"bits"`
			ByteOrder string `json:"byte_order"`
		} `json:"architecture"`
		ImageType  string `json:"image_type"`
		EntryPoint struct {
			ReportedValue   string `json:"reported_value"`
			Meaning         string `json:"meaning"`
			ExecutionStatus string `json:"execution_status"`
		} `json:"entry_point"`
		RuntimeLoadBase *string            `json:"runtime_load_base"`
		Sections        []layoutSection    `json:"sections"`
		Segments        []layoutSegment    `json:"segments"`
		Symbols         []layoutSymbol     `json:"symbols"`
		Relocations     []layoutRelocation `json:"relocations"`
		Packed          []layoutPacked     `json:"packed_relative_relocations"`
		Linkage         struct {
			NeededLibraries []layoutName `json:"needed_libraries"`
			Interpreters    []layoutName `json:"interpreters"`
			SOName          *layoutName  `json:"soname"`
			RunPaths        []layoutName `json:"run_paths"`
			DynamicSection  bool         `json:"dynamic_section"`
			BindNow         bool         `json:"bind_now"`
			TextRelocations bool         `json:"text_relocations"`
			GOT             []layoutArea `json:"got"`
			PLT             []layoutArea `json:"plt"`
		} `json:"linkage"`
		Mitigations struct {
			EvidenceKind             string `json:"evidence_kind"`
			PositionIndependent      bool   `json:"position_independent"`
			NXIndicator              *bool  `json:"nx_indicator"`
			ExecutableStackIndicator *bool  `json:"executable_stack_indicator"`
			StackCanaryIndicator     *bool  `json:"stack_canary_indicator"`
			// FortifySourceIndicator is whether glibc's checked functions
			// (__*_chk) are used; FortifiedFunctions names them.
			FortifySourceIndicator *bool    `json:"fortify_source_indicator"`
			FortifiedFunctions     []string `json:"fortified_functions"`
			RELRO                  *string  `json:"relro"`
		} `json:"mitigations"`
		Diagnostics []string `json:"diagnostics"`
		Limitations []string `json:"limitations"`
	}
)

func nameOf(n ports.LayoutName) layoutName {
	out := layoutName{}
	if n.Table != "" {
		out.Location = &layoutLocation{Kind: "string-table", Section: n.Table, Offset: core.Hex(n.Offset)}
	} else {
		out.Location = &layoutLocation{Kind: "file-offset", Offset: core.Hex(n.Offset)}
	}
	if !n.Known {
		r := n.UnknownReason
		if r == "" {
			r = "unreadable"
		}
		out.UnknownReason = &r
		return out
	}
	s := string(n.Bytes)
	out.Display = s
	if !utf8.ValidString(s) || hasControl(s) {
		out.Display = displayOf(n.Bytes)
		b := base64.StdEncoding.EncodeToString(n.Bytes)
		out.BytesBase64 = &b
	}
	return out
}

func hasControl(s string) bool {
	for _, r := range s {
		if r < 0x20 || r == 0x7f {
			return true
		}
	}
	return false
}

// displayOf renders raw name bytes readably: valid printable UTF-8 as it
// is, anything else as \xNN.
func displayOf(b []byte) string {
	out := make([]byte, 0, len(b))
	for len(b) > 0 {
		r, size := utf8.DecodeRune(b)
		if (r == utf8.RuneError && size == 1) || r < 0x20 || r == 0x7f {
			out = append(out, '\\', 'x', hexDigits[b[0]>>4], hexDigits[b[0]&0xf])
			b = b[1:]
			continue
		}
		out = append(out, b[:size]...)
		b = b[size:]
	}
	return string(out)
}

func inFileRange(in bool, off, size uint64) *layoutRange {
	if !in || size == 0 {
		return nil
	}
	return &layoutRange{Start: core.Hex(off), End: core.Hex(off + size)}
}

// newLayoutResult turns the raw layout into the normalized result.
// CanonicalSize estimates the result's canonical JSON so that sealing it
// writes into one buffer (a Go binary's 32,000 symbols take 12 MB, about
// 380 bytes each, which growing the buffer copied several times).
func (r *InspectBinaryLayoutResult) CanonicalSize() int {
	return 4096 + 400*(len(r.Sections)+len(r.Segments)+len(r.Symbols)) + 300*(len(r.Relocations)+len(r.Packed))
}

func newLayoutResult(l *ports.Layout, path, sha string, size int64) *InspectBinaryLayoutResult {
	r := &InspectBinaryLayoutResult{Format: l.Format, ImageType: l.ImageType}
	r.Artifact.Path, r.Artifact.SHA256, r.Artifact.Bytes = path, sha, core.Hex(uint64(size))
	r.Architecture.Machine, r.Architecture.Bits, r.Architecture.ByteOrder = l.Machine, l.Bits, l.ByteOrder
	r.EntryPoint.ReportedValue, r.EntryPoint.ExecutionStatus = core.Hex(l.Entry), "unknown"
	switch {
	case l.ImageType == "ET_REL":
		r.EntryPoint.Meaning = "not-applicable"
	case l.Entry == 0:
		r.EntryPoint.Meaning = "absent"
	default:
		r.EntryPoint.Meaning = "linked-virtual-address"
	}
	r.Sections = make([]layoutSection, 0, len(l.Sections))
	for _, s := range l.Sections {
		flags := s.Flags
		if flags == nil {
			flags = []string{}
		}
		r.Sections = append(r.Sections, layoutSection{Index: core.Hex(uint64(s.Index)), Name: nameOf(s.Name), Type: s.Type, Flags: flags,
			Address: core.Hex(s.Address), FileOffset: core.Hex(s.Offset), Size: core.Hex(s.Size), FileSize: core.Hex(s.FileSize),
			FileRange: inFileRange(s.InFile, s.Offset, s.FileSize), Link: core.Hex(uint64(s.Link)), Info: core.Hex(uint64(s.Info)),
			Alignment: core.Hex(s.Align), EntrySize: core.Hex(s.EntrySize), Compressed: s.Compressed})
	}
	r.Segments = make([]layoutSegment, 0, len(l.Segments))
	for _, s := range l.Segments {
		secs := make([]string, 0, len(s.SectionIndexesMapped))
		for _, i := range s.SectionIndexesMapped {
			secs = append(secs, core.Hex(uint64(i)))
		}
		r.Segments = append(r.Segments, layoutSegment{Index: core.Hex(uint64(s.Index)), Type: s.Type, FileOffset: core.Hex(s.Offset),
			FileSize: core.Hex(s.FileSize), FileRange: inFileRange(s.InFile, s.Offset, s.FileSize), VirtualAddress: core.Hex(s.VirtAddr),
			PhysicalAddress: core.Hex(s.PhysAddr), MemorySize: core.Hex(s.MemSize), Alignment: core.Hex(s.Align),
			Permissions: &layoutPerms{s.Read, s.Write, s.Execute}, Sections: secs})
	}
	r.Symbols = make([]layoutSymbol, 0, len(l.Symbols))
	for _, s := range l.Symbols {
		sym := layoutSymbol{Table: s.Table, Index: core.Hex(uint64(s.Index)), Name: nameOf(s.Name), Value: core.Hex(s.Value), Size: core.Hex(s.Size),
			Type: s.Type, Binding: s.Binding, Visibility: s.Visibility, SectionIndex: core.Hex(uint64(s.SectionIndex))}
		if s.Section != "" {
			v := s.Section
			sym.Section = &v
		}
		if s.Version != "" {
			v := s.Version
			sym.Version = &v
		}
		r.Symbols = append(r.Symbols, sym)
	}
	r.Relocations = make([]layoutRelocation, 0, len(l.Relocations))
	for _, x := range l.Relocations {
		rel := layoutRelocation{Section: x.Section, Index: core.Hex(uint64(x.Index)), Offset: core.Hex(x.Offset), Type: x.Type,
			SymbolIndex: core.Hex(uint64(x.SymbolIndex))}
		if x.Symbol != nil {
			n := nameOf(*x.Symbol)
			rel.Symbol = &n
		}
		if x.HasAddend {
			a := core.Hex(uint64(x.Addend))
			rel.Addend = &a
		}
		r.Relocations = append(r.Relocations, rel)
	}
	r.Packed = make([]layoutPacked, 0, len(l.Packed))
	for _, p := range l.Packed {
		addrs := make([]string, len(p.Addresses))
		for i, a := range p.Addresses {
			addrs[i] = core.Hex(a)
		}
		r.Packed = append(r.Packed, layoutPacked{Section: p.Section, FileOffset: core.Hex(p.Offset), Size: core.Hex(p.Size), Entries: core.Hex(uint64(p.Entries)), Addresses: addrs})
	}
	names := func(ns []ports.LayoutName) []layoutName {
		out := make([]layoutName, 0, len(ns))
		for _, n := range ns {
			out = append(out, nameOf(n))
		}
		return out
	}
	areas := func(rs []ports.LayoutRange) []layoutArea {
		out := make([]layoutArea, 0, len(rs))
		for _, a := range rs {
			out = append(out, layoutArea{Section: a.Name, Address: core.Hex(a.Address), Size: core.Hex(a.Size)})
		}
		return out
	}
	lk := &r.Linkage
	lk.NeededLibraries, lk.Interpreters, lk.RunPaths = names(l.Needed), names(l.Interpreters), names(l.RunPaths)
	if l.SOName != nil {
		n := nameOf(*l.SOName)
		lk.SOName = &n
	}
	lk.DynamicSection, lk.BindNow, lk.TextRelocations = l.Dynamic.Present, l.Dynamic.BindNow, l.Dynamic.TextRel
	lk.GOT, lk.PLT = areas(l.Dynamic.GOT), areas(l.Dynamic.PLT)

	m := &r.Mitigations
	m.EvidenceKind = "inferred"
	m.PositionIndependent = l.ImageType == "ET_DYN"
	if st := l.Dynamic.GNUStack; st != nil {
		nx, exec := !st.Execute, st.Execute
		m.NXIndicator, m.ExecutableStackIndicator = &nx, &exec
	}
	if !l.Dynamic.StackCanaryUnknown {
		sc := l.Dynamic.StackCanary
		m.StackCanaryIndicator = &sc
	}
	if !l.Dynamic.FortifyUnknown {
		v := len(l.Dynamic.Fortified) > 0
		m.FortifySourceIndicator = &v
	}
	m.FortifiedFunctions = append([]string{}, l.Dynamic.Fortified...)
	if l.Dynamic.GNURelro != nil {
		v := "Partial"
		if l.Dynamic.BindNow {
			v = "Full"
		}
		m.RELRO = &v
	}
	r.Diagnostics = append([]string{}, l.Diagnostics...)
	r.Limitations = []string{
		"Mitigations are inferred from headers and symbols; runtime behaviour (loader, kernel, hardening flags) is not observed.",
		"The entry point is the linked value; whether execution starts there is unknown and no load base is assumed.",
	}
	for _, lim := range []string{l.Dynamic.StackCanaryLimit, l.Dynamic.FortifyLimit} {
		if lim != "" {
			r.Limitations = append(r.Limitations, lim)
		}
	}
	if l.Dynamic.GNUStack == nil {
		r.Limitations = append(r.Limitations, "No PT_GNU_STACK header: the stack's executability depends on the loader's default and is not reported.")
	}
	return r
}

func opInspectBinaryLayout() *core.Operation {
	return &core.Operation{
		Name:  "inspect_binary_layout",
		Title: "Inspect Binary Layout",
		Description: "Read the header structure of an ELF x86, x86-64 or AArch64 file without opening it as the target: sections, segments with permissions, every symbol, " +
			"relocations, packed relative relocations, linkage (needed libraries, interpreter, GOT, PLT) and inferred mitigations (PIE, NX, executable stack, stack canary, FORTIFY_SOURCE, RELRO). " +
			"For the canary and FORTIFY a static program's code is read, a stripped one's as the open target's analysis or the signature libraries (cached) tell it. " +
			"Every number is a 0x hex string; names keep raw bytes.",
		Kind:    core.KindNativeProvider,
		Effects: core.Effects{MutatesSession: true, Idempotent: true},
		Input: json.RawMessage(`{"$schema": "https://json-schema.org/draft/2020-12/schema", "type": "object", "additionalProperties": false, "required": ["path"],
 "properties": {
  "path": {"type": "string", "minLength": 2, "pattern": "^/", "description": "Absolute path of the ELF file."},
  "detail": {"enum": ["complete", "summary"], "default": "complete", "description": "summary retains the whole layout as Evidence and returns its summary view (inspect_analysis_view reads the rest)."}}}`),
		Result:   json.RawMessage(`{"anyOf": [` + layoutResultSchema + `, ` + core.ViewResultSchema + `]}`),
		Examples: []json.RawMessage{json.RawMessage(`{"path":"/usr/bin/ls","detail":"summary"}`), json.RawMessage(`{"path":"/usr/bin/ls"}`)},
		Handler:  handleInspectBinaryLayout,
	}
}

const layoutNameSchema = `{"type":"object","additionalProperties":false,"required":["display","bytes_base64","location","unknown_reason"],
 "properties":{"display":{"type":"string"},"bytes_base64":{"type":["string","null"]},"location":{"type":["object","null"]},"unknown_reason":{"type":["string","null"]}}}`

const hexNumber = `{"type":"string","pattern":"^0x(0|[1-9a-f][0-9a-f]{0,15})$"}`

const layoutResultSchema = `{"type":"object","additionalProperties":false,
 "required":["artifact","format","architecture","image_type","entry_point","runtime_load_base","sections","segments","symbols","relocations","packed_relative_relocations","linkage","mitigations","diagnostics","limitations"],
 "properties":{
  "artifact":{"type":"object","required":["path","sha256","bytes"],"properties":{"path":{"type":"string"},"sha256":{"type":"string","pattern":"^[0-9a-f]{64}$"},"bytes":` + hexNumber + `}},
  "format":{"const":"elf"},
  "architecture":{"type":"object","required":["machine","bits","byte_order"],"properties":{"machine":{"enum":["EM_X86_64","EM_AARCH64","EM_386"]},"bits":{"enum":[32,64]},"byte_order":{"enum":["little","big"]}}},
  "image_type":{"type":"string"},
  "entry_point":{"type":"object","required":["reported_value","meaning","execution_status"],"properties":{"reported_value":` + hexNumber + `,"meaning":{"enum":["linked-virtual-address","not-applicable","absent"]},"execution_status":{"const":"unknown"}}},
  "runtime_load_base":{"type":"null"},
  "sections":{"type":"array","items":{"type":"object"}},"segments":{"type":"array","items":{"type":"object","required":["permissions"],"properties":{"permissions":{"type":["object","null"]}}}},
  "symbols":{"type":"array","items":{"type":"object","required":["name"],"properties":{"name":` + layoutNameSchema + `}}},
  "relocations":{"type":"array","items":{"type":"object"}},"packed_relative_relocations":{"type":"array","items":{"type":"object"}},
  "linkage":{"type":"object","required":["needed_libraries","interpreters","got","plt"]},
  "mitigations":{"type":"object","required":["evidence_kind","position_independent","nx_indicator","executable_stack_indicator","stack_canary_indicator","fortify_source_indicator","fortified_functions","relro"],
   "properties":{"evidence_kind":{"const":"inferred"},"fortify_source_indicator":{"type":["boolean","null"]},"fortified_functions":{"type":"array","items":{"type":"string"}},"relro":{"enum":["Partial","Full",null]}}},
  "diagnostics":{"type":"array","items":{"type":"string"}},"limitations":{"type":"array","items":{"type":"string"}}}}`

// layoutReader finds a provider that reads layouts; none is
// capability_unavailable.
func layoutReader(c *core.Call) (ports.LayoutReader, ports.ProviderInfo, error) {
	for _, p := range c.Providers() {
		if lr, ok := p.(ports.LayoutReader); ok {
			return lr, p.Info(), nil
		}
	}
	return nil, ports.ProviderInfo{}, &core.Error{Code: core.CodeCapabilityUnavailable, Message: "inspect_binary_layout: no provider reads binary layouts",
		Details: map[string]any{"provider_id": nil, "operation": "inspect_binary_layout", "reason": "missing_capability:read_layout"}}
}

// readLayout reads the layout through the session's open analysis when
// it is the provider's, of the same bytes, and offers it
// (ports.TargetLayoutReader): what the layout reads of a program's code is
// then told by that analysis rather than by a second one. Otherwise, and
// for a file that is not the open target, through the provider.
func readLayout(ctx context.Context, c *core.Call, lr ports.LayoutReader, info ports.ProviderInfo, r io.ReaderAt, size int64, sha string) (*ports.Layout, error) {
	if a, b, t := c.Bound(); a != nil && b != nil && t != nil && t.SHA256 == sha && t.Size == size && b.Provider.Info().ID == info.ID {
		if tl, ok := a.(ports.TargetLayoutReader); ok {
			return tl.ReadTargetLayout(ctx, r, size)
		}
	}
	return lr.ReadLayout(ctx, r, size)
}

func handleInspectBinaryLayout(ctx context.Context, c *core.Call) (any, error) {
	const op = "inspect_binary_layout"
	in, err := core.Input[InspectBinaryLayoutInput](c)
	if err != nil {
		return nil, err
	}
	path := filepath.Clean(in.Path)
	lr, info, err := layoutReader(c)
	if err != nil {
		return nil, err
	}
	c.Observe("reading " + path)
	f, st, err := openLayoutTarget(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, &ctxReader{ctx: ctx, r: io.NewSectionReader(f, 0, st.Size())}); err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, core.TargetError(op, path, "unreadable", err)
	}
	sha := hex.EncodeToString(h.Sum(nil))
	l, err := readLayout(ctx, c, lr, info, f, st.Size(), sha)
	if err != nil {
		if errors.Is(err, ports.ErrUnsupported) {
			return nil, &core.Error{Code: core.CodeCapabilityUnavailable, Message: op + ": " + err.Error(), Err: err,
				Details: map[string]any{"provider_id": info.ID, "operation": op, "reason": "format_unsupported", "path": path}}
		}
		return nil, core.AsError(op, err)
	}
	if st2, err := os.Stat(path); err != nil || st2.Size() != st.Size() || !st2.ModTime().Equal(st.ModTime()) {
		return nil, &core.Error{Code: core.CodeArtifactChanged, Message: op + ": " + path + " changed while it was read",
			Details: map[string]any{"operation": op, "path": path, "reason": "changed_during_read", "boundary": "stable-artifact-read"}}
	}
	res := newLayoutResult(l, path, sha, st.Size())
	v := info.Version
	prov := core.ProviderRef{ID: info.ID, Name: info.Name, Version: &v}
	arch := map[string]string{"EM_AARCH64": "arm64", "EM_386": "x86"}[l.Machine]
	if arch == "" {
		arch = "x86_64"
	}
	subj := core.NewSubject(path, sha, "elf", arch)
	complete := &core.Observation{Result: res, Subject: subj, Provider: &prov, Limitations: res.Limitations}
	if in.Detail != "summary" {
		return complete, nil
	}
	// Summary: retain the complete Evidence (as a complete call would have
	// made it), then return its summary view.
	params := map[string]any{"path": in.Path, "detail": "complete"}
	parent, err := c.SealAs(op, params, complete)
	if err != nil {
		return nil, err
	}
	if _, err := c.Retain(parent); err != nil {
		return nil, err
	}
	view, err := c.ProjectView(parent, core.ViewSpec{Kind: "summary"})
	if err != nil {
		return nil, err
	}
	return &core.Observation{Result: view, Subject: subj, Provider: &prov, Links: []core.EvidenceID{parent.EvidenceID},
		Confidence: core.ConfidenceDerived, Limitations: view.Limitations}, nil
}

func openLayoutTarget(path string) (*os.File, fs.FileInfo, error) {
	const op = "inspect_binary_layout"
	st, err := os.Stat(path)
	if err != nil {
		return nil, nil, core.TargetError(op, path, "missing", err)
	}
	if st.IsDir() { // as open_binary says it
		e := core.TargetError(op, path, "directory", nil)
		e.Details["constraint"] = "directory_requires_file"
		e.Message = op + ": " + path + " is a directory; " + op + " needs a file"
		return nil, nil, e
	}
	if !st.Mode().IsRegular() {
		return nil, nil, core.TargetError(op, path, "not_regular_file", nil)
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, core.TargetError(op, path, "unreadable", err)
	}
	return f, st, nil
}

// ctxReader stops a long read when ctx ends.
type ctxReader struct {
	ctx context.Context
	r   io.Reader
}

func (c *ctxReader) Read(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	return c.r.Read(p)
}

const hexDigits = "0123456789abcdef"
