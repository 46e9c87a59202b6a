package gdbremote

import (
	"bufio"
	"context"
	"fmt"
	"net"
	"strings"
	"sync"
	"testing"

	"rea/ports"
)

// Under an emulator running a 64-bit guest the emulator's own mappings
// share the map with the guest's: a value in one is placed only when the
// stub reads its page (QEMU refuses memory the guest has not mapped), and
// each page is asked about once per map read.
func TestGuestPageProbe(t *testing.T) {
	ours, theirs := net.Pipe()
	defer ours.Close()
	defer theirs.Close()
	var mu sync.Mutex
	var asked []string
	go func() { // a stub whose guest has the page at 0x5500021000 only
		r := bufio.NewReader(theirs)
		for {
			f, err := readFrame(r, MaxPacket)
			if err != nil {
				return
			}
			if f.kind != '$' {
				continue
			}
			req := string(f.payload)
			reply := "E14"
			switch {
			case req == "qfThreadInfo":
				reply = "l" // no other thread
			case strings.HasPrefix(req, "m5500021000,"):
				reply = "00"
			}
			if req[0] == 'm' {
				mu.Lock()
				asked = append(asked, req)
				mu.Unlock()
			}
			if _, err := theirs.Write(appendPacket(nil, []byte(reply))); err != nil {
				return
			}
		}
	}()
	c := newConn(ours, nil)
	c.noAck.Store(true)
	defer c.close()
	maps := "5500021000-550005a000 rw-p 00000000 00:00 0\n" +
		"55c9c2358000-55c9c24ab000 rw-p 00000000 00:00 0 [heap]\n" +
		"7f9156e6a000-7f9156e75000 r--p 00000000 fe:00 326450 /usr/lib/x86_64-linux-gnu/libgmp.so.10.4.1\n"
	s := &session{cl: &client{c: c}, emulated: true, conv: convention{word: 8}, res: &ports.TraceResult{},
		mapsRead: true, maps: parseMaps([]byte(maps)), procMaps: func(int) ([]byte, error) { return []byte(maps), nil }}
	ctx := context.Background()
	for _, c := range []struct {
		v    uint64
		want string
	}{
		{0x5500021010, `mapping "" 0x10`},
		{0x5500021020, `mapping "" 0x20`}, // the same page: not asked again
		{0x55c9c2358010, ""},              // the emulator's heap
		{0x7f9156e6a010, ""},              // the emulator's library
	} {
		a := ports.TraceRegister{Value: c.v}
		if err := s.placeElsewhere(ctx, &a, threadID{TID: 1}, 0x5502821450); err != nil {
			t.Fatal(err)
		}
		got := ""
		if a.Mapping != nil {
			got = fmt.Sprintf("mapping %q %#x", a.Mapping.Path, a.Mapping.Offset)
		}
		if got != c.want || a.Heap || a.Stack != nil {
			t.Errorf("%#x: %q heap %v stack %v, want %q", c.v, got, a.Heap, a.Stack, c.want)
		}
	}
	mu.Lock()
	defer mu.Unlock()
	if want := []string{"m5500021000,1", "m55c9c2358000,1", "m7f9156e6a000,1"}; strings.Join(asked, " ") != strings.Join(want, " ") {
		t.Errorf("asked %q, want %q", asked, want)
	}
}
