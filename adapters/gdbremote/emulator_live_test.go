package gdbremote_test

import (
	"context"
	"debug/elf"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/matryer/is"

	"rea/adapters/gdbremote"
	"rea/ports"
)

// crossLanes are the emulated architectures the tests build for: the cross
// compiler and QEMU's emulator, with their Debian packages.
var crossLanes = map[string]struct{ gcc, gccPkg, qemu, name string }{
	"arm64": {"aarch64-linux-gnu-gcc", "gcc-aarch64-linux-gnu", "qemu-aarch64", "AArch64"},
	"x86":   {"i686-linux-gnu-gcc", "gcc-i686-linux-gnu", "qemu-i386", "32-bit x86"},
}

// needEmulation skips a test unless this x86-64 host can build programs for
// arch and run them under QEMU's user-mode emulator, naming the Debian
// packages that are missing.
func needEmulation(t *testing.T, arch string) {
	t.Helper()
	if runtime.GOARCH != "amd64" {
		t.Skip("the emulator lane is tested on x86-64 hosts")
	}
	lane := crossLanes[arch]
	var missing []string
	for tool, pkg := range map[string]string{lane.qemu: "qemu-user", lane.gcc: lane.gccPkg} {
		if _, err := exec.LookPath(tool); err != nil {
			missing = append(missing, tool+" (Debian package "+pkg+")")
		}
	}
	if len(missing) > 0 {
		t.Skip(lane.name + " tracing under emulation needs " + strings.Join(missing, " and "))
	}
}

// buildFor compiles testdata/src/<src> for arch.
func buildFor(t *testing.T, arch, src, out string, flags ...string) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), out)
	args := append([]string{"-O1", "-o", bin, filepath.Join("testdata", "src", src)}, flags...)
	if b, err := exec.Command(crossLanes[arch].gcc, args...).CombinedOutput(); err != nil {
		t.Fatalf("%s %v: %v\n%s", crossLanes[arch].gcc, args, err, b)
	}
	return bin
}

func traceEmulated(t *testing.T, bin string, args []string, bps []ports.TraceBreakpoint) (*ports.TraceResult, error) {
	t.Helper()
	id := runID(t)
	t.Cleanup(func() { noneLeft(t, id) })
	tr := gdbremote.New(nil)
	debugTap(t, tr)
	// With Debian's libc6-i386 installed (clang pulls it in), the host's
	// loader cache sends an emulated i386 program to /lib32's libc rather
	// than the sysroot's, and there QEMU 7.2 hangs a threaded program
	// (without rea as well): the tests pin the sysroot's libraries.
	var env []string
	if f, err := elf.Open(bin); err == nil {
		if f.Machine == elf.EM_386 {
			env = append(os.Environ(), "LD_LIBRARY_PATH=/usr/i686-linux-gnu/lib")
		}
		f.Close()
	}
	return tr.TraceCalls(context.Background(), ports.TraceRequest{
		Launch:      &ports.TraceLaunch{Path: bin, Args: args, Env: env},
		Breakpoints: bps,
		RunID:       id,
		MaxDuration: 30 * time.Second,
	})
}

// A program for another CPU runs under QEMU's user-mode emulator, whose GDB
// stub the tracer drives as it drives gdbserver: arguments in x0-x2 under
// AAPCS64 on AArch64; on 32-bit x86 (which this kernel, like many, cannot
// run at all) the cdecl stack slots above the return address, read from
// memory and named by where they are, with 4-byte words throughout
// (registers, the return address at [esp], the auxiliary vector, the link
// map). Return values, recursion paired by stack pointer, the exit code, a
// PIE's load bias from the emulated auxiliary vector, and a libc function
// found through the loader's link map in the emulated memory (QEMU's stub
// lists no libraries; atoi is inlined as a call of strtol at -O1).
func TestEmulatedTrace(t *testing.T) {
	for _, lane := range []struct {
		arch, conv, sysroot string
		args                []string // the argument names of a hit
	}{
		{"arm64", string(ports.ConventionAAPCS64), "/usr/aarch64-linux-gnu/", []string{"x0", "x1", "x2", "x3", "x4", "x5", "x6", "x7"}},
		{"x86", string(ports.ConventionCdecl), "/usr/i686-linux-gnu/", []string{"[esp+4]", "[esp+8]", "[esp+12]", "[esp+16]", "[esp+20]", "[esp+24]"}},
	} {
		for _, build := range []string{"static", "pie"} {
			t.Run(lane.arch+"/"+build, func(t *testing.T) {
				needEmulation(t, lane.arch)
				is := is.New(t)
				flags := []string{"-static"}
				if build == "pie" {
					flags = []string{"-pie", "-fPIE"}
				}
				bin := buildFor(t, lane.arch, "calls.c", "calls", flags...)
				bps := []ports.TraceBreakpoint{{Address: symbol(t, bin, "target"), Name: "target"}, {Address: symbol(t, bin, "fact"), Name: "fact"}}
				if build == "pie" {
					bps = append(bps, ports.TraceBreakpoint{Symbol: "strtol", Name: "strtol", Strings: lane.args[:1]})
				}
				res, err := traceEmulated(t, bin, []string{"3"}, bps)
				is.NoErr(err)
				is.Equal(res.Architecture, lane.arch)
				is.Equal(string(res.Convention), lane.conv)
				is.Equal(res.Coverage.StopReason, ports.TraceStopExited)
				is.True(res.Exit != nil && res.Exit.Code != nil)
				is.Equal(*res.Exit.Code, 3)
				is.Equal(firstArgs(res.Hits, "target"), []uint64{1, 2, 3, 4, 5})
				is.Equal(firstArgs(res.Hits, "fact"), []uint64{5, 4, 3, 2, 1})
				var facts []uint64 // fact's returns, innermost first
				for _, h := range res.Hits {
					is.True(h.Returned)
					var names []string
					for _, a := range h.Arguments {
						names = append(names, a.Name)
					}
					is.Equal(names, lane.args)
					switch h.Name {
					case "target":
						a := h.Arguments
						is.Equal(a[1].Value, a[0].Value+1)
						is.Equal(h.ReturnValue, a[0].Value*100+a[1].Value*10+a[2].Value)
						is.Equal(h.CallerModule, bin) // the return address is in main
					case "fact":
						facts = append(facts, h.ReturnValue)
					}
					if lane.arch == "x86" {
						is.True(h.StackPointer < 1<<32 && h.ReturnAddress < 1<<32)
					}
				}
				is.Equal(facts, []uint64{120, 24, 6, 2, 1})
				is.Equal(res.Coverage.ReturnsMissing, 0)
				is.Equal(res.Lineage.Status, ports.LineageVerified)
				if build == "static" {
					is.Equal(res.Modules[0].LoadBias, uint64(0))
					return
				}
				is.True(res.Modules[0].LoadBias != 0)
				var strtol []ports.TraceHit
				for _, h := range res.Hits {
					if h.Name == "strtol" {
						strtol = append(strtol, h)
					}
				}
				is.Equal(len(strtol), 1)
				is.Equal(strtol[0].Strings, []ports.TraceString{{Register: lane.args[0], Text: []byte("3")}})
				is.Equal(strtol[0].Arguments[2].Value, uint64(10)) // the base
				is.Equal(strtol[0].ReturnValue, uint64(3))
				is.Equal(len(res.Modules), 3) // the program, libc and the loader
				is.True(strings.HasSuffix(res.Modules[1].Name, "/libc.so.6"))
				is.True(strings.HasPrefix(res.Modules[1].Path, lane.sysroot)) // the sysroot's file
			})
		}
	}
}

// Text arguments under emulation: a C string in x0, and a printf-style
// format whose ninth and tenth conversions (past x0-x7) are read from the
// stack at sp, where AAPCS64 puts them.
func TestEmulatedTraceArm64Strings(t *testing.T) {
	needEmulation(t, "arm64")
	is := is.New(t)
	bin := buildFor(t, "arm64", "texts.c", "texts", "-static")
	res, err := traceEmulated(t, bin, nil, []ports.TraceBreakpoint{{Address: symbol(t, bin, "show"), Name: "show", Strings: []string{"x0"}}})
	is.NoErr(err)
	is.Equal(len(res.Hits), 5)
	is.Equal(res.Hits[0].Strings, []ports.TraceString{{Register: "x0", Text: []byte("world")}})
	is.Equal(res.Hits[1].Strings, []ports.TraceString{{Register: "x0", Unreadable: true}})

	bin = buildFor(t, "arm64", "formats.c", "formats", "-static")
	res, err = traceEmulated(t, bin, nil, []ports.TraceBreakpoint{{Address: symbol(t, bin, "say"), Name: "say", Strings: []string{"x0"}, Format: "x0"}})
	is.NoErr(err)
	is.Equal(len(res.Hits), 1)
	var got []string
	for _, s := range res.Hits[0].Strings {
		got = append(got, s.Register+"="+string(s.Text))
	}
	is.Equal(got, []string{"x0=%s-%s-%s-%s-%s-%s-%s-%s-%d-%s\n", "x1=one", "x2=two", "x3=three", "x4=four", "x5=five", "x6=six", "x7=seven", "[sp+0]=eight", "[sp+16]=ten"})
	is.Equal(variadic(res.Hits[0]), "%s@x1 %s@x2 %s@x3 %s@x4 %s@x5 %s@x6 %s@x7 %s@[sp+0] %d@[sp+8] %s@[sp+16]")
}

// Without the emulator a foreign program's trace fails before anything
// starts, naming the package to install.
func TestEmulatorMissing(t *testing.T) {
	if runtime.GOARCH == "arm64" {
		t.Skip("the host is AArch64")
	}
	needTool(t, "aarch64-linux-gnu-gcc")
	is := is.New(t)
	bin := buildFor(t, "arm64", "calls.c", "calls", "-static")
	tr := gdbremote.New(&gdbremote.Options{Emulators: map[string]string{"arm64": "rea-no-such-emulator"}})
	_, err := tr.TraceCalls(context.Background(), ports.TraceRequest{
		Launch:      &ports.TraceLaunch{Path: bin},
		Breakpoints: []ports.TraceBreakpoint{{Address: symbol(t, bin, "target"), Name: "target"}},
		RunID:       runID(t),
	})
	is.True(errors.Is(err, ports.ErrEmulatorMissing))
	is.True(errors.Is(err, ports.ErrDebuggerMissing))
	is.True(strings.Contains(err.Error(), "qemu-user"))
	// With neither gdbserver nor an emulator nothing can be traced; with an
	// emulator alone, a foreign program still can.
	is.True(errors.Is(gdbremote.New(&gdbremote.Options{Server: "rea-no-such-server", Emulators: map[string]string{"arm64": "rea-no-such-emulator", "x86": "rea-no-such-emulator"}}).Available(), ports.ErrDebuggerMissing))
	if _, err := exec.LookPath("qemu-aarch64"); err == nil {
		is.NoErr(gdbremote.New(&gdbremote.Options{Server: "rea-no-such-server"}).Available())
	}
}

// Texts on a 32-bit x86 stack: a C string, a printf-style format whose
// conversions past the six reported slots are read from further up the
// stack, and a slot the breakpoint names beyond them, which the hit reports
// as an extra argument.
func TestEmulatedTraceX86Strings(t *testing.T) {
	needEmulation(t, "x86")
	is := is.New(t)
	bin := buildFor(t, "x86", "texts.c", "texts", "-static")
	res, err := traceEmulated(t, bin, nil, []ports.TraceBreakpoint{{Address: symbol(t, bin, "show"), Name: "show", Strings: []string{"[esp+4]"}}})
	is.NoErr(err)
	is.Equal(len(res.Hits), 5)
	is.Equal(res.Hits[0].Strings, []ports.TraceString{{Register: "[esp+4]", Text: []byte("world")}})
	is.Equal(res.Hits[1].Strings, []ports.TraceString{{Register: "[esp+4]", Unreadable: true}})
	is.Equal(string(res.Hits[4].Strings[0].Text), "end") // up to the unmapped page
	is.True(res.Hits[4].Strings[0].Truncated)

	bin = buildFor(t, "x86", "formats.c", "formats", "-static")
	res, err = traceEmulated(t, bin, nil, []ports.TraceBreakpoint{{Address: symbol(t, bin, "say"), Name: "say", Strings: []string{"[esp+4]", "[esp+36]"}, Format: "[esp+4]"}})
	is.NoErr(err)
	is.Equal(len(res.Hits), 1)
	var got []string
	for _, s := range res.Hits[0].Strings {
		got = append(got, s.Register+"="+string(s.Text))
	}
	is.Equal(got, []string{"[esp+4]=%s-%s-%s-%s-%s-%s-%s-%s-%d-%s\n", "[esp+36]=eight",
		"[esp+8]=one", "[esp+12]=two", "[esp+16]=three", "[esp+20]=four", "[esp+24]=five",
		"[esp+28]=six", "[esp+32]=seven", "[esp+36]=eight", "[esp+44]=ten"})
	var names []string
	for _, a := range res.Hits[0].Arguments {
		names = append(names, a.Name)
	}
	// The slots past the six the hit reports, once each: the one the
	// breakpoint names, then the format's others, its %d's too.
	is.Equal(names, []string{"[esp+4]", "[esp+8]", "[esp+12]", "[esp+16]", "[esp+20]", "[esp+24]", "[esp+36]", "[esp+28]", "[esp+32]", "[esp+40]", "[esp+44]"})
	is.Equal(variadic(res.Hits[0]), "%s@[esp+8] %s@[esp+12] %s@[esp+16] %s@[esp+20] %s@[esp+24] %s@[esp+28] %s@[esp+32] %s@[esp+36] %d@[esp+40] %s@[esp+44]")
}

// variadic is a hit's format arguments as conversion@location.
func variadic(h ports.TraceHit) string {
	var out []string
	for _, p := range h.Variadic {
		out = append(out, p.Name+"@"+p.Location)
	}
	return strings.Join(out, " ")
}

// The hit limit ends a trace under the emulator as it does under gdbserver:
// the first call past max_hits stops it, and the emulator (the program rea
// launched) is killed, nothing of the run left.
func TestEmulatedHitLimitEndsTheProgram(t *testing.T) {
	needEmulation(t, "arm64")
	is := is.New(t)
	bin := buildFor(t, "arm64", "loop.c", "loop")
	id := runID(t)
	defer noneLeft(t, id)
	res, err := gdbremote.New(nil).TraceCalls(context.Background(), ports.TraceRequest{
		Launch:      &ports.TraceLaunch{Path: bin},
		Breakpoints: []ports.TraceBreakpoint{{Address: symbol(t, bin, "target"), Name: "target"}},
		MaxHits:     4,
		MaxDuration: 2 * time.Minute, // the loop never ends: only the hit limit stops it
		RunID:       id,
	})
	is.NoErr(err)
	is.Equal(res.Architecture, "arm64")
	is.Equal(res.Coverage.StopReason, ports.TraceStopHitLimit)
	is.True(res.Exit == nil)
	is.Equal(firstArgs(res.Hits, "target"), []uint64{0, 1, 2, 3})
	is.Equal(res.Coverage.HitsDropped, 1)
}
