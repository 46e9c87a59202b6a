package native_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// aliasX86 and aliasArm spill a copy of the stack pointer to a frame slot,
// allocate stack of unknown size, write through a pointer, reload the copy
// into the stack pointer and store one stack word. In kept the pointer is
// an argument; in aliased (and aliasedFirst, which takes the address
// before the copy is stored) it points to the slot, so the reloaded value
// is not the copy and the word's place is not known from the entry. In
// moved and movedLea the pointer is moved by a constant from a
// neighbouring slot's address to the spill slot ("lea rax, [rbp-0x50];
// add rax, 8", a struct's next field; through a copy and lea; AArch64's
// add and sub of an immediate), so it aliases it too; in movedAway it is
// moved to a slot past the spill slot, which keeps its copy.
const aliasX86 = `__asm__(".intel_syntax noprefix\n"
".globl kept\n.type kept,@function\nkept:\n"
"push rbp\nmov rbp, rsp\nsub rsp, 0x50\nmov [rbp-0x48], rsp\nsub rsp, rdi\nmov qword ptr [rcx], rsi\n"
"mov rsp, [rbp-0x48]\nmov qword ptr [rsp+8], rdx\nleave\nret\n.size kept, .-kept\n"
".globl aliased\n.type aliased,@function\naliased:\n"
"push rbp\nmov rbp, rsp\nsub rsp, 0x50\nmov [rbp-0x48], rsp\nlea rax, [rbp-0x48]\nsub rsp, rdi\nmov qword ptr [rax], rsi\n"
"mov rsp, [rbp-0x48]\nmov qword ptr [rsp+8], rdx\nleave\nret\n.size aliased, .-aliased\n"
".globl aliasedFirst\n.type aliasedFirst,@function\naliasedFirst:\n"
"push rbp\nmov rbp, rsp\nsub rsp, 0x50\nlea rax, [rbp-0x48]\nmov [rbp-0x48], rsp\nsub rsp, rdi\nmov qword ptr [rax], rsi\n"
"mov rsp, [rbp-0x48]\nmov qword ptr [rsp+8], rdx\nleave\nret\n.size aliasedFirst, .-aliasedFirst\n"
".globl moved\n.type moved,@function\nmoved:\n"
"push rbp\nmov rbp, rsp\nsub rsp, 0x50\nmov [rbp-0x48], rsp\nlea rax, [rbp-0x50]\nadd rax, 8\nsub rsp, rdi\nmov qword ptr [rax], rsi\n"
"mov rsp, [rbp-0x48]\nmov qword ptr [rsp+8], rdx\nleave\nret\n.size moved, .-moved\n"
".globl movedLea\n.type movedLea,@function\nmovedLea:\n"
"push rbp\nmov rbp, rsp\nsub rsp, 0x50\nmov [rbp-0x48], rsp\nlea rax, [rbp-0x40]\nmov rcx, rax\nlea rdx, [rcx-8]\nsub rsp, rdi\nmov qword ptr [rdx], rsi\n"
"mov rsp, [rbp-0x48]\nmov qword ptr [rsp+8], rdx\nleave\nret\n.size movedLea, .-movedLea\n"
".globl movedAway\n.type movedAway,@function\nmovedAway:\n"
"push rbp\nmov rbp, rsp\nsub rsp, 0x50\nmov [rbp-0x48], rsp\nlea rax, [rbp-0x38]\nadd rax, 8\nsub rsp, rdi\nmov qword ptr [rax], rsi\n"
"mov rsp, [rbp-0x48]\nmov qword ptr [rsp+8], rdx\nleave\nret\n.size movedAway, .-movedAway\n"
".att_syntax\n");
`

const aliasArm = `__asm__(
".globl kept\n.type kept,%function\nkept:\n"
"stp x29, x30, [sp, #-96]!\nmov x29, sp\nmov x9, sp\nstr x9, [x29, #80]\nsub sp, sp, x0\nstr x1, [x3]\n"
"ldr x9, [x29, #80]\nmov sp, x9\nstr x2, [sp, #8]\nmov sp, x29\nldp x29, x30, [sp], #96\nret\n.size kept, .-kept\n"
".globl aliased\n.type aliased,%function\naliased:\n"
"stp x29, x30, [sp, #-96]!\nmov x29, sp\nmov x9, sp\nstr x9, [x29, #80]\nadd x10, x29, #80\nsub sp, sp, x0\nstr x1, [x10]\n"
"ldr x9, [x29, #80]\nmov sp, x9\nstr x2, [sp, #8]\nmov sp, x29\nldp x29, x30, [sp], #96\nret\n.size aliased, .-aliased\n"
".globl aliasedFirst\n.type aliasedFirst,%function\naliasedFirst:\n"
"stp x29, x30, [sp, #-96]!\nmov x29, sp\nadd x10, x29, #80\nmov x9, sp\nstr x9, [x29, #80]\nsub sp, sp, x0\nstr x1, [x10]\n"
"ldr x9, [x29, #80]\nmov sp, x9\nstr x2, [sp, #8]\nmov sp, x29\nldp x29, x30, [sp], #96\nret\n.size aliasedFirst, .-aliasedFirst\n"
".globl moved\n.type moved,%function\nmoved:\n"
"stp x29, x30, [sp, #-96]!\nmov x29, sp\nmov x9, sp\nstr x9, [x29, #80]\nadd x10, x29, #72\nadd x10, x10, #8\nsub sp, sp, x0\nstr x1, [x10]\n"
"ldr x9, [x29, #80]\nmov sp, x9\nstr x2, [sp, #8]\nmov sp, x29\nldp x29, x30, [sp], #96\nret\n.size moved, .-moved\n"
".globl movedLea\n.type movedLea,%function\nmovedLea:\n"
"stp x29, x30, [sp, #-96]!\nmov x29, sp\nmov x9, sp\nstr x9, [x29, #80]\nadd x10, x29, #88\nmov x11, x10\nsub x12, x11, #8\nsub sp, sp, x0\nstr x1, [x12]\n"
"ldr x9, [x29, #80]\nmov sp, x9\nstr x2, [sp, #8]\nmov sp, x29\nldp x29, x30, [sp], #96\nret\n.size movedLea, .-movedLea\n"
".globl movedAway\n.type movedAway,%function\nmovedAway:\n"
"stp x29, x30, [sp, #-96]!\nmov x29, sp\nmov x9, sp\nstr x9, [x29, #80]\nadd x10, x29, #56\nadd x10, x10, #8\nsub sp, sp, x0\nstr x1, [x10]\n"
"ldr x9, [x29, #80]\nmov sp, x9\nstr x2, [sp, #8]\nmov sp, x29\nldp x29, x30, [sp], #96\nret\n.size movedAway, .-movedAway\n");
`

// TestValueFlowSpillSlotWrittenThroughPointer: a write through a pointer
// that may hold a spill slot's address (its address was taken) drops the
// copy of the stack pointer the slot held, so the reload is not taken for
// the stack pointer: the word stored after it is placed from the reload
// ("[rsp@0x...+8]"), not from the entry. A write through any other
// pointer keeps the copy (kept).
func TestValueFlowSpillSlotWrittenThroughPointer(t *testing.T) {
	dir := t.TempDir()
	for _, arch := range []struct{ cc, pkg, src, sp string }{
		{"gcc", "gcc", aliasX86, "rsp"},
		{"aarch64-linux-gnu-gcc", "gcc-aarch64-linux-gnu", aliasArm, "sp"},
	} {
		t.Run(arch.cc, func(t *testing.T) {
			needToolPkg(t, arch.cc, arch.pkg)
			c := filepath.Join(dir, arch.cc+".c")
			src := arch.src + "long kept(long, long, long, long *), aliased(long, long, long, long *), aliasedFirst(long, long, long, long *);\n" +
				"long moved(long, long, long, long *), movedLea(long, long, long, long *), movedAway(long, long, long, long *);\n" +
				"int main(int argc, char **argv) { long x; return kept(argc, 1, 2, &x) + aliased(argc, 1, 2, &x) + aliasedFirst(argc, 1, 2, &x) +\n" +
				"	moved(argc, 1, 2, &x) + movedLea(argc, 1, 2, &x) + movedAway(argc, 1, 2, &x); }\n"
			if err := os.WriteFile(c, []byte(src), 0o644); err != nil {
				t.Fatal(err)
			}
			exe := filepath.Join(dir, arch.cc)
			if b, err := exec.Command(arch.cc, "-O1", "-o", exe, c).CombinedOutput(); err != nil {
				t.Fatalf("%s: %v\n%s", arch.cc, err, b)
			}
			a := openNative(t, exe)
			fromEntry := regexp.MustCompile(`^\[` + arch.sp + `[-+]\d+\]$`)
			fromReload := regexp.MustCompile(`^\[` + arch.sp + `@0x[0-9a-f]+\+8\]$`)
			for _, fn := range []string{"kept", "aliased", "aliasedFirst", "moved", "movedLea", "movedAway"} {
				vf := valueFlow(t, a, fn)
				var stored []string // the stack word stored after the reload
				for _, op := range vf.Operations {
					if strings.HasPrefix(op.Mnemonic, "mov") && arch.sp == "rsp" || op.Mnemonic == "str" {
						for _, d := range op.Defs {
							if strings.HasPrefix(d, "["+arch.sp) {
								stored = append(stored, d)
							}
						}
					}
				}
				want := fromReload
				if fn == "kept" || fn == "movedAway" {
					want = fromEntry
				}
				if len(stored) == 0 || !want.MatchString(stored[len(stored)-1]) {
					t.Errorf("%s: the stack words stored are %v, want the last placed as %s", fn, stored, want)
				}
			}
		})
	}
}
