package main

import (
	"os/exec"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/matryer/is"

	"rea/core"
)

// needEmulation skips unless this x86-64 host can build programs with the
// cross compiler gcc (Debian package gccPkg) and trace them under qemu
// (qemu-user), and gdbserver is there, which trace_native_calls reports as
// its engine.
func needEmulation(t *testing.T, qemu, gcc, gccPkg string) {
	t.Helper()
	if runtime.GOARCH != "amd64" {
		t.Skip("the emulator lane is tested on x86-64 hosts")
	}
	for tool, pkg := range map[string]string{qemu: "qemu-user", gcc: gccPkg, "gdbserver": "gdbserver"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s is not installed (Debian package %s)", tool, pkg)
		}
	}
}

func needArm64Emulation(t *testing.T) {
	t.Helper()
	needEmulation(t, "qemu-aarch64", "aarch64-linux-gnu-gcc", "gcc-aarch64-linux-gnu")
}

// An AArch64 program on an x86-64 host, traced over MCP: the analysis
// names its PLT stub (snprintf@plt), the trace runs it under qemu-aarch64,
// and snprintf's libc prototype names the registers: the format in x2, five
// strings in x3-x7 and the rest on the stack from sp, the int not read as
// text, and the buffer in x0 read when the call returns.
func TestMCPTraceArm64UnderEmulation(t *testing.T) {
	needArm64Emulation(t)
	is := is.New(t)
	exe := buildCWith(t, "aarch64-linux-gnu-gcc", "stackfmt", `#include <stdio.h>
int main(void) {
	char buf[96];
	snprintf(buf, sizeof buf, "%s/%s/%s/%s/%s/%s/%d/%s", "one", "two", "three", "four", "five", "six", 7, "eight");
	puts(buf);
	return 0;
}
`)
	m := traceOverMCP(t, exe, "snprintf@plt")
	is.Equal(m["architecture"], "arm64")
	hits := m["hits"].([]any)
	is.Equal(len(hits), 1)
	got := textsByRegister(hits[0], false)
	is.Equal(got, map[string]any{"x2": "%s/%s/%s/%s/%s/%s/%d/%s", "x3": "one", "x4": "two", "x5": "three", "x6": "four", "x7": "five",
		"[sp+0]": "six", "[sp+16]": "eight"})
	is.Equal(textsByRegister(hits[0], true), map[string]any{"x0": "one/two/three/four/five/six/7/eight"})
	noDescendants(t)
}

// Attaching to a process QEMU runs would trace QEMU, not the program: the
// call is refused (the process's executable is not the open target) and the
// remedy is to launch the program, which rea runs under the emulator itself.
func TestMCPTraceAttachToEmulatedProcess(t *testing.T) {
	needArm64Emulation(t)
	is := is.New(t)
	exe := buildCWith(t, "aarch64-linux-gnu-gcc", "loop", `#include <unistd.h>
int main(void) { for (;;) usleep(2000); }
`, "-static")
	cmd := exec.Command("qemu-aarch64", exe)
	is.NoErr(cmd.Start())
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() }) // the test's own child, killed by it
	cs := mcpClient(t)
	if r := call(t, cs, "open_binary", map[string]any{"path": exe}); r.isError {
		t.Fatal(r.text)
	}
	r := call(t, cs, "trace_native_calls", map[string]any{"procedures": []string{"main"}, "attach_pid": cmd.Process.Pid})
	is.True(r.isError)
	is.True(strings.Contains(r.text, "artifact_changed"))
	is.True(strings.Contains(r.text, "an emulator"))
	is.True(strings.Contains(r.text, "omit attach_pid"))
}

// A 32-bit x86 program, traced over MCP under qemu-i386: its arguments are
// stack slots (cdecl), which debug information names for a function of the
// program (greet's who and n, a long long over two slots as one value) and the C
// library's prototype for snprintf, whose format's %s arguments are read
// from the slots after it and whose buffer is read when it returns.
func TestMCPTraceX86UnderEmulation(t *testing.T) {
	needEmulation(t, "qemu-i386", "i686-linux-gnu-gcc", "gcc-i686-linux-gnu")
	is := is.New(t)
	exe := buildCWith(t, "i686-linux-gnu-gcc", "greet32", `#include <stdio.h>
#include <string.h>
__attribute__((noinline)) int greet(const char *who, long long big, int n) {
	char buf[64];
	snprintf(buf, sizeof buf, "%s/%s:%d", who, "x", n);
	puts(buf);
	return (int)strlen(buf) + (int)(big >> 32);
}
int main(int argc, char **argv) { return greet(argc > 1 ? argv[1] : "world", 0x500000007LL, argc) > 100; }
`, "-g")
	m := traceOverMCP(t, exe, "greet", "snprintf@plt")
	is.Equal(m["architecture"], "x86")
	is.Equal(m["convention"], "cdecl")
	hits := m["hits"].([]any)
	is.Equal(len(hits), 2)
	greet := argumentsByParameter(hits[0])
	is.Equal(greet["who"], "world")
	is.Equal(greet["big"], "0x500000007") // one value over its two slots
	is.Equal(greet["big.1"], nil)
	is.Equal(greet["n"], "0x1")
	is.Equal(hits[0].(map[string]any)["return_value"], "0xe") // strlen("world/x:1") plus the high word, 5
	is.Equal(textsByRegister(hits[1], false), map[string]any{"[esp+12]": "%s/%s:%d", "[esp+16]": "world", "[esp+20]": "x"})
	is.Equal(textsByRegister(hits[1], true), map[string]any{"[esp+4]": "world/x:1"})
	noDescendants(t)
}

// A convention the target's architecture does not have is the caller's
// mistake, refused before anything runs; a Go program for 32-bit x86,
// whose ABI the tracer cannot pair returns in, is an unsupported target
// unless the caller asks for its stack words under cdecl.
func TestMCPTraceConventionOfTheArchitecture(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("tracing needs Linux")
	}
	is := is.New(t)
	exe := buildCWith(t, "i686-linux-gnu-gcc", "conv32", "int main(void) { return 0; }\n")
	cs := mcpClient(t)
	is.True(!call(t, cs, "open_binary", map[string]any{"path": exe}).isError)
	r := call(t, cs, "trace_native_calls", map[string]any{"procedures": []string{"main"}, "convention": "sysv-amd64"})
	is.True(r.isError)
	is.True(strings.Contains(r.text, "invalid_request"))
	is.True(strings.Contains(r.text, "cdecl"))

	g386 := goBuild(t, t.TempDir(), "386", "package main\n\nfunc main() {}\n")
	is.True(!call(t, cs, "open_binary", map[string]any{"path": g386}).isError)
	r = call(t, cs, "trace_native_calls", map[string]any{"procedures": []string{"main.main"}})
	is.True(r.isError)
	is.True(strings.Contains(r.text, "unsupported_target"))
	is.True(strings.Contains(r.text, "convention cdecl"))
}

// A Go program traced under qemu-aarch64 runs with asyncpreemptoff=1 first
// in GODEBUG, its own GODEBUG after it (the last setting wins), and the
// trace says so: QEMU's stub mishandles the SIGURG stops of Go's
// asynchronous preemption. The program sees that environment (the traced
// string) and exits by it.
func TestTraceGoUnderEmulationWithoutAsyncPreemption(t *testing.T) {
	needArm64Emulation(t)
	is := is.New(t)
	exe := goBuild(t, t.TempDir(), "arm64", `package main

import (
	"os"
	"strings"
)

//go:noinline
func mark(s string) int { return len(s) }

func main() {
	d := os.Getenv("GODEBUG")
	if mark(d) > 0 && strings.HasPrefix(d, "asyncpreemptoff=1,") && strings.HasSuffix(d, ",madvdontneed=1") {
		os.Exit(7)
	}
	os.Exit(3)
}
`)
	t.Setenv("GODEBUG", "madvdontneed=1")
	out, stderr, code := runTraceCLI(t, "--format", "json", "trace", "--function", "main.mark", "--", exe)
	t.Log(stderr)
	is.Equal(code, 0)
	ev, err := core.ParseEvidence([]byte(out))
	is.NoErr(err)
	is.True(strings.Contains(string(ev.NormalizedResult), `"text":"asyncpreemptoff=1,madvdontneed=1"`))
	is.True(strings.Contains(string(ev.NormalizedResult), `"code":7`))
	is.True(slices.ContainsFunc(ev.Limitations, func(l string) bool {
		return strings.HasPrefix(l, "Go under an emulator: the program ran with asyncpreemptoff=1")
	}))
	noDescendants(t)
}
