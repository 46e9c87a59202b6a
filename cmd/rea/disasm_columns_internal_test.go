package main

import (
	"bytes"
	"strings"
	"testing"
)

// columns pads the bytes column of instruction lines only, whatever the
// Writes' boundaries, and trims the spaces that end a line.
func TestColumnsLayout(t *testing.T) {
	in := "\nDisassembly of section .text:\n" +
		"    1000:\t48 83 ec 08\tsub rsp, 0x8\n" +
		"    1004:\tc3\tret\n" +
		"    1005:\t66 2e 0f 1f 84 00 00 00 00 00\tnop word ptr [rax+rax], ax\n" +
		"\n0000000000002050 <A::B>:\n" +
		"     640:\t1f 20 03 d5\tnop \n" +
		"    2000:\tff\t(bad)"
	want := "\nDisassembly of section .text:\n" +
		"    1000:\t48 83 ec 08          \tsub rsp, 0x8\n" +
		"    1004:\tc3                   \tret\n" +
		"    1005:\t66 2e 0f 1f 84 00 00 00 00 00\tnop word ptr [rax+rax], ax\n" +
		"\n0000000000002050 <A::B>:\n" +
		"     640:\t1f 20 03 d5          \tnop\n" +
		"    2000:\tff                   \t(bad)"
	for _, size := range []int{1, 2, 7, 64, len(in)} {
		var out bytes.Buffer
		c := newColumns(&out, 7)
		for p := in; p != ""; {
			n := min(size, len(p))
			if _, err := c.Write([]byte(p[:n])); err != nil {
				t.Fatal(err)
			}
			p = p[n:]
		}
		if err := c.Close(); err != nil {
			t.Fatal(err)
		}
		if out.String() != want {
			t.Errorf("writes of %d bytes:\n%s\nwant\n%s", size, out.String(), want)
		}
		if strings.ReplaceAll(out.String(), " \t", "\t") == in {
			t.Error("nothing padded")
		}
	}
}
