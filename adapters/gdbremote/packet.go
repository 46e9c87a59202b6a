package gdbremote

import (
	"bufio"
	"errors"
	"fmt"
)

// MaxPacket bounds a decoded packet payload. gdbserver's own packet buffer is
// far smaller; anything larger is a broken or hostile server.
const MaxPacket = 1 << 20

// ErrProtocol marks a reply that breaks the protocol (bad framing, bad
// checksum, oversized packet, unparsable reply).
var ErrProtocol = errors.New("gdb remote protocol error")

func protoErr(format string, a ...any) error {
	return fmt.Errorf("%w: "+format, append([]any{ErrProtocol}, a...)...)
}

// frame is one unit read from the server: a packet ('$'), a notification
// ('%'), an ack ('+') or a nack ('-').
type frame struct {
	kind    byte
	payload []byte // decoded
	badSum  bool
}

// appendPacket frames payload as $payload#cs, escaping the bytes the protocol
// reserves ($ # } and *, which would start a run-length sequence).
func appendPacket(dst, payload []byte) []byte {
	dst = append(dst, '$')
	var sum byte
	for _, c := range payload {
		switch c {
		case '$', '#', '}', '*':
			dst = append(dst, '}', c^0x20)
			sum += '}' + c ^ 0x20
		default:
			dst = append(dst, c)
			sum += c
		}
	}
	return append(dst, '#', hexDigit(sum>>4), hexDigit(sum&15))
}

func hexDigit(b byte) byte { return "0123456789abcdef"[b&15] }

func unhex(c byte) (byte, bool) {
	switch {
	case '0' <= c && c <= '9':
		return c - '0', true
	case 'a' <= c && c <= 'f':
		return c - 'a' + 10, true
	case 'A' <= c && c <= 'F':
		return c - 'A' + 10, true
	}
	return 0, false
}

// readFrame reads the next frame, skipping noise between frames. The raw
// packet body is bounded by max*2 bytes (escapes double a byte at most) and
// the decoded payload by max.
func readFrame(r *bufio.Reader, max int) (frame, error) {
	for {
		c, err := r.ReadByte()
		if err != nil {
			return frame{}, err
		}
		switch c {
		case '+', '-':
			return frame{kind: c}, nil
		case '$', '%':
			return readBody(r, c, max)
		}
		// Anything else between packets (a stray byte, line noise) is skipped.
	}
}

func readBody(r *bufio.Reader, kind byte, max int) (frame, error) {
	var raw []byte
	var sum byte
	for {
		c, err := r.ReadByte()
		if err != nil {
			return frame{}, err
		}
		if c == '#' {
			break
		}
		if c == '$' {
			// A new packet start inside a body: the earlier one was cut.
			raw, sum = raw[:0], 0
			continue
		}
		if len(raw) >= 2*max+2 {
			return frame{}, protoErr("packet longer than %d bytes", 2*max+2)
		}
		raw = append(raw, c)
		sum += c
	}
	var cs [2]byte
	for i := range cs {
		c, err := r.ReadByte()
		if err != nil {
			return frame{}, err
		}
		cs[i] = c
	}
	hi, ok1 := unhex(cs[0])
	lo, ok2 := unhex(cs[1])
	f := frame{kind: kind}
	if !ok1 || !ok2 || hi<<4|lo != sum {
		f.badSum = true
		return f, nil
	}
	p, err := decodeBody(raw, max)
	if err != nil {
		return frame{}, err
	}
	f.payload = p
	return f, nil
}

// decodeBody removes escapes and expands run-length sequences: "c*n" repeats
// c n-29 more times.
func decodeBody(raw []byte, max int) ([]byte, error) {
	out := make([]byte, 0, len(raw))
	for i := 0; i < len(raw); i++ {
		c := raw[i]
		switch c {
		case '}':
			if i+1 >= len(raw) {
				return nil, protoErr("escape at end of packet")
			}
			i++
			c = raw[i] ^ 0x20
		case '*':
			if len(out) == 0 || i+1 >= len(raw) {
				return nil, protoErr("run-length marker without a byte to repeat")
			}
			i++
			n := int(raw[i]) - 29
			if n < 0 || raw[i] > 126 {
				return nil, protoErr("run-length count %q out of range", raw[i])
			}
			if len(out)+n > max {
				return nil, protoErr("packet longer than %d bytes", max)
			}
			prev := out[len(out)-1]
			for range n {
				out = append(out, prev)
			}
			continue
		}
		if len(out) >= max {
			return nil, protoErr("packet longer than %d bytes", max)
		}
		out = append(out, c)
	}
	return out, nil
}
