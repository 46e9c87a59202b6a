package binary

import (
	"cmp"
	"context"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"

	"rea/ports"

	"rea/core"
	"rea/core/codeloc"
)

// Code operations: the primitives over the ports code capabilities
// (Disassembler, FunctionAnalyzer, CrossReferencer, ByteReader). Workflows
// composed from them live in workflow*.go.

func codeOperations() []*core.Operation {
	ops := []*core.Operation{
		opProcedureInfo(), opProcedureAssembly(), opReadFunctionInstructions(), opProcedureCallers(),
		opProcedureCallees(), opProcedureReferences(), opXrefs(), opResolveContainingProcedure(),
		opReadBytes(), opAddressToFileOffset(), opStepAddress("next_address"), opStepAddress("prev_address"),
		opProcedurePseudoCode(),
		opAnalyzeFunction(), opGetCallGraph(), opFindXrefsToName(), opFindCodeForString(), opTraceCallPath(),
		opTraceFeature(), opInspectNativeAPI(), opBatchDecompile(),
	}
	for _, op := range ops {
		partNoted(op)
	}
	return ops
}

// Effects of the code tools (CONTRACTS.md §10): recording Evidence mutates
// the session; the four trace-like workflows are not idempotent.
var (
	codeEffects  = core.Effects{MutatesSession: true, Idempotent: true}
	traceEffects = core.Effects{MutatesSession: true}
)

const procedureProp = `"procedure": {"type":"string","minLength":1,"maxLength":4096,"description":"Procedure name (e.g. main, puts@plt, sub_401000) or address (0x hex, decimal, main+0x10); an address inside a procedure selects it.","examples":["main"]}`

// procRefSchema is a procedure named by address and name (its symbol, or
// sub_<address>).
const procRefSchema = `{"type":"object","additionalProperties":false,"required":["address","name"],"properties":{"address":{"$ref":"#/$defs/hex"},"name":{"type":"string"}}}`

const instructionItemSchema = `{"type":"object","additionalProperties":false,"required":["address","bytes","length","mnemonic","operands","text","flow","target"],
 "properties":{"address":{"$ref":"#/$defs/hex"},"bytes":{"type":"string","pattern":"^([0-9a-f]{2})*$"},"length":{"type":"integer","minimum":1},
  "mnemonic":{"type":"string"},"operands":{"type":"string"},"text":{"type":"string"},
  "flow":{"enum":["next","call","jump","branch","return","stop"]},"target":{"anyOf":[{"type":"null"},{"$ref":"#/$defs/hex"}]}}}`

func instructionItemOf(in ports.Instruction) ReadFunctionInstructionsResultItem {
	it := ReadFunctionInstructionsResultItem{Address: core.Hex(in.Address), Bytes: hex.EncodeToString(in.Bytes), Length: len(in.Bytes),
		Mnemonic: in.Mnemonic, Operands: in.Operands, Text: in.Text, Flow: string(in.Flow)}
	if it.Flow == "" {
		it.Flow = "next"
	}
	if in.HasTarget {
		t := core.Hex(in.Target)
		it.Target = &t
	}
	if it.Length == 0 {
		it.Length = 1
	}
	return it
}

// codeView is the bound analysis seen through the code primitives.
type codeView struct {
	c       *core.Call
	procs   []ports.Procedure
	ranges  []ports.FunctionRange            // parallel to procs
	parts   []ports.ProcedurePart            // the parts of procedures, outside their ranges, sorted by start (parts.go)
	partsOf map[uint64][]ports.ProcedurePart // the same, by procedure address
	fa      ports.FunctionAnalyzer
	xr      ports.CrossReferencer // nil when the provider does not offer it
	names   []ports.Name          // nil when the provider does not list names
	strs    []ports.String        // loaded on demand
	data    []dataSection         // non-executable section bytes, read on demand (dataPointers)
	loaded  bool
	lists   *codeLists
	// analyst holds the analysts' names shown in place of the engine's.
	analyst analystNamer
}

// codeViewOf builds the code view of the document named doc (the
// "document" argument; empty for the current one).
func codeViewOf(ctx context.Context, c *core.Call, doc string) (*codeView, error) {
	if err := checkDocument(ctx, c, doc); err != nil {
		return nil, err
	}
	a, _, _ := c.Bound()
	lists := listsOf(a)
	procs, err := lists.procedures(ctx, a)
	if err != nil {
		return nil, err
	}
	fa, err := analysisFor[ports.FunctionAnalyzer](c)
	if err != nil {
		return nil, err
	}
	ranges, err := lists.functionRanges(ctx, fa, procs)
	if err != nil {
		return nil, codeError(c, err)
	}
	v := &codeView{c: c, procs: procs, fa: fa, ranges: ranges, lists: lists, analyst: namerOf(ctx, c)}
	v.xr, _ = a.(ports.CrossReferencer)
	if v.parts, err = procedureParts(ctx, c); err != nil {
		return nil, codeError(c, err)
	}
	v.partsOf = partsByProcedure(v.parts)
	if v.names, err = lists.namesOf(ctx, a); err != nil {
		return nil, err
	}
	return v, nil
}

// codeError gives an engine's unsupported architecture a remediation.
func codeError(c *core.Call, err error) error {
	if errors.Is(err, ports.ErrUnsupported) {
		_, b, t := c.Bound()
		id := ""
		if b != nil {
			id = b.Provider.Info().ID
		}
		arch := ""
		if t != nil {
			arch = t.Architecture
		}
		return &core.Error{Code: core.CodeCapabilityUnavailable, Err: err,
			Message:     fmt.Sprintf("%s: provider %s cannot decode the %s instruction set: %v", c.Op.Name, id, orUnknown(arch), err),
			Remediation: "rea-native decodes x86, x86-64 and AArch64; for another architecture open the target with another registered engine that decodes it, if binary_session.analysis_provider_candidates lists one.",
			Details:     map[string]any{"operation": c.Op.Name, "reason": "architecture_unsupported", "provider_id": id}}
	}
	return err
}

func orUnknown(s string) string {
	if s == "" {
		return "unknown"
	}
	return s
}

// value is a procedure's display name.
func (v *codeView) value(i int) string { return v.item(i).Value }

// item is the procedure's list item, under the analyst's name if any.
func (v *codeView) item(i int) ProcedureSummary {
	return withParts(v.analyst.item(procedureItemOf(v.procs[i]), v.procs[i].Address), v.partsOf[v.procs[i].Address])
}

// ifuncNote says, of a GNU IFUNC's resolver, that the body described is
// the resolver's and not the implementation the name's callers run, and
// who runs it: the dynamic loader, or in a static program (no dynamic
// loader: ports.Document.Static) the C library's start-up code, which
// applies the program's IRELATIVE relocations itself.
func (v *codeView) ifuncNote(ctx context.Context, i int) []string {
	if !v.procs[i].IFunc {
		return nil
	}
	who := "which runs at load time (the dynamic loader, or a static program's C library start-up code)"
	if docs, err := documents(ctx, v.c); err == nil && len(docs) > 0 {
		who = "which the dynamic loader runs at load time"
		if docs[0].Static {
			who = "which, the program being static, the C library's start-up code runs before main " +
				"(__libc_start_main, or _dl_relocate_static_pie in a static PIE, applies its IRELATIVE relocations)"
		}
	}
	return []string{fmt.Sprintf("%s is a GNU IFUNC: this code is its resolver, %s to choose the implementation "+
		"(typically by CPU features) that calls of %[1]s reach; the implementations are the procedures whose addresses it returns (procedure_references).", v.value(i), who)}
}

func (v *codeView) ref(i int) ProcedureRef {
	return ProcedureRef{Address: core.Hex(v.procs[i].Address), Name: v.value(i)}
}

// startIndex finds the procedure starting at addr.
func (v *codeView) startIndex(addr uint64) (int, bool) {
	i := sort.Search(len(v.procs), func(i int) bool { return v.procs[i].Address >= addr })
	return i, i < len(v.procs) && v.procs[i].Address == addr
}

// startsProcedure reports whether a procedure starts at addr.
func (v *codeView) startsProcedure(addr uint64) bool {
	_, ok := v.startIndex(addr)
	return ok
}

// containing finds the procedure whose range holds addr; of nested ranges
// the innermost (latest start) wins. An address in a part of a procedure
// is in that procedure.
func (v *codeView) containing(addr uint64) (int, bool) {
	if p, ok := partAt(v.parts, addr); ok {
		return v.startIndex(p.Procedure)
	}
	i := sort.Search(len(v.ranges), func(i int) bool { return v.ranges[i].Start > addr })
	for j := i - 1; j >= 0 && j >= i-16; j-- {
		if r := v.ranges[j]; addr >= r.Start && (addr < r.End || addr == r.Start) {
			return j, true
		}
	}
	return -1, false
}

// importArg resolves s to an import's slot when it names no procedure (err
// is resolveValue's for s): the callers of an import are the calls through
// its slot.
func (v *codeView) importArg(s string, err error) (uint64, bool) {
	if v == nil || err == nil {
		return 0, false
	}
	var ce *core.Error
	if !errors.As(err, &ce) || ce.Code != core.CodeInvalidRequest {
		return 0, false
	}
	return v.importSlot(s)
}

// procedureArg builds the code view of document doc and resolves proc, the
// "procedure" argument.
func procedureArg(ctx context.Context, c *core.Call, doc, proc string) (*codeView, int, error) {
	v, err := codeViewOf(ctx, c, doc)
	if err != nil {
		return nil, 0, err
	}
	i, err := v.resolveValue(ctx, proc, []any{"procedure"})
	return v, i, err
}

// resolveValue selects the procedure s names (the argument at path): an
// exact name, else an address (a number or NAME+OFFSET, codeloc's forms)
// that starts or lies inside a procedure.
func (v *codeView) resolveValue(ctx context.Context, s string, path []any) (int, error) {
	if a, ok := v.analyst.lookup(s); ok {
		if i, ok := v.startIndex(a); ok {
			return i, nil
		}
	}
	for i := range v.procs {
		if v.procs[i].Name == s {
			return i, nil
		}
	}
	for _, p := range v.parts {
		if p.Name == s {
			if i, ok := v.startIndex(p.Procedure); ok {
				v.notePart(s, p, i)
				return i, nil
			}
		}
	}
	if a, ok := codeloc.SyntheticAddress(s); ok { // an unnamed procedure's display name (or another engine's: FUN_, fcn.); any procedure's start, as locationArg reads it
		if i, ok := v.startIndex(a); ok {
			return i, nil
		}
	}
	a, err := core.ParseHex(s)
	isAddr := err == nil
	if !isAddr && strings.Contains(s, "+") { // main+0x10: the procedure holding it
		if a, isAddr, err = codeloc.Lookup(ctx, callTarget{v.c}, s); err != nil {
			if errors.Is(err, codeloc.ErrOverflow) {
				return -1, core.InvalidRequest(v.c.Op.Name, core.Issue{Path: path, Reason: core.ReasonOutOfRange, Message: err.Error()})
			}
			return -1, err
		}
	}
	if isAddr {
		if i, ok := v.startIndex(a); ok {
			return i, nil
		}
		if i, ok := v.containing(a); ok {
			if p, in := partAt(v.parts, a); in {
				v.notePart(s, p, i)
			}
			return i, nil
		}
		if err := codeloc.Check(ctx, v.c.Op.Name, path, a, callTarget{v.c}); err != nil {
			return -1, err // outside every segment: say where the segments are
		}
		return -1, core.InvalidRequest(v.c.Op.Name, core.Issue{Path: path, Reason: core.ReasonInvalidValue,
			Message: fmt.Sprintf("no procedure starts at or contains %s", core.Hex(a)), Expected: codeloc.ExpectProcedure})
	}
	if i := v.importStub(s); i >= 0 {
		return i, nil // puts: the one procedure named puts@plt
	}
	if i := v.demangledMatch(s); i >= 0 {
		return i, nil // Sq::area: the one procedure _ZNK2Sq4areaEv
	}
	if i := v.decorated(s); i >= 0 {
		return i, nil // main: the one procedure _main; Sleep: _Sleep@4
	}
	return -1, codeloc.UnknownName(v.c.Op.Name, path, s, "procedure", codeloc.ExpectProcedure, v.suggest(s))
}

// nameAt returns the procedure name or label at addr, or "" (unnamed
// procedures have none).
func (v *codeView) nameAt(addr uint64) string {
	if _, ok := v.analyst.names[addr]; ok {
		return v.analyst.name(addr, v.engineNameAt(addr))
	}
	return v.engineNameAt(addr)
}

// importAt returns the name of the import whose slot is addr, or "": a
// call through that slot (the engine reports it resolved, to the slot) is
// a call to the import, as a call to its stub is.
func (v *codeView) importAt(addr uint64) string {
	j := sort.Search(len(v.names), func(j int) bool { return v.names[j].Address >= addr })
	for ; j < len(v.names) && v.names[j].Address == addr; j++ {
		if v.names[j].Kind == "import" {
			return v.names[j].Name
		}
	}
	return ""
}

// importSlot resolves s, the name or address of an import that names no
// procedure, to its slot; false when s names no import or several.
func (v *codeView) importSlot(s string) (uint64, bool) {
	if a, err := core.ParseHex(s); err == nil {
		return a, v.importAt(a) != ""
	}
	slot, n := uint64(0), 0
	for _, x := range v.names {
		if x.Kind == "import" && x.Name == s && x.Address != slot {
			if _, stub := v.startIndex(x.Address); !stub { // a Mach-O stub carries its import's name too
				slot, n = x.Address, n+1
			}
		}
	}
	return slot, n == 1
}

// engineNameAt is nameAt without analysts' names.
func (v *codeView) engineNameAt(addr uint64) string {
	if i, ok := v.startIndex(addr); ok && v.procs[i].Name != "" {
		return v.procs[i].Name
	}
	j := sort.Search(len(v.names), func(j int) bool { return v.names[j].Address >= addr })
	if j < len(v.names) && v.names[j].Address == addr {
		return v.names[j].Name
	}
	return ""
}

// stringsList loads the strings once.
func (v *codeView) stringsList(ctx context.Context) ([]ports.String, error) {
	if v.loaded {
		return v.strs, nil
	}
	a, _, _ := v.c.Bound()
	s, err := v.lists.stringsOf(ctx, a)
	if err != nil {
		return nil, err
	}
	v.strs, v.loaded = s, true
	return v.strs, nil
}

// stringAt returns the string whose bytes hold addr.
func (v *codeView) stringAt(addr uint64) (ports.String, bool) {
	i := sort.Search(len(v.strs), func(i int) bool { return v.strs[i].Address > addr })
	for j := i - 1; j >= 0 && j >= i-4; j-- {
		if s := v.strs[j]; addr >= s.Address && addr < s.Address+uint64(max(s.ByteLength, 1)) {
			return s, true
		}
	}
	return ports.String{}, false
}

// function decodes procedure i.
func (v *codeView) function(ctx context.Context, i, maxInsns int) (ports.Function, error) {
	f, err := v.fa.Function(ctx, ports.FunctionRequest{Address: v.procs[i].Address, MaxInstructions: maxInsns})
	if err != nil {
		return f, codeError(v.c, err)
	}
	return f, nil
}

func (v *codeView) needRefs() error {
	if v.xr == nil {
		return &core.Error{Code: core.CodeCapabilityUnavailable, Message: v.c.Op.Name + ": the bound provider does not report cross-references",
			Details: map[string]any{"operation": v.c.Op.Name, "reason": "missing_capability:" + string(core.CapReferences)}}
	}
	return nil
}

// refsFrom and refsTo wrap the engine's lists.
func (v *codeView) refsFrom(ctx context.Context, start, end uint64) ([]ports.Reference, error) {
	if err := v.needRefs(); err != nil {
		return nil, err
	}
	r, err := v.xr.ReferencesFrom(ctx, start, end)
	return r, codeError(v.c, err)
}

func (v *codeView) refsTo(ctx context.Context, start, end uint64) ([]ports.Reference, error) {
	if err := v.needRefs(); err != nil {
		return nil, err
	}
	r, err := v.xr.ReferencesTo(ctx, start, end)
	return r, codeError(v.c, err)
}

const referenceItemSchema = `{"type":"object","additionalProperties":false,"required":["from","from_procedure","to","to_name","kind","unresolved","operand","slot","slot_name"],
 "properties":{"from":{"$ref":"#/$defs/hex"},"from_procedure":{"anyOf":[{"type":"null"},` + procRefSchema + `]},
  "to":{"anyOf":[{"type":"null"},{"$ref":"#/$defs/hex"}]},"to_name":{"type":["string","null"]},
  "kind":{"enum":["call","jump","read","write","address","pointer"],"description":"pointer: the address is stored in data (a function table, vtable or callback); from is the data slot, not an instruction."},"unresolved":{"type":"boolean","description":"An indirect call or jump whose target is unknown; reported, never dropped."},
  "operand":{"type":["string","null"]},"slot":{"anyOf":[{"type":"null"},{"$ref":"#/$defs/hex"}]},"slot_name":{"type":["string","null"]}}}`

func (v *codeView) referenceItemOf(r ports.Reference) ProcedureReferencesResultItemReference {
	it := ProcedureReferencesResultItemReference{From: core.Hex(r.From), Kind: r.Kind, Unresolved: r.Unresolved}
	if i, ok := v.containing(r.From); ok {
		ref := v.ref(i)
		it.FromProcedure = &ref
	}
	if !r.Unresolved {
		to := core.Hex(r.To)
		it.To = &to
		it.ToName = core.OptString(v.nameAt(r.To))
	} else {
		it.Operand = core.OptString(r.Operand)
		if it.Operand == nil {
			s := ""
			it.Operand = &s
		}
	}
	if r.Slot != 0 {
		s := core.Hex(r.Slot)
		it.Slot, it.SlotName = &s, core.OptString(v.nameAt(r.Slot))
	}
	return it
}

const calleeItemSchema = `{"type":"object","additionalProperties":false,"required":["address","name","kind","procedure","external","thunk","call_sites"],
 "properties":{"address":{"$ref":"#/$defs/hex"},"name":{"type":"string"},"kind":{"enum":["call","tail-call"]},
  "procedure":{"type":"boolean","description":"The target is the start of a known procedure."},"external":{"type":"boolean"},"thunk":{"type":"boolean"},
  "call_sites":{"type":"array","items":{"$ref":"#/$defs/hex"}}}}`

const unresolvedItemSchema = `{"type":"object","additionalProperties":false,"required":["from","kind","operand","slot","slot_name"],
 "properties":{"from":{"$ref":"#/$defs/hex"},"kind":{"enum":["call","jump"]},"operand":{"type":"string"},
  "slot":{"anyOf":[{"type":"null"},{"$ref":"#/$defs/hex"}]},"slot_name":{"type":["string","null"]}}}`

// callees lists what procedure i calls and tail-calls, and its unresolved
// indirect transfers (indirect jumps inside the procedure that a jump table
// explains are not calls and are not listed).
func (v *codeView) callees(ctx context.Context, i int) ([]ProcedureCalleesResultItem, []ProcedureCalleesResultUnresolvedItem, error) {
	r := v.ranges[i]
	refs, err := v.bodyRefsFrom(ctx, i, r.Start, max(r.End, r.Start+1))
	if err != nil {
		return nil, nil, err
	}
	byTarget := map[uint64]int{}
	var out []ProcedureCalleesResultItem
	var unresolved []ProcedureCalleesResultUnresolvedItem
	jumpTables := map[uint64]bool{} // jumps with resolved targets inside the procedure
	// A thunk to an import (a PLT stub) calls that import; its other jump,
	// to no procedure or import, is the lazy-binding path into the PLT
	// header, which runs the dynamic loader's resolver.
	lazyBinding := v.procs[i].Thunk && v.procs[i].ThunkTarget != ""
	for _, x := range refs {
		if x.Kind == ports.RefJump && !x.Unresolved && v.inBody(i, x.To) {
			jumpTables[x.From] = true
		}
	}
	for _, x := range refs {
		if x.Unresolved {
			if x.Kind != ports.RefCall && x.Kind != ports.RefJump {
				continue
			}
			u := ProcedureCalleesResultUnresolvedItem{From: core.Hex(x.From), Kind: x.Kind, Operand: x.Operand}
			if x.Slot != 0 {
				s := core.Hex(x.Slot)
				u.Slot, u.SlotName = &s, core.OptString(v.nameAt(x.Slot))
			}
			unresolved = append(unresolved, u)
			continue
		}
		kind := ""
		switch {
		case x.Kind == ports.RefCall:
			kind = "call"
		case x.Kind == ports.RefJump && lazyBinding && !v.startsProcedure(x.To) && v.importAt(x.To) == "":
			continue // a PLT stub's jump to the PLT header: the loader's lazy binding, not a call
		case x.Kind == ports.RefJump && !v.inBody(i, x.To) && !jumpTables[x.From]:
			kind = "tail-call"
		default:
			continue
		}
		k, ok := byTarget[x.To]
		if !ok {
			it := ProcedureCalleesResultItem{Address: core.Hex(x.To), Name: v.nameAt(x.To), Kind: kind, CallSites: []string{}}
			if j, ok := v.startIndex(x.To); ok {
				it.Procedure, it.External, it.Thunk = true, v.procs[j].External, v.procs[j].Thunk
			} else if imp := v.importAt(x.To); imp != "" {
				it.External, it.Name = true, v.analyst.name(x.To, imp) // a call through the import's slot
			}
			if it.Name == "" {
				it.Name = fmt.Sprintf("sub_%x", x.To)
			}
			k = len(out)
			byTarget[x.To] = k
			out = append(out, it)
		}
		if kind == "call" {
			out[k].Kind = "call"
		}
		if s := core.Hex(x.From); !slices.Contains(out[k].CallSites, s) {
			out[k].CallSites = append(out[k].CallSites, s)
		}
	}
	return out, unresolved, nil
}

const callerItemSchema = `{"type":"object","additionalProperties":false,"required":["procedure","kind","call_sites"],
 "properties":{"procedure":{"anyOf":[{"type":"null"},` + procRefSchema + `],"description":"The calling procedure; null when the call site is in no known procedure."},
  "kind":{"enum":["call","tail-call"]},"call_sites":{"type":"array","items":{"$ref":"#/$defs/hex"}}}}`

// callers lists the procedures that call or tail-call procedure i.
// addressTakenAt lists (the first 8 of) the code addresses that take
// addr as a value (lea rdi, [rip+main] in _start; a qsort comparator's
// lea), where calls through the pointer come from that are no calls of
// addr's.
func (v *codeView) addressTakenAt(ctx context.Context, addr uint64) string {
	if v.xr == nil {
		return ""
	}
	refs, err := v.refsTo(ctx, addr, addr+1)
	if err != nil {
		return ""
	}
	var sites []string
	for _, r := range refs {
		if r.Kind == ports.RefAddress && len(sites) < 8 {
			sites = append(sites, core.Hex(r.From))
		}
	}
	return strings.Join(sites, ", ")
}

// ownStubCallers says, of procedure i of a shared library (libc's malloc),
// how many procedures call it through the library's own stub for it
// (malloc@plt, interposable), which its callers do not list; "" when no
// stub of its name has callers.
func (v *codeView) ownStubCallers(ctx context.Context, i int) (string, error) {
	p := v.procs[i]
	if p.Thunk || p.External || p.Name == "" {
		return "", nil
	}
	for j, s := range v.procs {
		if j == i || !s.Thunk || !s.External || s.ThunkTarget != p.Name {
			continue
		}
		items, err := v.callers(ctx, j)
		if err != nil || len(items) == 0 {
			return "", err
		}
		name := v.ref(j).Name
		return fmt.Sprintf("%s (%s), this binary's own stub for %s, has %d caller(s) of its own, not listed here: calls through it reach %s unless another object interposes it; procedure_callers on %s lists them.",
			name, core.Hex(s.Address), p.Name, len(items), p.Name, name), nil
	}
	return "", nil
}

func (v *codeView) callers(ctx context.Context, i int) ([]ProcedureCallersResultItem, error) {
	return v.callersOf(ctx, v.ranges[i].Start, i)
}

// callersOf lists the procedures that call or tail-call addr: the start of
// procedure i, or (i -1) an import's slot.
//
// An import's stub (a thunk to the import) stands for the import: its
// callers include the calls straight through the import's slot, which
// bypass it.
func (v *codeView) callersOf(ctx context.Context, addr uint64, i int) ([]ProcedureCallersResultItem, error) {
	refs, err := v.refsTo(ctx, addr, addr+1)
	if err != nil {
		return nil, err
	}
	if i >= 0 && v.procs[i].External && v.procs[i].Thunk && v.procs[i].ThunkTarget != "" {
		if slot, ok := v.importSlot(v.procs[i].ThunkTarget); ok {
			more, err := v.refsTo(ctx, slot, slot+1)
			if err != nil {
				return nil, err
			}
			refs = append(slices.Clip(refs), more...)
		}
	}
	byCaller := map[int]int{}
	var out []ProcedureCallersResultItem
	for _, x := range refs {
		kind := ""
		j, in := v.containing(x.From)
		switch {
		case x.Kind == ports.RefCall:
			kind = "call"
		case x.Kind == ports.RefJump && (!in || j != i):
			kind = "tail-call"
		default:
			continue
		}
		key := j
		if !in {
			key = -1
		}
		k, ok := byCaller[key]
		if !ok {
			it := ProcedureCallersResultItem{Kind: kind, CallSites: []string{}}
			if in {
				ref := v.ref(j)
				it.Procedure = &ref
			}
			k = len(out)
			byCaller[key] = k
			out = append(out, it)
		}
		if kind == "call" {
			out[k].Kind = "call"
		}
		out[k].CallSites = append(out[k].CallSites, core.Hex(x.From))
	}
	return out, nil
}

// --- primitives ---

func opProcedureInfo() *core.Operation {
	return &core.Operation{
		Name: "procedure_info", Title: "Procedure Info", Kind: core.KindOfficialProxy, Effects: codeEffects, NeedsTarget: true,
		Needs: []ports.Capability{core.CapProcedures, core.CapFunctions, core.CapReferences},
		Description: "Describe one procedure (by name or address): its extent and how the end was found, instruction and basic-block counts, " +
			"and how many procedures call it and it calls.",
		Input: core.InputSchema([]string{"procedure"}, documentProp, procedureProp),
		Result: withHexDefs(json.RawMessage(`{"type":"object","additionalProperties":false,
 "required":["procedure","start","end","length","end_source","entry_point","syntax","instruction_count","basic_block_count","truncated","caller_count","callee_count","unresolved_transfer_count"],
 "properties":{"procedure":` + procedureItemSchema + `,"start":{"$ref":"#/$defs/hex"},"end":{"$ref":"#/$defs/hex"},"length":{"$ref":"#/$defs/hex"},
  "end_source":{"type":"string","description":"How the end was found: symbol, eh-frame, pdata, dwarf, gopclntab, plt, next-start, section-end or unknown."},
  "entry_point":{"type":"boolean"},"syntax":{"type":"string"},"instruction_count":{"type":"integer","minimum":0},"basic_block_count":{"type":"integer","minimum":0},
  "truncated":{"type":"boolean"},"caller_count":{"type":"integer","minimum":0},"callee_count":{"type":"integer","minimum":0},"unresolved_transfer_count":{"type":"integer","minimum":0}}}`)),
		Examples: []json.RawMessage{json.RawMessage(`{"procedure":"main"}`), json.RawMessage(`{"procedure":"0x401000"}`)},
		Handler: func(ctx context.Context, c *core.Call) (any, error) {
			in, err := core.Input[ProcedureInfoInput](c)
			if err != nil {
				return nil, err
			}
			v, i, err := procedureArg(ctx, c, in.Document, in.Procedure)
			if err != nil {
				return nil, err
			}
			f, err := v.function(ctx, i, 1)
			if err != nil {
				return nil, err
			}
			callers, err := v.callers(ctx, i)
			if err != nil {
				return nil, err
			}
			callees, unresolved, err := v.callees(ctx, i)
			if err != nil {
				return nil, err
			}
			docs, err := documents(ctx, c)
			if err != nil {
				return nil, err
			}
			r := v.ranges[i]
			entry := len(docs) > 0 && docs[0].HasEntry && docs[0].Entry == r.Start
			return &core.Observation{Result: &ProcedureInfoResult{
				Procedure: v.item(i), Start: core.Hex(r.Start), End: core.Hex(r.End), Length: core.Hex(r.End - r.Start),
				EndSource: r.EndSource, EntryPoint: entry, Syntax: f.Syntax, InstructionCount: f.InstructionCount,
				BasicBlockCount: len(f.Blocks), Truncated: f.Truncated, CallerCount: len(callers), CalleeCount: len(callees),
				UnresolvedTransferCount: len(unresolved),
			}, Locations: rangeLocation(r), Limitations: v.ifuncNote(ctx, i)}, nil
		},
	}
}

func rangeLocation(r ports.FunctionRange) []core.Location {
	return []core.Location{{Kind: "address-range", Start: core.Hex(r.Start), End: core.Hex(r.End)}}
}

// procedure_assembly pages its listing with read_function_instructions'
// offset and limit; a line costs about 30 bytes, so the default page is
// 200 lines (ls's main, 1,400 lines, was 44 KB whole) and a page at most
// 5000.
const (
	assemblyPageLimit    = 200
	maxAssemblyPageLimit = 5000
)

func opProcedureAssembly() *core.Operation {
	return &core.Operation{
		Name: "procedure_assembly", Title: "Procedure Assembly", Kind: core.KindOfficialProxy, Effects: codeEffects, NeedsTarget: true,
		Needs: []ports.Capability{core.CapProcedures, core.CapFunctions},
		Description: "The disassembly of one procedure as text, one instruction per line (\"0x401126: push rbp\"), in the provider's syntax " +
			"(rea-native: Intel for x86, GNU for AArch64).",
		Input: core.InputSchema([]string{"procedure"}, documentProp, procedureProp,
			`"offset": {"type":"integer","minimum":0,"default":0,"description":"First instruction."}`,
			`"limit": {"type":"integer","minimum":1,"maximum":5000,"default":200,"description":"Lines returned (1-5000)."}`),
		Result:   json.RawMessage(`{"type":"string"}`),
		Examples: []json.RawMessage{json.RawMessage(`{"procedure":"main","offset":200}`)},
		Handler: func(ctx context.Context, c *core.Call) (any, error) {
			in, err := core.Input[ProcedureAssemblyInput](c)
			if err != nil {
				return nil, err
			}
			v, i, err := procedureArg(ctx, c, in.Document, in.Procedure)
			if err != nil {
				return nil, err
			}
			offset, limit := deref(in.Offset, 0), deref(in.Limit, assemblyPageLimit)
			f, err := v.function(ctx, i, min(offset+limit, 1<<30))
			if err != nil {
				return nil, err
			}
			total := max(f.InstructionCount, len(f.Instructions))
			page := f.Instructions[min(offset, len(f.Instructions)):min(offset+limit, len(f.Instructions))]
			var b strings.Builder
			for _, in := range page {
				fmt.Fprintf(&b, "%s: %s\n", core.Hex(in.Address), in.Text)
			}
			var lim []string
			if next := offset + len(page); next < total && len(page) > 0 {
				fmt.Fprintf(&b, "; %d more instructions: procedure_assembly with offset %d\n", total-next, next)
				lim = append(lim, fmt.Sprintf("This page lists %d of %d instructions (from offset %d); procedure_assembly with offset %d reads the rest (limit up to %d).",
					len(page), total, offset, next, maxAssemblyPageLimit))
			} else if len(page) == 0 && offset > 0 {
				lim = append(lim, fmt.Sprintf("offset %d is past the procedure's last instruction (it has %d).", offset, total))
			}
			if f.Truncated {
				lim = append(lim, "The provider stopped decoding this procedure at its instruction cap.")
			}
			return &core.Observation{Result: b.String(), Limitations: lim, Locations: rangeLocation(v.ranges[i])}, nil
		},
	}
}

func opReadFunctionInstructions() *core.Operation {
	return &core.Operation{
		Name: "read_function_instructions", Title: "Read Function Instructions", Kind: core.KindOfficialProxy, Effects: codeEffects, NeedsTarget: true,
		Needs: []ports.Capability{core.CapProcedures, core.CapFunctions},
		Description: "Page through the instructions of one procedure: address, bytes (hex), length, mnemonic, operands, text, control flow and direct target, " +
			"with an exact total.",
		Input: core.InputSchema([]string{"procedure"}, documentProp, procedureProp, pageProps),
		Result: withHexDefs(json.RawMessage(`{"type":"object","additionalProperties":false,
 "required":["procedure","syntax","items",` + pageRequired + `],
 "properties":{"procedure":` + procRefSchema + `,"syntax":{"type":"string"},"items":{"type":"array","items":` + instructionItemSchema + `},
  ` + pageResultProps + `}}`)),
		Examples: []json.RawMessage{json.RawMessage(`{"procedure":"main"}`), json.RawMessage(`{"procedure":"main","offset":100,"limit":50}`)},
		Handler: func(ctx context.Context, c *core.Call) (any, error) {
			in, err := core.Input[ReadFunctionInstructionsInput](c)
			if err != nil {
				return nil, err
			}
			v, i, err := procedureArg(ctx, c, in.Document, in.Procedure)
			if err != nil {
				return nil, err
			}
			offset, limit := deref(in.Offset, 0), deref(in.Limit, defaultPageLimit)
			f, err := v.function(ctx, i, min(offset+limit, 1<<30))
			if err != nil {
				return nil, err
			}
			items := make([]ReadFunctionInstructionsResultItem, len(f.Instructions))
			for k, in := range f.Instructions {
				items[k] = instructionItemOf(in)
			}
			page := paginate(items, offset, limit)
			page.Total = max(f.InstructionCount, len(items))
			if end := offset + len(page.Items); end < page.Total && len(page.Items) > 0 {
				page.NextOffset, page.HasMore = &end, true
			}
			lim := pastEnd("offset", page.Offset, page.Total, page.Limit, "instructions")
			if f.Truncated {
				lim = append(lim, "The provider stopped decoding this procedure at its instruction cap; total counts the decoded part.")
			}
			return &core.Observation{Result: &ReadFunctionInstructionsResult{Procedure: v.ref(i), Syntax: f.Syntax, Items: page.Items, Offset: page.Offset,
				Limit: page.Limit, Total: page.Total, NextOffset: page.NextOffset, HasMore: page.HasMore},
				Limitations: lim, Locations: rangeLocation(v.ranges[i])}, nil
		},
	}
}

// maxUnresolvedListed bounds the unresolved calls procedure_callees lists
// on each page; unresolved_total counts them all, and procedure_references
// (outgoing) pages through every one.
const maxUnresolvedListed = defaultPageLimit

func opProcedureCallers() *core.Operation {
	return &core.Operation{
		Name: "procedure_callers", Title: "Procedure Callers", Kind: core.KindOfficialProxy, Effects: codeEffects, NeedsTarget: true,
		Needs: []ports.Capability{core.CapProcedures, core.CapFunctions, core.CapReferences},
		Description: "Procedures that call (or tail-call) one procedure or import (via its slot), with call sites, paged with an exact total. " +
			"Other calls through pointers are not attributed (procedure_callees' unresolved).",
		Input: core.InputSchema([]string{"procedure"}, documentProp, procedureProp, pageProps),
		Result: withHexDefs(json.RawMessage(`{"type":"object","additionalProperties":false,"required":["procedure","items",` + pageRequired + `,"truncated"],
 "properties":{"procedure":` + procRefSchema + `,"items":{"type":"array","items":` + callerItemSchema + `},` + pageResultProps + `,
  "truncated":{"type":"boolean","description":"More pages exist (the same as has_more)."}}}`)),
		Examples: []json.RawMessage{json.RawMessage(`{"procedure":"puts@plt"}`), json.RawMessage(`{"procedure":"puts@plt","offset":100,"limit":100}`)},
		Handler: func(ctx context.Context, c *core.Call) (any, error) {
			in, err := core.Input[ProcedureCallersInput](c)
			if err != nil {
				return nil, err
			}
			v, i, err := procedureArg(ctx, c, in.Document, in.Procedure)
			var items []ProcedureCallersResultItem
			var ref ProcedureRef
			var loc []core.Location
			var lim []string
			if slot, ok := v.importArg(in.Procedure, err); ok {
				ref = ProcedureRef{Address: core.Hex(slot), Name: v.analyst.name(slot, v.importAt(slot))}
				items, err = v.callersOf(ctx, slot, -1)
			} else if err == nil {
				ref, loc = v.ref(i), rangeLocation(v.ranges[i])
				items, err = v.callers(ctx, i)
				if slots := v.pointerSlots(ctx, v.procs[i].Address); slots != "" && err == nil {
					lim = append(lim, ref.Name+"'s address is stored in data at "+slots+" (a function pointer, table or vtable slot): calls through it are not listed; xrefs on "+ref.Name+" lists the slots.")
				}
				if sites := v.addressTakenAt(ctx, v.procs[i].Address); sites != "" && err == nil {
					lim = append(lim, ref.Name+"'s address is taken in code at "+sites+" (a callback passed on, or a pointer stored at run time): calls through it are not listed; xrefs on "+ref.Name+" lists the sites.")
				}
				if err == nil {
					var l string
					l, err = v.ownStubCallers(ctx, i)
					if l != "" {
						lim = append(lim, l)
					}
				}
			}
			if err != nil {
				return nil, err
			}
			page := paginate(core.NonNil(items), deref(in.Offset, 0), deref(in.Limit, defaultPageLimit))
			lim = append(lim, pastEnd("offset", page.Offset, page.Total, page.Limit, "callers")...)
			return &core.Observation{Result: &ProcedureCallersResult{Procedure: ref, Items: page.Items, Offset: page.Offset, Limit: page.Limit,
				Total: page.Total, NextOffset: page.NextOffset, HasMore: page.HasMore, Truncated: page.HasMore},
				Locations: loc, Limitations: lim}, nil
		},
	}
}

func opProcedureCallees() *core.Operation {
	return &core.Operation{
		Name: "procedure_callees", Title: "Procedure Callees", Kind: core.KindOfficialProxy, Effects: codeEffects, NeedsTarget: true,
		Needs: []ports.Capability{core.CapProcedures, core.CapFunctions, core.CapReferences},
		Description: "The procedures one procedure calls or tail-calls, with call sites, paged. Each page's unresolved lists the first 100 indirect " +
			"calls or jumps of unknown target; unresolved_total counts all, procedure_references lists the rest.",
		Input: core.InputSchema([]string{"procedure"}, documentProp, procedureProp, pageProps),
		Result: withHexDefs(json.RawMessage(`{"type":"object","additionalProperties":false,
 "required":["procedure","items",` + pageRequired + `,"truncated","unresolved","unresolved_total"],
 "properties":{"procedure":` + procRefSchema + `,"items":{"type":"array","items":` + calleeItemSchema + `},` + pageResultProps + `,
  "truncated":{"type":"boolean","description":"More pages exist (the same as has_more)."},
  "unresolved":{"type":"array","maxItems":100,"items":` + unresolvedItemSchema + `},"unresolved_total":{"type":"integer","minimum":0}}}`)),
		Examples: []json.RawMessage{json.RawMessage(`{"procedure":"main"}`), json.RawMessage(`{"procedure":"main","offset":100,"limit":100}`)},
		Handler: func(ctx context.Context, c *core.Call) (any, error) {
			in, err := core.Input[ProcedureCalleesInput](c)
			if err != nil {
				return nil, err
			}
			v, i, err := procedureArg(ctx, c, in.Document, in.Procedure)
			if err != nil {
				return nil, err
			}
			items, unresolved, err := v.callees(ctx, i)
			if err != nil {
				return nil, err
			}
			page := paginate(core.NonNil(items), deref(in.Offset, 0), deref(in.Limit, defaultPageLimit))
			return &core.Observation{Result: &ProcedureCalleesResult{Procedure: v.ref(i), Items: page.Items, Offset: page.Offset, Limit: page.Limit,
				Total: page.Total, NextOffset: page.NextOffset, HasMore: page.HasMore, Truncated: page.HasMore,
				Unresolved: core.NonNil(unresolved[:min(len(unresolved), maxUnresolvedListed)]), UnresolvedTotal: len(unresolved)},
				Locations: rangeLocation(v.ranges[i]), Limitations: pastEnd("offset", page.Offset, page.Total, page.Limit, "callees")}, nil
		},
	}
}

func opProcedureReferences() *core.Operation {
	return &core.Operation{
		Name: "procedure_references", Title: "Procedure References", Kind: core.KindOfficialProxy, Effects: codeEffects, NeedsTarget: true,
		Needs: []ports.Capability{core.CapProcedures, core.CapFunctions, core.CapReferences},
		Description: "Cross-references of one procedure, paged: outgoing (calls, jumps, data reads and writes, address constants, unresolved indirect transfers) " +
			"and incoming (references to its start).",
		Input: core.InputSchema([]string{"procedure"}, documentProp, procedureProp,
			`"direction": {"enum":["outgoing","incoming","both"],"default":"both","description":"Which references to list."}`,
			`"max_instructions": {"type":"integer","minimum":1,"maximum":100000,"description":"Scan only the first N instructions for outgoing references."}`, pageProps),
		Result: withHexDefs(json.RawMessage(`{"type":"object","additionalProperties":false,
 "required":["procedure","direction","instruction_scan","items",` + pageRequired + `],
 "properties":{"procedure":` + procRefSchema + `,"direction":{"enum":["outgoing","incoming","both"]},
  "instruction_scan":{"type":"object","additionalProperties":false,"required":["scanned","truncated"],"properties":{"scanned":{"type":"integer","minimum":0},"truncated":{"type":"boolean"}}},
  "items":{"type":"array","items":{"type":"object","additionalProperties":false,"required":["direction","reference"],
   "properties":{"direction":{"enum":["outgoing","incoming"]},"reference":` + referenceItemSchema + `}}},
  ` + pageResultProps + `}}`)),
		Examples: []json.RawMessage{json.RawMessage(`{"procedure":"main"}`), json.RawMessage(`{"procedure":"main","direction":"incoming","limit":20}`)},
		Handler: func(ctx context.Context, c *core.Call) (any, error) {
			in, err := core.Input[ProcedureReferencesInput](c)
			if err != nil {
				return nil, err
			}
			v, i, err := procedureArg(ctx, c, in.Document, in.Procedure)
			if err != nil {
				return nil, err
			}
			dir := in.Direction
			r := v.ranges[i]
			var items []ProcedureReferencesResultItem
			var scan ProcedureReferencesResultInstructionScan
			if dir != "incoming" {
				end := max(r.End, r.Start+1)
				f, err := v.function(ctx, i, cmp.Or(in.MaxInstructions, 100000))
				if err != nil {
					return nil, err
				}
				scan.Scanned = len(f.Instructions)
				if len(f.Instructions) < f.InstructionCount {
					scan.Truncated = true
					end = listedEnd(f, r)
				}
				out, err := v.bodyRefsFrom(ctx, i, r.Start, end)
				if err != nil {
					return nil, err
				}
				for _, x := range out {
					items = append(items, ProcedureReferencesResultItem{"outgoing", v.referenceItemOf(x)})
				}
			}
			if dir != "outgoing" {
				refs, err := v.refsTo(ctx, r.Start, r.Start+1)
				if err != nil {
					return nil, err
				}
				for _, x := range refs {
					items = append(items, ProcedureReferencesResultItem{"incoming", v.referenceItemOf(x)})
				}
			}
			page := paginate(core.NonNil(items), deref(in.Offset, 0), deref(in.Limit, defaultPageLimit))
			return &core.Observation{Result: &ProcedureReferencesResult{Procedure: v.ref(i), Direction: dir, InstructionScan: scan,
				Items: page.Items, Offset: page.Offset, Limit: page.Limit, Total: page.Total, NextOffset: page.NextOffset, HasMore: page.HasMore},
				Locations: rangeLocation(r), Limitations: pastEnd("offset", page.Offset, page.Total, page.Limit, "references")}, nil
		},
	}
}

// cursorKind asks Call.Annotations for the session's cursor: the
// annotation family keeps it (goto_address) and answers this kind with one
// annotation at the cursor's address.
const cursorKind ports.AnnotationKind = "cursor"

// defaultAddress is the address argument, or when it is absent (empty) the
// session's cursor, else (a catalog without the cursor) the entry point.
// An address outside every segment is refused unless opts says otherwise.
func defaultAddress(ctx context.Context, c *core.Call, address string, opts *codeloc.Options) (uint64, error) {
	if address != "" {
		return codeloc.Resolve(ctx, c.Op.Name, []any{"address"}, address, callTarget{c}, opts)
	}
	if cur, err := c.Annotations(ctx, cursorKind); err != nil {
		return 0, err
	} else if len(cur) == 1 {
		return cur[0].Address, nil
	}
	docs, err := documents(ctx, c)
	if err != nil {
		return 0, err
	}
	if len(docs) == 0 || !docs[0].HasEntry {
		return 0, core.InvalidRequest(c.Op.Name, core.Issue{Path: []any{"address"}, Reason: core.ReasonMissingArgument, Message: "address is required: the document has no entry point"})
	}
	return docs[0].Entry, nil
}

const maxXrefs = 10000

func opXrefs() *core.Operation {
	return &core.Operation{
		Name: "xrefs", Title: "Cross-References To An Address", Kind: core.KindOfficialProxy, Effects: codeEffects, NeedsTarget: true,
		Needs: []ports.Capability{core.CapReferences},
		Description: "The addresses that reference an address (calls, jumps, data reads and writes, address constants, data slots holding it), sorted. " +
			"At most 10000.",
		Input:    core.InputSchema(nil, documentProp, optionalAddressProp),
		Result:   withHexDefs(json.RawMessage(`{"type":"array","items":{"$ref":"#/$defs/hex"}}`)),
		Examples: []json.RawMessage{json.RawMessage(`{}`), json.RawMessage(`{"address":"0x1000"}`)},
		Handler: func(ctx context.Context, c *core.Call) (any, error) {
			in, err := core.Input[XrefsInput](c)
			if err != nil {
				return nil, err
			}
			if err := checkDocument(ctx, c, in.Document); err != nil {
				return nil, err
			}
			at, err := defaultAddress(ctx, c, in.Address, nil)
			if err != nil {
				return nil, err
			}
			xr, err := analysisFor[ports.CrossReferencer](c)
			if err != nil {
				return nil, err
			}
			refs, err := xr.ReferencesTo(ctx, at, at+1)
			if err != nil {
				return nil, codeError(c, err)
			}
			out := []string{}
			var froms []uint64
			for _, r := range refs {
				froms = append(froms, r.From)
			}
			slices.Sort(froms)
			froms = slices.Compact(froms)
			var lim []string
			if len(froms) > maxXrefs {
				lim = append(lim, fmt.Sprintf("%d referencing addresses; the first %d are listed.", len(froms), maxXrefs))
				froms = froms[:maxXrefs]
			}
			for _, f := range froms {
				out = append(out, core.Hex(f))
			}
			return &core.Observation{Result: out, Limitations: lim, Locations: []core.Location{{Kind: "address", Address: core.Hex(at)}}}, nil
		},
	}
}

func opResolveContainingProcedure() *core.Operation {
	return &core.Operation{
		Name: "resolve_containing_procedure", Title: "Resolve Containing Procedure", Kind: core.KindOfficialProxy, Effects: codeEffects, NeedsTarget: true,
		Needs:       []ports.Capability{core.CapProcedures, core.CapFunctions, core.CapSegments},
		Description: "The procedure whose extent holds an address, with the offset into it; procedure is null for a mapped address outside every procedure.",
		Input:       core.InputSchema([]string{"address"}, documentProp, addressProp),
		Result: withHexDefs(json.RawMessage(`{"type":"object","additionalProperties":false,"required":["address","segment","procedure","start","end","offset"],
 "properties":{"address":{"$ref":"#/$defs/hex"},"segment":{"type":"string"},"procedure":{"anyOf":[{"type":"null"},` + procedureItemSchema + `]},
  "start":{"anyOf":[{"type":"null"},{"$ref":"#/$defs/hex"}]},"end":{"anyOf":[{"type":"null"},{"$ref":"#/$defs/hex"}]},"offset":{"anyOf":[{"type":"null"},{"$ref":"#/$defs/hex"}]}}}`)),
		Examples: []json.RawMessage{json.RawMessage(`{"address":"0x1000"}`)},
		Handler: func(ctx context.Context, c *core.Call) (any, error) {
			in, err := core.Input[ResolveContainingProcedureInput](c)
			if err != nil {
				return nil, err
			}
			v, err := codeViewOf(ctx, c, in.Document)
			if err != nil {
				return nil, err
			}
			at, err := locationArg(ctx, c, "address", in.Address)
			if err != nil {
				return nil, err
			}
			seg, _, err := mappedSegment(ctx, c, at) // a header byte is in LOAD#0, in no procedure
			if err != nil {
				return nil, err
			}
			out := &ResolveContainingProcedureResult{Address: core.Hex(at), Segment: seg.Name}
			if i, ok := v.containing(at); ok {
				r, item := v.ranges[i], v.item(i)
				start, end, off := core.Hex(r.Start), core.Hex(r.End), core.Hex(at-r.Start)
				out.Procedure, out.Start, out.End, out.Offset = &item, &start, &end, &off
			}
			return &core.Observation{Result: out, Locations: []core.Location{{Kind: "address", Address: core.Hex(at)}}}, nil
		},
	}
}

// addressedSegment checks the document doc, parses address (the "address"
// argument) and finds the segment that maps it: a section, else one of the
// load segments an analysis that offers them maps it with (the ELF and
// program headers at an image's first address, a gap between sections),
// so that read_bytes and address_to_file_offset reach every mapped byte.
func addressedSegment(ctx context.Context, c *core.Call, doc, address string) (uint64, ports.Segment, error) {
	if err := checkDocument(ctx, c, doc); err != nil {
		return 0, ports.Segment{}, err
	}
	at, err := locationArg(ctx, c, "address", address)
	if err != nil {
		return 0, ports.Segment{}, err
	}
	seg, _, err := mappedSegment(ctx, c, at)
	if err != nil {
		return 0, ports.Segment{}, err
	}
	return at, seg, nil
}

// mappedSegment finds the section mapping at, else the load segment of an
// analysis that offers them (load then says it did); an address neither
// maps is codeloc's out_of_range refusal, naming the nearest segments.
func mappedSegment(ctx context.Context, c *core.Call, at uint64) (seg ports.Segment, load bool, err error) {
	sl, err := analysisFor[ports.SegmentLister](c)
	if err != nil {
		return ports.Segment{}, false, err
	}
	secs, err := sl.Segments(ctx)
	if err != nil {
		return ports.Segment{}, false, err
	}
	if s := ports.Holding(secs, at); s != nil {
		return *s, false, nil
	}
	all, _, err := callTarget{c}.Segments(ctx)
	if err != nil {
		return ports.Segment{}, false, err
	}
	if s := ports.Holding(all[len(secs):], at); s != nil {
		return *s, true, nil
	}
	return ports.Segment{}, false, codeloc.Unmapped(c.Op.Name, []any{"address"}, at, all)
}

// loadSegmentLister is an analysis that lists the segments its loader maps
// (the native engine's ELF PT_LOAD entries, PE headers, Mach-O segments),
// which cover bytes that no section does.
type loadSegmentLister interface {
	LoadSegments(ctx context.Context) ([]ports.Segment, error)
}

const (
	defaultReadBytes = 256
	maxReadBytes     = 65536
)

func opReadBytes() *core.Operation {
	return &core.Operation{
		Name: "read_bytes", Title: "Read Bytes", Kind: core.KindOfficialProxy, Effects: codeEffects, NeedsTarget: true,
		Needs:       []ports.Capability{core.CapBytes, core.CapSegments},
		Description: "Read the file data mapped at an address (by a section, else a load segment) as lowercase hex; the read stops where that data ends (truncated says so).",
		Input: core.InputSchema([]string{"address"}, documentProp, addressProp,
			`"length": {"type":"integer","minimum":1,"maximum":65536,"default":256,"description":"Bytes to read (1-65536)."}`),
		Result: withHexDefs(json.RawMessage(`{"type":"object","additionalProperties":false,"required":["address","length","requested","bytes","segment","file_offset","truncated"],
 "properties":{"address":{"$ref":"#/$defs/hex"},"length":{"type":"integer","minimum":0},"requested":{"type":"integer","minimum":1},
  "bytes":{"type":"string","pattern":"^([0-9a-f]{2})*$"},"segment":{"type":"string"},"file_offset":{"$ref":"#/$defs/hex"},"truncated":{"type":"boolean"}}}`)),
		Examples: []json.RawMessage{json.RawMessage(`{"address":"0x1000"}`), json.RawMessage(`{"address":"0x401000","length":16}`)},
		Handler: func(ctx context.Context, c *core.Call) (any, error) {
			in, err := core.Input[ReadBytesInput](c)
			if err != nil {
				return nil, err
			}
			at, seg, err := addressedSegment(ctx, c, in.Document, in.Address)
			if err != nil {
				return nil, err
			}
			n := deref(in.Length, defaultReadBytes)
			br, err := analysisFor[ports.ByteReader](c)
			if err != nil {
				return nil, err
			}
			b, err := br.ReadBytes(ctx, at, n)
			if err != nil {
				if errors.Is(err, ports.ErrNotFound) {
					return nil, core.InvalidRequest(c.Op.Name, core.Issue{Path: []any{"address"}, Reason: core.ReasonInvalidValue,
						Message: fmt.Sprintf("%s has no bytes in the file: %s is zero-filled at load time, not stored in the file", core.Hex(at), seg.Name)})
				}
				return nil, err
			}
			b = b[:min(len(b), n)]
			off := core.Hex(seg.FileOffset + (at - seg.Start))
			return &core.Observation{Result: &ReadBytesResult{Address: core.Hex(at), Length: len(b), Requested: n, Bytes: hex.EncodeToString(b),
				Segment: seg.Name, FileOffset: off, Truncated: len(b) < n},
				Locations: []core.Location{{Kind: "address-range", Start: core.Hex(at), End: core.Hex(at + uint64(len(b)))}}}, nil
		},
	}
}

func opAddressToFileOffset() *core.Operation {
	return &core.Operation{
		Name: "address_to_file_offset", Title: "Address To File Offset", Kind: core.KindOfficialProxy, Effects: codeEffects, NeedsTarget: true,
		Needs:       []ports.Capability{core.CapSegments},
		Description: "Map an address to its file offset through the sections, else load segments; file_offset is null when it is mapped but not stored (.bss).",
		Input:       core.InputSchema([]string{"address"}, documentProp, addressProp),
		Result: withHexDefs(json.RawMessage(`{"type":"object","additionalProperties":false,"required":["address","segment","segment_start","file_offset","in_file"],
 "properties":{"address":{"$ref":"#/$defs/hex"},"segment":{"type":"string"},"segment_start":{"$ref":"#/$defs/hex"},
  "file_offset":{"anyOf":[{"type":"null"},{"$ref":"#/$defs/hex"}]},"in_file":{"type":"boolean"}}}`)),
		Examples: []json.RawMessage{json.RawMessage(`{"address":"0x1000"}`)},
		Handler: func(ctx context.Context, c *core.Call) (any, error) {
			args, err := core.Input[AddressToFileOffsetInput](c)
			if err != nil {
				return nil, err
			}
			at, seg, err := addressedSegment(ctx, c, args.Document, args.Address)
			if err != nil {
				return nil, err
			}
			var off *string
			in := at-seg.Start < seg.FileSize
			if in {
				h := core.Hex(seg.FileOffset + (at - seg.Start))
				off = &h
			}
			loc := []core.Location{{Kind: "address", Address: core.Hex(at)}}
			if in {
				o := int64(seg.FileOffset + (at - seg.Start))
				loc = append(loc, core.Location{Kind: "file-offset", Offset: &o})
			}
			return &core.Observation{Result: &AddressToFileOffsetResult{Address: core.Hex(at), Segment: seg.Name, SegmentStart: core.Hex(seg.Start), FileOffset: off, InFile: in},
				Locations: loc}, nil
		},
	}
}

// opStepAddress declares next_address and prev_address: the neighbouring
// instruction in code, the neighbouring byte elsewhere.
func opStepAddress(name string) *core.Operation {
	forward := name == "next_address"
	field, title, what := "next_address", "Next Address", "following"
	if !forward {
		field, title, what = "previous_address", "Previous Address", "preceding"
	}
	return &core.Operation{
		Name: name, Title: title, Kind: core.KindOfficialProxy, Effects: codeEffects, NeedsTarget: true,
		Needs: []ports.Capability{core.CapSegments, core.CapProcedures, core.CapFunctions, core.CapDisassemble},
		Description: "The address of the " + what + " item: in a code section the " + what + " instruction (by linear sweep from the containing procedure's start), " +
			"elsewhere the " + what + " byte. Null at the edge of the address space.",
		Input: core.InputSchema(nil, documentProp, optionalAddressProp),
		Result: withHexDefs(json.RawMessage(`{"type":"object","additionalProperties":false,"required":["address","` + field + `","unit","segment"],
 "properties":{"address":{"$ref":"#/$defs/hex"},"` + field + `":{"anyOf":[{"type":"null"},{"$ref":"#/$defs/hex"}]},"unit":{"enum":["instruction","byte"]},"segment":{"type":"string"}}}`)),
		Examples: []json.RawMessage{json.RawMessage(`{}`), json.RawMessage(`{"address":"0x1000"}`)},
		Handler: func(ctx context.Context, c *core.Call) (any, error) {
			in, err := core.Input[NextAddressInput](c)
			if err != nil {
				return nil, err
			}
			if err := checkDocument(ctx, c, in.Document); err != nil {
				return nil, err
			}
			// From a gap between segments (an address the resolver
			// lets through), the step lands in the nearest segment that
			// way; before the first or past the last it is refused.
			at, err := defaultAddress(ctx, c, in.Address, &codeloc.Options{Unmapped: true})
			if err != nil {
				return nil, err
			}
			seg, load, err := mappedSegment(ctx, c, at)
			if gap, ok := gapStep(ctx, c, at, forward, err); ok {
				loc := []core.Location{{Kind: "address", Address: core.Hex(at)}}
				if forward {
					return &core.Observation{Result: &NextAddressResult{Address: core.Hex(at), NextAddress: &gap.to, Unit: "byte", Segment: gap.seg}, Locations: loc}, nil
				}
				return &core.Observation{Result: &PrevAddressResult{Address: core.Hex(at), PreviousAddress: &gap.to, Unit: "byte", Segment: gap.seg}, Locations: loc}, nil
			}
			if err != nil {
				return nil, err
			}
			if load {
				// Bytes only a load segment maps (the headers) are stepped
				// one at a time: no instruction is decoded outside sections.
				seg.Perms.Execute = false
			}
			step, unit, err := stepAddress(ctx, c, in.Document, at, seg, forward)
			if err != nil {
				return nil, err
			}
			loc := []core.Location{{Kind: "address", Address: core.Hex(at)}}
			if forward {
				return &core.Observation{Result: &NextAddressResult{Address: core.Hex(at), NextAddress: step, Unit: unit, Segment: seg.Name}, Locations: loc}, nil
			}
			return &core.Observation{Result: &PrevAddressResult{Address: core.Hex(at), PreviousAddress: step, Unit: unit, Segment: seg.Name}, Locations: loc}, nil
		},
	}
}

// gapStep is next_address's or prev_address's answer from at, which no
// segment maps (err, mappedSegment's, says so) but which lies between two
// that do: the first byte of the nearest segment above (forward) or the
// last of the nearest below, and that segment's name. It is false when err
// is another error or at lies before the first segment or past the last
// (the refusal stands).
func gapStep(ctx context.Context, c *core.Call, at uint64, forward bool, err error) (struct{ to, seg string }, bool) {
	var out struct{ to, seg string }
	var ce *core.Error
	if err == nil || !errors.As(err, &ce) || ce.Details["nearest_segments"] == nil {
		return out, false
	}
	segs, _, serr := callTarget{c}.Segments(ctx)
	if serr != nil {
		return out, false
	}
	below, above := codeloc.Nearest(segs, at)
	if below == nil || above == nil {
		return out, false // before the first segment or past the last: no gap
	}
	if forward {
		out.to, out.seg = core.Hex(above.Start), above.Name
	} else {
		out.to, out.seg = core.Hex(below.Start+below.Size-1), below.Name
	}
	return out, true
}

// stepAddress is the address after (forward) or before at in segment seg,
// or nil at the edge of the address space, and its unit.
func stepAddress(ctx context.Context, c *core.Call, doc string, at uint64, seg ports.Segment, forward bool) (*string, string, error) {
	hex := func(a uint64) *string { h := core.Hex(a); return &h }
	if !seg.Perms.Execute || seg.FileSize == 0 {
		switch {
		case forward && at < ^uint64(0):
			return hex(at + 1), "byte", nil
		case !forward && at > 0:
			return hex(at - 1), "byte", nil
		}
		return nil, "byte", nil
	}
	d, err := analysisFor[ports.Disassembler](c)
	if err != nil {
		return nil, "", err
	}
	if forward {
		dis, err := d.Disassemble(ctx, ports.DisassembleRequest{Address: at, MaxInstructions: 1})
		if err != nil {
			return nil, "", codeError(c, err)
		}
		if len(dis.Instructions) > 0 {
			return hex(at + uint64(max(len(dis.Instructions[0].Bytes), 1))), "instruction", nil
		}
		return nil, "instruction", nil
	}
	// Backwards: sweep from the containing procedure's start (or a
	// bounded window before the address) and take the instruction
	// that ends at or spans the address.
	v, err := codeViewOf(ctx, c, doc)
	if err != nil {
		return nil, "", err
	}
	from := max(seg.Start, at-min(at, 64))
	if at > 0 {
		if i, ok := v.containing(at - 1); ok && at-v.ranges[i].Start <= 1<<20 && v.ranges[i].Start >= seg.Start {
			from = v.ranges[i].Start
		}
	}
	if from < at {
		dis, err := d.Disassemble(ctx, ports.DisassembleRequest{Address: from, End: at, MaxInstructions: 100000})
		if err != nil {
			return nil, "", codeError(c, err)
		}
		if n := len(dis.Instructions); n > 0 {
			return hex(dis.Instructions[n-1].Address), "instruction", nil
		}
	}
	return nil, "instruction", nil
}

// noDecompilerAdvice is what to use instead of pseudo-code when no
// registered engine decompiles.
const noDecompilerAdvice = "Use procedure_assembly or analyze_function for this provider's view."

// pseudocodeUnavailable is the answer of a provider that does not
// decompile; its remediation names the registered engines that do, if any.
func pseudocodeUnavailable(ctx context.Context, c *core.Call) *core.Error {
	_, b, _ := c.Bound()
	id := "the bound provider"
	if b != nil {
		id = b.Provider.Info().ID
	}
	return &core.Error{Code: core.CodeCapabilityUnavailable,
		Message:     fmt.Sprintf("%s: %s does not decompile; it disassembles and analyses control flow and references", c.Op.Name, id),
		Remediation: c.CapabilityRemediation(ctx, noDecompilerAdvice, core.CapDecompile),
		Details:     map[string]any{"operation": c.Op.Name, "reason": "decompiler_unavailable", "provider_id": id}}
}

func opProcedurePseudoCode() *core.Operation {
	return &core.Operation{
		Name: "procedure_pseudo_code", Title: "Procedure Pseudo-Code", Kind: core.KindOfficialProxy, Effects: codeEffects, NeedsTarget: true,
		Needs:              []ports.Capability{core.CapProcedures, core.CapFunctions, core.CapDecompile},
		MissingReason:      "decompiler_unavailable",
		MissingRemediation: noDecompilerAdvice,
		Description: "Decompiled pseudo-code of one procedure, from a bound provider that decompiles. The built-in rea-native does not decompile " +
			"and answers capability_unavailable; procedure_assembly and analyze_function work with it.",
		Input:    core.InputSchema([]string{"procedure"}, documentProp, procedureProp),
		Result:   json.RawMessage(`{"type":["string","null"]}`),
		Examples: []json.RawMessage{json.RawMessage(`{"procedure":"main"}`)},
		Handler: func(ctx context.Context, c *core.Call) (any, error) {
			in, err := core.Input[ProcedureInfoInput](c)
			if err != nil {
				return nil, err
			}
			v, i, err := procedureArg(ctx, c, in.Document, in.Procedure)
			if err != nil {
				return nil, err
			}
			a, _, _ := c.Bound()
			dc, ok := a.(ports.Decompiler)
			if !ok {
				return nil, pseudocodeUnavailable(ctx, c)
			}
			p, err := dc.Decompile(ctx, v.procs[i].Address)
			if err != nil {
				return nil, err
			}
			return &core.Observation{Result: core.OptString(p.Text), Locations: rangeLocation(v.ranges[i])}, nil
		},
	}
}
