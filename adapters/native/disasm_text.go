package native

import (
	"context"
	"fmt"
	"io"
	"math/bits"
	"os"
	"runtime"
	"slices"

	"rea/ports"
)

// Whole-file disassembly as text. WriteDisassembly streams every
// instruction of every executable section (or of one section) as one line,
// in address order:
//
//	    1040:	f3 0f 1e fa	endbr64
//
// (the address in hex right-aligned in eight columns, a colon, a tab, the
// bytes in hex separated by spaces, a tab and the instruction's text as
// Disassemble renders it), each section after a line
// "\nDisassembly of section NAME:\n". The lines are those of a linear sweep
// from the start of each section, the same instructions and text as
// consecutive Disassemble windows over it.
//
// Each section is cut into chunks that are decoded and formatted in
// parallel, across GOMAXPROCS, each into a reused byte buffer. A chunk is
// swept speculatively from its first byte; when its lines are written, in
// order, the true instruction stream (continued from the previous chunk)
// rejoins the chunk's sweep at the first address both share: instructions
// before that point are decoded again one at a time, the rest are the
// chunk's own. An instruction's length and text depend only on its bytes
// and address, so the output is the same whatever the chunking and the
// core count. Only a bounded number of chunks is in flight: memory does not
// grow with the file. On 64-bit x86 the common instructions are decoded and
// formatted by xtDecode and appendXTextLine (disasm_x86text.go), without
// step or x86asm and without allocating; the rest go through step and the
// decoder's appendText.

// textChunkBytes is the code one chunk covers.
var textChunkBytes = 256 << 10

// TextStats counts what WriteDisassembly wrote.
type TextStats struct {
	Sections     int // sections written
	Instructions int // instructions written
}

// textChunk is one chunk's speculative sweep.
type textChunk struct {
	start, end uint64   // the chunk's nominal range [start, end)
	next       uint64   // where the sweep stopped (its last instruction's end)
	addrs      []uint64 // instruction starts, ascending
	offs       []int    // offs[i] is where line i starts in buf; one more entry than addrs
	buf        []byte   // the lines
	err        error
	done       chan struct{}
}

// WriteDisassembly writes the text disassembly of every executable section
// with file bytes, or of the section named section, to w. It waits for
// whole-file discovery (the names the text shows come from it). A section
// name that matches no executable section fails with ports.ErrNotFound; an
// architecture the provider does not decode with ports.ErrUnsupported.
func (a *Analysis) WriteDisassembly(ctx context.Context, w io.Writer, section string) (TextStats, error) {
	return codeOp(a, ctx, "disassembly", func(p *program) (TextStats, error) {
		if newDecoder(p.arch, p.mm, a.src) == nil {
			return TextStats{}, fmt.Errorf("no disassembler for this architecture: %w", ports.ErrUnsupported)
		}
		var regs []*memRegion
		for i := range p.mm.regions {
			r := &p.mm.regions[i]
			if r.exec && r.fileSize > 0 && (section == "" || r.name == section) {
				regs = append(regs, r)
			}
		}
		if section != "" && len(regs) == 0 {
			return TextStats{}, fmt.Errorf("no executable section named %q with file bytes: %w", section, ports.ErrNotFound)
		}
		if p.arch == archCIL {
			return cilText(ctx, a, p, w, regs)
		}
		tw := &textWriter{a: a, p: p, w: w, workers: max(1, runtime.GOMAXPROCS(0))}
		for _, r := range regs {
			if err := tw.region(ctx, r); err != nil {
				return tw.stats, err
			}
		}
		return tw.stats, nil
	})
}

// textWriter writes the sections of one WriteDisassembly call.
type textWriter struct {
	a       *Analysis
	p       *program
	w       io.Writer
	workers int
	stats   TextStats
	line    []byte // the merger's own lines (instructions decoded again)
	free    []*textChunk
	seq     decoder // the merger's decoder
	written int     // chunks of the current section written
}

// region writes one section.
func (t *textWriter) region(ctx context.Context, r *memRegion) error {
	t.stats.Sections++
	if _, err := io.WriteString(t.w, "\nDisassembly of section "+r.name+":\n"); err != nil {
		return err
	}
	code, err := t.p.mm.view(t.a.src, r.addr, r.fileSize)
	if err != nil {
		return nil // no bytes in the file: an empty section, as a window would find it
	}
	end := r.addr + uint64(len(code))
	step := uint64(textChunkBytes)
	if m := uint64(t.p.arch.minInsn()); m > 1 {
		step -= step % m
	}
	n := int((uint64(len(code)) + step - 1) / step)
	// Chunks are taken when sent, so that at most inflight of them (and
	// their buffers) exist at once, reused from section to section.
	chunks := make([]*textChunk, n)
	// Workers take chunks in order; at most inflight chunks are decoded
	// ahead of the one being written.
	inflight := 2 * t.workers
	jobs := make(chan *textChunk, inflight)
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	workers := min(t.workers, n)
	finished := make(chan struct{}, workers)
	for range workers {
		go func(jobs <-chan *textChunk) {
			defer func() { finished <- struct{}{} }()
			d := newDecoder(t.p.arch, t.p.mm, t.a.src)
			for c := range jobs {
				c.err = t.fill(ctx, d, c, code, r.addr)
				close(c.done)
			}
		}(jobs)
	}
	sent, closed := 0, false
	send := func() {
		for sent < n && sent < t.written+inflight {
			c := t.take()
			c.start = r.addr + uint64(sent)*step
			c.end = min(c.start+step, end)
			chunks[sent] = c
			jobs <- c
			sent++
		}
		if sent == n && !closed {
			close(jobs)
			closed = true
		}
	}
	t.written = 0
	defer func() {
		cancel()
		if !closed {
			close(jobs)
		}
		for range workers {
			<-finished
		}
	}()
	send()
	pos := r.addr
	dropped, page := r.off, uint64(os.Getpagesize()) // the file offset up to which the code's pages were given back
	for k, c := range chunks {
		select {
		case <-c.done:
		case <-ctx.Done():
			return ctx.Err()
		}
		if c.err != nil {
			return c.err
		}
		var err error
		if pos, err = t.merge(c, pos, code, r.addr, end); err != nil {
			return err
		}
		chunks[k] = nil
		// The code up to the chunk's end is read: its pages go back to the
		// system (the page cache keeps them) rather than adding the whole
		// section to the process's resident memory beside discovery's
		// heap. The page the next chunk starts in is kept for it.
		off := r.off + (c.end - r.addr)
		t.a.src.m.drop(dropped, off-dropped)
		dropped = max(dropped, off&^(page-1))
		t.give(c)
		t.written = k + 1
		send()
	}
	return nil
}

// take returns a cleared chunk, reusing a written one.
func (t *textWriter) take() *textChunk {
	var c *textChunk
	if k := len(t.free); k > 0 {
		c, t.free = t.free[k-1], t.free[:k-1]
		c.addrs, c.offs, c.buf, c.err = c.addrs[:0], c.offs[:0], c.buf[:0], nil
	} else {
		// About 20 bytes of text per byte of x86 code.
		c = &textChunk{buf: make([]byte, 0, 24*textChunkBytes), addrs: make([]uint64, 0, textChunkBytes/3), offs: make([]int, 0, textChunkBytes/3)}
	}
	c.done = make(chan struct{})
	return c
}

func (t *textWriter) give(c *textChunk) {
	if len(t.free) < 4*t.workers && cap(c.buf) <= 256<<20 {
		t.free = append(t.free, c)
	}
}

// fill sweeps one chunk from its first byte to its end, formatting each
// instruction into c.buf. code holds the section's bytes from base.
func (t *textWriter) fill(ctx context.Context, d decoder, c *textChunk, code []byte, base uint64) (err error) {
	defer recoverInto(t.a.img.format(), "disassembly", &err)
	if err := ctx.Err(); err != nil {
		return err
	}
	limit := base + uint64(len(code))
	b := code[c.start-base:]
	d.reset(b, c.start)
	var in insn
	var x xtInst
	// 64-bit x86: the common instructions need neither step nor x86asm
	// (their size, target and text all come from xtDecode).
	xd, _ := d.(*x86Decoder)
	fast := xd != nil && xd.mode == 64
	if xd != nil {
		xd.limit(c.end)
	}
	name := t.names()
	var tb xtTables
	if fast {
		tb = xtTabs()
	}
	pc := c.start
	for pc < c.end && pc < limit {
		c.addrs = append(c.addrs, pc)
		c.offs = append(c.offs, len(c.buf))
		if fast && xtDecode(code[pc-base:], &x) {
			c.buf = appendXTextLineT(c.buf, code[pc-base:], pc, &x, name, tb)
			pc += uint64(x.length)
			continue
		}
		in = insn{}
		d.step(code[pc-base:], pc, &in)
		c.buf = appendTextLine(c.buf, d, code[pc-base:], pc, &in, name)
		pc += uint64(in.size)
	}
	c.offs = append(c.offs, len(c.buf))
	c.next = pc
	return nil
}

// names returns program.name without its once-only set-up on every call:
// the set-up is done here, and the lookup is the filter and the map alone.
func (t *textWriter) names() func(uint64) string {
	p := t.p
	p.name(0)
	filter, at := &p.named, p.nameAt
	return func(addr uint64) string {
		if !filter.mayHave(addr) {
			return ""
		}
		return at[addr]
	}
}

// merge writes the true instructions from pos up to the end of chunk c and
// returns the address of the first true instruction after them. Until the
// true stream reaches an address the chunk's sweep decoded, it decodes
// one instruction at a time.
func (t *textWriter) merge(c *textChunk, pos uint64, code []byte, base, limit uint64) (uint64, error) {
	t.line = t.line[:0]
	for pos < c.end && pos < limit {
		if i, ok := slices.BinarySearch(c.addrs, pos); ok {
			if len(t.line) > 0 {
				if _, err := t.w.Write(t.line); err != nil {
					return pos, err
				}
				t.line = t.line[:0]
			}
			if _, err := t.w.Write(c.buf[c.offs[i]:c.offs[len(c.addrs)]]); err != nil {
				return pos, err
			}
			t.stats.Instructions += len(c.addrs) - i
			return c.next, nil
		}
		if t.seq == nil {
			t.seq = newDecoder(t.p.arch, t.p.mm, t.a.src)
		}
		var in insn
		t.seq.reset(code[pos-base:], pos)
		t.seq.step(code[pos-base:], pos, &in)
		t.line = appendTextLine(t.line, t.seq, code[pos-base:], pos, &in, t.p.name)
		t.stats.Instructions++
		pos += uint64(in.size)
	}
	if len(t.line) > 0 {
		if _, err := t.w.Write(t.line); err != nil {
			return pos, err
		}
	}
	return pos, nil
}

const hexDigits = "0123456789abcdef"

// appendTextLine appends one line: the address right-aligned in eight
// columns, a colon and a tab, the instruction's bytes in hex separated by
// spaces and padded as objdump -d pads them (hexColumn), a tab, its text
// and a newline. No line ends in a space.
func appendTextLine(dst []byte, d decoder, b []byte, pc uint64, in *insn, name func(uint64) string) []byte {
	dst = appendHexPad(dst, pc, 8)
	dst = append(dst, ':', '\t')
	n := hexColumn
	if _, ok := d.(*arm64Decoder); ok {
		n = 4
	}
	dst = appendHexColumn(dst, b[:min(in.size, len(b))], n)
	dst = append(dst, '\t')
	dst = d.appendText(dst, b, pc, in, name)
	for len(dst) > 0 && dst[len(dst)-1] == ' ' {
		dst = dst[:len(dst)-1]
	}
	return append(dst, '\n')
}

// hexColumn is the bytes column's width in bytes, as objdump -d lays it out
// on x86 (and rea for IL): "xx " for each, so that the texts of shorter
// instructions line up; a longer instruction pushes its text one tab stop
// right (objdump wraps its bytes instead). AArch64's instructions are all
// four bytes.
const hexColumn = 7

// appendHexColumn appends b in hex (appendHexBytes) and spaces up to n
// bytes' room.
func appendHexColumn(dst, b []byte, n int) []byte {
	dst = appendHexBytes(dst, b)
	for pad := 3*n - max(3*len(b)-1, 0); pad > 0; pad-- {
		dst = append(dst, ' ')
	}
	return dst
}

// hexPairs holds the two hex digits of every byte value: hexPairs[2*b],
// hexPairs[2*b+1].
var hexPairs = func() (t [512]byte) {
	for b := range 256 {
		t[2*b], t[2*b+1] = hexDigits[b>>4], hexDigits[b&0xf]
	}
	return t
}()

// appendHexPad appends v in lower-case hex, right-aligned in width columns.
func appendHexPad(dst []byte, v uint64, width int) []byte {
	n := max((bits.Len64(v)+3)/4, 1)
	pad := max(width-n, 0)
	l := len(dst)
	dst = slices.Grow(dst, pad+n)[:l+pad+n]
	out := dst[l:]
	for i := range pad {
		out[i] = ' '
	}
	i := pad + n
	for ; i-pad >= 2; i -= 2 {
		x := v & 0xff
		out[i-1], out[i-2] = hexPairs[2*x+1], hexPairs[2*x]
		v >>= 8
	}
	if i > pad {
		out[i-1] = hexDigits[v&0xf]
	}
	return dst
}

// appendHex appends "0x" and v in lower-case hex.
func appendHex(dst []byte, v uint64) []byte {
	return appendHexPad(append(dst, '0', 'x'), v, 0)
}

// appendHexBytes appends the bytes of b in hex, separated by spaces.
func appendHexBytes(dst []byte, b []byte) []byte {
	if len(b) == 0 {
		return dst
	}
	l := len(dst)
	dst = slices.Grow(dst, 3*len(b)-1)[:l+3*len(b)-1]
	out := dst[l:]
	out[0], out[1] = hexPairs[2*int(b[0])], hexPairs[2*int(b[0])+1]
	for i := 1; i < len(b); i++ {
		x := int(b[i])
		o := out[3*i-1 : 3*i+2]
		o[0], o[1], o[2] = ' ', hexPairs[2*x], hexPairs[2*x+1]
	}
	return dst
}
