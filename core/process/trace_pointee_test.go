package process

import (
	"context"
	"testing"

	"github.com/matryer/is"

	"rea/core"
	"rea/ports"
)

// pointeeAnalysis lists a program's sections, names and nothing else.
type pointeeAnalysis struct {
	ports.Analysis
	segs  []ports.Segment
	names []ports.Name
}

func (a pointeeAnalysis) Segments(context.Context) ([]ports.Segment, error) { return a.segs, nil }
func (a pointeeAnalysis) Names(context.Context) ([]ports.Name, error)       { return a.names, nil }

// An argument is given the place it points at in the image only when its
// value less the main module's load bias lies in a section and its type
// may hold an address: a label at that address, the procedure around it
// in code, an analyst's name before the engine's; not a float's bits, an
// integer, a value below the bias, or any value when the tracer reported
// no main module.
func TestTracePointees(t *testing.T) {
	is := is.New(t)
	ctx := context.Background()
	a := pointeeAnalysis{
		segs: []ports.Segment{
			{Name: "LOAD", Kind: "segment", Start: 0, Size: 0x5000, Perms: ports.Permissions{Read: true, Execute: true}},
			{Name: ".text", Kind: "section", Start: 0x1000, Size: 0x100, Perms: ports.Permissions{Read: true, Execute: true}},
			{Name: ".data", Kind: "section", Start: 0x4000, Size: 0x40, Perms: ports.Permissions{Read: true, Write: true}},
			{Name: ".comment", Kind: "section", Start: 0, Size: 0x30},
		},
		names: []ports.Name{{Address: 0x1000, Name: "main", Kind: "function", Size: 0x40}, {Address: 0x4010, Name: "table", Kind: "object", Size: 0x10},
			{Address: 0x4020, Name: "puts", Kind: "import", Size: 8}, {Address: 0x4000, Name: "big", Kind: "object", Size: 0x38},
			{Address: 0x4000, Name: "head", Kind: "object", Size: 4}, {Address: 0x4038, Name: "unsized", Kind: "object"}},
	}
	idx := &procIndex{procs: []ports.Procedure{{Address: 0x1000, Name: "main", Size: 0x40}, {Address: 0x1040}},
		analyst: map[uint64]string{0x4030: "counters"}}
	const bias = 0x555555554000
	pt := newPointees(ctx, a, idx).withBias(&ports.TraceResult{Modules: []ports.TraceModule{{Name: "libc.so.6", LoadBias: 0x7f0000000000}, {Name: "", LoadBias: bias}}})
	is.True(pt != nil)
	place := func(v uint64) string {
		p := pt.of(v)
		if p == nil {
			return "-"
		}
		s := p.Address + " " + p.Section
		if p.Name != nil {
			s += " " + *p.Name
		}
		if p.Procedure != nil {
			s += " in " + *p.Procedure.Name
		}
		return s
	}
	is.Equal(place(bias+0x1000), "0x1000 .text main in main")
	is.Equal(place(bias+0x1010), "0x1010 .text in main")
	is.Equal(place(bias+0x1048), "0x1048 .text in sub_1040")
	is.Equal(place(bias+0x4010), "0x4010 .data table")
	is.Equal(place(bias+0x4018), "0x4018 .data table+0x8") // inside a sized object: the innermost
	is.Equal(place(bias+0x4002), "0x4002 .data head+0x2")
	is.Equal(place(bias+0x4006), "0x4006 .data big+0x6")  // past head, inside big
	is.Equal(place(bias+0x4021), "0x4021 .data big+0x21") // an import's slot is no object
	is.Equal(place(bias+0x403c), "0x403c .data")          // past big; unsized is only its own address
	is.Equal(place(bias+0x4020), "0x4020 .data big+0x20") // an import's slot is not a pointee's name
	is.Equal(place(bias+0x4030), "0x4030 .data counters") // the analyst's name
	is.Equal(place(bias+0x4040), "-")                     // past .data
	is.Equal(place(bias+0x20), "-")                       // in no section but the segment, whose sections say where
	is.Equal(place(0x1000), "-")                          // below the bias

	sig := &traceSig{params: []ports.Parameter{{Name: "p", Type: "int *"}, {Name: "n", Type: "size_t"}, {Name: "cb", Type: "int (*)(int)"},
		{Name: "h", Type: "handle", Underlying: "void *"}, {Name: "d", Type: "double"}}}
	bits := "0x1"
	argv := []TraceArgument{
		{Value: core.Hex(bias + 0x4010), Parameter: core.OptString("p")},
		{Value: core.Hex(bias + 0x4010), Parameter: core.OptString("n")},
		{Value: core.Hex(bias + 0x1000), Parameter: core.OptString("cb")},
		{Value: core.Hex(bias + 0x4030), Parameter: core.OptString("h")},
		{Value: core.Hex(bias + 0x4010), Parameter: core.OptString("d"), Bits: &bits},
		{Value: core.Hex(bias + 0x4010)},                                  // no parameter known
		{Value: core.Hex(bias + 0x4010), Parameter: core.OptString("%d")}, // a format's int
		{Value: core.Hex(bias + 0x4010), Parameter: core.OptString("%p")},
	}
	pt.annotate(argv, sig, ports.TraceHit{Variadic: []ports.Parameter{{Name: "%d", Type: "int"}, {Name: "%p", Type: "void *"}}}, nil)
	var got []bool
	for _, a := range argv {
		got = append(got, a.PointsTo != nil)
	}
	is.Equal(got, []bool{true, false, true, true, false, true, false, true})

	is.True(newPointees(ctx, a, idx).withBias(&ports.TraceResult{Modules: []ports.TraceModule{{Name: "libc.so.6"}}}).of(bias+0x4010) == nil)
	is.True(newPointees(ctx, pointeeAnalysis{}, idx) == nil)
	var none *pointees
	none.annotate(argv, sig, ports.TraceHit{}, nil) // a trace without an image: nothing to do
}

// An argument the tracer placed in a library points there (its file, the
// symbol around it with the offset into it) unless it lies in the program's
// image; a library place is kept without a program image too.
func TestTraceLibraryPointees(t *testing.T) {
	is := is.New(t)
	const bias = 0x555555554000
	pt := &pointees{bias: bias, segs: []ports.Segment{{Name: ".data", Kind: "section", Start: 0x4000, Size: 0x40, Perms: ports.Permissions{Read: true}}},
		labels: map[uint64]string{}, idx: &procIndex{}}
	libc := "/usr/lib/x86_64-linux-gnu/libc.so.6"
	h := ports.TraceHit{Arguments: []ports.TraceRegister{
		{Name: "rdi", Value: 0x7ffff7fa8680, Place: &ports.TracePlace{Module: libc, Address: 0x1d3680, Section: ".data", Symbol: "_IO_2_1_stderr_"}},
		{Name: "rsi", Value: 0x7ffff7fa8690, Place: &ports.TracePlace{Module: libc, Address: 0x1d3690, Section: ".data", Symbol: "_IO_2_1_stderr_", Offset: 0x10}},
		{Name: "rdx", Value: 0x7ffff7f00000, Place: &ports.TracePlace{Module: libc, Address: 0x10000}},
		{Name: "rcx", Value: bias + 0x4010, Place: &ports.TracePlace{Module: libc, Address: 1}}, // the image wins
	}}
	argv := []TraceArgument{{Register: "rdi", Value: "0x7ffff7fa8680"}, {Register: "rsi", Value: "0x7ffff7fa8690"},
		{Register: "rdx", Value: "0x7ffff7f00000"}, {Register: "rcx", Value: core.Hex(bias + 0x4010)}}
	show := func(p *TracePointee) string {
		s := p.Address + " " + p.Section
		if p.Module != nil {
			s += " " + *p.Module
		}
		if p.Name != nil {
			s += " " + *p.Name
		}
		return s
	}
	pt.annotate(argv, nil, h, nil)
	is.Equal(show(argv[0].PointsTo), "0x1d3680 .data "+libc+" _IO_2_1_stderr_")
	is.Equal(show(argv[1].PointsTo), "0x1d3690 .data "+libc+" _IO_2_1_stderr_+0x10")
	is.Equal(show(argv[2].PointsTo), "0x10000  "+libc)
	is.Equal(show(argv[3].PointsTo), "0x4010 .data")

	var none *pointees
	argv = []TraceArgument{{Register: "rdi", Value: "0x7ffff7fa8680"}}
	none.annotate(argv, nil, h, nil)
	is.Equal(show(argv[0].PointsTo), "0x1d3680 .data "+libc+" _IO_2_1_stderr_")
}

// A value in the main thread's stack, from the red zone below the stack
// pointer to the stack's end, is given as its offset from the stack
// pointer; not on another thread, not past the end, not where the stack
// pointer lies far below the end (a goroutine's or a signal stack) or the
// end is unknown, and not for an argument that holds no address; the
// tracer's heap mark likewise.
func TestTraceStackPointees(t *testing.T) {
	is := is.New(t)
	const end, sp = 0x7ffffffff000, 0x7fffffffe400
	main := ports.TraceHit{ProcessID: 7, ThreadID: 7, MainThread: true, StackPointer: sp}
	at := func(v uint64, h ports.TraceHit, end uint64) string {
		s, ok := onStack(v, h, end)
		if !ok {
			return "-"
		}
		return s
	}
	is.Equal(at(sp+0x18, main, end), "sp+0x18")
	is.Equal(at(sp, main, end), "sp+0x0")
	is.Equal(at(sp-0x80, main, end), "sp-0x80") // the red zone
	is.Equal(at(sp-0x81, main, end), "-")
	is.Equal(at(end-1, main, end), "sp+0xbff")
	is.Equal(at(end, main, end), "-")
	is.Equal(at(sp+0x18, main, 0), "-") // no end known
	thread := main
	thread.ThreadID, thread.MainThread = 8, false
	is.Equal(at(sp+0x18, thread, end), "-")
	far := main
	far.StackPointer = end - mainStackReach - 0x1000 // a stack far below the main one's end
	is.Equal(at(far.StackPointer+0x18, far, end), "-")
	above := main
	above.StackPointer = end + 0x100
	is.Equal(at(end+0x108, above, end), "-")

	pt := (*pointees)(nil).withBias(&ports.TraceResult{StackEnd: end})
	sig := &traceSig{params: []ports.Parameter{{Name: "buf", Type: "char *"}, {Name: "n", Type: "size_t"}}}
	argv := []TraceArgument{{Value: core.Hex(sp + 0x20), Parameter: core.OptString("buf")}, {Value: core.Hex(sp + 0x20), Parameter: core.OptString("n")}}
	pt.annotate(argv, sig, main, nil)
	is.True(argv[0].Stack != nil && *argv[0].Stack == "sp+0x20")
	is.True(argv[1].Stack == nil) // an integer

	// The tracer's heap mark is kept for an argument that may be an address.
	heap := main
	heap.Arguments = []ports.TraceRegister{{Name: "rdi", Value: 0x5555555592a0, Heap: true}, {Name: "rsi", Value: 0x5555555592a0, Heap: true}}
	argv = []TraceArgument{{Register: "rdi", Value: "0x5555555592a0", Parameter: core.OptString("buf")}, {Register: "rsi", Value: "0x5555555592a0", Parameter: core.OptString("n")}}
	pt.annotate(argv, sig, heap, nil)
	is.True(argv[0].Heap && argv[0].Stack == nil && argv[0].PointsTo == nil)
	is.True(!argv[1].Heap)
}

// The tracer's stacks and mappings: a value in the calling thread's stack
// is an offset from its stack pointer, one in another thread's names that
// thread as raw_result numbers threads; a mapping gives the file and
// offset, or null for anonymous memory; nothing for an integer.
func TestTraceThreadStacksAndMappings(t *testing.T) {
	is := is.New(t)
	const sp, other = 0x7ffff7a00e00, 0x7ffff7200f00
	h := ports.TraceHit{ThreadID: 42, StackPointer: sp, Arguments: []ports.TraceRegister{
		{Name: "rdi", Value: sp + 0x40, Stack: &ports.TraceStack{Thread: 42, StackPointer: sp}},
		{Name: "rsi", Value: other - 0x10, Stack: &ports.TraceStack{Thread: 43, StackPointer: other}},
		{Name: "rdx", Value: 0x7ffff7ff1010, Mapping: &ports.TraceMapping{Path: "/tmp/data bin", Offset: 0x1010}},
		{Name: "rcx", Value: 0x7ffff6000010, Mapping: &ports.TraceMapping{Offset: 0x10}},
		{Name: "r8", Value: 0x7ffff6000010, Mapping: &ports.TraceMapping{Offset: 0x10}},
	}}
	sig := &traceSig{params: []ports.Parameter{{Name: "a", Type: "char *"}, {Name: "b", Type: "void *"}, {Name: "c", Type: "const void *"},
		{Name: "d", Type: "void *"}, {Name: "n", Type: "size_t"}}}
	argv := []TraceArgument{}
	for i, r := range h.Arguments {
		argv = append(argv, TraceArgument{Register: r.Name, Value: core.Hex(r.Value), Parameter: core.OptString(sig.params[i].Name)})
	}
	numbers := map[int]int{42: 1}
	number := func(id int) int {
		if _, ok := numbers[id]; !ok {
			numbers[id] = len(numbers) + 1
		}
		return numbers[id]
	}
	(*pointees)(nil).withBias(&ports.TraceResult{}).annotate(argv, sig, h, number)
	is.True(argv[0].Stack != nil && *argv[0].Stack == "sp+0x40" && argv[0].StackThread == nil)
	is.True(argv[1].Stack != nil && *argv[1].Stack == "sp-0x10" && argv[1].StackThread != nil && *argv[1].StackThread == 2)
	is.True(argv[2].Mapping != nil && *argv[2].Mapping.File == "/tmp/data bin" && argv[2].Mapping.Offset == "0x1010")
	is.True(argv[3].Mapping != nil && argv[3].Mapping.File == nil && argv[3].Mapping.Offset == "0x10")
	is.True(argv[4].Mapping == nil && argv[4].Stack == nil) // an integer
	for _, a := range argv[:4] {
		is.True(!a.Heap && a.PointsTo == nil)
	}
}

// A value the tracer placed in a thread's TLS is an offset from that
// thread's pointer, signed ("tp-0x100" below it, "tp+0x10" above), naming
// the thread as raw_result numbers threads when it is not the calling
// one; a place in the program's image comes first, and an integer has
// none.
func TestTraceTLSPlaces(t *testing.T) {
	is := is.New(t)
	const tp = 0x7ffff7dd1740
	h := ports.TraceHit{ThreadID: 42, StackPointer: 0x7ffff7a00e00, Arguments: []ports.TraceRegister{
		{Name: "rdi", Value: tp - 0x100, TLS: &ports.TraceTLS{Thread: 42, Offset: -0x100}},
		{Name: "rsi", Value: 0x7ffff6000010, TLS: &ports.TraceTLS{Thread: 43, Offset: 0x10}},
		{Name: "rdx", Value: tp, TLS: &ports.TraceTLS{Thread: 42, Offset: 0}},
		{Name: "rcx", Value: tp - 0x80, TLS: &ports.TraceTLS{Thread: 42, Offset: -0x80}},
	}}
	sig := &traceSig{params: []ports.Parameter{{Name: "e", Type: "int *"}, {Name: "v", Type: "void *"}, {Name: "self", Type: ""},
		{Name: "n", Type: "long"}}}
	argv := []TraceArgument{}
	for i, r := range h.Arguments {
		argv = append(argv, TraceArgument{Register: r.Name, Value: core.Hex(r.Value), Parameter: core.OptString(sig.params[i].Name)})
	}
	numbers := map[int]int{42: 1}
	number := func(id int) int {
		if _, ok := numbers[id]; !ok {
			numbers[id] = len(numbers) + 1
		}
		return numbers[id]
	}
	(*pointees)(nil).withBias(&ports.TraceResult{}).annotate(argv, sig, h, number)
	is.True(argv[0].TLS != nil && *argv[0].TLS == "tp-0x100" && argv[0].TLSThread == nil)
	is.True(argv[1].TLS != nil && *argv[1].TLS == "tp+0x10" && argv[1].TLSThread != nil && *argv[1].TLSThread == 2)
	is.True(argv[2].TLS != nil && *argv[2].TLS == "tp+0x0")
	is.True(argv[3].TLS == nil) // a long
	for _, a := range argv {
		is.True(a.Stack == nil && a.Mapping == nil && !a.Heap && a.PointsTo == nil)
	}
}
