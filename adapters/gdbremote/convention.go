package gdbremote

import (
	"fmt"
	"strconv"
	"strings"

	"rea/ports"
)

// convention is where a calling convention keeps what a trace reads, by the
// register names of the target description.
type convention struct {
	name ports.CallingConvention
	args []string
	// floats are the floating-point argument registers of a C convention
	// that has them, in order.
	floats []string
	ret    string
	pc     string
	sp     string
	// lr is the link register holding the return address at entry; "" means
	// the return address is the word at sp.
	lr string
	// g is the register holding the current goroutine (Go only): returns are
	// matched by goroutine, since a goroutine may move between threads and
	// its stack may move.
	g string
	// spAfterReturn is sp at the return address minus sp at entry.
	spAfterReturn uint64
	// bpKind is the Z0 kind (breakpoint instruction length).
	bpKind int
	// word is the size of a register, a pointer and a stack slot: 8, or 4
	// on 32-bit x86.
	word uint64
	// onStack: the arguments are stack slots at the entry, named by where
	// they are ("[esp+4]"), not registers (cdecl).
	onStack bool
}

func conventionFor(arch string, name ports.CallingConvention) (convention, error) {
	switch arch {
	case "x86-64":
		c := convention{pc: "rip", sp: "rsp", ret: "rax", spAfterReturn: 8, bpKind: 1, word: 8}
		switch name {
		case "", ports.ConventionSysV:
			c.name = ports.ConventionSysV
			c.args, c.floats = ports.ArgumentRegisters(c.name, arch)
		case ports.ConventionGo:
			c.name = name
			c.args, _ = ports.ArgumentRegisters(name, arch)
			c.g = "r14"
		default:
			return convention{}, fmt.Errorf("calling convention %q on %s: %w", name, arch, ports.ErrUnsupported)
		}
		return c, nil
	case "x86":
		// The i386 System V ABI: every argument on the stack, the first
		// above the return address.
		c := convention{pc: "eip", sp: "esp", ret: "eax", spAfterReturn: 4, bpKind: 1, word: 4, onStack: true}
		switch name {
		case "", ports.ConventionCdecl:
			c.name = ports.ConventionCdecl
			for k := range cdeclSlots {
				name, _ := c.slot(4 + 4*uint64(k))
				c.args = append(c.args, name)
			}
		default:
			return convention{}, fmt.Errorf("calling convention %q on %s: %w", name, arch, ports.ErrUnsupported)
		}
		return c, nil
	case "arm64":
		c := convention{pc: "pc", sp: "sp", ret: "x0", lr: "x30", bpKind: 4, word: 8}
		switch name {
		case "", ports.ConventionAAPCS64:
			c.name = ports.ConventionAAPCS64
			c.args, c.floats = ports.ArgumentRegisters(c.name, arch)
		case ports.ConventionGo:
			c.name = name
			c.args, _ = ports.ArgumentRegisters(name, arch)
			c.g = "x28"
		default:
			return convention{}, fmt.Errorf("calling convention %q on %s: %w", name, arch, ports.ErrUnsupported)
		}
		return c, nil
	}
	return convention{}, fmt.Errorf("architecture %q: %w", arch, ports.ErrUnsupported)
}

// cdeclSlots is how many stack words a cdecl hit reports as its arguments,
// as many as System V x86-64 has argument registers.
const cdeclSlots = 6

// needed lists every register a stop reads.
func (c convention) needed() []string {
	out := []string{c.pc, c.sp, c.ret}
	if !c.onStack {
		out = append(out, c.args...)
	}
	if c.lr != "" {
		out = append(out, c.lr)
	}
	if c.g != "" {
		out = append(out, c.g)
	}
	return out
}

// gdbSignals names GDB's signal numbers (the protocol's, not the host's),
// an array of constants (a map would be built by init code at start-up).
var gdbSignals = [...]string{
	1: "SIGHUP", 2: "SIGINT", 3: "SIGQUIT", 4: "SIGILL", 5: "SIGTRAP", 6: "SIGABRT",
	7: "SIGEMT", 8: "SIGFPE", 9: "SIGKILL", 10: "SIGBUS", 11: "SIGSEGV", 12: "SIGSYS",
	13: "SIGPIPE", 14: "SIGALRM", 15: "SIGTERM", 16: "SIGURG", 17: "SIGSTOP",
	18: "SIGTSTP", 19: "SIGCONT", 20: "SIGCHLD", 21: "SIGTTIN", 22: "SIGTTOU",
	23: "SIGIO", 24: "SIGXCPU", 25: "SIGXFSZ", 26: "SIGVTALRM", 27: "SIGPROF",
	28: "SIGWINCH", 30: "SIGUSR1", 31: "SIGUSR2", 32: "SIGPWR",
}

func signalName(n int) string {
	if n >= 0 && n < len(gdbSignals) && gdbSignals[n] != "" {
		return gdbSignals[n]
	}
	return fmt.Sprintf("signal %d", n)
}

// passSignals are delivered to the program without a stop: they are part of
// normal operation (Go's preemption uses SIGURG, timers use SIGALRM and
// SIGPROF) and only cost round trips when reported.
const passSignals = "QPassSignals:0e;10;14;17;1a;1b;1c;1e;1f"

// slot names the stack word at offset off from sp at the entry.
func (c convention) slot(off uint64) (string, uint64) {
	return fmt.Sprintf("[%s+%d]", c.sp, off), off
}

// slotOffset parses a stack slot's name ("[esp+8]", as slot gives it) into
// its offset from sp; ok is false for a register's name.
func (c convention) slotOffset(name string) (uint64, bool) {
	rest, ok := strings.CutPrefix(name, "["+c.sp+"+")
	if !ok {
		return 0, false
	}
	digits, ok := strings.CutSuffix(rest, "]")
	if !ok {
		return 0, false
	}
	off, err := strconv.ParseUint(digits, 10, 32)
	return off, err == nil
}
