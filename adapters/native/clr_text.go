package native

import (
	"bufio"
	"context"
	"fmt"
	"io"
)

// cilText writes the whole-file disassembly of an assembly: its code
// section holds the metadata and the native stub besides the methods'
// bodies, so each method is written under its name rather than the
// section swept from its start.
func cilText(ctx context.Context, a *Analysis, p *program, w io.Writer, regs []*memRegion) (TextStats, error) {
	var stats TextStats
	bw := bufio.NewWriterSize(w, 64<<10)
	d := newDecoder(p.arch, p.mm, a.src)
	name := p.name
	var line []byte
	for _, r := range regs {
		stats.Sections++
		if _, err := fmt.Fprintf(bw, "\nDisassembly of section %s:\n", r.name); err != nil {
			return stats, err
		}
		code, err := p.mm.view(a.src, r.addr, r.fileSize)
		if err != nil {
			continue
		}
		for i, fr := range p.ranges {
			if err := ctx.Err(); err != nil {
				return stats, err
			}
			if fr.Start < r.addr || fr.Start >= r.addr+uint64(len(code)) || fr.End <= fr.Start {
				continue
			}
			if _, err := fmt.Fprintf(bw, "\n%016x <%s>:\n", fr.Start, p.procs[i].Name); err != nil {
				return stats, err
			}
			end := min(fr.End, r.addr+uint64(len(code)))
			sweep(d, code[fr.Start-r.addr:], fr.Start, end, maxFunctionInsns, func(in *insn) bool {
				line = appendTextLine(line[:0], d, code[in.addr-r.addr:], in.addr, in, name)
				stats.Instructions++
				_, err = bw.Write(line)
				return err == nil
			})
			if err != nil {
				return stats, err
			}
		}
	}
	return stats, bw.Flush()
}
