package gdbremote

import (
	"context"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// maxXfer bounds one qXfer object (a target description document, auxv, the
// library list).
const maxXfer = 4 << 20

// client is the protocol layer above packets: the requests a tracer needs.
type client struct {
	c        *conn
	features map[string]string // qSupported reply: name -> value ("+", "-", "=value")
	maxRead  int               // the most bytes one 'm' reply carries (readLimit)
	vCont    bool
	selected string // thread selected with Hg
	// owed counts replies the server still owes (a request abandoned when
	// its context ended); they are read and dropped before the next request.
	owed    int
	running bool // a resume was sent and its stop reply not yet read
	// strayStops counts the stop replies for passed signals that came
	// where a command's reply was owed, and were dropped (reply).
	strayStops int
	// mended counts the stop replies for passed signals that came with
	// their T overwritten by a NUL, and were read as T (mendStop).
	mended int
}

// errorReply is an "Exx" reply.
type errorReply struct {
	req  string
	code string
}

func (e *errorReply) Error() string { return fmt.Sprintf("%s: server error %s", e.req, e.code) }

func isErrorReply(p []byte) bool {
	return len(p) >= 1 && p[0] == 'E' && (len(p) == 3 || len(p) > 3 && p[3] == '.')
}

func (cl *client) request(ctx context.Context, req string) ([]byte, error) {
	if err := cl.sendExpecting(ctx, req); err != nil {
		return nil, err
	}
	p, err := cl.reply(ctx)
	if err != nil {
		return nil, err
	}
	if isErrorReply(p) {
		return nil, &errorReply{req: short(req), code: string(p)}
	}
	return p, nil
}

// requestOK sends a request whose only good reply is OK.
func (cl *client) requestOK(ctx context.Context, req string) error {
	p, err := cl.request(ctx, req)
	if err != nil {
		return err
	}
	if string(p) != "OK" {
		if len(p) == 0 {
			return fmt.Errorf("%s: %w", short(req), errNotSupported)
		}
		return protoErr("%s: unexpected reply %q", short(req), short(string(p)))
	}
	return nil
}

// errNotSupported is a protocol error: a value of a type rather than
// fmt.Errorf's, which is init code every rea process runs.
var errNotSupported error = notSupportedError{}

type notSupportedError struct{}

func (notSupportedError) Error() string {
	return ErrProtocol.Error() + ": request not supported by the server"
}
func (notSupportedError) Unwrap() error { return ErrProtocol }

func short(s string) string {
	if len(s) > 64 {
		return s[:64] + "..."
	}
	return s
}

// sendExpecting sends a packet that the server answers, after reading any
// replies still owed.
func (cl *client) sendExpecting(ctx context.Context, req string) error {
	for cl.owed > 0 {
		if _, err := cl.reply(ctx); err != nil {
			return err
		}
	}
	if err := cl.c.send(ctx, req); err != nil {
		return err
	}
	cl.owed++
	return nil
}

// reply reads the next reply, skipping console output.
func (cl *client) reply(ctx context.Context) ([]byte, error) {
	for {
		p, err := cl.c.recv(ctx)
		if err != nil {
			return nil, err
		}
		if len(p) > 1 && p[0] == 'O' && string(p) != "OK" && cl.running {
			continue
		}
		if mendStop(p) {
			cl.mended++
		}
		if !cl.running && passedStop(p) {
			// A stop for a signal QPassSignals asked the server to pass
			// without stopping (Go's SIGURG), sent while a command's reply
			// is owed: QEMU 7.2's stub does, under a threaded program. It
			// is no reply; taken for one, every later reply is off by one.
			cl.strayStops++
			continue
		}
		cl.owed--
		cl.running = false
		return p, nil
	}
}

// passedStop reports whether p is a stop reply (S or T) for one of the
// signals passSignals passes.
func passedStop(p []byte) bool {
	if len(p) < 3 || p[0] != 'S' && p[0] != 'T' {
		return false
	}
	sig := strings.ToLower(string(p[1:3]))
	return strings.Contains(passSignals[len("QPassSignals:"):]+";", sig+";")
}

// mendStop restores the T of a stop reply for a passed signal whose first
// byte came as a NUL: "\x0010thread:p01.6298;". QEMU 7.2's user-mode stub
// sends that now and then under a threaded program (Go's SIGURG, about one
// traced Go run in 200 under qemu-aarch64), with a checksum over the NUL, so
// the packet arrives intact as the stub wrote it. Only T has a thread field
// after two hex digits, so nothing else is read as one; any other packet
// starting with a NUL stays an error.
func mendStop(p []byte) bool {
	if len(p) < 10 || p[0] != 0 || !strings.HasPrefix(string(p[3:]), "thread:") {
		return false
	}
	p[0] = 'T'
	if passedStop(p) {
		return true
	}
	p[0] = 0
	return false
}

// handshake negotiates features and leaves ack mode when the server allows.
func (cl *client) handshake(ctx context.Context) error {
	p, err := cl.request(ctx, "qSupported:multiprocess+;swbreak+;fork-events+;xmlRegisters=i386")
	if err != nil {
		return err
	}
	cl.features = map[string]string{}
	for _, f := range strings.Split(string(p), ";") {
		switch {
		case f == "":
		case strings.HasSuffix(f, "+"), strings.HasSuffix(f, "-"):
			cl.features[f[:len(f)-1]] = f[len(f)-1:]
		default:
			if k, v, ok := strings.Cut(f, "="); ok {
				cl.features[k] = v
			}
		}
	}
	cl.maxRead = readLimit(cl.features["PacketSize"])
	if cl.supports("QStartNoAckMode") {
		if err := cl.requestOK(ctx, "QStartNoAckMode"); err != nil {
			return err
		}
		cl.c.noAck.Store(true)
	}
	if p, err := cl.request(ctx, "vCont?"); err == nil {
		acts := strings.Split(string(p), ";")
		has := map[string]bool{}
		for _, a := range acts[1:] {
			has[a] = true
		}
		cl.vCont = strings.HasPrefix(string(p), "vCont") && has["c"] && has["C"]
	}
	return nil
}

func (cl *client) supports(name string) bool { return cl.features[name] == "+" }

// xfer reads a whole qXfer object in chunks.
func (cl *client) xfer(ctx context.Context, object, annex string) ([]byte, error) {
	if !cl.supports("qXfer:" + object + ":read") {
		return nil, fmt.Errorf("qXfer:%s: %w", object, errNotSupported)
	}
	var out []byte
	for {
		req := fmt.Sprintf("qXfer:%s:read:%s:%x,%x", object, annex, len(out), 0xfff)
		p, err := cl.request(ctx, req)
		if err != nil {
			return nil, err
		}
		if len(p) == 0 || p[0] != 'm' && p[0] != 'l' {
			return nil, protoErr("%s: unexpected reply %q", req, short(string(p)))
		}
		if len(out)+len(p)-1 > maxXfer {
			return nil, protoErr("qXfer:%s:%s larger than %d bytes", object, annex, maxXfer)
		}
		out = append(out, p[1:]...)
		if p[0] == 'l' {
			return out, nil
		}
		if len(p) == 1 {
			return nil, protoErr("%s: empty 'm' chunk", req)
		}
	}
}

// readMemory reads n bytes at addr, in as many 'm' requests as the
// server's packet size needs (QEMU's stub answers a read whose reply would
// not fit its 4 KiB packets with an error). A read that fails after the
// first request returns what came before it, as a short read.
func (cl *client) readMemory(ctx context.Context, addr uint64, n int) ([]byte, error) {
	most := cl.maxRead
	if most <= 0 {
		most = readLimit("") // no handshake (a test's client)
	}
	if n <= most {
		return cl.readChunk(ctx, addr, n)
	}
	out := make([]byte, 0, n)
	for len(out) < n {
		b, err := cl.readChunk(ctx, addr+uint64(len(out)), min(most, n-len(out)))
		out = append(out, b...)
		if err != nil {
			var er *errorReply
			if len(out) > 0 && errors.As(err, &er) {
				return out, &errorReply{req: fmt.Sprintf("m%x,%x", addr, n), code: "short read"}
			}
			return out, err
		}
	}
	return out, nil
}

// readLimit is the most bytes one 'm' reply can carry: two hex digits a
// byte within the PacketSize the server announced (hex), less the framing;
// 4096 when it announced none.
func readLimit(packetSize string) int {
	ps, err := strconv.ParseUint(packetSize, 16, 32)
	if err != nil || ps == 0 {
		return 4096
	}
	return max(16, int(ps)/2-4)
}

func (cl *client) readChunk(ctx context.Context, addr uint64, n int) ([]byte, error) {
	p, err := cl.request(ctx, fmt.Sprintf("m%x,%x", addr, n))
	if err != nil {
		return nil, err
	}
	b, err := hex.DecodeString(string(p))
	if err != nil || len(b) == 0 || len(b) > n {
		return nil, protoErr("m%x,%x: bad reply %q", addr, n, short(string(p)))
	}
	if len(b) < n {
		return b, &errorReply{req: fmt.Sprintf("m%x,%x", addr, n), code: "short read"}
	}
	return b, nil
}

// readWord reads a little-endian word of size bytes (4 or 8): a pointer of
// the traced program.
func (cl *client) readWord(ctx context.Context, addr uint64, size uint64) (uint64, error) {
	b, err := cl.readMemory(ctx, addr, int(size))
	if err != nil {
		return 0, err
	}
	return leWord(b), nil
}

// leWord decodes a little-endian word of 4 or 8 bytes (a register or a
// pointer); any other length is 0, which callers have ruled out.
func leWord(b []byte) uint64 {
	switch len(b) {
	case 4:
		return uint64(binary.LittleEndian.Uint32(b))
	case 8:
		return binary.LittleEndian.Uint64(b)
	}
	return 0
}

func (cl *client) insertBreakpoint(ctx context.Context, addr uint64, kind int) error {
	return cl.requestOK(ctx, fmt.Sprintf("Z0,%x,%x", addr, kind))
}

func (cl *client) removeBreakpoint(ctx context.Context, addr uint64, kind int) error {
	return cl.requestOK(ctx, fmt.Sprintf("z0,%x,%x", addr, kind))
}

// selectThread makes thread the one g and p read.
func (cl *client) selectThread(ctx context.Context, t threadID) error {
	s := t.String()
	if s == cl.selected {
		return nil
	}
	if err := cl.requestOK(ctx, "Hg"+s); err != nil {
		return err
	}
	cl.selected = s
	return nil
}

// readRegisters reads the g packet of thread t as raw target bytes; bytes the
// server marks unavailable ('xx') are reported in avail as false.
func (cl *client) readRegisters(ctx context.Context, t threadID) (data []byte, avail []bool, err error) {
	if err := cl.selectThread(ctx, t); err != nil {
		return nil, nil, err
	}
	p, err := cl.request(ctx, "g")
	if err != nil {
		return nil, nil, err
	}
	return decodeRegHex(p, "g")
}

// readRegister reads register n of thread t with p.
func (cl *client) readRegister(ctx context.Context, t threadID, n int) ([]byte, error) {
	if err := cl.selectThread(ctx, t); err != nil {
		return nil, err
	}
	p, err := cl.request(ctx, fmt.Sprintf("p%x", n))
	if err != nil {
		return nil, err
	}
	b, avail, err := decodeRegHex(p, "p")
	if err != nil {
		return nil, err
	}
	for _, a := range avail {
		if !a {
			return nil, &errorReply{req: fmt.Sprintf("p%x", n), code: "unavailable"}
		}
	}
	return b, nil
}

func decodeRegHex(p []byte, req string) ([]byte, []bool, error) {
	if len(p)%2 != 0 || len(p) == 0 {
		return nil, nil, protoErr("%s: odd or empty register reply", req)
	}
	data := make([]byte, len(p)/2)
	avail := make([]bool, len(p)/2)
	for i := range data {
		a, b := p[2*i], p[2*i+1]
		if a == 'x' && b == 'x' {
			continue
		}
		hi, ok1 := unhex(a)
		lo, ok2 := unhex(b)
		if !ok1 || !ok2 {
			return nil, nil, protoErr("%s: bad hex in register reply", req)
		}
		data[i], avail[i] = hi<<4|lo, true
	}
	return data, avail, nil
}

// resume continues every thread; with sig != 0 thread t gets that signal.
func (cl *client) resume(ctx context.Context, t threadID, sig int) error {
	cl.selected = ""
	var req string
	switch {
	case cl.vCont && sig != 0:
		req = fmt.Sprintf("vCont;C%02x:%s;c", sig, t)
	case cl.vCont:
		req = "vCont;c"
	case sig != 0:
		if err := cl.requestOK(ctx, "Hc"+t.String()); err != nil {
			return err
		}
		req = fmt.Sprintf("C%02x", sig)
	default:
		req = "c"
	}
	if err := cl.sendExpecting(ctx, req); err != nil {
		return err
	}
	cl.running = true
	return nil
}

// step single-steps thread t alone.
func (cl *client) step(ctx context.Context, t threadID) error {
	cl.selected = ""
	req := "vCont;s:" + t.String()
	if !cl.vCont {
		if err := cl.requestOK(ctx, "Hc"+t.String()); err != nil {
			return err
		}
		req = "s"
	}
	if err := cl.sendExpecting(ctx, req); err != nil {
		return err
	}
	cl.running = true
	return nil
}

// wait reads the stop reply owed for a resume or "?".
func (cl *client) wait(ctx context.Context) (stopReply, error) {
	if !cl.running && cl.owed == 0 {
		return stopReply{}, errors.New("gdbremote: wait without a resume")
	}
	for cl.owed > 1 {
		if _, err := cl.reply(ctx); err != nil {
			return stopReply{}, err
		}
	}
	running := cl.running
	cl.running = true // console output may come first
	p, err := cl.reply(ctx)
	if err != nil {
		cl.running = running
		return stopReply{}, err
	}
	st, err := parseStop(p)
	if err == nil && st.kind == stopSignal && st.thread.TID > 0 {
		// A stop makes the reporting thread the server's general thread
		// (gdb's remote client relies on it too): no Hg needed for it.
		cl.selected = st.thread.String()
	}
	return st, err
}

// threadID is a thread in the multiprocess syntax p<pid>.<tid>; PID 0 when
// the server does not use it.
type threadID struct {
	PID, TID int64 // -1 means all, 0 any
}

func (t threadID) String() string {
	id := func(v int64) string {
		if v < 0 {
			return "-1"
		}
		return strconv.FormatInt(v, 16)
	}
	if t.PID != 0 {
		return "p" + id(t.PID) + "." + id(t.TID)
	}
	return id(t.TID)
}

func parseThreadID(s string) (threadID, error) {
	num := func(s string) (int64, error) {
		if s == "-1" {
			return -1, nil
		}
		v, err := strconv.ParseInt(s, 16, 64)
		if err != nil || v < 0 || v > 1<<31 {
			return 0, protoErr("bad thread id %q", short(s))
		}
		return v, nil
	}
	if rest, ok := strings.CutPrefix(s, "p"); ok {
		pid, tid, hasTID := strings.Cut(rest, ".")
		p, err := num(pid)
		if err != nil {
			return threadID{}, err
		}
		t := int64(-1)
		if hasTID {
			if t, err = num(tid); err != nil {
				return threadID{}, err
			}
		}
		return threadID{PID: p, TID: t}, nil
	}
	t, err := num(s)
	return threadID{TID: t}, err
}

// Stop reply kinds.
const (
	stopSignal = 'T' // also 'S'
	stopExited = 'W'
	stopKilled = 'X'
)

// stopReply is a parsed S, T, W or X packet.
type stopReply struct {
	kind   byte
	signal int // T/S/X: GDB signal number; W: exit status
	thread threadID
	pid    int64 // W/X with ;process:
	// fork is the child of a fork event (T05fork:...).
	fork      *threadID
	swbreak   bool
	registers map[int][]byte // expedited registers
}

func parseStop(p []byte) (stopReply, error) {
	if len(p) < 2 {
		return stopReply{}, protoErr("short stop reply %q", p)
	}
	switch p[0] {
	case 'W', 'X':
		num, rest, _ := strings.Cut(string(p[1:]), ";")
		v, err := strconv.ParseUint(num, 16, 8)
		if err != nil {
			return stopReply{}, protoErr("bad exit reply %q", short(string(p)))
		}
		s := stopReply{kind: p[0], signal: int(v)}
		if rest == "" {
			return s, nil
		}
		pidHex, ok := strings.CutPrefix(rest, "process:")
		if !ok {
			return stopReply{}, protoErr("bad exit reply %q", short(string(p)))
		}
		pid, err := strconv.ParseInt(pidHex, 16, 64)
		if err != nil || pid <= 0 || pid > 1<<31 {
			return stopReply{}, protoErr("bad exit reply %q", short(string(p)))
		}
		s.pid = pid
		return s, nil
	}
	if len(p) < 3 {
		return stopReply{}, protoErr("short stop reply %q", p)
	}
	hi, ok1 := unhex(p[1])
	lo, ok2 := unhex(p[2])
	if !ok1 || !ok2 {
		return stopReply{}, protoErr("bad stop reply %q", short(string(p)))
	}
	s := stopReply{kind: p[0], signal: int(hi<<4 | lo)}
	rest := string(p[3:])
	switch p[0] {
	case 'S':
		s.kind = stopSignal
		if rest != "" {
			return stopReply{}, protoErr("bad stop reply %q", short(string(p)))
		}
		return s, nil
	case 'T':
	default:
		return stopReply{}, protoErr("unexpected stop reply %q", short(string(p)))
	}
	for _, kv := range strings.Split(rest, ";") {
		if kv == "" {
			continue
		}
		k, v, ok := strings.Cut(kv, ":")
		if !ok {
			return stopReply{}, protoErr("bad stop reply field %q", short(kv))
		}
		switch k {
		case "thread":
			t, err := parseThreadID(v)
			if err != nil {
				return stopReply{}, err
			}
			s.thread = t
		case "fork", "vfork":
			t, err := parseThreadID(v)
			if err != nil {
				return stopReply{}, err
			}
			s.fork = &t
		case "swbreak":
			s.swbreak = true
		default:
			n, err := strconv.ParseUint(k, 16, 16)
			if err != nil {
				continue // other keys (core, hwbreak, library, ...) are not used
			}
			b, err := hex.DecodeString(v)
			if err != nil {
				continue // unavailable ("xx") or malformed expedited register
			}
			if s.registers == nil {
				s.registers = map[int][]byte{}
			}
			if len(s.registers) < 64 {
				s.registers[int(n)] = b
			}
		}
	}
	return s, nil
}
