package hopper

import (
	"context"
	"fmt"
	"slices"
	"sort"

	"rea/ports"
)

// maxBody is the most instructions rea asks Hopper for in one procedure.
const maxBody = 100_000

// FunctionRanges lists one range per procedure, in the procedures' order:
// from the entry to the end of Hopper's last basic block (the entry itself
// when Hopper reports no blocks).
func (a *Analysis) FunctionRanges(ctx context.Context) ([]ports.FunctionRange, error) {
	if _, err := a.Procedures(ctx); err != nil {
		return nil, err
	}
	a.cacheMu.Lock()
	defer a.cacheMu.Unlock()
	return slices.Clone(a.ranges), nil
}

type bodyJSON struct {
	Start        string `json:"start"`
	End          string `json:"end"`
	Truncated    bool   `json:"truncated"`
	Instructions []struct {
		Address  string  `json:"address"`
		Length   int     `json:"length"`
		Mnemonic string  `json:"mnemonic"`
		Operands string  `json:"operands"`
		Flow     string  `json:"flow"`
		Target   *string `json:"target"`
	} `json:"instructions"`
}

// Function decodes one procedure from Hopper's instructions (procedure_body);
// each instruction's bytes are read through ReadBytes, and the basic blocks
// are built here from the instructions' flows and direct targets.
func (a *Analysis) Function(ctx context.Context, req ports.FunctionRequest) (ports.Function, error) {
	if err := ctx.Err(); err != nil {
		return ports.Function{}, err
	}
	ranges, err := a.FunctionRanges(ctx)
	if err != nil {
		return ports.Function{}, err
	}
	i, ok := slices.BinarySearchFunc(ranges, req.Address, func(r ports.FunctionRange, x uint64) int {
		switch {
		case r.Start < x:
			return -1
		case r.Start > x:
			return 1
		}
		return 0
	})
	if !ok {
		return ports.Function{}, fmt.Errorf("hopper: no procedure starts at %s: %w", formatAddress(req.Address), ports.ErrNotFound)
	}
	fr := ranges[i]
	f := ports.Function{FunctionRange: fr, Syntax: "hopper"}
	if fr.End == fr.Start {
		return f, nil
	}
	var body bodyJSON
	if err := a.query(ctx, "procedure_body", map[string]any{"procedure": formatAddress(fr.Start), "max_instructions": maxBody}, &body); err != nil {
		return ports.Function{}, err
	}
	code, err := a.ReadBytes(ctx, fr.Start, int(min(fr.End-fr.Start, 1<<24)))
	if err != nil {
		return ports.Function{}, err
	}
	next := fr.Start
	var all []ports.Instruction
	for _, in := range body.Instructions {
		addr, err := parseAddress(in.Address)
		if err != nil {
			return ports.Function{}, err
		}
		flow, ok := ports.ParseFlow(in.Flow)
		if !ok || in.Length < 1 || addr != next || addr+uint64(in.Length) > fr.End || in.Mnemonic == "" {
			return ports.Function{}, fmt.Errorf("hopper: procedure_body %s: %w: instruction at %s out of shape", formatAddress(fr.Start), errProtocol, in.Address)
		}
		off := addr - fr.Start
		if off+uint64(in.Length) > uint64(len(code)) {
			break // past the file bytes: nothing more to decode
		}
		ins := ports.Instruction{Address: addr, Bytes: slices.Clone(code[off : off+uint64(in.Length)]), Mnemonic: in.Mnemonic,
			Operands: in.Operands, Text: in.Mnemonic, Flow: flow}
		if in.Operands != "" {
			ins.Text += " " + in.Operands
		}
		if in.Target != nil && (flow == ports.FlowCall || flow == ports.FlowJump || flow == ports.FlowBranch) {
			t, err := parseAddress(*in.Target)
			if err != nil {
				return ports.Function{}, err
			}
			ins.Target, ins.HasTarget = t, true
		}
		all = append(all, ins)
		next = addr + uint64(in.Length)
	}
	f.InstructionCount = len(all)
	f.Truncated = body.Truncated
	f.Blocks = blocks(all, fr)
	n := len(all)
	if req.MaxInstructions > 0 {
		n = min(n, req.MaxInstructions)
	}
	f.Instructions = all[:n:n]
	return f, nil
}

// blocks splits a contiguous run of instructions into basic blocks: a block
// starts at the entry, at a direct jump or branch target inside the range,
// and after a jump, branch, return or stop; calls do not end blocks.
func blocks(ins []ports.Instruction, fr ports.FunctionRange) []ports.BasicBlock {
	if len(ins) == 0 {
		return nil
	}
	end := func(in ports.Instruction) uint64 { return in.Address + uint64(len(in.Bytes)) }
	inside := func(t uint64) bool { return t >= fr.Start && t < end(ins[len(ins)-1]) }
	leaders := map[uint64]bool{ins[0].Address: true}
	for i, in := range ins {
		switch in.Flow {
		case ports.FlowJump, ports.FlowBranch:
			if in.HasTarget && inside(in.Target) {
				leaders[in.Target] = true
			}
			fallthrough
		case ports.FlowReturn, ports.FlowStop:
			if i+1 < len(ins) {
				leaders[ins[i+1].Address] = true
			}
		}
	}
	var out []ports.BasicBlock
	for i := 0; i < len(ins); {
		b := ports.BasicBlock{Start: ins[i].Address}
		j := i
		for {
			b.Instructions++
			if j+1 >= len(ins) || leaders[ins[j+1].Address] {
				break
			}
			j++
		}
		last := ins[j]
		b.End = end(last)
		edge := func(t uint64, kind string) ports.Edge {
			if !inside(t) {
				return ports.Edge{Kind: ports.EdgeTailCall, Target: t}
			}
			return ports.Edge{Kind: kind, Target: t}
		}
		switch last.Flow {
		case ports.FlowJump:
			if last.HasTarget {
				b.Successors = append(b.Successors, edge(last.Target, ports.EdgeJump))
			} else {
				b.Successors = append(b.Successors, ports.Edge{Kind: ports.EdgeUnresolved})
			}
		case ports.FlowBranch:
			if last.HasTarget {
				b.Successors = append(b.Successors, edge(last.Target, ports.EdgeBranch))
			} else {
				b.Successors = append(b.Successors, ports.Edge{Kind: ports.EdgeUnresolved})
			}
			if j+1 < len(ins) {
				b.Successors = append(b.Successors, ports.Edge{Kind: ports.EdgeFallthrough, Target: ins[j+1].Address})
			}
		case ports.FlowReturn, ports.FlowStop:
		default:
			if j+1 < len(ins) {
				b.Successors = append(b.Successors, ports.Edge{Kind: ports.EdgeFallthrough, Target: ins[j+1].Address})
			}
		}
		out = append(out, b)
		i = j + 1
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Start < out[j].Start })
	return out
}
