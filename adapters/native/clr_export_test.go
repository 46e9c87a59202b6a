package native

import (
	"fmt"
	"os"
)

// CILMethod is one method with a body, decoded, for the tests.
type CILMethod struct {
	Name      string
	Offsets   []int
	Mnemonics []string
	// Handlers are its exception clauses as ILAsm's raw form writes them:
	// try IL_0000 to IL_000c catch T handler IL_000c to IL_0014.
	Handlers []string
}

// CILMethods decodes every method with a body of the assembly at path, in
// metadata order (duplicated bodies once per method).
func CILMethods(path string) ([]CILMethod, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	img, err := newPE(source{r: f, size: st.Size(), format: "pe"})
	if err != nil {
		return nil, err
	}
	p := img.(*peImage)
	if p.clrErr != nil {
		return nil, p.clrErr
	}
	d := &cilDecoder{tok: p.clrTok}
	var out []CILMethod
	for _, m := range p.clrMethods {
		if m.code == 0 {
			continue
		}
		code, err := p.readRVA(m.code, uint64(m.size))
		if err != nil {
			return nil, err
		}
		cm := CILMethod{Name: m.name}
		for _, c := range m.eh {
			what := clauseKind(c.kind)
			switch c.kind {
			case clauseCatch:
				what += " " + p.clrTok.text(c.token)
			case clauseFilter:
				what += fmt.Sprintf(" IL_%04x", c.filter)
			}
			cm.Handlers = append(cm.Handlers, fmt.Sprintf("try IL_%04x to IL_%04x %s handler IL_%04x to IL_%04x",
				c.tryStart, c.tryEnd, what, c.handlerStart, c.handlerEnd))
		}
		for pc := 0; pc < len(code); {
			var in insn
			d.step(code[pc:], uint64(pc), &in)
			op, _, _, ok := decodeCIL(code[pc:])
			name := "(bad)"
			if ok {
				name = op.name
			}
			cm.Offsets, cm.Mnemonics = append(cm.Offsets, pc), append(cm.Mnemonics, name)
			pc += in.size
		}
		out = append(out, cm)
	}
	return out, nil
}
