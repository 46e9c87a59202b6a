package native

import (
	"os"
)

// CILMethod is one method with a body, decoded, for the tests.
type CILMethod struct {
	Name      string
	Offsets   []int
	Mnemonics []string
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
