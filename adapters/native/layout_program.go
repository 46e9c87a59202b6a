package native

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"sync/atomic"

	"rea/ports"
)

// A stripped static program's own code, for the layout's canary. Without
// a symbol for main the layout asks the analysis as it stands when a
// target opens, before whole-file discovery (the seeds: .eh_frame and
// init-array starts, the entry shape's main and __libc_start_main, the
// names the signature libraries gave): main is what the entry point hands
// __libc_start_main, and the program's functions are those reached from
// main by direct calls (and direct jumps to another function's start)
// that the libraries did not name, stopping at the libraries' functions,
// the start code and PLT stubs. Whole-file discovery is not needed: the
// functions a program calls directly start at an FDE or are followed from
// the call itself.
//
// The rule for telling: the libraries must have named at least half of
// the other procedures known before discovery (those not reached from
// main), which in a static program are mostly the C library's. When they
// did not (matching is off, the program was linked against another C
// library than the archives read, or against another build of it), an
// unnamed library function reached from main would be scanned as the
// program's, and glibc's own functions use the canary: so the indicator
// stays unknown and says what would decide it.

const (
	// maxProgramFuncs bounds the functions followed from main.
	maxProgramFuncs = 4096
	// maxProgramInsns bounds the instructions decoded per function.
	maxProgramInsns = 1 << 16
)

// programCode is a stripped static program's main and the functions
// reached from it, as the analysis tells them before discovery.
type programCode struct {
	main  uint64
	funcs [][2]uint64 // [start, end): main first, then the others reached
	fail  []uint64    // __stack_chk_fail (and _local) as the libraries named them
	libs  []string    // the signature libraries that named functions
	// checked are glibc's checked functions (__*_chk) the libraries
	// named, by address (layout_fortify.go).
	checked map[uint64]string
	// short are the functions reached, but main, that may be checked
	// functions the libraries could not name (layout_fortify.go): fewer
	// than maxUnnamedChecked bytes, and no return.
	short []uint64
	named int  // procedures the libraries named among the others
	other int  // the other procedures known before discovery
	cut   bool // maxProgramFuncs stopped the walk
	// why says why the program's code cannot be told ("" when it can).
	why string
}

// layoutAnalyses counts the analyses seededProgram opened, which a test
// reads to see that a session's own analysis was used instead.
var layoutAnalyses atomic.Int64

// seededProgram finds the program's code of a static ELF executable with
// no symbol for main (see above), with the open analysis of the same
// bytes when the layout was given one (Analysis.ReadTargetLayout), else
// with one of its own.
func (lr *layoutReader) seededProgram() (*programCode, error) {
	pc := &programCode{checked: map[uint64]string{}}
	cfg := lr.opts.SignatureLibraries
	if cfg == nil || len(cfg.Paths) == 0 && !cfg.Installed {
		pc.why = "signature library matching is off, so the C library's functions are not named; setting " + EnvSignatureLibraries +
			" to the C library archives the program was linked from (or leaving it unset, for the installed ones) would decide it"
		return pc, nil
	}
	a := lr.own
	if a == nil {
		layoutAnalyses.Add(1)
		var err error
		if a, err = newAnalysis(lr.src.r, lr.src.size, "image", lr.opts, nil); err != nil {
			pc.why = fmt.Sprintf("the analysis cannot read the file (%v)", err)
			return pc, lr.ctx.Err()
		}
		defer a.Close(lr.ctx)
		if err := a.matchLibraries(lr.ctx); err != nil {
			return nil, err
		}
	}
	if a.lib == nil || len(a.lib.used) == 0 || len(a.lib.cands) == 0 {
		why := "no signature library named a function of it"
		if a.lib != nil && len(a.lib.notes) > 0 {
			why += " (" + strings.TrimSuffix(strings.Join(a.lib.notes, " "), ".") + ")"
		}
		pc.why = why + "; setting " + EnvSignatureLibraries + " to the C library archives the program was linked from would decide it"
		return pc, nil
	}
	for _, u := range a.lib.used {
		if u.matched > 0 {
			pc.libs = append(pc.libs, u.path)
		}
	}
	s, err := a.seedList(lr.ctx)
	if err != nil {
		if lr.ctx.Err() != nil {
			return nil, lr.ctx.Err()
		}
		pc.why = fmt.Sprintf("the procedures known before discovery cannot be read (%v)", err)
		return pc, nil
	}
	procs := mergeProcedures(s.cands)
	found := false
	for _, p := range procs {
		switch {
		case p.Name == "main" && p.Source == "libc-start-main":
			pc.main, found = p.Address, true
		case p.Source == "library" && (p.Name == "__stack_chk_fail" || p.Name == "__stack_chk_fail_local"):
			pc.fail = append(pc.fail, p.Address)
		case p.Source == "library" && checkedName(p.Name):
			addChecked(pc.checked, p.Address, p.Name)
		}
	}
	slices.Sort(pc.fail)
	pc.fail = slices.Compact(pc.fail)
	if !found {
		pc.why = "its entry point is not a C library's _start that rea recognises (glibc's on x86-64, i386 and AArch64, musl's on x86-64), so main is not known"
		return pc, nil
	}
	d := newDecoder(archOf(a.docs[0].Architecture), s.mm, a.src)
	if d == nil {
		pc.why = "its code is not decoded"
		return pc, nil
	}
	at := func(addr uint64) int { // the procedure starting at addr, or -1
		i, ok := slices.BinarySearchFunc(procs, addr, func(p ports.Procedure, t uint64) int { return cmp.Compare(p.Address, t) })
		if !ok {
			return -1
		}
		return i
	}
	// end is where the function at start ends: its size, else the next
	// procedure known, within its code region.
	end := func(start uint64) uint64 {
		r := s.mm.code(start)
		if r == nil {
			return start
		}
		stop := r.addr + r.fileSize
		if i := at(start); i >= 0 && procs[i].Size > 0 {
			return min(start+procs[i].Size, stop)
		}
		i, _ := slices.BinarySearchFunc(procs, start+1, func(p ports.Procedure, t uint64) int { return cmp.Compare(p.Address, t) })
		if i < len(procs) {
			stop = min(stop, procs[i].Address)
		}
		return min(stop, start+maxCanaryScan)
	}
	// library reports whether the walk stops at addr: a library's
	// function, the start code, a PLT stub, or no code.
	library := func(addr uint64) bool {
		r := s.mm.code(addr)
		if r == nil || r.plt || slices.Contains(pc.fail, addr) {
			return true
		}
		if i := at(addr); i >= 0 {
			switch procs[i].Source {
			case "library", "crt-start", "entry":
				return true
			}
		}
		return false
	}
	reached := map[uint64]bool{pc.main: true}
	queue := []uint64{pc.main}
	for k := 0; k < len(queue); k++ {
		if err := lr.tick(k); err != nil {
			return nil, err
		}
		start := queue[k]
		stop := end(start)
		sized := at(start) >= 0 && procs[at(start)].Size > 0
		b, err := codeBytes(lr.ctx, a.src, s.mm, archOf(a.docs[0].Architecture), start, stop)
		if err != nil {
			continue
		}
		// Without a size, the function ends at the first return or jump
		// past which none of its branches leads.
		far, returns := start, false
		sweep(d, b, start, stop, maxProgramInsns, func(in *insn) bool {
			next := in.addr + uint64(in.size)
			returns = returns || in.flow == ports.FlowReturn
			if (in.flow == ports.FlowBranch || in.flow == ports.FlowJump) && in.hasTarget && in.target > in.addr && in.target < stop {
				far = max(far, in.target)
			}
			if !sized && next > far && (in.flow == ports.FlowReturn || in.flow == ports.FlowStop || in.flow == ports.FlowJump) {
				stop = next
			}
			if !in.hasTarget || in.flow != ports.FlowCall && in.flow != ports.FlowJump {
				return next < stop
			}
			t := in.target
			if in.flow == ports.FlowJump && (t >= start && t < stop || at(t) < 0) {
				return true // a jump within the function, or not to a function's start
			}
			if reached[t] || library(t) {
				return true
			}
			if len(queue) >= maxProgramFuncs {
				pc.cut = true
				return false
			}
			reached[t] = true
			queue = append(queue, t)
			return next < stop
		})
		pc.funcs = append(pc.funcs, [2]uint64{start, stop})
		if k > 0 && !returns && stop-start < maxUnnamedChecked {
			pc.short = append(pc.short, start)
		}
	}
	for _, p := range procs {
		if reached[p.Address] || p.Source == "entry" || p.Source == "crt-start" {
			continue
		}
		if r := s.mm.code(p.Address); r == nil || r.plt {
			continue
		}
		pc.other++
		if p.Source == "library" {
			pc.named++
		}
	}
	if 2*pc.named < pc.other {
		pc.why = fmt.Sprintf("the signature libraries (%s) named only %d of the %d procedures known before discovery that main does not reach, too few to tell the program's code from the C library's "+
			"(at least half must be named); setting %s to the C library archives the program was linked from would decide it",
			strings.Join(pc.libs, ", "), pc.named, pc.other, EnvSignatureLibraries)
	}
	return pc, nil
}

// describe says how main and the functions scanned were found.
func (pc *programCode) describe() string {
	s := fmt.Sprintf("main (0x%x, which no symbol names: the first argument the entry point, the C library's _start, passes to __libc_start_main)", pc.main)
	switch n := len(pc.funcs) - 1; n {
	case 0:
		s += ", whose direct calls reach only functions"
	case 1:
		s += " and the 1 function it reaches by direct calls, beside functions"
	default:
		s += fmt.Sprintf(" and the %d functions it reaches by direct calls, beside functions", n)
	}
	s += fmt.Sprintf(" the signature libraries (%s) named", strings.Join(pc.libs, ", "))
	if pc.cut {
		s += fmt.Sprintf(" (the first %d: the walk stopped there)", maxProgramFuncs)
	}
	return s
}
