package hopper

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/matryer/is"

	"rea/adapters/internal/ndjson"

	"rea/ports"
)

func TestParseFrame(t *testing.T) {
	good := []string{
		`{"id":1,"result":null}`,
		`{"id":1,"result":{"a":1}}`,
		`{"id":0,"error":{"code":-32000,"message":"m","type":"authorization"}}`,
		`{"id":3,"event":{"type":"progress","phase":"hopper_bridge","completed":0,"total":1,"message":"m"}}`,
		`{"id":3,"event":{"type":"diagnostic","error":{"code":-32000,"message":"m","type":"remote"}}}`,
	}
	bad := []string{
		``, `[]`, `null`, `{"id":1}`, `{"id":-1,"result":1}`, `{"id":1.5,"result":1}`, `{"id":"1","result":1}`,
		`{"id":1,"result":1,"x":2}`, `{"id":1,"other":1}`,
		`{"id":1,"error":{"code":-1,"message":"m","type":"remote"}}`,
		`{"id":1,"error":{"code":-32000,"message":"","type":"remote"}}`,
		`{"id":1,"error":{"code":-32000,"message":"m","type":"nope"}}`,
		`{"id":1,"error":{"code":-32000,"message":"m","type":"remote","x":1}}`,
		`{"id":1,"error":{"code":-32000,"message":"` + strings.Repeat("m", 513) + `","type":"remote"}}`,
		`{"id":1,"event":{"type":"other"}}`, `{"id":1,"event":[]}`,
		`{"id":1,"event":{"type":"diagnostic","error":{}}}`,
	}
	for _, g := range good {
		if _, err := parseFrame([]byte(g)); err != nil {
			t.Errorf("%s: %v", g, err)
		}
	}
	for _, b := range bad {
		if _, err := parseFrame([]byte(b)); !errors.Is(err, errProtocol) {
			t.Errorf("%s: want a protocol error, got %v", b, err)
		}
	}
}

// FuzzBridgeReader feeds arbitrary bytes to the client's line reader and
// frame parser: nothing panics, every line is within the limit, and every
// accepted frame is exactly one of event, result or error.
func FuzzBridgeReader(f *testing.F) {
	for _, s := range []string{
		"{\"id\":1,\"result\":null}\n",
		"{\"id\":1,\"event\":{\"type\":\"progress\",\"completed\":0}}\n{\"id\":1,\"result\":[1]}\n",
		"{\"id\":0,\"error\":{\"code\":-32000,\"message\":\"m\",\"type\":\"authorization\"}}\r\n",
		"{\"id\":1,\"event\":{\"type\":\"diagnostic\",\"error\":{\"code\":-32000,\"message\":\"x\",\"type\":\"remote\"}}}\n",
		"{not json\n", "\n\n", "{\"id\":1e400,\"result\":1}\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		r := bufio.NewReaderSize(bytes.NewReader(data), 16)
		for {
			line, err := ndjson.ReadLine(r, 256)
			if err != nil {
				return
			}
			if len(line) > 256 {
				t.Fatalf("line of %d bytes passed a 256-byte limit", len(line))
			}
			fr, err := parseFrame(line)
			if err != nil {
				if !errors.Is(err, errProtocol) {
					t.Fatalf("untyped error %v", err)
				}
				continue
			}
			n := 0
			if fr.Event != nil {
				n++
			}
			if fr.Result != nil {
				n++
			}
			if fr.Err != nil {
				n++
			}
			if n != 1 || fr.ID < 0 {
				t.Fatalf("frame %+v from %q", fr, line)
			}
		}
	})
}

// bridgeEnd is the far end of a wire, driven by the test.
type bridgeEnd struct {
	c net.Conn
	r *bufio.Reader
}

func newPair(t *testing.T) (*wire, *bridgeEnd) {
	a, b := net.Pipe()
	t.Cleanup(func() { a.Close(); b.Close() })
	return newWire(a, "tok"), &bridgeEnd{c: b, r: bufio.NewReader(b)}
}

func (b *bridgeEnd) request(t *testing.T) map[string]any {
	t.Helper()
	line, err := b.r.ReadBytes('\n')
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(line, &m); err != nil {
		t.Fatal(err)
	}
	return m
}

func (b *bridgeEnd) send(t *testing.T, s string) {
	t.Helper()
	if _, err := b.c.Write([]byte(s + "\n")); err != nil {
		t.Fatal(err)
	}
}

func TestWireSendsExactRequestsAndHoldsTheWireUntilHopperAnswers(t *testing.T) {
	is := is.New(t)
	w, b := newPair(t)
	ctx, cancel := context.WithCancel(t.Context())
	errc := make(chan error, 1)
	go func() { errc <- w.call(ctx, "health", nil, nil) }()
	req := b.request(t)
	is.Equal(len(req), 4)
	is.Equal(req["token"], "tok")
	is.Equal(req["method"], "health")
	is.Equal(req["params"], map[string]any{})
	is.Equal(req["id"], float64(1))
	cancel()
	is.True(errors.Is(<-errc, context.Canceled)) // the caller is settled at once

	// The next request waits until Hopper answers the abandoned one.
	var got string
	done := make(chan error, 1)
	go func() { done <- w.call(t.Context(), "list_documents", nil, &got) }()
	select {
	case err := <-done:
		t.Fatalf("a second request went on a busy wire: %v", err)
	case <-time.After(50 * time.Millisecond):
	}
	b.send(t, `{"id":1,"event":{"type":"progress","completed":0}}`)
	b.send(t, `{"id":1,"result":{"name":"x"}}`) // dropped: its caller left
	req = b.request(t)
	is.Equal(req["id"], float64(2))
	b.send(t, `{"id":2,"result":"doc"}`)
	is.NoErr(<-done)
	is.Equal(got, "doc")
}

func TestWireFailsOnALineForAnotherID(t *testing.T) {
	is := is.New(t)
	w, b := newPair(t)
	errc := make(chan error, 1)
	go func() { errc <- w.call(t.Context(), "health", nil, nil) }()
	b.request(t)
	b.send(t, `{"id":9,"result":1}`)
	err := <-errc
	is.True(errors.Is(err, errProtocol))
	is.True(errors.Is(w.call(t.Context(), "health", nil, nil), errProtocol)) // the wire stays failed
}

func TestWireQueueLimit(t *testing.T) {
	is := is.New(t)
	w, b := newPair(t)
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	for range maxQueue {
		go w.call(ctx, "health", nil, nil)
	}
	b.request(t)
	deadline := time.Now().Add(5 * time.Second)
	for len(w.admit) < maxQueue && time.Now().Before(deadline) {
		time.Sleep(time.Millisecond)
	}
	err := w.call(t.Context(), "health", nil, nil)
	is.True(err != nil && strings.Contains(err.Error(), "64-request limit"))
}

func TestBlocks(t *testing.T) {
	is := is.New(t)
	mk := func(addr uint64, n int, flow ports.Flow, target uint64) ports.Instruction {
		return ports.Instruction{Address: addr, Bytes: make([]byte, n), Mnemonic: "x", Flow: flow, Target: target, HasTarget: target != 0}
	}
	// 0x10: je 0x16; 0x12: jmp 0x10; 0x14: call 0x99; 0x16: jmp 0x500 (tail call); 0x18: ret
	ins := []ports.Instruction{mk(0x10, 2, ports.FlowBranch, 0x16), mk(0x12, 2, ports.FlowJump, 0x10), mk(0x14, 2, ports.FlowCall, 0x99),
		mk(0x16, 2, ports.FlowJump, 0x500), mk(0x18, 1, ports.FlowReturn, 0)}
	got := blocks(ins, ports.FunctionRange{Start: 0x10, End: 0x19})
	is.Equal(got, []ports.BasicBlock{
		{Start: 0x10, End: 0x12, Instructions: 1, Successors: []ports.Edge{{Kind: ports.EdgeBranch, Target: 0x16}, {Kind: ports.EdgeFallthrough, Target: 0x12}}},
		{Start: 0x12, End: 0x14, Instructions: 1, Successors: []ports.Edge{{Kind: ports.EdgeJump, Target: 0x10}}},
		{Start: 0x14, End: 0x16, Instructions: 1, Successors: []ports.Edge{{Kind: ports.EdgeFallthrough, Target: 0x16}}},
		{Start: 0x16, End: 0x18, Instructions: 1, Successors: []ports.Edge{{Kind: ports.EdgeTailCall, Target: 0x500}}},
		{Start: 0x18, End: 0x19, Instructions: 1},
	})
}

func TestMacAppOpening(t *testing.T) {
	const launcher = "/Applications/Hopper Disassembler.app/Contents/MacOS/hopper"
	app := macApp(launcher)
	if app != "/Applications/Hopper Disassembler.app" {
		t.Fatalf("macApp = %q", app)
	}
	if macApp("/opt/hopper/bin/Hopper") != "" {
		t.Fatal("a launcher outside a bundle has no app")
	}
	if got := strings.Join(openCommand(app), "|"); got != "/usr/bin/open|--hide|--background|-a|/Applications/Hopper Disassembler.app" {
		t.Fatalf("openCommand = %s", got)
	}
	table := []byte("/sbin/launchd\n  /Applications/Hopper Disassembler.app/Contents/MacOS/hopper -psn_0_1\n")
	if !appRunning(table, app) {
		t.Fatal("a running bundle program is not seen")
	}
	if appRunning([]byte("/sbin/launchd\n/usr/bin/vim /Applications/Hopper Disassembler.app/Contents/MacOS/notes\n"), app) {
		t.Fatal("a mention of the bundle in another command counts as running")
	}
}
