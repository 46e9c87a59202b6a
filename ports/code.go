package ports

import "context"

// Code analysis capabilities: disassembly, function bodies and control flow,
// cross-references, raw bytes, signatures and decompilation. Engines report
// raw facts with uint64 addresses; core composes the workflows
// (analyze_function, call graphs, traces) from them, so any engine that
// answers these gets the workflows.
//
// Every method below shares the Analysis contract: it is safe for
// concurrent use and concurrent callers get the same results as sequential
// ones; a done ctx makes it fail with an error wrapping ctx.Err(); after
// Close it fails; hostile arguments (any address, reversed or empty ranges,
// zero, negative or huge counts) never panic and never allocate beyond what
// the target holds. An address that names nothing is ErrNotFound; an
// architecture the engine does not model is ErrUnsupported. Results are the
// caller's to modify. portstest.Run checks all of this.

// Flow says how control leaves an instruction.
type Flow string

// Instruction flows.
const (
	FlowNext   Flow = ""       // continues with the next instruction
	FlowCall   Flow = "call"   // calls Target (or an unknown target) and returns to the next instruction
	FlowJump   Flow = "jump"   // unconditional jump to Target (or an unknown target)
	FlowBranch Flow = "branch" // conditional: Target or the next instruction
	FlowReturn Flow = "return" // returns to the caller
	FlowStop   Flow = "stop"   // traps or halts: no successor (hlt, ud2, int3, brk)
)

// ParseFlow reads a flow by the name an engine's wire format gives it: a
// flow's own value, or "next" for FlowNext. ok is false for any other name.
func ParseFlow(name string) (f Flow, ok bool) {
	switch f = Flow(name); f {
	case FlowNext, FlowCall, FlowJump, FlowBranch, FlowReturn, FlowStop:
		return f, true
	case "next":
		return FlowNext, true
	}
	return "", false
}

// Instruction is one decoded machine instruction.
type Instruction struct {
	Address  uint64
	Bytes    []byte // the encoding; its length is the instruction's length
	Mnemonic string // lower case, without prefixes
	Operands string // in the engine's syntax; "" when there are none
	Text     string // the whole instruction in the engine's syntax
	Flow     Flow
	// Target is the direct target of a call, jump or branch; valid when
	// HasTarget. Indirect transfers have HasTarget false.
	Target    uint64
	HasTarget bool
	// Invalid marks bytes that do not decode. The engine steps over them by
	// its minimum instruction size (one byte on x86, four on AArch64) with
	// Mnemonic "(bad)" and Flow FlowStop.
	Invalid bool
}

// DisassembleRequest selects a window of code.
type DisassembleRequest struct {
	Address uint64
	// End is the exclusive end of the window; 0, or an End at or before
	// Address, means the end of the code section holding Address.
	End uint64
	// MaxInstructions bounds the window; 0 or less means the engine's
	// default. The engine may lower it to its own cap.
	MaxInstructions int
}

// Disassembly is a linear window of instructions.
type Disassembly struct {
	Syntax       string // "intel" (x86), "gnu" (AArch64), ...
	Instructions []Instruction
	Truncated    bool // MaxInstructions was reached before End
}

// Disassembler decodes machine code by linear sweep. An architecture the
// engine cannot decode fails with ErrUnsupported; an address outside every
// code section with file bytes fails with ErrNotFound.
//
// The window is contiguous: the first instruction is at req.Address, each
// next one at the end of the previous one (Address + len(Bytes), Bytes never
// empty), every one starts before the window's end, and there are at most
// MaxInstructions of them when it is positive. Flow is one of the Flow
// constants; HasTarget only with FlowCall, FlowJump or FlowBranch; an Invalid
// instruction is "(bad)" with FlowStop. Bytes equal what ByteReader reads at
// the same address.
type Disassembler interface {
	Disassemble(ctx context.Context, req DisassembleRequest) (Disassembly, error)
}

// Control-flow edge kinds (Edge.Kind).
const (
	EdgeFallthrough = "fallthrough" // to the block that follows
	EdgeJump        = "jump"        // unconditional direct jump inside the function
	EdgeBranch      = "branch"      // taken side of a conditional branch
	EdgeJumpTable   = "jump-table"  // one case of a recovered jump table
	EdgeTailCall    = "tail-call"   // a jump or branch to another function
	EdgeUnresolved  = "unresolved"  // an indirect jump whose targets are unknown; Target is 0
	EdgeException   = "exception"   // from a block in a protected (try) region to its handler or filter (CIL)
)

// Edge is one successor of a basic block.
type Edge struct {
	Kind   string
	Target uint64
}

// BasicBlock is a maximal straight-line run of instructions. Calls do not
// end blocks.
type BasicBlock struct {
	Start, End   uint64 // [Start, End)
	Instructions int
	Successors   []Edge // none after a return, a trap or an invalid instruction
	// Handler is the kind of the exception handler this block begins
	// (catch, filter, finally, fault; CIL only), Catches the type a catch
	// handler catches.
	Handler, Catches string
}

// FunctionRange is the extent of one procedure.
type FunctionRange struct {
	Start, End uint64 // [Start, End)
	// EndSource says how End was found: symbol, eh-frame, pdata, dwarf,
	// gopclntab, plt (a stub's fixed size), library (the signature
	// library function its bytes equal), next-start (the next known
	// procedure) or section-end.
	EndSource string
}

// FunctionRequest selects one procedure.
type FunctionRequest struct {
	// Address is the start of a procedure listed by the ProcedureLister.
	Address uint64
	// MaxInstructions bounds the decoded Instructions returned; 0 or less
	// means the engine's default. Blocks and InstructionCount always cover
	// the whole function (up to the engine's own cap, reported by
	// Truncated).
	MaxInstructions int
}

// Function is one procedure's code.
type Function struct {
	FunctionRange
	Syntax           string
	Instructions     []Instruction // the first MaxInstructions: the range's in address order, then its parts'
	InstructionCount int           // instructions in the range and its parts (up to the engine's cap)
	Blocks           []BasicBlock  // sorted by Start
	// Truncated: the engine stopped at its own instruction or block cap;
	// Blocks and InstructionCount describe a prefix of the range.
	Truncated bool
}

// FunctionAnalyzer reports procedure extents and bodies.
type FunctionAnalyzer interface {
	// FunctionRanges lists one range per procedure, sorted by Start, in the
	// same order as ProcedureLister.Procedures: the i-th range starts at the
	// i-th procedure's Address, End >= Start, and EndSource is set.
	FunctionRanges(ctx context.Context) ([]FunctionRange, error)
	// Function decodes one procedure. ErrNotFound when no procedure starts
	// at req.Address; ErrUnsupported when the architecture is not decoded.
	// Its FunctionRange is the one FunctionRanges lists; Instructions are
	// in increasing address order inside [Start, End), then those of the
	// procedure's parts (PartLister), part by part in address order, at
	// most req.MaxInstructions when that is positive, and no more than
	// InstructionCount; Blocks are sorted by Start, do not overlap, lie
	// inside [Start, End) or one of the procedure's parts (PartLister),
	// and their edges use the Edge constants (an unresolved edge has
	// Target 0).
	Function(ctx context.Context, req FunctionRequest) (Function, error)
}

// Reference kinds (Reference.Kind).
const (
	RefCall    = "call"    // a call
	RefJump    = "jump"    // a jump or branch (jump-table cases included)
	RefRead    = "read"    // a data read
	RefWrite   = "write"   // a data write
	RefAddress = "address" // an address computed or loaded as a constant (lea, adrp+add, an immediate)
	// RefPointer is an address stored in data (a table of function
	// pointers, a vtable, a callback in an initialised struct, an
	// .init_array entry): From is the slot's address, not an instruction,
	// and usually lies in no procedure.
	RefPointer = "pointer"
)

// Reference is one cross-reference: made by an instruction, or, for
// RefPointer, by a word of data that holds the address.
type Reference struct {
	From uint64 // the referencing instruction, or the data slot of a RefPointer
	To   uint64 // the referenced address; 0 when Unresolved
	Kind string
	// Unresolved marks an indirect call or jump whose target is unknown.
	// Such references are reported, never dropped.
	Unresolved bool
	// Operand is how an unresolved target is computed ("rax",
	// "qword ptr [rip+0x2fe2]").
	Operand string
	// Slot is the address of the memory slot an indirect call or jump reads
	// its target from, when that address is known (a GOT or IAT entry); 0
	// otherwise.
	Slot uint64
}

// CrossReferencer reports the references of the whole document. Both lists
// are complete over what the engine analysed, and they agree: the resolved
// references ReferencesFrom reports over a range of sources are exactly
// those ReferencesTo reports for their targets. Kind is one of the Ref
// constants; an Unresolved reference has To 0. An empty or reversed range
// (end <= start) lists nothing and is not an error. Sources are
// instructions and, for an engine that reports RefPointer, data slots:
// a From need not lie in any procedure, and a consumer that counts calls
// must look at Kind, not at where From is.
type CrossReferencer interface {
	// ReferencesFrom lists the references made in [start, end), by
	// instructions or data slots, unresolved ones included, sorted by From
	// then To.
	ReferencesFrom(ctx context.Context, start, end uint64) ([]Reference, error)
	// ReferencesTo lists the resolved references whose To is in
	// [start, end), sorted by To then From.
	ReferencesTo(ctx context.Context, start, end uint64) ([]Reference, error)
}

// ByteReader reads the file bytes mapped at an address.
type ByteReader interface {
	// ReadBytes returns up to n bytes at addr, stopping at the end of the
	// section's file data (a short result is not an error). ErrNotFound when
	// addr is in no section with file bytes (an engine may also read what
	// only a load segment maps, as the native one does). n <= 0 returns no bytes and no
	// error; a huge n is bounded by the section, never allocated as asked.
	// At the start of a section with file bytes at least one byte is read.
	ReadBytes(ctx context.Context, addr uint64, n int) ([]byte, error)
}

// Parameter is one formal parameter.
type Parameter struct {
	Name string // "" when unnamed
	Type string // in C-like notation (Go's for Go code); "" when unknown
	// Location is the register or "stack" under the calling convention; a
	// value passed in several registers (Go's string: pointer, length) has
	// them all in order of its parts, joined by ","; "none" for a value of
	// no size (Go's struct{}), passed nowhere; "" when not derivable.
	Location string
	// Underlying is, for a Go type defined as a string or a byte slice
	// (type Token string), that type: "string" or "[]uint8"; for a C
	// typedef (typedef double real), the type it names, qualifiers and
	// typedefs removed ("double"); "" otherwise, and for string and
	// []uint8 themselves, which Type already names.
	Underlying string
	// Constant is, for a parameter a specialized copy of a function
	// (gcc's name.constprop.0) has as a constant and takes no argument
	// for (Location "none"), its value as the debug information gives it
	// ("7"); "" otherwise.
	Constant string
}

// Signature is what an engine can derive about a procedure's interface.
type Signature struct {
	CallingConvention string // sysv-amd64, ms-x64, cdecl, aapcs64, go-abiinternal; "" when unknown
	ReturnType        string // "" when unknown, "void" when none
	ReturnUnderlying  string // for a C typedef result, the type it names (as Parameter.Underlying); "" otherwise
	Parameters        []Parameter
	Variadic          bool
	Source            string // what the parameters come from: dwarf, ...
	// Switches are the computed jumps whose tables the engine recovered
	// with the signature (a decompiler's jump tables, as Ghidra's
	// HighFunction gives them); nil when the engine recovers none this way.
	// SwitchesTotal is how many it recovered, more than len(Switches) when
	// it cut the list.
	Switches      []Switch
	SwitchesTotal int
}

// Switch is one computed jump and the table it reads, as an engine
// recovered it. Each list keeps its total, more than its length when the
// engine cut it.
type Switch struct {
	Address      uint64 // the computed jump
	Sources      []SwitchSource
	SourcesTotal int
	Cases        []SwitchCase
	CasesTotal   int
}

// SwitchSource is a table in memory a Switch reads.
type SwitchSource struct {
	Address   uint64
	EntrySize int // bytes per entry
	Entries   int
}

// SwitchCase is one case of a Switch: its label value (nil when the
// engine gave none, as for a default) and where it goes.
type SwitchCase struct {
	Value  *int64
	Target uint64
}

// SignatureReader derives procedure signatures (from debug information).
type SignatureReader interface {
	// Signature fails with ErrNotFound when nothing describes the procedure
	// starting at addr (an address where no procedure starts included).
	Signature(ctx context.Context, addr uint64) (Signature, error)
}

// Pseudocode is decompiler output.
type Pseudocode struct {
	Text      string
	Signature string // "" when unknown
}

// Decompiler produces pseudo-code. Engines that do not decompile do not
// implement it. Decompile fails with ErrNotFound when no procedure starts at
// addr, and otherwise returns non-empty Text (or ErrUnsupported when the
// engine cannot decompile that procedure).
type Decompiler interface {
	Decompile(ctx context.Context, addr uint64) (Pseudocode, error)
}

// Value flow: what one procedure's instructions define and use, which
// definitions reach which uses, what it writes, calls and returns, and which
// argument registers it reads before writing them. Locations are strings: a
// register by its full name (eax, ax and al are rax; w0 is x0; xmm, ymm and
// zmm N are xmmN), or a memory operand in brackets ("[rbp-0x14]",
// "[0x404028]" for an absolute or RIP-relative address, "[rdi+rax*4]").

// Effect kinds (ValueFlowEffect.Kind).
const (
	EffectMemoryWrite = "memory-write" // a store to memory
	EffectCall        = "call"         // a direct or indirect call
	EffectReturn      = "return"       // a return, with the definitions of the return register (Location) that reach it
)

// ValueFlowOperation is one instruction as the value flow sees it.
type ValueFlowOperation struct {
	Address  uint64
	Mnemonic string
	Defs     []string // locations written (a call's clobbered registers included)
	Uses     []string // locations read (address registers of memory operands included)
}

// DefUse is one definition that reaches one use on some path.
type DefUse struct {
	Def, Use uint64 // instruction addresses
	Location string
}

// ValueFlowEffect is one observable effect of the procedure.
type ValueFlowEffect struct {
	Kind    string
	Address uint64
	// Location is the memory operand written, the operand of an indirect
	// call, or the return register; "" for a direct call.
	Location string
	// Target is a direct call's target, or the absolute address written;
	// valid when HasTarget.
	Target    uint64
	HasTarget bool
	Indirect  bool   // an indirect call
	Value     string // the location or immediate stored by a memory write; "" otherwise
	// Definitions are the in-procedure definitions (instruction addresses)
	// that reach the value: the stored register, the indirect call's
	// operand, the return register.
	Definitions []uint64
	// ArgumentsSource says where a call's argument registers (the call
	// operation's Uses) come from: "dwarf" (the callee's debug
	// information), "libc-prototype" (the C library's prototype of the
	// import called; a variadic one also takes written registers above
	// its fixed parameters), "format" (that prototype and the constant
	// printf format the call passes: exactly what its conversions take),
	// "inferred" (the callee's own parameters bound them from above), "al"
	// (x86-64's vector count at a call of unknown arity), "winapi" (a
	// 32-bit Windows import's stack bytes, stdcall's @N: exactly N/4
	// words); "" when none of these is known (the written argument
	// registers) or not a call.
	ArgumentsSource string
}

// InferredParameter is an argument register of the calling convention that
// is read before any write on some path from the entry.
type InferredParameter struct {
	Location string // the register, or the stack word at the entry ("[esp+4]") under cdecl
	Position int    // 0-based position among the convention's argument registers of its class, or stack words
	Uses     int    // uses of its entry value
}

// ParameterUse is one use of a parameter's entry value.
type ParameterUse struct {
	Location string
	Address  uint64
}

// ValueFlow is the value flow of one procedure, sorted by address (def-use
// edges by Use, then Def, then Location).
type ValueFlow struct {
	CallingConvention string // sysv-amd64, ms-x64, aapcs64, go-abiinternal
	Operations        []ValueFlowOperation
	DefUses           []DefUse
	Effects           []ValueFlowEffect
	Parameters        []InferredParameter // in the convention's order
	ParameterUses     []ParameterUse
	// Truncated: the engine stopped at its instruction, block or work cap,
	// or the procedure was cut; the lists describe what was analysed.
	Truncated bool
	// OmittedOperations is a lower bound on the procedure's instructions
	// not analysed.
	OmittedOperations int
	// OmittedInputs counts uses whose inputs the engine does not model
	// (instructions it cannot decode semantically).
	OmittedInputs int
	// OmittedEdges counts control-flow edges the analysis could not follow
	// (indirect jumps with unknown targets).
	OmittedEdges int
	Limitations  []string
}

// ValueFlowAnalyzer computes reaching definitions over one procedure's
// basic blocks. ErrNotFound when no procedure starts at req.Address;
// ErrUnsupported when the architecture is not modelled. req.MaxInstructions
// bounds the instructions analysed (0 or less: the engine's default).
// Operations have strictly increasing addresses inside the procedure's
// range; every def-use edge and every effect's Definitions name addresses of
// Operations; Effects are sorted by Address and use the Effect constants;
// ParameterUses are sorted by Address; the Omitted counts are never
// negative.
type ValueFlowAnalyzer interface {
	ValueFlow(ctx context.Context, req FunctionRequest) (ValueFlow, error)
}

// ArchitectureReporter is implemented by an analysis that knows, without
// decoding anything, whether it decodes the target's instruction set (its
// Disassembler and FunctionAnalyzer answer rather than fail with
// ErrUnsupported) and whether it models the target's value flow (its
// ValueFlowAnalyzer likewise). Core asks it instead of decoding a
// procedure, so that an answer about the target never waits for
// whole-file work. The answer is the same for every call on one analysis.
type ArchitectureReporter interface {
	ArchitectureSupport(ctx context.Context) (ArchitectureSupport, error)
}

// ArchitectureSupport is ArchitectureReporter's answer.
type ArchitectureSupport struct {
	Decodes   bool // instructions, blocks and references are observed
	ValueFlow bool // ValueFlowAnalyzer models the instruction set
}
