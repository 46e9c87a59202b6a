package gdbremote

import (
	"bufio"
	"context"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"strings"
	"testing"

	"rea/ports"
)

// registerFixture is what a live trace of cmd/rea's floatsC exchanged with
// a stub (gdbserver on x86-64, qemu-i386, qemu-aarch64 7.2), recorded with
// the client's tap: the target description's documents, and at some stops
// the g reply and the p replies, by register number in hex, that followed.
type registerFixture struct {
	Docs  map[string]string `json:"docs"`
	Stops []struct {
		Stop string            `json:"stop"`
		G    string            `json:"g"`
		P    map[string]string `json:"p"`
		Read []string          `json:"read"`
	} `json:"stops"`
}

// serveRecorded answers a client's g, p and Hg packets from one recorded
// stop, as the stub did (no-ack mode).
func serveRecorded(t *testing.T, g string, p map[string]string) *client {
	ours, theirs := net.Pipe()
	t.Cleanup(func() { ours.Close(); theirs.Close() })
	go func() {
		r := bufio.NewReader(theirs)
		for {
			f, err := readFrame(r, MaxPacket)
			if err != nil {
				return
			}
			if f.kind != '$' {
				continue
			}
			req, reply := string(f.payload), "E01"
			switch {
			case req == "g":
				reply = g
			case strings.HasPrefix(req, "Hg"):
				reply = "OK"
			case strings.HasPrefix(req, "p") && p[req[1:]] != "":
				reply = p[req[1:]]
			}
			if _, err := theirs.Write(appendPacket(nil, []byte(reply))); err != nil {
				return
			}
		}
	}()
	c := newConn(ours, nil)
	c.noAck.Store(true)
	return &client{c: c}
}

// The registers a floating-point argument or result arrives in, read from
// recorded packets: xmm registers from gdbserver's g packet (a float in the
// low lane, whatever the others hold); under qemu-i386, x87's ST(0), which
// QEMU's stub gives as the physical register the status word's TOP names
// (st7 here), not as st0; under qemu-aarch64 with SVE, v0 and v1 as the low
// 16 bytes of z0 and z1, which the target description has in their place.
func TestReadWideRegisters(t *testing.T) {
	le := func(s string) []byte { b, _ := hex.DecodeString(s); return b }
	for _, c := range []struct {
		lane     string
		emulated bool
		want     [][]ports.TraceRegister // by stop
	}{
		{"x86-64", false, [][]ports.TraceRegister{
			{{Name: "xmm0", Value: 0x4004000000000000, Bytes: le("00000000000004400000000000000000")},
				{Name: "xmm1", Value: 0x3f000000, Bytes: le("0000003f000000000000000000000000")}},
			{{Name: "xmm0", Value: 0x3eaaaaab, Bytes: le("abaaaa3e000000000000000000000000")}},
		}},
		{"x86", true, [][]ports.TraceRegister{
			{{Name: "st0", Value: 0x8000000000000000, Bytes: le("00000000000000800240")}}, // 8
			{{Name: "st0", Value: 0xaaaaaaaaaaaaaaab, Bytes: le("abaaaaaaaaaaaaaafd3f")}}, // 1/3, at 64 bits
		}},
		{"arm64", true, [][]ports.TraceRegister{
			{{Name: "v0", Value: 0x4004000000000000, Bytes: le("00000000000004400000000000000000")},
				{Name: "v1", Value: 0x3f000000, Bytes: le("0000003f000000000000000000000000")}},
			{{Name: "v0", Value: 0x3eaaaaab, Bytes: le("abaaaa3e000000000000000000000000")}},
		}},
	} {
		t.Run(c.lane, func(t *testing.T) {
			b, err := os.ReadFile("testdata/registers/" + c.lane + ".json")
			if err != nil {
				t.Fatal(err)
			}
			var fx registerFixture
			if err := json.Unmarshal(b, &fx); err != nil {
				t.Fatal(err)
			}
			td, err := parseTdesc(func(name string) ([]byte, error) {
				if d, ok := fx.Docs[name]; ok {
					return []byte(d), nil
				}
				return nil, fmt.Errorf("no document %s", name)
			})
			if err != nil {
				t.Fatal(err)
			}
			arch, _ := td.archName()
			conv, err := conventionFor(arch, "")
			if err != nil {
				t.Fatal(err)
			}
			for i, stop := range fx.Stops {
				s := &session{td: td, conv: conv, cl: serveRecorded(t, stop.G, stop.P)}
				if c.emulated {
					s.ep = &emulated{}
				}
				if got := s.described(stop.Read, true); strings.Join(got, ",") != strings.Join(stop.Read, ",") || len(s.absent) > 0 {
					t.Fatalf("%s: described %v, absent %v", stop.Stop, got, s.absent)
				}
				_, wide, err := s.readRegs(context.Background(), threadID{PID: 1, TID: 1}, stop.Read)
				if err != nil {
					t.Fatalf("%s: %v", stop.Stop, err)
				}
				for k, name := range stop.Read {
					got, want := wideRegister(name, wide[name]), c.want[i][k]
					if got.Name != want.Name || got.Value != want.Value || hex.EncodeToString(got.Bytes) != hex.EncodeToString(want.Bytes) {
						t.Errorf("%s: %s = %#x % x, want %#x % x", stop.Stop, name, got.Value, got.Bytes, want.Value, want.Bytes)
					}
				}
			}
		})
	}
}
