package main

import (
	"bytes"
	"io"
)

// columns lays out rea-native's disassembly lines for a person, as objdump
// -d does: the bytes column padded with spaces to a fixed width, so that the
// instruction texts line up, and no line ending in spaces (arm64asm writes
// "nop " for an instruction without operands). The fields stay separated by
// tabs, so cut -f3 still gives the texts. An instruction longer than the
// width (an x86 instruction of more than eight bytes) pushes its text one
// tab stop right; objdump wraps its bytes instead.
//
// Lines other than instructions (section and method headers, blank lines)
// pass through unchanged. Every Write is one pass over its bytes into a
// reused buffer and one Write to the underlying writer; a line cut between
// two Writes is carried over.
type columns struct {
	w     io.Writer
	width int    // the bytes column, in characters: "xx " for each byte
	carry []byte // a line begun by the last Write
	out   []byte
}

// newColumns pads the bytes column to maxBytes bytes: seven for x86, as
// objdump -d, and four for AArch64, whose instructions are all four.
func newColumns(w io.Writer, maxBytes int) *columns {
	return &columns{w: w, width: 3 * maxBytes}
}

func (c *columns) Write(p []byte) (int, error) {
	n := len(p)
	c.out = c.out[:0]
	if len(c.carry) > 0 {
		i := bytes.IndexByte(p, '\n')
		if i < 0 {
			c.carry = append(c.carry, p...)
			return n, nil
		}
		c.carry = append(c.carry, p[:i+1]...)
		c.out = c.line(c.out, c.carry)
		c.carry, p = c.carry[:0], p[i+1:]
	}
	for len(p) > 0 {
		i := bytes.IndexByte(p, '\n')
		if i < 0 {
			c.carry = append(c.carry, p...)
			break
		}
		c.out = c.line(c.out, p[:i+1])
		p = p[i+1:]
	}
	if _, err := c.w.Write(c.out); err != nil {
		return 0, err
	}
	return n, nil
}

// Close writes a last line that had no newline.
func (c *columns) Close() error {
	if len(c.carry) == 0 {
		return nil
	}
	_, err := c.w.Write(c.line(c.out[:0], c.carry))
	c.carry = c.carry[:0]
	return err
}

// line appends one line, ending in its newline if it had one, laid out.
func (c *columns) line(dst, l []byte) []byte {
	nl := len(l) > 0 && l[len(l)-1] == '\n'
	if nl {
		l = l[:len(l)-1]
	}
	l = bytes.TrimRight(l, " \t")
	// An instruction: spaces, the address in hex, ":\t", the bytes, "\t".
	a := bytes.IndexByte(l, '\t')
	b := -1
	if a > 0 && l[a-1] == ':' && isAddress(l[:a-1]) {
		b = bytes.IndexByte(l[a+1:], '\t')
	}
	if b < 0 {
		dst = append(dst, l...)
	} else {
		b += a + 1
		dst = append(dst, l[:b]...)
		for pad := c.width - (b - a - 1); pad > 0; pad-- {
			dst = append(dst, ' ')
		}
		dst = append(dst, l[b:]...)
	}
	if nl {
		dst = append(dst, '\n')
	}
	return dst
}

// isAddress reports whether s is an address as the lines write it: spaces,
// then hex digits.
func isAddress(s []byte) bool {
	s = bytes.TrimLeft(s, " ")
	if len(s) == 0 {
		return false
	}
	for _, ch := range s {
		if !('0' <= ch && ch <= '9' || 'a' <= ch && ch <= 'f') {
			return false
		}
	}
	return true
}
