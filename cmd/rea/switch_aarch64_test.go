package main

import (
	"debug/elf"
	"fmt"
	"os/exec"
	"strings"
	"testing"

	"github.com/matryer/is"
)

// armSwitchProgram is a switch gcc compiles to a jump table on AArch64,
// each case calling its own function.
func armSwitchProgram() string {
	var b strings.Builder
	b.WriteString("#define N __attribute__((noinline))\nvolatile int sink;\n")
	for k := range 12 {
		fmt.Fprintf(&b, "N void f_%d(void) { sink = %d; }\n", k, k)
	}
	b.WriteString("N int pick(int x) {\n\tswitch (x) {\n")
	for k := range 12 {
		fmt.Fprintf(&b, "\tcase %d: f_%d(); return %d;\n", k, k, k%5+1)
	}
	b.WriteString("\t}\n\treturn 0;\n}\nint main(int argc, char **argv) { return pick(argc); }\n")
	return b.String()
}

// TestMCPAArch64SwitchCallees: an agent asking procedure_callees of a
// switch in a stripped AArch64 program without unwind tables (no
// function starts but calls and the entry point) gets every case's
// callee, and no jump is left unresolved: the cases are reached through
// the recovered jump table, not taken for functions of their own.
func TestMCPAArch64SwitchCallees(t *testing.T) {
	is := is.New(t)
	if _, err := exec.LookPath("aarch64-linux-gnu-gcc"); err != nil {
		t.Skip("aarch64-linux-gnu-gcc not found: apt install gcc-aarch64-linux-gnu")
	}
	flags := []string{"-O2", "-g0", "-fno-asynchronous-unwind-tables", "-fno-unwind-tables"}
	full := buildCWith(t, "aarch64-linux-gnu-gcc", "switch", armSwitchProgram(), flags...)
	stripped := buildCWith(t, "aarch64-linux-gnu-gcc", "switch", armSwitchProgram(), append(flags, "-s")...)

	f, err := elf.Open(full)
	is.NoErr(err)
	syms, err := f.Symbols()
	f.Close()
	is.NoErr(err)
	addr := map[string]string{}
	for _, s := range syms {
		addr[s.Name] = fmt.Sprintf("0x%x", s.Value)
	}

	cs := mcpClient(t)
	is.True(!call(t, cs, "open_binary", map[string]any{"path": stripped}).isError)
	_, m := evidence(t, call(t, cs, "procedure_callees", map[string]any{"procedure": addr["pick"]}))
	called := map[string]bool{}
	for _, it := range m["items"].([]any) {
		called[it.(map[string]any)["address"].(string)] = true
	}
	for k := range 12 {
		if a := addr[fmt.Sprintf("f_%d", k)]; !called[a] {
			t.Errorf("procedure_callees of pick (%s) misses f_%d at %s: %v", addr["pick"], k, a, m["items"])
		}
	}
	is.Equal(int(m["unresolved_total"].(float64)), 0) // the br has its table
}
