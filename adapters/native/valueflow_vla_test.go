package native_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"rea/ports"
)

// After a variable-length array's dynamic allocation ("sub esp, eax",
// "sub rsp, rax": the stack pointer's height from the entry is lost),
// frameSource's vla still reads its parameters through the frame pointer,
// and its call of nine takes its stack words from the pushes that wrote
// them: on i386 all nine arguments, on x86-64 the last three. Before, the
// pushes wrote words named "[esp]" at no place and the call used none.
// clang moves the stack pointer from another register instead ("mov rsp,
// r11", "mov sp, x8"), which is followed the same way.
func TestValueFlowDynamicAllocation(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(dir, "frame.c")
	if err := os.WriteFile(src, []byte(frameSource), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		cc, pkg, opt string
		target       string // clang's --target, "" for the host
		words        int
		params       []string
	}{
		{"gcc", "gcc", "-O2", "", 3, []string{"rdi", "rsi"}},
		{"i686-linux-gnu-gcc", "gcc-i686-linux-gnu", "-O2", "", 9, []string{"[esp+4]", "[esp+8]"}},
		{"i686-linux-gnu-gcc", "gcc-i686-linux-gnu", "-O0", "", 9, []string{"[esp+4]", "[esp+8]"}},
		// clang: "mov r11, rsp; sub r11, rax; mov rsp, r11" and
		// "mov x8, sp; sub x8, x8, x9; mov sp, x8"
		{"clang", "clang", "-O2", "", 3, []string{"rdi", "rsi"}},
		{"clang", "clang", "-O2", "aarch64-linux-gnu", 1, []string{"x0", "x1"}},
		// gcc AArch64: "sub sp, sp, x2" of an unknown x2
		{"aarch64-linux-gnu-gcc", "gcc-aarch64-linux-gnu", "-O2", "", 1, []string{"x0", "x1"}},
	} {
		t.Run(tc.cc+tc.target+tc.opt, func(t *testing.T) {
			needToolPkg(t, tc.cc, tc.pkg)
			exe := filepath.Join(dir, tc.cc+tc.target+tc.opt)
			args := []string{"-g", "-fno-inline", tc.opt, "-o", exe, src}
			if tc.target != "" {
				needToolPkg(t, tc.target+"-gcc", "gcc-"+tc.target) // its sysroot and libraries
				args = append([]string{"--target=" + tc.target}, args...)
			}
			if b, err := exec.Command(tc.cc, args...).CombinedOutput(); err != nil {
				if tc.target != "" {
					t.Skipf("%s --target=%s does not link here: %v\n%s", tc.cc, tc.target, err, b)
				}
				t.Fatalf("%s: %v\n%s", tc.cc, err, b)
			}
			a := openNative(t, exe)
			vf := valueFlow(t, a, "vla")
			if got := paramNames(vf); !slices.Equal(got, tc.params) {
				t.Errorf("vla's parameters %v, want %v", got, tc.params)
			}
			texts := instructionTexts(t, a, "vla")
			var dyn uint64 // the allocation
			for _, op := range vf.Operations {
				if text := texts[op.Address]; dyn == 0 && (strings.HasPrefix(text, "sub esp, e") || strings.HasPrefix(text, "sub rsp, r") ||
					strings.HasPrefix(text, "mov rsp, r") && text != "mov rsp, rbp" || strings.HasPrefix(text, "mov sp, x") && text != "mov sp, x29" ||
					strings.HasPrefix(text, "sub sp, sp, x")) {
					dyn = op.Address
				}
			}
			if dyn == 0 {
				t.Fatalf("vla has no sub of a register from the stack pointer nor a move of one to it: %v", texts)
			}
			nine := procedureNamed(t, a, "nine").Address
			var call *ports.ValueFlowOperation
			for _, e := range vf.Effects {
				if e.Kind == ports.EffectCall && e.HasTarget && e.Target == nine && e.Address > dyn {
					i := slices.IndexFunc(vf.Operations, func(op ports.ValueFlowOperation) bool { return op.Address == e.Address })
					call = &vf.Operations[i]
				}
			}
			if call == nil {
				t.Fatalf("vla calls nine after %#x nowhere", dyn)
			}
			var words []string
			for _, u := range call.Uses {
				if strings.HasPrefix(u, "[") {
					words = append(words, u)
				}
			}
			if len(words) != tc.words {
				t.Errorf("the call of nine at %#x uses %d stack words %v, want %d", call.Address, len(words), words, tc.words)
			}
			for _, w := range words {
				if !slices.ContainsFunc(vf.DefUses, func(du ports.DefUse) bool {
					return du.Use == call.Address && du.Location == w && du.Def > dyn && du.Def < call.Address
				}) {
					t.Errorf("nothing between %#x and the call at %#x writes %s", dyn, call.Address, w)
				}
			}
		})
	}
}
