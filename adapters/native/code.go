package native

import (
	"context"
	"errors"
	"fmt"

	"rea/ports"
)

// Code capabilities of an Analysis: ports.Disassembler,
// ports.FunctionAnalyzer, ports.CrossReferencer, ports.ByteReader and
// ports.SignatureReader. They describe the first document (the first slice
// of a universal Mach-O), like every other list.
//
// The model behind them is computed once per Analysis, on first use
// (discover.go): function discovery (symbols, unwind tables, the Go
// pclntab, init arrays, then recursive descent through direct calls, and,
// once calls add nothing, jumps and address constants that leave their
// function, pointers in writable data and unreachable code after a
// function's end, each required to start on a function boundary) and a
// linear sweep of every function that records its references, joined on
// first use by the pointer slots of the data (pointers.go). It is cached
// like the lists (a cancelled computation is not), reports progress through
// ports.Observe ("discover", "disassemble"), decodes functions in parallel,
// and is bounded (instructions per function, rounds, functions, a decoding
// budget of four times the code bytes).
//
// Function and Disassemble decode again on each call, so only the compact
// reference list stays in memory. Architectures: x86 and x86-64 (Intel
// syntax; a table-driven fast path measures the common encodings and
// x86asm decodes the rest, see disasm_x86fast.go) and AArch64 (GNU syntax);
// others have procedures and ranges from tables but fail decoding with
// ports.ErrUnsupported.

// Instruction caps of one request.
const (
	defaultWindow = 1000
	maxWindow     = 100000
)

func window(n int) int {
	if n <= 0 {
		return defaultWindow
	}
	return min(n, maxWindow)
}

// codeOp runs one code query with the Analysis checks, panic recovery and
// error classification of the lists.
func codeOp[T any](a *Analysis, ctx context.Context, op string, f func(*program) (T, error)) (out T, err error) {
	leave, err := a.enter(ctx, op)
	if err != nil {
		return out, err
	}
	defer leave()
	p, err := a.program(ctx)
	if err != nil {
		return out, fmt.Errorf("native: %s: %w", op, classify(a.img.format(), err))
	}
	defer recoverInto(a.img.format(), op, &err)
	out, err = f(p)
	if err != nil {
		return out, fmt.Errorf("native: %s: %w", op, err)
	}
	return out, nil
}

func (p *program) decoder(src source) (decoder, error) {
	d := newDecoder(p.arch, p.mm, src)
	if d == nil {
		return nil, fmt.Errorf("no disassembler for this architecture: %w", ports.ErrUnsupported)
	}
	return d, nil
}

// Disassemble decodes a linear window of code.
func (a *Analysis) Disassemble(ctx context.Context, req ports.DisassembleRequest) (ports.Disassembly, error) {
	return codeOp(a, ctx, "disassemble", func(p *program) (ports.Disassembly, error) {
		d, err := p.decoder(a.src)
		if err != nil {
			return ports.Disassembly{}, err
		}
		reg := p.mm.code(req.Address)
		if reg == nil {
			return ports.Disassembly{}, fmt.Errorf("0x%x is not in a code section with file bytes: %w", req.Address, ports.ErrNotFound)
		}
		n := window(req.MaxInstructions)
		end := reg.addr + reg.fileSize
		if req.End > req.Address && req.End < end {
			end = req.End
		}
		if span := uint64(n) * uint64(p.arch.maxInsn()); end-req.Address > span {
			end = req.Address + span
		}
		b, err := codeBytes(ctx, a.src, p.mm, p.arch, req.Address, end)
		if err != nil {
			return ports.Disassembly{}, err
		}
		out := ports.Disassembly{Syntax: p.arch.syntax(), Instructions: []ports.Instruction{}}
		_, capped := sweep(d, b, req.Address, end, n, func(in *insn) bool {
			out.Instructions = append(out.Instructions, d.format(b[in.addr-req.Address:], in.addr, in, p.name))
			return true
		})
		last := req.Address
		if k := len(out.Instructions); k > 0 {
			i := out.Instructions[k-1]
			last = i.Address + uint64(len(i.Bytes))
		}
		want := reg.addr + reg.fileSize
		if req.End > req.Address && req.End < want {
			want = req.End
		}
		out.Truncated = capped || last < want
		return out, ctx.Err()
	})
}

// FunctionRanges lists the extent of every procedure, in Procedures order.
func (a *Analysis) FunctionRanges(ctx context.Context) ([]ports.FunctionRange, error) {
	return codeOp(a, ctx, "function ranges", func(p *program) ([]ports.FunctionRange, error) {
		return append([]ports.FunctionRange(nil), p.ranges...), nil
	})
}

// Function decodes one procedure: its instructions (the first
// req.MaxInstructions rendered), instruction count and basic blocks.
func (a *Analysis) Function(ctx context.Context, req ports.FunctionRequest) (ports.Function, error) {
	return codeOp(a, ctx, "function", func(p *program) (ports.Function, error) {
		i, ok := p.rangeIndex(req.Address)
		if !ok {
			return ports.Function{}, fmt.Errorf("no procedure starts at 0x%x: %w", req.Address, ports.ErrNotFound)
		}
		d, err := p.decoder(a.src)
		if err != nil {
			return ports.Function{}, err
		}
		r := p.ranges[i]
		out := ports.Function{FunctionRange: r, Syntax: p.arch.syntax(), Instructions: []ports.Instruction{}, Blocks: []ports.BasicBlock{}}
		reg := p.mm.code(r.Start)
		if reg == nil || r.End <= r.Start {
			return out, nil // an import or a symbol outside code: no body
		}
		end := min(r.End, reg.addr+reg.fileSize)
		b, err := codeBytes(ctx, a.src, p.mm, p.arch, r.Start, end)
		if err != nil {
			return ports.Function{}, err
		}
		n := window(req.MaxInstructions)
		list := func(in *insn, code []byte) {
			if len(out.Instructions) < n {
				out.Instructions = append(out.Instructions, d.format(code, in.addr, in, p.name))
			}
		}
		var flows []flowInsn
		count, capped := sweep(d, b, r.Start, end, maxFunctionInsns, func(in *insn) bool {
			f := p.flowOf(in)
			flows = append(flows, f)
			list(in, b[in.addr-r.Start:])
			if len(flows)%65536 == 0 && ctx.Err() != nil {
				return false
			}
			return true
		})
		if err := ctx.Err(); err != nil {
			return ports.Function{}, err
		}
		spans := p.spans(i)
		if len(spans) > 1 {
			// The parts' blocks join the range's, and their instructions
			// follow the range's in the listing, part by part.
			flows, err = p.partFlows(ctx, a.src, d, spans, flows, func(in *insn, code []byte) {
				count++
				list(in, code)
			})
			if err != nil {
				return ports.Function{}, err
			}
			capped = capped || len(flows) >= maxFunctionInsns
		}
		if err := p.registerFlows(ctx, a.src, a.img.format(), d, spans, flows); err != nil {
			return ports.Function{}, err
		}
		blocks, cut := spanBlocks(flows, spans, p.mm.clr.handlers(r.Start))
		out.InstructionCount, out.Blocks, out.Truncated = count, blocks, capped || cut
		if out.Blocks == nil {
			out.Blocks = []ports.BasicBlock{}
		}
		return out, nil
	})
}

// flowOf summarises a decoded instruction's control flow. A jump through an
// import's slot (gcc -fno-plt's tail call, jmp [rip+GOT]) is a tail call to
// the slot, as the references resolve it, and a call through the slot of
// an import that does not return (exit) ends its block, as a call of the
// import's stub does.
func (p *program) flowOf(in *insn) flowInsn {
	f := plainFlow(in, p.noret)
	if !in.hasTarget && (in.flow == ports.FlowJump || in.flow == ports.FlowCall) {
		for _, x := range in.refs {
			if x.flags != flagUnresolved || x.to == 0 || x.kind != kindCall && x.kind != kindJump {
				continue
			}
			name := p.labelAt(x.to, "import")
			switch {
			case name == "":
			case in.flow == ports.FlowJump:
				f.target, f.hasTarget = x.to, true
			case isNoReturn(name):
				f.noreturn = true
			}
		}
	}
	return f
}

// plainFlow summarises an instruction's own control flow: its target, a
// call of a function in noret ends the block, and a copy of its jump table.
func plainFlow(in *insn, noret map[uint64]bool) flowInsn {
	f := flowInsn{addr: in.addr, size: in.size, flow: in.flow, target: in.target, hasTarget: in.hasTarget,
		noreturn: in.flow == ports.FlowCall && in.hasTarget && noret[in.target]}
	if len(in.table) > 0 {
		f.table = append([]uint64(nil), in.table...)
	}
	return f
}

// ReferencesFrom lists the references made by instructions and pointer
// slots in [start, end).
func (a *Analysis) ReferencesFrom(ctx context.Context, start, end uint64) ([]ports.Reference, error) {
	return codeOp(a, ctx, "references", func(p *program) ([]ports.Reference, error) {
		ix, err := p.references(ctx, a.src, a.img)
		if err != nil {
			return nil, err
		}
		xs := ix.from(start, end)
		out := make([]ports.Reference, len(xs))
		for i, x := range xs {
			out[i] = reference(x, func(at uint64) string { return a.operand(p, at) })
		}
		return out, ctx.Err()
	})
}

// ReferencesTo lists the resolved references to [start, end).
func (a *Analysis) ReferencesTo(ctx context.Context, start, end uint64) ([]ports.Reference, error) {
	return codeOp(a, ctx, "references", func(p *program) ([]ports.Reference, error) {
		ix, err := p.references(ctx, a.src, a.img)
		if err != nil {
			return nil, err
		}
		xs := ix.to(start, end)
		out := make([]ports.Reference, len(xs))
		for i, x := range xs {
			out[i] = reference(x, nil)
		}
		return out, ctx.Err()
	})
}

// operand renders the operands of the instruction at addr.
func (a *Analysis) operand(p *program, addr uint64) string {
	d := newDecoder(p.arch, p.mm, a.src)
	if d == nil {
		return ""
	}
	b, err := p.mm.read(a.src, addr, uint64(p.arch.maxInsn()))
	if err != nil {
		return ""
	}
	var in insn
	d.reset(b, addr)
	d.step(b, addr, &in)
	return d.format(b, addr, &in, func(uint64) string { return "" }).Operands
}

// ReadBytes returns up to n file bytes mapped at addr: by a section, else
// by a load segment.
func (a *Analysis) ReadBytes(ctx context.Context, addr uint64, n int) ([]byte, error) {
	if err := a.check(ctx, "read bytes"); err != nil {
		return nil, err
	}
	if n <= 0 {
		return []byte{}, nil
	}
	mm, err := a.mmap.get(ctx, func(context.Context) (*memMap, error) { return newMemMap(a.img), nil })
	if err != nil {
		return nil, err
	}
	b, err := mm.read(a.src, addr, uint64(n))
	if err != nil && errors.Is(err, ports.ErrNotFound) && mm.find(addr) == nil {
		b, err = a.readLoaded(addr, uint64(n)) // the headers, a gap between sections (loads.go)
	}
	if err != nil {
		if !errors.Is(err, ports.ErrNotFound) {
			err = classify(a.img.format(), err)
		}
		return nil, fmt.Errorf("native: read bytes: %w", err)
	}
	return b, nil
}
