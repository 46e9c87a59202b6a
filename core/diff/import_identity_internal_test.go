package diff

import (
	"context"
	"encoding/json"
	"slices"
	"testing"

	"github.com/matryer/is"

	"rea/core"
	"rea/ports"
)

// fakeBinary is the little of an analysis binSide.read asks: procedures,
// names, function bodies and references.
type fakeBinary struct {
	procs []ports.Procedure
	names []ports.Name
	fns   map[uint64]ports.Function
	refs  []ports.Reference
}

func (*fakeBinary) Version() string             { return "test" }
func (*fakeBinary) Profile() ports.Profile      { return ports.Profile{SchemaVersion: 1} }
func (*fakeBinary) Close(context.Context) error { return nil }
func (b *fakeBinary) Names(context.Context) ([]ports.Name, error) {
	return b.names, nil
}
func (b *fakeBinary) Procedures(context.Context) ([]ports.Procedure, error) {
	return b.procs, nil
}
func (b *fakeBinary) FunctionRanges(context.Context) ([]ports.FunctionRange, error) {
	return nil, ports.ErrUnsupported
}
func (b *fakeBinary) Function(_ context.Context, req ports.FunctionRequest) (ports.Function, error) {
	f, ok := b.fns[req.Address]
	if !ok {
		return ports.Function{}, ports.ErrNotFound
	}
	return f, nil
}
func (b *fakeBinary) ReferencesFrom(_ context.Context, start, end uint64) ([]ports.Reference, error) {
	var out []ports.Reference
	for _, r := range b.refs {
		if r.From >= start && r.From < end {
			out = append(out, r)
		}
	}
	return out, nil
}
func (b *fakeBinary) ReferencesTo(context.Context, uint64, uint64) ([]ports.Reference, error) {
	return nil, nil
}

// greetBinary is one build of greet(s) { puts(s); counter++; return
// printf(s); } (printf a tail call): through the imports' stubs (puts@plt,
// printf@plt), or with slot through their GOT slots as gcc -fno-plt builds
// it: a call resolved to puts's slot, and an unresolved jump through
// printf's. extra are more calls through slots: name -> slot.
func greetBinary(t *testing.T, slot bool, object string, extra map[string]uint64) *binSide {
	t.Helper()
	b := &fakeBinary{
		procs: []ports.Procedure{{Address: 0x1100, Name: "greet", Source: "symbol"}},
		names: []ports.Name{{Address: 0x3fd0, Name: "puts", Kind: "import"}, {Address: 0x3fd8, Name: "printf", Kind: "import"},
			{Address: 0x4010, Name: object, Kind: "object"}},
	}
	ins := []ports.Instruction{
		{Address: 0x1100, Mnemonic: "call", Flow: ports.FlowCall},
		{Address: 0x1108, Mnemonic: "add", Operands: "dword ptr [rip+0x2f02], 0x1", Flow: ports.FlowNext},
		{Address: 0x110c, Mnemonic: "jmp", Flow: ports.FlowJump},
	}
	tail := ports.Edge{Kind: ports.EdgeUnresolved}
	b.refs = []ports.Reference{{From: 0x1108, To: 0x4010, Kind: ports.RefRead}}
	if slot {
		b.refs = append(b.refs,
			ports.Reference{From: 0x1100, To: 0x3fd0, Kind: ports.RefCall, Slot: 0x3fd0},
			ports.Reference{From: 0x1100, To: 0x3fd0, Kind: ports.RefRead},
			ports.Reference{From: 0x110c, Kind: ports.RefJump, Unresolved: true, Slot: 0x3fd8, Operand: "qword ptr [rip+0x2ec6]"},
			ports.Reference{From: 0x110c, To: 0x3fd8, Kind: ports.RefRead})
		ins[0].Operands, ins[2].Operands = "qword ptr [rip+0x2eca]", "qword ptr [rip+0x2ec6]"
	} else {
		b.procs = append(b.procs,
			ports.Procedure{Address: 0x1030, Name: "puts@plt", Source: "plt", External: true, Thunk: true, ThunkTarget: "puts"},
			ports.Procedure{Address: 0x1040, Name: "printf@plt", Source: "plt", External: true, Thunk: true, ThunkTarget: "printf"})
		b.refs = append(b.refs,
			ports.Reference{From: 0x1100, To: 0x1030, Kind: ports.RefCall},
			ports.Reference{From: 0x110c, To: 0x1040, Kind: ports.RefJump})
		ins[0].Operands, ins[0].Target, ins[0].HasTarget = "0x1030", 0x1030, true
		ins[2].Operands, ins[2].Target, ins[2].HasTarget = "0x1040", 0x1040, true
		tail = ports.Edge{Kind: ports.EdgeTailCall, Target: 0x1040}
	}
	from := uint64(0x1101)
	for name, at := range extra {
		b.names = append(b.names, ports.Name{Address: at, Name: name, Kind: "import"})
		b.refs = append(b.refs, ports.Reference{From: from, To: at, Kind: ports.RefCall, Slot: at}, ports.Reference{From: from, To: at, Kind: ports.RefRead})
		from++
	}
	slices.SortFunc(b.procs, func(x, y ports.Procedure) int { return int(x.Address) - int(y.Address) })
	b.fns = map[uint64]ports.Function{0x1100: {FunctionRange: ports.FunctionRange{Start: 0x1100, End: 0x1112}, Instructions: ins, InstructionCount: len(ins),
		Blocks: []ports.BasicBlock{{Start: 0x1100, End: 0x1112, Instructions: len(ins), Successors: []ports.Edge{tail}}}}}
	s := &binSide{path: "/nonexistent", byAddr: map[uint64]int{}}
	if err := s.read(context.Background(), b); err != nil {
		t.Fatal(err)
	}
	return s
}

// TestImportIdentityInBinaries: greet built with stubs and greet built with
// gcc -fno-plt call, tail-call and reference the same imports: its calls,
// references and cfg are unchanged, each side counting puts and printf.
// An added call to an import, or a changed reference to data, still shows,
// and the calls difference names its imports.
func TestImportIdentityInBinaries(t *testing.T) {
	is := is.New(t)
	plt := greetBinary(t, false, "counter", nil)
	slot := greetBinary(t, true, "counter", nil)
	is.Equal(plt.imports, []string{"printf", "puts"})
	is.Equal(slot.imports, plt.imports)
	// The tail jump through printf's slot is a call to printf.
	is.Equal(slot.funcs[0].Calls, []callee{{Addr: 0x3fd0, Name: "puts", Import: "puts"}, {Addr: 0x3fd8, Name: "printf", Import: "printf"}})
	is.Equal(slot.funcs[0].RefImports, []string{"", "puts", "printf"})

	d := compareFacts(plt.funcs[0], slot.funcs[0], compareOptions{})
	for _, dim := range []string{"calls", "references", "cfg"} {
		is.Equal(d.Dimensions[dim].Status, "unchanged") // stub against slot
	}

	more := greetBinary(t, true, "total", map[string]uint64{"system": 0x3fe0})
	d = compareFacts(plt.funcs[0], more.funcs[0], compareOptions{})
	calls, refs := d.Dimensions["calls"], d.Dimensions["references"]
	is.Equal(calls.Added, []string{"system"})
	is.Equal(calls.Removed, []string{})
	is.Equal(calls.imports, []string{"system"})
	is.Equal(refs.Added, []string{"system", "total"})
	is.Equal(refs.Removed, []string{"counter"})
	// Removed imports are shown as the left names them.
	d = compareFacts(more.funcs[0], plt.funcs[0], compareOptions{})
	is.Equal(d.Dimensions["calls"].Removed, []string{"system"})
	is.Equal(d.Dimensions["references"].Removed, []string{"system", "total"})
}

// TestImportIdentityCountsOnce: a function that calls one import through
// its stub and through its slot calls and references it once.
func TestImportIdentityCountsOnce(t *testing.T) {
	is := is.New(t)
	both := &fnFacts{Calls: []callee{{Addr: 0x1030, Name: "puts@plt", Import: "puts"}, {Addr: 0x3fd0, Name: "puts", Import: "puts"}},
		Refs: []string{"puts@plt", "puts"}, RefImports: []string{"puts", "puts"}}
	one := &fnFacts{Calls: []callee{{Addr: 0x3fd0, Name: "puts", Import: "puts"}}, Refs: []string{"puts"}, RefImports: []string{"puts"}}
	d := compareFacts(both, one, compareOptions{})
	is.Equal(d.Dimensions["calls"].Status, "unchanged")
	is.Equal(d.Dimensions["references"].Status, "unchanged")
	// A local function is no import, whatever its name.
	local := &fnFacts{Calls: []callee{{Addr: 0x1200, Name: "helper@v2"}}, Refs: []string{}, RefImports: []string{}}
	d = compareFacts(one, local, compareOptions{})
	is.Equal(d.Dimensions["calls"].Added, []string{"helper@v2"})
	is.Equal(d.Dimensions["calls"].Removed, []string{"puts"})
	is.Equal(d.Dimensions["calls"].imports, []string{"puts"})
}

// afRecord is an analyze_function record of greet as greetBinary builds
// it, with the sections compare_functions reads.
func afRecord(t *testing.T, slot bool) *core.Evidence {
	t.Helper()
	r := map[string]any{
		"procedure":          map[string]any{"address": "0x1100", "name": "greet", "end": "0x1112"},
		"referenced_strings": map[string]any{"items": []any{}, "total": 0},
		"instruction_scan":   map[string]any{"scanned": 3, "truncated": false},
	}
	coll := func(items ...any) map[string]any { return map[string]any{"items": items, "total": len(items)} }
	if slot {
		r["callees"] = coll(map[string]any{"address": "0x3fd0", "name": "puts", "external": true, "procedure": false, "kind": "call"})
		r["unresolved_calls"] = coll(map[string]any{"from": "0x110c", "kind": "jump", "operand": "qword ptr [rip+0x2ec6]", "slot": "0x3fd8", "slot_name": "printf"})
		r["referenced_names"] = coll(map[string]any{"address": "0x3fd0", "name": "puts"}, map[string]any{"address": "0x3fd8", "name": "printf"},
			map[string]any{"address": "0x4010", "name": "counter"})
		r["basic_blocks"] = coll(map[string]any{"start": "0x1100", "end": "0x1112", "successors": []any{map[string]any{"kind": "unresolved", "target": nil}}})
	} else {
		r["callees"] = coll(map[string]any{"address": "0x1030", "name": "puts@plt", "external": true, "procedure": true, "kind": "call"},
			map[string]any{"address": "0x1040", "name": "printf@plt", "external": true, "procedure": true, "kind": "tail-call"})
		r["unresolved_calls"] = coll()
		r["referenced_names"] = coll(map[string]any{"address": "0x4010", "name": "counter"}, map[string]any{"address": "0x1030", "name": "puts@plt"},
			map[string]any{"address": "0x1040", "name": "printf@plt"})
		r["basic_blocks"] = coll(map[string]any{"start": "0x1100", "end": "0x1112", "successors": []any{map[string]any{"kind": "tail-call", "target": "0x1040"}}})
	}
	b, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	return &core.Evidence{Operation: "analyze_function", NormalizedResult: b}
}

// TestImportIdentityInEvidence: compare_functions reads the same greet
// from two analyze_function records, one built with gcc -fno-plt: an
// external callee and a tail jump through a named slot are their imports,
// so calls, references and cfg are unchanged.
func TestImportIdentityInEvidence(t *testing.T) {
	is := is.New(t)
	l, err := factsOfEvidence(afRecord(t, false))
	is.NoErr(err)
	r, err := factsOfEvidence(afRecord(t, true))
	is.NoErr(err)
	is.Equal(r.Calls, []callee{{Addr: 0x3fd0, Name: "puts", Import: "puts"}, {Addr: 0x3fd8, Name: "printf", Import: "printf"}})
	is.Equal(l.RefImports, []string{"", "puts", "printf"})
	d := compareFacts(l, r, compareOptions{})
	for _, dim := range []string{"calls", "references", "cfg"} {
		is.Equal(d.Dimensions[dim].Status, "unchanged")
	}

	// A call and a tail jump through one slot are one callee (a call path
	// has one edge to it).
	both := `{"procedure":{"address":"0x1100","name":"f","end":"0x1112"},
 "callees":{"items":[{"address":"0x3fd0","name":"puts","external":true}],"total":1},
 "unresolved_calls":{"items":[{"from":"0x110c","kind":"jump","slot":"0x3fd0","slot_name":"puts"}],"total":1}}`
	f, err := factsOfEvidence(&core.Evidence{Operation: "analyze_function", NormalizedResult: []byte(both)})
	is.NoErr(err)
	is.Equal(f.Calls, []callee{{Addr: 0x3fd0, Name: "puts", Import: "puts"}})
}

// TestImportCallTest: find_changed_behavior sorts a calls difference by
// the imports the comparison names, and only for a comparison that names
// none (made before it did) by an @ in the callee's name.
func TestImportCallTest(t *testing.T) {
	is := is.New(t)
	marked := importCallTest([]string{"system"})
	is.True(marked("system"))     // through its slot: no @
	is.True(!marked("helper@v2")) // a local symbol
	is.True(!marked("greet"))
	none := importCallTest([]string{})
	is.True(!none("*ABS*+0x9f550@plt")) // marked: no import among them
	old := importCallTest(nil)
	is.True(old("system@plt"))
	is.True(!old("system"))
}

// TestImportStubBesideAStaticNamesake: a PLT stub names its import even when
// the binary has a static function of the same name (a.c's static puts
// beside libc's puts@plt). Before, the stub was taken for a thunk to the
// local function, so a build with a symbol table had no puts import while
// its stripped copy had one, and main's call of puts@plt was both added and
// removed. A non-external thunk to a local function (frame_dummy ->
// register_tm_clones) is still no import.
func TestImportStubBesideAStaticNamesake(t *testing.T) {
	is := is.New(t)
	procs := []ports.Procedure{
		{Address: 0x1030, Name: "puts@plt", Source: "plt", External: true, Thunk: true, ThunkTarget: "puts"},
		{Address: 0x1100, Name: "register_tm_clones", Source: "symbol"},
		{Address: 0x1140, Name: "frame_dummy", Source: "symbol", Thunk: true, ThunkTarget: "register_tm_clones"},
		{Address: 0x1149, Name: "puts", Source: "symbol"},
	}
	local := map[string]bool{"register_tm_clones": true, "puts": true}
	imports, home := importIdentities(procs, nil, local)
	is.Equal(imports, map[uint64]string{0x1030: "puts"})
	is.Equal(home, map[string]uint64{"puts": 0x1030})
}
