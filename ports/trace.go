package ports

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"
)

// Native call tracing: an engine runs a native program under a debugger (or
// attaches to one the caller started), stops at the breakpoints the caller
// names, and reports every hit with the argument registers of the calling
// convention, the caller and the return value. The caller (core) resolves
// procedure names to link-time addresses through the open analysis; the engine
// relocates them into the running process. core turns the result into
// Evidence linked to the static procedures.

// CallTracer runs one trace. TraceCalls blocks until the traced program exits,
// a limit is reached or ctx ends, and always cleans up what it started before
// returning. On failure it returns a *TraceError carrying the partial
// observation. Safe for concurrent use: each call owns its own processes.
type CallTracer interface {
	TraceCalls(ctx context.Context, req TraceRequest) (*TraceResult, error)
}

// CallingConvention names where arguments and the return value live.
type CallingConvention string

const (
	// ConventionSysV: System V x86-64; arguments rdi, rsi, rdx, rcx, r8, r9;
	// result rax.
	ConventionSysV CallingConvention = "sysv-amd64"
	// ConventionAAPCS64: Arm 64-bit; arguments x0-x7; result x0.
	ConventionAAPCS64 CallingConvention = "aapcs64"
	// ConventionCdecl: System V i386 (32-bit x86); every argument on the
	// stack, the first at [esp+4] at the entry; result eax. Its arguments
	// are named by their slots ("[esp+4]").
	ConventionCdecl CallingConvention = "cdecl"
	// ConventionGo: Go's register ABI (ABIInternal). amd64: arguments rax,
	// rbx, rcx, rdi, rsi, r8-r11, result rax; arm64: arguments x0-x15,
	// result x0.
	ConventionGo CallingConvention = "go-abiinternal"
)

// ArgumentRegisters are the registers conv passes its first integer (and
// pointer) arguments and its first floating-point ones in, in order, on
// arch ("x86-64" or "arm64", which Go's convention needs; the C ones do
// not). cdecl passes every argument on the stack, an unknown convention or
// architecture has none: nil.
func ArgumentRegisters(conv CallingConvention, arch string) (ints, floats []string) {
	switch conv {
	case ConventionSysV:
		return []string{"rdi", "rsi", "rdx", "rcx", "r8", "r9"}, numbered("xmm", 8)
	case ConventionAAPCS64:
		return numbered("x", 8), numbered("v", 8)
	case ConventionGo:
		switch arch {
		case "x86-64", "x86_64", "amd64":
			return []string{"rax", "rbx", "rcx", "rdi", "rsi", "r8", "r9", "r10", "r11"}, numbered("xmm", 15)
		case "arm64", "aarch64":
			return numbered("x", 16), numbered("v", 16)
		}
	}
	return nil, nil
}

// numbered is prefix0 to prefix<n-1>.
func numbered(prefix string, n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = prefix + strconv.Itoa(i)
	}
	return out
}

// TraceRequest describes one trace. Exactly one of Launch and Attach is set.
type TraceRequest struct {
	Launch *TraceLaunch
	Attach *TraceAttach
	// Breakpoints are the procedures to stop at, by link-time address.
	Breakpoints []TraceBreakpoint
	// Convention says which registers are arguments. "" means the platform's
	// C convention (sysv-amd64 on x86-64, cdecl on x86, aapcs64 on arm64).
	Convention CallingConvention
	// MaxHits bounds the recorded hits. The first hit past it ends the
	// trace (TraceStopHitLimit; that hit, and any other at the same stop, is
	// counted in TraceCoverage.HitsDropped): a launched program is killed,
	// an attached one released. 0 means DefaultTraceMaxHits; at most
	// MaxTraceHits.
	MaxHits int
	// MaxDuration bounds the trace from launch or attach; when it passes the
	// program is stopped (launched) or released (attached). 0 means
	// DefaultTraceMaxDuration.
	MaxDuration time.Duration
	// RunID is the run ID the engine's supervisor gives every process it
	// starts ("" means a new one); core passes analysis_run.run_id.
	RunID string
	// Main is the link-time address of the program's main in the
	// executable, 0 when unknown. For a launched program the engine then
	// counts the hits that came before main was entered (the C library's
	// start-up, constructors: TraceCoverage.BeforeMain); with FromMain it
	// places the breakpoints only when main is entered, so none of those
	// calls is recorded or counted against MaxHits.
	Main     uint64
	FromMain bool
}

// Defaults for TraceRequest limits.
const (
	DefaultTraceMaxHits     = 10000
	MaxTraceHits            = 1000000
	DefaultTraceMaxDuration = 30 * time.Second
)

// TraceLaunch is a program the engine starts, stopped before its first
// instruction so no call is missed.
type TraceLaunch struct {
	Path string   // the executable; not looked up in PATH
	Args []string // after the program name
	Dir  string   // working directory; "" means the engine's
	Env  []string // NAME=value; nil means the engine's environment
}

// TraceAttach names a running process the caller started. The engine stops
// it, traces, and detaches (never kills it) at the end.
type TraceAttach struct {
	PID int
}

// TraceBreakpoint is one procedure to stop at.
type TraceBreakpoint struct {
	// Address is the link-time address (as the static analysis reports it).
	Address uint64
	// Module is the module Address belongs to: "" for the main executable,
	// else a shared library's path or file name (libc.so.6); a library must
	// be loaded by the time the program reaches its entry point.
	Module string
	// Symbol, when set, names an exported function to find at run time in
	// the shared libraries the loader has mapped by the time the program
	// reaches its entry point (in load order; the first that defines it
	// wins): Address and Module are then filled by the tracer. For a
	// function the static analysis does not hold (a libc function called
	// through the GOT with -fno-plt, or any library function).
	Symbol string
	// Name is the caller's label for the procedure, echoed in hits.
	Name string
	// Strings are the argument registers that point at NUL-terminated
	// text: at each hit the tracer reads up to MaxTraceString bytes there
	// (TraceHit.Strings).
	Strings []string
	// Spans are the texts of a known length among the arguments (Go's
	// string and []byte): at each hit the tracer reads the length
	// register's count of bytes, at most MaxTraceString, at the pointer
	// register (TraceHit.Strings, after the Strings').
	Spans []TraceSpan
	// ReturnStrings are argument registers that point at a buffer the
	// function fills (sprintf's, strcpy's destination): at the return the
	// tracer reads the NUL-terminated text, up to MaxTraceString bytes, at
	// the address the register held when the call began
	// (TraceHit.ReturnStrings).
	ReturnStrings []string
	// Format is the argument register holding a printf-style format, or
	// "": at each hit the tracer reads the format, then every argument its
	// conversions take (TraceHit.Variadic: floating-point registers and
	// stack slots join the hit's Arguments) and the text of each %s
	// conversion's (TraceHit.Strings, after the Spans').
	Format string
	// Scan says Format is scanf-style: its conversions take pointers the
	// function stores through (TraceHit.Variadic types them so, and no
	// text is read at the entry); at the return the tracer reads what the
	// first ReturnValue of them stored (%n, no assignment, is not read):
	// text (%s, %[...]) into TraceHit.ReturnStrings, any other value into
	// TraceHit.Stored, named by where the pointer arrived.
	Scan bool
	// WideFormat says Format is wchar_t text (wprintf's, wscanf's: Linux's
	// 4-byte units): the tracer reads it as ports/libc.WideString decodes it, into
	// TraceHit.Strings, and scans it as a narrow one.
	WideFormat bool
	// VaList is the argument register holding the va_list Format's
	// arguments come from (vprintf's ap: a pointer to System V x86-64's
	// or AAPCS64's va_list structure, or i386's pointer to the arguments),
	// or "": they follow the format in the convention's places. The
	// tracer reads each through it into an argument named "va#1",
	// "va#2"... (TraceHit.Variadic places them there).
	VaList string
	// Registers are further argument registers to read at the entry, a
	// floating-point parameter's (xmm1, v0), or stack slots past those
	// the convention reports ("[esp+28]"): they follow the convention's
	// in TraceHit.Arguments.
	Registers []string
	// Return is where the result is when not in the convention's integer
	// register alone: xmm0, v0, st0 (x87), or eax and edx for a 64-bit
	// integer on 32-bit x86; read at the return (TraceHit.ReturnRegisters).
	Return []string
}

// TraceSpan names the registers of one text argument of a known length.
type TraceSpan struct {
	Pointer string
	Length  string
}

// MaxTraceString bounds the bytes read for one string argument.
const MaxTraceString = 256

// TraceResult is what one trace observed. Hits are in the order they stopped
// the program.
type TraceResult struct {
	Architecture string            // "x86-64", "x86" or "arm64"
	Convention   CallingConvention // the convention the arguments were read under
	ProcessID    int               // the traced process
	Modules      []TraceModule     // the modules breakpoints were relocated in
	// StackEnd is the end of the main thread's stack (Linux: the page
	// after the executable's file name, which the kernel copies to the
	// stack's top; the auxiliary vector's AT_EXECFN); 0 when unknown.
	StackEnd    uint64
	Breakpoints []TraceResolved // one per request breakpoint, in request order
	Hits        []TraceHit
	Coverage    TraceCoverage
	Exit        *TraceExit // nil when the program did not exit under trace
	// Signals is every signal the engine's supervisor sent or refused while
	// stopping the debugger server (and, for a launch, the program).
	Signals []SignalAttempt
	// Lineage is the owned process tree (debugger server and launched
	// program) as it was once the program was stopped at its start.
	Lineage ProcessLineage
	// Remaining lists the owned resources the cleanup could not release
	// (empty when it completed); host state, apart from the trace's outcome.
	Remaining []OwnedResource
}

// TraceModule is one module with its load bias (runtime minus link-time
// address).
type TraceModule struct {
	Name     string // "" for the main executable, else the library path the loader reports
	Path     string // the file
	LoadBias uint64
}

// TraceResolved is where a requested breakpoint was placed.
type TraceResolved struct {
	Address        uint64 // link-time
	RuntimeAddress uint64
	Module         string
	Name           string
}

// TraceHit is one stop at a requested breakpoint.
type TraceHit struct {
	Sequence       int    // 0-based, in stop order
	Breakpoint     int    // index into TraceRequest.Breakpoints
	Name           string // TraceBreakpoint.Name
	Address        uint64 // link-time
	RuntimeAddress uint64
	ProcessID      int
	ThreadID       int
	MainThread     bool // the hit is on the thread the trace began with
	// Arguments are the argument registers of the convention, in order.
	Arguments    []TraceRegister
	StackPointer uint64
	// ReturnAddress is where the call returns to (runtime address); Caller
	// is the same address minus the module's load bias when it lies in a
	// traced module, else equal to ReturnAddress.
	ReturnAddress uint64
	Caller        uint64
	CallerModule  string
	// Returned says the return was observed; ReturnValue is then the result
	// register (rax, x0) at the return address.
	Returned    bool
	ReturnValue uint64
	// Unwound says the call will not return: a later stop of its thread
	// ran in a frame above its own (longjmp left it). Not for a Go program,
	// whose goroutine stacks move.
	Unwound bool
	// ReturnRegisters are TraceBreakpoint.Return's registers at the return.
	ReturnRegisters []TraceRegister
	// TailCall says a tail call entered this call: a recorded call waiting
	// at the same return address and stack pointer jumped to its entry
	// (TailCallFrom is that call's Sequence). ReturnAddress and Caller are
	// then where both return: no call instruction there entered this one.
	TailCall     bool
	TailCallFrom int
	// ReturnSequence is the ordinal of the stop at which the return was
	// seen, counting every stop of the trace from 1 (entries, returns,
	// steps over breakpoints, signals; not a stop at main's entry made only
	// to see main entered), so nesting can be read off: an inner call
	// returns at a lower ordinal. -1 when not returned.
	ReturnSequence int
	// Strings are the texts the breakpoint's string arguments pointed at
	// when the call began, in TraceBreakpoint.Strings order, then Spans', then
	// those of Format's %s conversions.
	Strings []TraceString
	// ReturnStrings are the texts the breakpoint's ReturnStrings pointed at
	// when the call returned, in that order; none when it did not return.
	ReturnStrings []TraceString
	// Variadic are, for a breakpoint with a Format the tracer read and
	// understood whole, the arguments its conversions take, in order: Name
	// the conversion ("%.2f", "*" for a width or precision), Type the C type
	// it reads, Location where it arrived (a register, or stack slots
	// joined by ","; a long double on the stack is the slot its bytes
	// begin at), each of which is among Arguments. Nil when there is no
	// format, it could not be read, or it holds a conversion the tracer
	// does not know (the arguments' places are not known then); empty when
	// the format takes none.
	Variadic []Parameter
	// Stored are, for a Scan breakpoint that returned, the values its
	// assigned conversions stored (not text): Name the location of the
	// pointer (as in Variadic), Bytes what it pointed at after the call
	// (the conversion's size: 4 for %d and %f, 8 for %lf, 10 for x87's
	// %Lf, 16 for AArch64's, the width for %c), Value their first 8; no
	// Bytes when the memory could not be read.
	Stored []TraceRegister
}

// TraceString is the text one argument register pointed at: its bytes up
// to the first NUL, at most MaxTraceString (Truncated when no NUL came
// first), or for a span its length's bytes, at most MaxTraceString
// (Truncated when longer); Unreadable when the memory could not be read (a
// null or wild pointer). Register is the pointer register.
type TraceString struct {
	Register   string
	Text       []byte
	Truncated  bool
	Unreadable bool
}

// TraceRegister is a named register value.
type TraceRegister struct {
	Name  string
	Value uint64 // for one wider than 8 bytes, its first 8
	// Bytes are the contents, little-endian, of a register of other than
	// 4 or 8 bytes (xmm and v: 16, st0: 10); nil otherwise.
	Bytes []byte
	// Place is where Value lies in a library loaded when the call began
	// (an argument of a word), when it lies in one; nil otherwise, and
	// for the main program's image, which the caller places itself.
	Place *TracePlace
	// Heap says Value lies in the process's heap when the call began:
	// its brk heap (malloc's main arena) or a heap of one of glibc's
	// thread arenas. The tracer knows it from the process's memory map
	// for a program it runs on this host, and from the guest's program
	// break under an emulator (the brk heap only).
	Heap bool
	// Stack is the thread whose stack Value lies in (the mapping holding
	// that thread's stack pointer), when the tracer could tell from the
	// process's memory map; nil otherwise (the caller places a value in
	// the main thread's stack itself from TraceResult.StackEnd).
	Stack *TraceStack
	// Mapping is the memory mapping Value lies in when it is in no
	// library, the program's image, a thread's TLS, a thread's stack or
	// the heap: a file's or anonymous memory; nil otherwise or where the
	// map is not known.
	Mapping *TraceMapping
	// TLS is the thread whose static thread-local storage Value lies in
	// (its TLS blocks and thread descriptor beside its thread pointer),
	// when the tracer could read that thread's pointer; nil otherwise.
	// Stack, Heap and Mapping are then unset.
	TLS *TraceTLS
}

// TraceTLS is a place in a thread's static thread-local storage: the
// thread (as TraceHit.ThreadID names threads) and the offset from its
// thread pointer (fs_base, TPIDR_EL0, the i386 gs base) when the call
// began: negative below it, as the program's own
// (char *)&v - (char *)__builtin_thread_pointer() is.
type TraceTLS struct {
	Thread int
	Offset int64
}

// TraceStack is a thread's stack: the thread (as TraceHit.ThreadID names
// threads) and its stack pointer when the call began.
type TraceStack struct {
	Thread       int
	StackPointer uint64
}

// TraceMapping is a mapping of the process's memory map: the file mapped
// ("" for anonymous memory; the kernel's name for its own, such as
// "[vdso]"), and the value's offset in the file, or from the mapping's
// start when it has none. That start is the map's: the kernel merges
// adjacent anonymous mappings of the same permissions into one line, so
// the offset may count from an earlier mmap than the one holding Value.
type TraceMapping struct {
	Path   string
	Offset uint64
}

// TracePlace is an address in a loaded library: the library, the address
// less its load bias (link-time, in the library's file), the section of the
// file holding it and the dynamic symbol covering it.
type TracePlace struct {
	Module  string // the library's file, as TraceHit.CallerModule names it
	Address uint64
	Section string // "" when no section of the file holds it
	Symbol  string // "" when no sized dynamic symbol covers it
	Offset  uint64 // Address less the symbol's
}

// Stop reasons.
const (
	TraceStopExited    = "exited"     // the program exited or was killed by a signal
	TraceStopTimeLimit = "time-limit" // MaxDuration passed
	TraceStopHitLimit  = "hit-limit"  // MaxHits were recorded and another hit came
	TraceStopCancelled = "cancelled"  // ctx ended
	TraceStopFailed    = "failed"     // see the error
)

// TraceCoverage says what the trace did not see.
type TraceCoverage struct {
	StopReason string
	// Threads are the thread IDs that stopped at a breakpoint, sorted.
	Threads []int
	// HitsDropped counts hits past MaxHits (observed, not recorded): those
	// at the stop that ended the trace (TraceStopHitLimit).
	HitsDropped int
	// ReturnsMissing counts recorded hits whose return was not observed
	// while the program ran on. A hit still waiting for its return when a
	// limit or cancellation stopped the program is pending instead, and an
	// Unwound one was left without returning: neither is counted here, and
	// a note gives each number.
	ReturnsMissing int
	// BeforeMain counts the recorded hits that came before main was
	// entered (all of them when it never was); 0 when TraceRequest.Main is
	// unknown, with FromMain, or for an attached process.
	BeforeMain int
	// ForksNotFollowed are the child PIDs the program forked; children run
	// without breakpoints and are not traced.
	ForksNotFollowed []int
	// Notes are further limits in words.
	Notes []string
}

// TraceExit is how the program ended.
type TraceExit struct {
	Code   *int   // exit status, nil when killed by a signal
	Signal string // "SIGSEGV"; "" when it exited
}

// Trace failure kinds. Each TraceError matches its kind's sentinel and the
// generic ports sentinel listed with errors.Is.
var (
	// ErrDebuggerMissing: the debugger server is not installed (ErrUnavailable).
	ErrDebuggerMissing = errors.New("debugger server missing")
	// ErrEmulatorMissing: the program is built for another architecture and
	// the user-mode emulator that would run it is not installed; it matches
	// ErrDebuggerMissing too.
	ErrEmulatorMissing = fmt.Errorf("%w: no emulator for the program's architecture", ErrDebuggerMissing)
	// ErrDebuggerDied: the debugger server exited or broke the protocol
	// mid-trace (ErrUnavailable).
	ErrDebuggerDied = errors.New("debugger server died")
	// ErrTargetNotFound: the program or PID does not exist (ErrNotFound).
	ErrTargetNotFound = errors.New("trace target not found")
	// ErrTargetNotExecutable: the program is a directory, not executable, or
	// not a native executable the engine can trace (ErrUnsupported).
	ErrTargetNotExecutable = errors.New("trace target not executable")
	// ErrAddressNotMapped: a breakpoint address is not mapped in the process,
	// or its module is not loaded (ErrNotFound).
	ErrAddressNotMapped = errors.New("address not mapped")
	// ErrTraceRequest: the request itself is invalid (no breakpoints, both
	// or neither of launch and attach, a bad limit or environment entry);
	// nothing was started.
	ErrTraceRequest = errors.New("invalid trace request")
)

// TraceError is a failed trace. Partial holds what was observed before the
// failure (never nil), Err the cause: a sentinel above, a context error, or
// a *CleanupError when only the cleanup failed (Partial.Remaining lists what
// remains in every case).
type TraceError struct {
	Op      string // "launch", "attach", "breakpoint", "trace", "cleanup"
	Err     error
	Partial *TraceResult
}

func (e *TraceError) Error() string { return "trace: " + e.Op + ": " + e.Err.Error() }

// Unwrap gives the cause.
func (e *TraceError) Unwrap() error { return e.Err }

// Is matches the generic sentinel of the cause's kind.
func (e *TraceError) Is(target error) bool {
	switch {
	case errors.Is(e.Err, ErrDebuggerMissing), errors.Is(e.Err, ErrDebuggerDied):
		return target == ErrUnavailable
	case errors.Is(e.Err, ErrTargetNotFound), errors.Is(e.Err, ErrAddressNotMapped):
		return target == ErrNotFound
	case errors.Is(e.Err, ErrTargetNotExecutable):
		return target == ErrUnsupported
	}
	return false
}
