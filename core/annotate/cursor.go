package annotate

import (
	"fmt"
	"sync"

	"rea/core"
	"rea/ports"
)

// cursors are a session's cursors, one per target (by sha256): the
// current document and address that goto_address and set_current_document
// move and the current_* tools read. close_binary drops them.
type cursors struct {
	mu sync.Mutex
	at map[string]position
}

type position struct {
	document string
	address  *uint64 // nil: the document has no address to start at
}

func cursorsOf(c *core.Call) *cursors {
	return c.State("annotate.cursor", func() any { return &cursors{at: map[string]position{}} }).(*cursors)
}

func sha(c *core.Call) string {
	_, _, t := c.Bound()
	if t == nil {
		return ""
	}
	return t.SHA256
}

// current returns the cursor of the bound target; a target never moved to
// starts at its first document's entry point, else the start of its first
// executable segment, else of its first segment.
func (cs *cursors) current(c *core.Call, v *view) position {
	cs.mu.Lock()
	defer cs.mu.Unlock()
	if p, ok := cs.at[sha(c)]; ok {
		return p
	}
	return initialPosition(v, v.docs[0].Name)
}

func initialPosition(v *view, doc string) position {
	p := position{document: doc}
	for _, d := range v.docs {
		if d.Name == doc && d.HasEntry {
			a := d.Entry
			p.address = &a
			return p
		}
	}
	for _, s := range v.segs {
		if s.Perms.Execute {
			a := s.Start
			p.address = &a
			return p
		}
	}
	if len(v.segs) > 0 {
		a := v.segs[0].Start
		p.address = &a
	}
	return p
}

func (cs *cursors) move(c *core.Call, p position) {
	cs.mu.Lock()
	defer cs.mu.Unlock()
	cs.at[sha(c)] = p
}

// ProcedureRef is a procedure in these tools' results: its analyst's name when
// it has one, with the engine's kept beside it.
type ProcedureRef struct {
	Address    string  `json:"address"`
	Name       string  `json:"name"`
	EngineName *string `json:"engine_name"`
	Start      string  `json:"start"`
	End        *string `json:"end"`
}

const procRefSchema = `{"type":"object","additionalProperties":false,"required":["address","name","engine_name","start","end"],
 "properties":{"address":{"$ref":"#/$defs/hex"},"name":{"type":"string","description":"The analyst's name (set_address_name) when there is one, else the engine's, else sub_<address>."},
  "engine_name":{"type":["string","null"],"description":"The engine's own name, kept when the analyst renamed it; null when the engine has none."},
  "start":{"$ref":"#/$defs/hex"},"end":{"anyOf":[{"type":"null"},{"$ref":"#/$defs/hex"}],"description":"End of the procedure's extent (exclusive), null when unknown."}}}`

// procedureAt is the procedure containing addr, or nil.
func procedureAt(v *view, ov *overlay, addr uint64) *ProcedureRef {
	i := v.containing(addr)
	if i < 0 {
		return nil
	}
	p := v.procs[i]
	r := &ProcedureRef{Address: core.Hex(p.Address), Start: core.Hex(p.Address), EngineName: core.OptString(p.Name)}
	r.Name = displayName(ov, p.Address, p.Name)
	if v.ranges != nil && v.ranges[i].End > v.ranges[i].Start {
		r.Start = core.Hex(v.ranges[i].Start)
		e := core.Hex(v.ranges[i].End)
		r.End = &e
	} else if p.Size > 0 {
		e := core.Hex(p.Address + p.Size)
		r.End = &e
	}
	return r
}

func displayName(ov *overlay, addr uint64, engine string) string {
	if n, ok := ov.get(ports.AnnotationName, addr); ok {
		return n
	}
	if engine != "" {
		return engine
	}
	return fmt.Sprintf("sub_%x", addr)
}

func addrOrNull(a *uint64) *string {
	if a == nil {
		return nil
	}
	h := core.Hex(*a)
	return &h
}
