package gdbremote

import (
	"bytes"
	"context"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// Limits on a target description: the server is not trusted.
const (
	maxTdescDocs = 32
	maxRegisters = 4096
	maxRegBits   = 4096
)

// register is one register of the target description.
type register struct {
	name   string
	number int
	bits   int
	offset int // byte offset in the g packet; -1 when it follows an unknown gap
}

// tdesc is what the tracer needs of a target description.
type tdesc struct {
	arch   string // the <architecture> element, e.g. "i386:x86-64", "aarch64"
	regs   []register
	byName map[string]int // index into regs
}

// loadTdesc reads target.xml and its includes through qXfer:features:read.
func loadTdesc(ctx context.Context, cl *client) (*tdesc, error) {
	fetch := func(name string) ([]byte, error) { return cl.xfer(ctx, "features", name) }
	return parseTdesc(fetch)
}

// parseTdesc parses "target.xml", fetching includes with fetch. Registers
// are numbered in document order; a regnum attribute restarts the count.
func parseTdesc(fetch func(name string) ([]byte, error)) (*tdesc, error) {
	t := &tdesc{byName: map[string]int{}}
	next := 0
	docs := 0
	var walk func(name string, depth int) error
	walk = func(name string, depth int) error {
		docs++
		if docs > maxTdescDocs || depth > 4 {
			return protoErr("target description: too many or too deeply nested documents")
		}
		if strings.ContainsAny(name, ":/") && !strings.HasSuffix(name, ".xml") {
			return protoErr("target description: bad include %q", short(name))
		}
		data, err := fetch(name)
		if err != nil {
			return err
		}
		d := xml.NewDecoder(bytes.NewReader(data))
		d.Strict = false
		d.Entity = xml.HTMLEntity
		d.CharsetReader = func(string, io.Reader) (io.Reader, error) {
			return nil, errors.New("unsupported charset")
		}
		inArch := false
		for {
			tok, err := d.Token()
			if err == io.EOF {
				return nil
			}
			if err != nil {
				return protoErr("target description %s: %v", name, err)
			}
			switch el := tok.(type) {
			case xml.StartElement:
				switch el.Name.Local {
				case "architecture":
					inArch = true
				case "include":
					href := attr(el, "href")
					if href == "" {
						return protoErr("target description %s: include without href", name)
					}
					if err := walk(href, depth+1); err != nil {
						return err
					}
				case "reg":
					if len(t.regs) >= maxRegisters {
						return protoErr("target description: more than %d registers", maxRegisters)
					}
					r := register{name: attr(el, "name")}
					bits, err := strconv.Atoi(attr(el, "bitsize"))
					if err != nil || bits <= 0 || bits > maxRegBits || bits%8 != 0 {
						return protoErr("target description: register %q has bad bitsize", short(r.name))
					}
					r.bits = bits
					r.number = next
					if s := attr(el, "regnum"); s != "" {
						n, err := strconv.Atoi(s)
						if err != nil || n < 0 || n > 1<<16 {
							return protoErr("target description: register %q has bad regnum", short(r.name))
						}
						r.number = n
					}
					next = r.number + 1
					if _, dup := t.byName[r.name]; !dup && r.name != "" {
						t.byName[r.name] = len(t.regs)
					}
					t.regs = append(t.regs, r)
				}
			case xml.EndElement:
				if el.Name.Local == "architecture" {
					inArch = false
				}
			case xml.CharData:
				if inArch {
					t.arch += strings.TrimSpace(string(el))
				}
			}
		}
	}
	if err := walk("target.xml", 0); err != nil {
		return nil, err
	}
	t.layout()
	return t, nil
}

// layout computes g packet offsets: registers in number order, packed.
// Numbers that skip leave the offsets after the gap unknown.
func (t *tdesc) layout() {
	order := make([]int, len(t.regs))
	for i := range order {
		order[i] = i
	}
	// insertion sort by number: the list is almost always in order already
	for i := 1; i < len(order); i++ {
		for j := i; j > 0 && t.regs[order[j]].number < t.regs[order[j-1]].number; j-- {
			order[j], order[j-1] = order[j-1], order[j]
		}
	}
	off, want := 0, 0
	for _, i := range order {
		r := &t.regs[i]
		if r.number != want || off < 0 {
			off = -1
		}
		r.offset = off
		if off >= 0 {
			off += r.bits / 8
		}
		want = r.number + 1
	}
}

func attr(el xml.StartElement, name string) string {
	for _, a := range el.Attr {
		if a.Name.Local == name {
			return a.Value
		}
	}
	return ""
}

func (t *tdesc) reg(name string) (register, bool) {
	i, ok := t.byName[name]
	if !ok {
		return register{}, false
	}
	return t.regs[i], true
}

// archName maps the description's architecture to rea's names.
func (t *tdesc) archName() (string, error) {
	switch t.arch {
	case "i386:x86-64":
		return "x86-64", nil
	case "i386":
		return "x86", nil
	case "aarch64":
		return "arm64", nil
	}
	return "", fmt.Errorf("architecture %q: %w", short(t.arch), errUnsupportedArch)
}

var errUnsupportedArch = errors.New("unsupported architecture")
