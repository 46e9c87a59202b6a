package native

import "testing"

// TestNoReturnBody judges small bodies: a path to a return, a fallthrough
// past the body's end, a jump out to a procedure that returns and bytes
// that do not decode are exits; a call of a no-return procedure, a jump to
// one, a trap and a loop back into the body are not; a body with no path
// ending in a no-return call or trap (a loop) is not taken not to return.
func TestNoReturnBody(t *testing.T) {
	const die, ok = 0x9000, 0x9100
	member := func(a uint64) bool { return a == die }
	call := func(addr, to uint64) nrInsn { return nrInsn{addr: addr, size: 5, kind: nrCall, target: to} }
	jump := func(addr, to uint64) nrInsn { return nrInsn{addr: addr, size: 2, kind: nrJump, target: to} }
	branch := func(addr, to uint64) nrInsn { return nrInsn{addr: addr, size: 2, kind: nrBranch, target: to} }
	next := func(addr uint64, size uint32) nrInsn { return nrInsn{addr: addr, size: size} }
	for _, c := range []struct {
		name  string
		insns []nrInsn
		want  bool
	}{
		{"call die", []nrInsn{next(0x100, 3), call(0x103, die)}, true},
		{"call die, then padding", []nrInsn{call(0x100, die), next(0x105, 11)}, true},
		{"tail jump to die", []nrInsn{next(0x100, 3), jump(0x103, die)}, true},
		{"trap", []nrInsn{next(0x100, 3), {addr: 0x103, size: 2, kind: nrEnd}}, true},
		{"call of a returning procedure, then off the end", []nrInsn{next(0x100, 3), call(0x103, ok)}, false},
		{"off the end", []nrInsn{next(0x100, 3)}, false},
		{"off the end of a span, or die", []nrInsn{branch(0x100, 0x108), next(0x102, 3), call(0x108, die)}, false},
		{"return on one path", []nrInsn{branch(0x100, 0x107), call(0x102, die), {addr: 0x107, size: 1, kind: nrExit}}, false},
		{"tail jump to a returning procedure", []nrInsn{branch(0x100, 0x107), call(0x102, die), jump(0x107, ok)}, false},
		{"loop", []nrInsn{next(0x100, 3), jump(0x103, 0x100)}, false},
		{"loop, or die", []nrInsn{branch(0x100, 0x109), next(0x102, 5), jump(0x107, 0x100), call(0x109, die)}, true},
		{"jump into a run, then die", []nrInsn{branch(0x100, 0x104), next(0x102, 5), call(0x107, die)}, true},
		{"jump into a run, then off the end", []nrInsn{branch(0x100, 0x10a), call(0x102, die), next(0x107, 5)}, false},
		{"jump table, one case returns", []nrInsn{{addr: 0x100, size: 2, kind: nrTable, ntab: 2}, call(0x102, die), {addr: 0x107, size: 1, kind: nrExit}}, false},
	} {
		body := nrBody{insns: c.insns}
		if c.insns[0].kind == nrTable {
			body.tabs = []uint64{0x102, 0x107}
		}
		if got, _, _ := body.noReturn(0x100, member, nil, nil); got != c.want {
			t.Errorf("%s: %v, want %v", c.name, got, c.want)
		}
	}
}
