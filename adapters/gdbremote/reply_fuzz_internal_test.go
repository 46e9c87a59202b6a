package gdbremote

import (
	"errors"
	"testing"
)

// The stub's replies are protocol input: a gdbserver or QEMU of another
// version, or a target whose library names reach qXfer documents, must not
// be able to panic the tracer. Each parser of a reply payload either
// answers or refuses with an error.

func FuzzStopReply(f *testing.F) {
	for _, s := range []string{"S05", "T05thread:p1a2b.1a2b;06:0000000000000000;07:10e0ffffff7f0000;10:5011400000000000;", "W00;process:1a2b", "X09", "T0bthread:2;core:1;", "O48656c6c6f", "T05swbreak:;thread:p-1.-1;", "N", "T"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, p []byte) {
		parseStop(p)
		parseThreadID(string(p))
		decodeRegHex(p, "g")
	})
}

func FuzzTargetDescription(f *testing.F) {
	f.Add([]byte(`<?xml version="1.0"?><!DOCTYPE target SYSTEM "gdb-target.dtd"><target><architecture>i386:x86-64</architecture><xi:include href="64bit-core.xml"/></target>`),
		[]byte(`<feature name="org.gnu.gdb.i386.core"><reg name="rax" bitsize="64" type="int64"/><reg name="rip" bitsize="64" type="code_ptr" regnum="16"/><reg name="fs_base" bitsize="64"/></feature>`))
	f.Add([]byte(`<target><architecture>aarch64</architecture><feature name="org.gnu.gdb.aarch64.core"><reg name="x0" bitsize="64"/><reg name="TPIDR_EL0" bitsize="64" regnum="99999999999"/></feature></target>`), []byte(""))
	f.Add([]byte(`<target><xi:include href="target.xml"/></target>`), []byte(`<target><xi:include href="../x"/></target>`))
	f.Fuzz(func(t *testing.T, main, included []byte) {
		td, err := parseTdesc(func(name string) ([]byte, error) {
			switch name {
			case "target.xml":
				return main, nil
			case "64bit-core.xml", "x.xml":
				return included, nil
			}
			return nil, errors.New("no document " + name)
		})
		if err != nil {
			return
		}
		for _, r := range td.regs {
			if r.bits <= 0 || r.offset < -1 || r.number < 0 { // -1: after a gap in the numbers
				t.Fatalf("register %+v", r)
			}
		}
	})
}

func FuzzLibraryList(f *testing.F) {
	f.Add([]byte(`<library-list-svr4 version="1.0" main-lm="0x7ffff7ffe2e0"><library name="/lib/x86_64-linux-gnu/libc.so.6" lm="0x7ffff7fc3690" l_addr="0x7ffff7d8a000" l_ld="0x7ffff7f9e8a0"/><library name="linux-vdso.so.1" l_addr="0x7ffff7fc1000"/></library-list-svr4>`))
	f.Add([]byte(`<library-list-svr4><library name="x" l_addr="zz"/></library-list-svr4>`))
	f.Fuzz(func(t *testing.T, b []byte) {
		parseLibraries(b)
	})
}
