package diff

import (
	"strings"
	"testing"

	"github.com/matryer/is"
)

// cutCommentEach is cutComment as it was before its one-pass check: each
// separator looked for in what the one before left.
func cutCommentEach(s string) string {
	for _, sep := range []string{"  #", " // ", "\t#", " ; "} {
		if i := strings.Index(s, sep); i >= 0 {
			s = s[:i]
		}
	}
	return strings.TrimSpace(s)
}

// TestCutCommentOnePass: the check that skips the four searches cuts
// exactly what they cut, comments and near-misses alike.
func TestCutCommentOnePass(t *testing.T) {
	for _, s := range []string{
		"", " ", "#", " /", "x0, x1, #0x10", " x0, [x1,#8]! ", "x1, [x22,#16]  # 0x20010", "w0, #0x1 // =1",
		"rax, qword ptr [rip+0x10]  # 0x4010", "eax\t# note", "r0 ; c", "a ;b", "x //  #", "x0, x1 /x", "x0,  x1",
		"x0 /", "lr\t#", "a\tb", "x0 // y ; z  # w",
	} {
		if got, want := cutComment(s), cutCommentEach(s); got != want {
			t.Errorf("cutComment(%q) = %q, want %q", s, got, want)
		}
	}
}

// TestPageBasesOutOfAddressOrder: a function whose instructions are not in
// address order (a chunk placed before its start, listed last) still has
// its branch targets found, by a map instead of a binary search, and its
// page uses reported.
func TestPageBasesOutOfAddressOrder(t *testing.T) {
	is := is.New(t)
	ins := []insn{
		{Addr: 0x100, Mnemonic: "adrp", Operands: "x22, 0x20000", Flow: "next"},
		{Addr: 0x104, Mnemonic: "cbz", Operands: "x0, 0xf0", Flow: "branch", Target: 0xf0, HasTarget: true},
		{Addr: 0x108, Mnemonic: "add", Operands: "x22, x22, #0xf0", Flow: "next"},
		{Addr: 0x10c, Mnemonic: "ldr", Operands: "x1, [x22,#16]", Flow: "next"},
		{Addr: 0x110, Mnemonic: "ret", Flow: "return"},
		{Addr: 0xf0, Mnemonic: "ldr", Operands: "x2, [x22,#8]", Flow: "next"},
		{Addr: 0xf4, Mnemonic: "ret", Flow: "return"},
	}
	pages := pageBases(ins, 0xf0, 0x114)
	is.True(pages != nil)
	is.Equal(pages[2], pageUse{Low: true})
	is.Equal(pages[3], pageUse{Base: true})
	is.Equal(pages[5], pageUse{Base: true}) // reached by the branch only
}

// TestA64AddImmediate: only add xD, xN, #imm with no shift names N.
func TestA64AddImmediate(t *testing.T) {
	for _, c := range []struct {
		mn, ops string
		n       uint
		ok      bool
	}{
		{"add", "x0, x1, #0x10", 1, true},
		{"add", "x22, x22, #0xf0", 22, true},
		{"add", "x0, x1, #0x1, lsl #12", 0, false},
		{"add", "w0, w1, #0x4", 0, false},
		{"add", "x0, x1, x2", 0, false},
		{"add", "x0, x1", 0, false},
		{"sub", "x0, x1, #0x10", 0, false},
	} {
		if n, ok := a64AddImmediate(c.mn, c.ops); n != c.n || ok != c.ok {
			t.Errorf("a64AddImmediate(%q, %q) = %d, %v; want %d, %v", c.mn, c.ops, n, ok, c.n, c.ok)
		}
	}
}
