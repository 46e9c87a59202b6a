package gdbremote_test

import (
	"bufio"
	"bytes"
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/matryer/is"

	"rea/adapters/gdbremote"
)

func readOne(raw string) (byte, []byte, bool, error) {
	return gdbremote.ReadPacket(bufio.NewReader(strings.NewReader(raw)))
}

func TestPacketRoundTrip(t *testing.T) {
	for _, payload := range []string{"", "OK", "qSupported:multiprocess+", "a$b#c}d*e", strings.Repeat("0", 300), "\x00\xff\x7d"} {
		t.Run("", func(t *testing.T) {
			is := is.New(t)
			raw := gdbremote.AppendPacket(nil, []byte(payload))
			kind, got, bad, err := readOne(string(raw))
			is.NoErr(err)
			is.True(!bad)
			is.Equal(kind, byte('$'))
			is.Equal(string(got), payload)
		})
	}
}

func TestPacketDecoding(t *testing.T) {
	cases := []struct {
		raw, want string
		bad       bool
		err       bool
	}{
		{raw: "$OK#9a", want: "OK"},
		{raw: "noise+", want: ""},                    // an ack after noise
		{raw: "$OK#00", bad: true},                   // checksum mismatch
		{raw: "$OK#zz", bad: true},                   // checksum not hex
		{raw: "$0* #" + sum("0* "), want: "0000"},    // run length: ' ' is 3 more
		{raw: "$}]#" + sum("}]"), want: "}"},         // escape
		{raw: "$*!#" + sum("*!"), err: true},         // nothing to repeat
		{raw: "$a}#" + sum("a}"), err: true},         // escape at end
		{raw: "$a*\x10#" + sum("a*\x10"), err: true}, // count below range
		{raw: "$abc", err: true},                     // cut
		{raw: "$ab$OK#9a", want: "OK"},               // restarted packet
		{raw: "%Stop:T05#" + sum("Stop:T05"), want: "Stop:T05"},
	}
	for _, tc := range cases {
		t.Run(tc.raw, func(t *testing.T) {
			is := is.New(t)
			_, got, bad, err := readOne(tc.raw)
			if tc.err {
				is.True(err != nil)
				return
			}
			is.NoErr(err)
			is.Equal(bad, tc.bad)
			if !tc.bad {
				is.Equal(string(got), tc.want)
			}
		})
	}
}

func TestPacketBounded(t *testing.T) {
	is := is.New(t)
	// A run-length sequence that would expand past the limit.
	body := "0" + strings.Repeat("*~", gdbremote.MaxPacket/97+10)
	_, _, _, err := readOne("$" + body + "#" + sum(body))
	is.True(errors.Is(err, gdbremote.ErrProtocol))
	// A body that never ends.
	_, _, _, err = readOne("$" + strings.Repeat("a", 2*gdbremote.MaxPacket+10) + "#00")
	is.True(errors.Is(err, gdbremote.ErrProtocol))
}

func sum(s string) string {
	var c byte
	for i := 0; i < len(s); i++ {
		c += s[i]
	}
	const hex = "0123456789abcdef"
	return string([]byte{hex[c>>4], hex[c&15]})
}

func TestParseStop(t *testing.T) {
	cases := []struct {
		in     string
		kind   byte
		signal int
		thread string
		err    bool
	}{
		{in: "T05swbreak:;06:00;thread:p25b7.25b8;core:0;", kind: 'T', signal: 5, thread: "p25b7.25b8"},
		{in: "S0b", kind: 'T', signal: 11, thread: "0"},
		{in: "W3;process:2ca2", kind: 'W', signal: 3, thread: "0"},
		{in: "W00", kind: 'W', signal: 0, thread: "0"},
		{in: "X09", kind: 'X', signal: 9, thread: "0"},
		{in: "T05thread:1a2;", kind: 'T', signal: 5, thread: "1a2"},
		{in: "T05fork:p10.10;thread:p1.1;", kind: 'T', signal: 5, thread: "p1.1"},
		{in: "T", err: true},
		{in: "Tzz", err: true},
		{in: "W", err: true},
		{in: "W1ff", err: true},
		{in: "W3;pid:1", err: true},
		{in: "T05thread:pzz.1;", err: true},
		{in: "T05junk", err: true},
		{in: "Q05", err: true},
	}
	for _, tc := range cases {
		t.Run(tc.in, func(t *testing.T) {
			is := is.New(t)
			kind, sig, thread, err := gdbremote.ParseStop([]byte(tc.in))
			if tc.err {
				is.True(errors.Is(err, gdbremote.ErrProtocol))
				return
			}
			is.NoErr(err)
			is.Equal(kind, tc.kind)
			is.Equal(sig, tc.signal)
			is.Equal(thread, tc.thread)
		})
	}
}

func TestTargetDescription(t *testing.T) {
	is := is.New(t)
	docs := map[string][]byte{
		"target.xml": []byte(`<?xml version="1.0"?><!DOCTYPE target SYSTEM "gdb-target.dtd">
<target><architecture>aarch64</architecture><xi:include href="core.xml"/><xi:include href="extra.xml"/></target>`),
		"core.xml":  []byte(`<feature name="org.gnu.gdb.aarch64.core"><reg name="x0" bitsize="64"/><reg name="x1" bitsize="64"/><reg name="cpsr" bitsize="32"/></feature>`),
		"extra.xml": []byte(`<feature name="x"><reg name="v0" bitsize="128" regnum="10"/><reg name="v1" bitsize="128"/></feature>`),
	}
	arch, regs, err := gdbremote.ParseTdesc(docs)
	is.NoErr(err)
	is.Equal(arch, "aarch64")
	is.Equal(regs["x1"], [3]int{1, 64, 8})
	is.Equal(regs["cpsr"], [3]int{2, 32, 16})
	is.Equal(regs["v0"], [3]int{10, 128, -1}) // after a gap in numbering: offset unknown
	is.Equal(regs["v1"], [3]int{11, 128, -1})

	for name, bad := range map[string]map[string][]byte{
		"loop":     {"target.xml": []byte(`<target><xi:include href="target.xml"/></target>`)},
		"bitsize":  {"target.xml": []byte(`<target><reg name="a" bitsize="7"/></target>`)},
		"missing":  {"target.xml": []byte(`<target><xi:include href="gone.xml"/></target>`)},
		"not xml":  {"target.xml": []byte(`<target><reg`)},
		"no href":  {"target.xml": []byte(`<target><xi:include/></target>`)},
		"regnum":   {"target.xml": []byte(`<target><reg name="a" bitsize="64" regnum="-1"/></target>`)},
		"too wide": {"target.xml": []byte(`<target><reg name="a" bitsize="999999"/></target>`)},
	} {
		t.Run(name, func(t *testing.T) {
			_, _, err := gdbremote.ParseTdesc(bad)
			is.New(t).True(err != nil)
		})
	}
}

// FuzzPacket feeds arbitrary server bytes to the packet reader and every
// decoded payload to the reply parsers: errors, never panics.
func FuzzPacket(f *testing.F) {
	f.Add([]byte("$OK#9a"))
	f.Add([]byte("$T05swbreak:;06:00;thread:p25b7.25b8;core:0;#00"))
	f.Add([]byte("$0* #" + sum("0* ")))
	f.Add([]byte("+-$}]#" + sum("}]")))
	if b, err := os.ReadFile("testdata/replay/calls.jsonl"); err == nil {
		for _, line := range bytes.Split(b, []byte("\n"))[:40] {
			f.Add(gdbremote.AppendPacket(nil, line))
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		r := bufio.NewReader(bytes.NewReader(data))
		for i := 0; i < 64; i++ {
			kind, payload, _, err := gdbremote.ReadPacket(r)
			if err != nil {
				return
			}
			if len(payload) > gdbremote.MaxPacket {
				t.Fatalf("payload of %d bytes", len(payload))
			}
			if kind == '$' {
				gdbremote.ParseStop(payload)
				gdbremote.ParseTdesc(map[string][]byte{"target.xml": payload})
			}
		}
	})
}
