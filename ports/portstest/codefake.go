package portstest

import (
	"bytes"
	"cmp"
	"context"
	"encoding/binary"
	"fmt"
	"io"
	"slices"
	"strings"

	"rea/ports"
)

// CodeFake is a working in-memory engine with every capability: the lists
// of [Fake], all the code interfaces, and a ports.LayoutReader for its own
// image format. Its program is a small x86-64 one (three procedures: an
// import thunk puts@plt, _start calling main, and main with a branch, a
// string address and a call to puts@plt), whose bytes are real encodings,
// whose image is [CodeFakeImage], and whose facts (blocks, references,
// a DWARF-like signature, pseudo-code and value flow) are consistent with
// each other. Configure it before first use; it is then safe for concurrent
// use.
type CodeFake struct {
	ID      string   // default "fake-code"
	Version string   // default "0.0.0"
	Formats []string // target formats supported; empty means every format
	// Declared overrides what Capabilities declares (nil: exactly what it
	// implements), to show CheckCapabilities failing.
	Declared []ports.Capability
}

var (
	_ ports.Provider         = (*CodeFake)(nil)
	_ ports.CapabilityLister = (*CodeFake)(nil)
	_ ports.LayoutReader     = (*CodeFake)(nil)
)

// NewCodeFake returns a CodeFake with its defaults.
func NewCodeFake() *CodeFake { return &CodeFake{} }

func (f *CodeFake) id() string { return cmp.Or(f.ID, "fake-code") }

// Info identifies the fake.
func (f *CodeFake) Info() ports.ProviderInfo {
	return ports.ProviderInfo{ID: f.id(), Name: "in-memory code fake " + f.id(), Version: cmp.Or(f.Version, "0.0.0")}
}

// Availability is always available.
func (f *CodeFake) Availability(context.Context) ports.Availability {
	return ports.Availability{Available: true}
}

// Support accepts targets whose format is in Formats, or any target when
// Formats is empty.
func (f *CodeFake) Support(_ context.Context, t ports.Target) ports.Support {
	if len(f.Formats) == 0 || slices.Contains(f.Formats, t.Format) {
		return ports.Support{Supported: true}
	}
	return ports.Support{Code: "target_format_unsupported", Reason: fmt.Sprintf("%s supports %v, not %q", f.id(), f.Formats, t.Format)}
}

// Capabilities declares every capability, or Declared when set.
func (f *CodeFake) Capabilities() []ports.Capability {
	if f.Declared != nil {
		return slices.Clone(f.Declared)
	}
	return ports.AllCapabilities()
}

// Open returns a CodeAnalysis of the synthetic program, whatever t holds.
func (f *CodeFake) Open(ctx context.Context, t ports.Target) (ports.Analysis, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("%s: open: %w", f.id(), err)
	}
	if s := f.Support(ctx, t); !s.Supported {
		return nil, fmt.Errorf("%s: open: %s: %w", f.id(), s.Reason, ports.ErrUnsupported)
	}
	return &CodeAnalysis{FakeAnalysis: (&FakeAnalysis{
		id:         f.id(),
		version:    cmp.Or(f.Version, "0.0.0"),
		documents:  []ports.Document{{Name: docName(t.Path), Format: cmp.Or(t.Format, "elf"), Architecture: "x86_64", Entry: 0x1010, HasEntry: true}},
		segments:   codeSegments(),
		procedures: slices.Clone(codeProcs),
		names:      slices.Clone(codeNames),
		strings:    slices.Clone(codeStrings),
	}).keep()}, nil
}

// CodeAnalysis is an open analysis of a CodeFake. It implements every
// lister and every code capability.
type CodeAnalysis struct {
	*FakeAnalysis
}

var (
	_ ports.Disassembler      = (*CodeAnalysis)(nil)
	_ ports.FunctionAnalyzer  = (*CodeAnalysis)(nil)
	_ ports.CrossReferencer   = (*CodeAnalysis)(nil)
	_ ports.ByteReader        = (*CodeAnalysis)(nil)
	_ ports.SignatureReader   = (*CodeAnalysis)(nil)
	_ ports.Decompiler        = (*CodeAnalysis)(nil)
	_ ports.ValueFlowAnalyzer = (*CodeAnalysis)(nil)
	_ ports.SourceLocator     = (*CodeAnalysis)(nil)
)

// The synthetic program. Every instruction of .text is listed, padding
// included, so a linear sweep is a walk of this table.
var codeText = []ports.Instruction{
	{Address: 0x1000, Bytes: []byte{0xff, 0x25, 0xfa, 0x2f, 0x00, 0x00}, Mnemonic: "jmp", Operands: "qword ptr [rip+0x2ffa]", Flow: ports.FlowJump},
	{Address: 0x1010, Bytes: []byte{0xbf, 0x01, 0x00, 0x00, 0x00}, Mnemonic: "mov", Operands: "edi, 0x1"},
	{Address: 0x1015, Bytes: []byte{0xe8, 0x16, 0x00, 0x00, 0x00}, Mnemonic: "call", Operands: "0x1030", Flow: ports.FlowCall, Target: 0x1030, HasTarget: true},
	{Address: 0x101a, Bytes: []byte{0xf4}, Mnemonic: "hlt", Flow: ports.FlowStop},
	{Address: 0x1030, Bytes: []byte{0x55}, Mnemonic: "push", Operands: "rbp"},
	{Address: 0x1031, Bytes: []byte{0x48, 0x89, 0xe5}, Mnemonic: "mov", Operands: "rbp, rsp"},
	{Address: 0x1034, Bytes: []byte{0x85, 0xff}, Mnemonic: "test", Operands: "edi, edi"},
	{Address: 0x1036, Bytes: []byte{0x74, 0x0c}, Mnemonic: "je", Operands: "0x1044", Flow: ports.FlowBranch, Target: 0x1044, HasTarget: true},
	{Address: 0x1038, Bytes: []byte{0x48, 0x8d, 0x3d, 0xc1, 0x0f, 0x00, 0x00}, Mnemonic: "lea", Operands: "rdi, [rip+0xfc1]"},
	{Address: 0x103f, Bytes: []byte{0xe8, 0xbc, 0xff, 0xff, 0xff}, Mnemonic: "call", Operands: "0x1000", Flow: ports.FlowCall, Target: 0x1000, HasTarget: true},
	{Address: 0x1044, Bytes: []byte{0x31, 0xc0}, Mnemonic: "xor", Operands: "eax, eax"},
	{Address: 0x1046, Bytes: []byte{0x5d}, Mnemonic: "pop", Operands: "rbp"},
	{Address: 0x1047, Bytes: []byte{0xc3}, Mnemonic: "ret", Flow: ports.FlowReturn},
}

const (
	textStart, textEnd = 0x1000, 0x1048
	imageHeader        = 0x100 // bytes before .text in the image
)

var codeProcs = []ports.Procedure{
	{Address: 0x1000, Name: "puts@plt", Size: 6, Source: "plt", External: true, Thunk: true, ThunkTarget: "puts"},
	{Address: 0x1010, Name: "_start", Size: 0xb, Source: "entry"},
	{Address: 0x1030, Name: "main", Size: 0x18, Source: "symbol"},
}

var codeRanges = []ports.FunctionRange{
	{Start: 0x1000, End: 0x1006, EndSource: "plt"},
	{Start: 0x1010, End: 0x101b, EndSource: "symbol"},
	{Start: 0x1030, End: 0x1048, EndSource: "symbol"},
}

var codeBlocks = map[uint64][]ports.BasicBlock{
	0x1000: {{Start: 0x1000, End: 0x1006, Instructions: 1, Successors: []ports.Edge{{Kind: ports.EdgeUnresolved}}}},
	0x1010: {{Start: 0x1010, End: 0x101b, Instructions: 3}},
	0x1030: {
		{Start: 0x1030, End: 0x1038, Instructions: 4, Successors: []ports.Edge{{Kind: ports.EdgeBranch, Target: 0x1044}, {Kind: ports.EdgeFallthrough, Target: 0x1038}}},
		{Start: 0x1038, End: 0x1044, Instructions: 2, Successors: []ports.Edge{{Kind: ports.EdgeFallthrough, Target: 0x1044}}},
		{Start: 0x1044, End: 0x1048, Instructions: 3},
	},
}

var codeNames = []ports.Name{
	{Address: 0x1000, Name: "puts@plt", Kind: "import"},
	{Address: 0x1010, Name: "_start", Kind: "function"},
	{Address: 0x1030, Name: "main", Kind: "function"},
	{Address: 0x2000, Name: "greeting", Kind: "object"},
}

var codeStrings = []ports.String{
	{Address: 0x2000, FileOffset: imageHeader + 0x48, Value: "hello, world", Charset: "ascii", ByteLength: 12, Section: ".rodata"},
}

// codeRefs are sorted by From then To.
var codeRefs = []ports.Reference{
	{From: 0x1000, Kind: ports.RefJump, Unresolved: true, Operand: "qword ptr [rip+0x2ffa]", Slot: 0x4000},
	{From: 0x1000, To: 0x4000, Kind: ports.RefRead},
	{From: 0x1015, To: 0x1030, Kind: ports.RefCall},
	{From: 0x1036, To: 0x1044, Kind: ports.RefJump},
	{From: 0x1038, To: 0x2000, Kind: ports.RefAddress},
	{From: 0x103f, To: 0x1000, Kind: ports.RefCall},
}

// fakeSection is one section of the image: where it is mapped and stored.
type fakeSection struct {
	name       string
	addr       uint64
	offset     uint64
	fileSize   uint64
	size       uint64
	r, w, x    bool
	data       []byte
	layoutType string
}

var codeSections = func() []fakeSection {
	text := bytes.Repeat([]byte{0xcc}, textEnd-textStart) // int3 padding
	for _, in := range codeText {
		copy(text[in.Address-textStart:], in.Bytes)
	}
	rodata := make([]byte, 0x10)
	copy(rodata, "hello, world")
	return []fakeSection{
		{".text", textStart, imageHeader, 0x48, 0x48, true, false, true, text, "SHT_PROGBITS"},
		{".rodata", 0x2000, imageHeader + 0x48, 0x10, 0x10, true, false, false, rodata, "SHT_PROGBITS"},
		{".got", 0x4000, imageHeader + 0x58, 8, 8, true, true, false, make([]byte, 8), "SHT_PROGBITS"},
		{".bss", 0x5000, imageHeader + 0x60, 0, 0x20, true, true, false, nil, "SHT_NOBITS"},
	}
}()

func codeSegments() []ports.Segment {
	var out []ports.Segment
	for _, s := range codeSections {
		out = append(out, ports.Segment{Name: s.name, Kind: "section", Start: s.addr, Size: s.size, FileOffset: s.offset,
			FileSize: s.fileSize, Perms: ports.Permissions{Read: s.r, Write: s.w, Execute: s.x}})
	}
	return out
}

// Image format of the fake: "REAFAKE\x00", a little-endian uint16 section
// count at 8, then one 32-byte record per section from offset 16 (name[8],
// address u64, offset u32, file size u32, size u32, flags u32: 1 read,
// 2 write, 4 execute), then the sections' bytes from offset 0x100.
const (
	fakeMagic     = "REAFAKE\x00"
	fakeRecord    = 32
	fakeRecordsAt = 16
	fakeFormat    = "rea-fake"
)

// CodeFakeImage returns the bytes of the CodeFake's program in the fake's
// image format, which CodeFake.ReadLayout reads. Write them to a file to
// make a target whose layout Run can check.
func CodeFakeImage() []byte {
	img := make([]byte, imageHeader+0x60)
	copy(img, fakeMagic)
	binary.LittleEndian.PutUint16(img[8:], uint16(len(codeSections)))
	for i, s := range codeSections {
		r := img[fakeRecordsAt+i*fakeRecord:]
		copy(r[:8], s.name)
		binary.LittleEndian.PutUint64(r[8:], s.addr)
		binary.LittleEndian.PutUint32(r[16:], uint32(s.offset))
		binary.LittleEndian.PutUint32(r[20:], uint32(s.fileSize))
		binary.LittleEndian.PutUint32(r[24:], uint32(s.size))
		var flags uint32
		for bit, on := range []bool{s.r, s.w, s.x} {
			if on {
				flags |= 1 << bit
			}
		}
		binary.LittleEndian.PutUint32(r[28:], flags)
		copy(img[s.offset:], s.data)
	}
	return img
}

// CodeFakeTarget is the target the CodeFake's program describes, at path.
func CodeFakeTarget(path string) ports.Target {
	return ports.Target{Path: path, Format: "elf", Kind: "executable", Architecture: "x86_64", Size: int64(imageHeader + 0x60)}
}

// ReadLayout reads the fake's image format: ErrUnsupported for anything
// without its magic, *ports.FormatError for a truncated or inconsistent
// header.
func (f *CodeFake) ReadLayout(ctx context.Context, r io.ReaderAt, size int64) (*ports.Layout, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("%s: layout: %w", f.id(), err)
	}
	head := make([]byte, fakeRecordsAt)
	if size < int64(len(head)) {
		return nil, fmt.Errorf("%s: layout: %d bytes: %w", f.id(), size, ports.ErrUnsupported)
	}
	if _, err := r.ReadAt(head, 0); err != nil {
		return nil, &ports.FormatError{Format: fakeFormat, Offset: 0, Msg: "unreadable header: " + err.Error()}
	}
	if string(head[:8]) != fakeMagic {
		return nil, fmt.Errorf("%s: layout: not a %s image: %w", f.id(), fakeFormat, ports.ErrUnsupported)
	}
	n := int(binary.LittleEndian.Uint16(head[8:]))
	end := int64(fakeRecordsAt + n*fakeRecord)
	if end > size {
		return nil, &ports.FormatError{Format: fakeFormat, Offset: size, Msg: fmt.Sprintf("%d section records need %d bytes", n, end)}
	}
	recs := make([]byte, n*fakeRecord)
	if _, err := r.ReadAt(recs, fakeRecordsAt); err != nil {
		return nil, &ports.FormatError{Format: fakeFormat, Offset: fakeRecordsAt, Msg: "unreadable section records: " + err.Error()}
	}
	l := &ports.Layout{Format: fakeFormat, Machine: "EM_X86_64", Bits: 64, ByteOrder: "little", ImageType: "ET_EXEC", Entry: 0x1010}
	for i := range n {
		rec := recs[i*fakeRecord:]
		name := bytes.TrimRight(rec[:8], "\x00")
		s := ports.LayoutSection{
			Index:    i + 1,
			Name:     ports.LayoutName{Bytes: bytes.Clone(name), Table: ".shstrtab", Offset: uint64(fakeRecordsAt + i*fakeRecord), Known: true},
			Type:     "SHT_PROGBITS",
			Address:  binary.LittleEndian.Uint64(rec[8:]),
			Offset:   uint64(binary.LittleEndian.Uint32(rec[16:])),
			FileSize: uint64(binary.LittleEndian.Uint32(rec[20:])),
			Size:     uint64(binary.LittleEndian.Uint32(rec[24:])),
		}
		flags := binary.LittleEndian.Uint32(rec[28:])
		for bit, name := range []string{"SHF_ALLOC", "SHF_WRITE", "SHF_EXECINSTR"} {
			if flags&(1<<bit) != 0 {
				s.Flags = append(s.Flags, name)
			}
		}
		if s.FileSize == 0 {
			s.Type = "SHT_NOBITS"
		}
		s.InFile = s.Offset+s.FileSize <= uint64(size)
		if !s.InFile {
			l.Diagnostics = append(l.Diagnostics, fmt.Sprintf("section %d (%s) extends beyond the file", s.Index, name))
			s.FileSize = 0
		}
		l.Sections = append(l.Sections, s)
	}
	for i, p := range codeProcs {
		l.Symbols = append(l.Symbols, ports.LayoutSymbol{Table: "symtab", Index: i + 1,
			Name:  ports.LayoutName{Bytes: []byte(strings.TrimSuffix(p.Name, "@plt")), Table: ".strtab", Known: true},
			Value: p.Address, Size: p.Size, Type: "STT_FUNC", Binding: "STB_GLOBAL", Visibility: "STV_DEFAULT", SectionIndex: 1, Section: ".text"})
	}
	return l, nil
}

// check fails when ctx is done or the analysis is closed.
func (a *CodeAnalysis) check(ctx context.Context, op string) error {
	_, err := fakeList[struct{}](ctx, a.FakeAnalysis, op, nil)
	return err
}

// Disassemble sweeps .text from req.Address; bytes inside an instruction
// (a request between boundaries) are "(bad)".
func (a *CodeAnalysis) Disassemble(ctx context.Context, req ports.DisassembleRequest) (ports.Disassembly, error) {
	if err := a.check(ctx, "disassemble"); err != nil {
		return ports.Disassembly{}, err
	}
	if req.Address < textStart || req.Address >= textEnd {
		return ports.Disassembly{}, fmt.Errorf("%s: disassemble: 0x%x is not in .text: %w", a.id, req.Address, ports.ErrNotFound)
	}
	end := uint64(textEnd)
	if req.End > req.Address && req.End < end {
		end = req.End
	}
	n := req.MaxInstructions
	if n <= 0 || n > 1000 {
		n = 1000
	}
	out := ports.Disassembly{Syntax: "intel", Instructions: []ports.Instruction{}}
	for at := req.Address; at < end; {
		if len(out.Instructions) == n {
			out.Truncated = true
			break
		}
		in := instructionAt(at)
		out.Instructions = append(out.Instructions, in)
		at += uint64(len(in.Bytes))
	}
	return out, nil
}

// instructionAt decodes at addr inside .text: a listed instruction, int3
// padding, or one "(bad)" byte inside an instruction.
func instructionAt(addr uint64) ports.Instruction {
	i, found := slices.BinarySearchFunc(codeText, addr, func(in ports.Instruction, a uint64) int { return cmp.Compare(in.Address, a) })
	if found {
		in := codeText[i]
		in.Bytes = slices.Clone(in.Bytes)
		in.Text = strings.TrimSpace(in.Mnemonic + " " + in.Operands)
		return in
	}
	b := codeSections[0].data[addr-textStart]
	if b == 0xcc {
		return ports.Instruction{Address: addr, Bytes: []byte{b}, Mnemonic: "int3", Text: "int3", Flow: ports.FlowStop}
	}
	return ports.Instruction{Address: addr, Bytes: []byte{b}, Mnemonic: "(bad)", Text: "(bad)", Flow: ports.FlowStop, Invalid: true}
}

// FunctionRanges lists the three procedures' extents.
func (a *CodeAnalysis) FunctionRanges(ctx context.Context) ([]ports.FunctionRange, error) {
	return fakeList(ctx, a.FakeAnalysis, "function ranges", codeRanges)
}

func rangeAt(addr uint64) (ports.FunctionRange, bool) {
	i, found := slices.BinarySearchFunc(codeRanges, addr, func(r ports.FunctionRange, a uint64) int { return cmp.Compare(r.Start, a) })
	if !found {
		return ports.FunctionRange{}, false
	}
	return codeRanges[i], true
}

// Function decodes one procedure.
func (a *CodeAnalysis) Function(ctx context.Context, req ports.FunctionRequest) (ports.Function, error) {
	if err := a.check(ctx, "function"); err != nil {
		return ports.Function{}, err
	}
	r, ok := rangeAt(req.Address)
	if !ok {
		return ports.Function{}, fmt.Errorf("%s: function: no procedure starts at 0x%x: %w", a.id, req.Address, ports.ErrNotFound)
	}
	f := ports.Function{FunctionRange: r, Syntax: "intel", Instructions: []ports.Instruction{}}
	for at := r.Start; at < r.End; {
		in := instructionAt(at)
		if req.MaxInstructions <= 0 || len(f.Instructions) < req.MaxInstructions {
			f.Instructions = append(f.Instructions, in)
		}
		f.InstructionCount++
		at += uint64(len(in.Bytes))
	}
	for _, b := range codeBlocks[r.Start] {
		b.Successors = slices.Clone(b.Successors)
		f.Blocks = append(f.Blocks, b)
	}
	return f, nil
}

// ReferencesFrom lists the references made in [start, end).
func (a *CodeAnalysis) ReferencesFrom(ctx context.Context, start, end uint64) ([]ports.Reference, error) {
	if err := a.check(ctx, "references"); err != nil {
		return nil, err
	}
	out := []ports.Reference{}
	for _, r := range codeRefs {
		if r.From >= start && r.From < end {
			out = append(out, r)
		}
	}
	return out, nil
}

// ReferencesTo lists the resolved references to [start, end).
func (a *CodeAnalysis) ReferencesTo(ctx context.Context, start, end uint64) ([]ports.Reference, error) {
	if err := a.check(ctx, "references"); err != nil {
		return nil, err
	}
	out := []ports.Reference{}
	for _, r := range codeRefs {
		if !r.Unresolved && r.To >= start && r.To < end {
			out = append(out, r)
		}
	}
	slices.SortStableFunc(out, cmpTo)
	return out, nil
}

// ReadBytes reads the section bytes mapped at addr.
func (a *CodeAnalysis) ReadBytes(ctx context.Context, addr uint64, n int) ([]byte, error) {
	if err := a.check(ctx, "read bytes"); err != nil {
		return nil, err
	}
	for _, s := range codeSections {
		if addr >= s.addr && addr-s.addr < s.fileSize {
			if n <= 0 {
				return []byte{}, nil
			}
			off := addr - s.addr
			return slices.Clone(s.data[off : off+min(uint64(n), s.fileSize-off)]), nil
		}
	}
	return nil, fmt.Errorf("%s: read bytes: 0x%x is in no section with file bytes: %w", a.id, addr, ports.ErrNotFound)
}

var codeSignatures = map[uint64]ports.Signature{
	0x1000: {CallingConvention: "sysv-amd64", ReturnType: "int", Parameters: []ports.Parameter{{Name: "s", Type: "const char *", Location: "rdi"}}, Source: "dwarf"},
	0x1030: {CallingConvention: "sysv-amd64", ReturnType: "int", Parameters: []ports.Parameter{{Name: "argc", Type: "int", Location: "rdi"}}, Source: "dwarf"},
}

// Signature describes puts@plt and main; _start has no debug information.
func (a *CodeAnalysis) Signature(ctx context.Context, addr uint64) (ports.Signature, error) {
	if err := a.check(ctx, "signature"); err != nil {
		return ports.Signature{}, err
	}
	s, ok := codeSignatures[addr]
	if !ok {
		return ports.Signature{}, fmt.Errorf("%s: signature: nothing describes 0x%x: %w", a.id, addr, ports.ErrNotFound)
	}
	s.Parameters = slices.Clone(s.Parameters)
	return s, nil
}

// codeLines is main's line table, as a compiler would give it for the
// pseudo-code below in main.c: each row covers the instructions from its
// address to the next row's; the call of puts is inlined from a helper,
// say(), called at line 4.
var codeLines = []struct {
	addr uint64
	line int
}{{0x1030, 2}, {0x1034, 3}, {0x1038, 10}, {0x1044, 6}, {0x1048, 0}}

// SourceAt maps main's addresses to lines of main.c; the rest of the
// program has no line.
func (a *CodeAnalysis) SourceAt(ctx context.Context, addr uint64) (ports.SourceLocation, error) {
	if err := a.check(ctx, "source at"); err != nil {
		return ports.SourceLocation{}, err
	}
	for i := len(codeLines) - 2; i >= 0; i-- {
		if addr >= codeLines[i].addr && addr < codeLines[i+1].addr {
			loc := ports.SourceLocation{File: "/src/main.c", Line: codeLines[i].line, Column: 5, Function: "main"}
			if loc.Line == 10 {
				loc.Inlined = []ports.InlinedCall{{Function: "say", CallFile: "/src/main.c", CallLine: 4, CallColumn: 9}}
			}
			return loc, nil
		}
	}
	return ports.SourceLocation{}, fmt.Errorf("%s: source at: no line covers 0x%x: %w", a.id, addr, ports.ErrNotFound)
}

var codePseudocode = map[uint64]ports.Pseudocode{
	0x1000: {Text: "int puts(const char *s); // import thunk\n", Signature: "int puts(const char *s)"},
	0x1010: {Text: "void _start(void)\n{\n    main(1);\n    halt();\n}\n", Signature: "void _start(void)"},
	0x1030: {Text: "int main(int argc)\n{\n    if (argc != 0) {\n        puts(\"hello, world\");\n    }\n    return 0;\n}\n", Signature: "int main(int argc)"},
}

// Decompile returns each procedure's pseudo-code.
func (a *CodeAnalysis) Decompile(ctx context.Context, addr uint64) (ports.Pseudocode, error) {
	if err := a.check(ctx, "decompile"); err != nil {
		return ports.Pseudocode{}, err
	}
	p, ok := codePseudocode[addr]
	if !ok {
		return ports.Pseudocode{}, fmt.Errorf("%s: decompile: no procedure starts at 0x%x: %w", a.id, addr, ports.ErrNotFound)
	}
	return p, nil
}

var callClobbers = []string{"rax", "rcx", "rdi", "rdx", "rsi"}

var codeValueFlows = map[uint64]ports.ValueFlow{
	0x1000: {
		CallingConvention: "sysv-amd64",
		Operations:        []ports.ValueFlowOperation{{Address: 0x1000, Mnemonic: "jmp", Uses: []string{"[0x4000]"}}},
		OmittedEdges:      1,
		Limitations:       []string{"indirect jump with unknown targets"},
	},
	0x1010: {
		CallingConvention: "sysv-amd64",
		Operations: []ports.ValueFlowOperation{
			{Address: 0x1010, Mnemonic: "mov", Defs: []string{"rdi"}},
			{Address: 0x1015, Mnemonic: "call", Defs: callClobbers, Uses: []string{"rdi", "rsp"}},
			{Address: 0x101a, Mnemonic: "hlt"},
		},
		DefUses: []ports.DefUse{{Def: 0x1010, Use: 0x1015, Location: "rdi"}},
		Effects: []ports.ValueFlowEffect{{Kind: ports.EffectCall, Address: 0x1015, Target: 0x1030, HasTarget: true}},
	},
	0x1030: {
		CallingConvention: "sysv-amd64",
		Operations: []ports.ValueFlowOperation{
			{Address: 0x1030, Mnemonic: "push", Defs: []string{"[rsp-0x8]", "rsp"}, Uses: []string{"rbp", "rsp"}},
			{Address: 0x1031, Mnemonic: "mov", Defs: []string{"rbp"}, Uses: []string{"rsp"}},
			{Address: 0x1034, Mnemonic: "test", Uses: []string{"rdi"}},
			{Address: 0x1036, Mnemonic: "je"},
			{Address: 0x1038, Mnemonic: "lea", Defs: []string{"rdi"}},
			{Address: 0x103f, Mnemonic: "call", Defs: callClobbers, Uses: []string{"rdi", "rsp"}},
			{Address: 0x1044, Mnemonic: "xor", Defs: []string{"rax"}},
			{Address: 0x1046, Mnemonic: "pop", Defs: []string{"rbp", "rsp"}, Uses: []string{"[rsp]", "rsp"}},
			{Address: 0x1047, Mnemonic: "ret", Uses: []string{"rax", "rsp"}},
		},
		DefUses: []ports.DefUse{
			{Def: 0x1030, Use: 0x1031, Location: "rsp"},
			{Def: 0x1030, Use: 0x103f, Location: "rsp"},
			{Def: 0x1038, Use: 0x103f, Location: "rdi"},
			{Def: 0x1030, Use: 0x1046, Location: "[rsp-0x8]"},
			{Def: 0x1030, Use: 0x1046, Location: "rsp"},
			{Def: 0x1044, Use: 0x1047, Location: "rax"},
			{Def: 0x1046, Use: 0x1047, Location: "rsp"},
		},
		Effects: []ports.ValueFlowEffect{
			{Kind: ports.EffectMemoryWrite, Address: 0x1030, Location: "[rsp-0x8]", Value: "rbp"},
			{Kind: ports.EffectCall, Address: 0x103f, Target: 0x1000, HasTarget: true},
			{Kind: ports.EffectReturn, Address: 0x1047, Location: "rax", Definitions: []uint64{0x1044}},
		},
		Parameters:    []ports.InferredParameter{{Location: "rdi", Position: 0, Uses: 1}},
		ParameterUses: []ports.ParameterUse{{Location: "rdi", Address: 0x1034}},
	},
}

// ValueFlow returns each procedure's value flow; a positive
// req.MaxInstructions below the procedure's size cuts it to that prefix
// (Truncated, OmittedOperations).
func (a *CodeAnalysis) ValueFlow(ctx context.Context, req ports.FunctionRequest) (ports.ValueFlow, error) {
	if err := a.check(ctx, "value flow"); err != nil {
		return ports.ValueFlow{}, err
	}
	vf, ok := codeValueFlows[req.Address]
	if !ok {
		return ports.ValueFlow{}, fmt.Errorf("%s: value flow: no procedure starts at 0x%x: %w", a.id, req.Address, ports.ErrNotFound)
	}
	n := len(vf.Operations)
	if req.MaxInstructions > 0 && req.MaxInstructions < n {
		n = req.MaxInstructions
		vf.Truncated, vf.OmittedOperations = true, len(vf.Operations)-n
	}
	kept := func(addr uint64) bool {
		return slices.ContainsFunc(vf.Operations[:n], func(o ports.ValueFlowOperation) bool { return o.Address == addr })
	}
	out := vf
	out.Operations = nil
	for _, o := range vf.Operations[:n] {
		o.Defs, o.Uses = slices.Clone(o.Defs), slices.Clone(o.Uses)
		out.Operations = append(out.Operations, o)
	}
	out.DefUses = slices.DeleteFunc(slices.Clone(vf.DefUses), func(d ports.DefUse) bool { return !kept(d.Def) || !kept(d.Use) })
	out.Effects = nil
	for _, e := range vf.Effects {
		if kept(e.Address) {
			e.Definitions = slices.Clone(e.Definitions)
			out.Effects = append(out.Effects, e)
		}
	}
	out.ParameterUses = slices.DeleteFunc(slices.Clone(vf.ParameterUses), func(u ports.ParameterUse) bool { return !kept(u.Address) })
	out.Parameters = slices.Clone(vf.Parameters)
	out.Limitations = slices.Clone(vf.Limitations)
	return out, nil
}
