package main

import (
	"os/exec"
	"runtime"
	"strings"
	"testing"

	"github.com/matryer/is"
)

// needArm64Emulation skips unless this x86-64 host can build AArch64
// programs and trace them under qemu-user (and gdbserver is there, which
// trace_native_calls reports as its engine).
func needArm64Emulation(t *testing.T) {
	t.Helper()
	if runtime.GOARCH != "amd64" {
		t.Skip("the emulator lane is tested on x86-64 hosts")
	}
	for tool, pkg := range map[string]string{"qemu-aarch64": "qemu-user", "aarch64-linux-gnu-gcc": "gcc-aarch64-linux-gnu", "gdbserver": "gdbserver"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s is not installed (Debian package %s)", tool, pkg)
		}
	}
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
	got := map[string]any{}
	for _, a := range hits[0].(map[string]any)["arguments"].([]any) {
		am := a.(map[string]any)
		if s, ok := am["string"].(map[string]any); ok {
			got[am["register"].(string)] = s["text"]
		}
	}
	is.Equal(got, map[string]any{"x2": "%s/%s/%s/%s/%s/%s/%d/%s", "x3": "one", "x4": "two", "x5": "three", "x6": "four", "x7": "five",
		"[sp+0]": "six", "[sp+16]": "eight"})
	for _, a := range hits[0].(map[string]any)["arguments"].([]any) {
		if am := a.(map[string]any); am["register"] == "x0" {
			is.Equal(am["string_at_return"].(map[string]any)["text"], "one/two/three/four/five/six/7/eight")
		}
	}
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
