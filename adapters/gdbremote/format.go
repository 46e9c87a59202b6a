package gdbremote

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"slices"
	"strings"

	"rea/ports"
	"rea/ports/libc"
)

// A printf format's arguments and where each arrives (ports/libc:
// ParseFormat, Convention.Place), named as this convention names
// registers and stack slots.

// placeFormat is where each argument arrives when the format is in the
// at-th of the convention's argument places: a register (rsi, xmm0, v1)
// or stack slots, joined by ","; a long double on the stack is one name,
// the slot where its bytes begin. ok is false under a convention with no
// C variadic arguments (Go's).
func (c convention) placeFormat(at int, args []libc.FormatArg) (places []string, ok bool) {
	if c.g != "" {
		return nil, false
	}
	lc := libc.Convention{Ints: len(c.args), Floats: len(c.floats), Word: int(c.word), LongDoubleInMemory: c.lr == ""}
	if c.onStack {
		lc.Ints = 0 // c.args name cdecl's slots
	}
	ps, ok := lc.Place(at+1, args)
	if !ok {
		return nil, false
	}
	base := uint64(0) // where the stack arguments begin: past the return address on x86
	if c.lr == "" {
		base = c.word
	}
	for k, p := range ps {
		switch {
		case p.Float >= 0:
			places = append(places, c.floats[p.Float])
		case p.Int >= 0:
			places = append(places, c.args[p.Int])
		case args[k].Kind == libc.ArgLongDouble:
			name, _ := c.slot(base + uint64(p.Stack))
			places = append(places, name)
		default:
			var names []string
			for n := 0; n < p.Size; n += int(c.word) {
				name, _ := c.slot(base + uint64(p.Stack+n))
				names = append(names, name)
			}
			places = append(places, strings.Join(names, ","))
		}
	}
	return places, true
}

// formatArgs is what a hit reads for its printf-style format (the text in
// strs whose register is bp.Format, or for a wide one, bp.WideFormat, the
// wchar_t text there, read first; for a scanf-style one, bp.Scan, only
// the pointers, whose targets are read at the return): the text of each %s conversion's
// argument (after the stack slots and floating-point registers it holds,
// which are not among the hit's arguments yet), the extra arguments, and,
// when the whole format was understood, every argument it takes as a
// parameter named by its conversion, placed where the extra arguments and
// the hit's registers say (nil otherwise).
func (s *session) formatArgs(ctx context.Context, bp ports.TraceBreakpoint, strs []ports.TraceString, regs map[string]uint64, wide map[string][]byte, have []ports.TraceRegister) (texts []ports.TraceString, extra []ports.TraceRegister, variadic []ports.Parameter, err error) {
	at := slices.Index(s.conv.args, bp.Format)
	i := slices.IndexFunc(strs, func(t ports.TraceString) bool { return t.Register == bp.Format })
	var format ports.TraceString
	switch {
	case at < 0:
		return nil, nil, nil, nil
	case bp.WideFormat: // wchar_t text, which the hit's Strings do not read
		if format, err = s.readString(ctx, bp.Format, regs[bp.Format], true); err != nil {
			return nil, nil, nil, err
		}
		texts = append(texts, format)
	case i >= 0:
		format = strs[i]
	default:
		return nil, nil, nil, nil
	}
	if format.Unreadable {
		return texts, nil, nil, nil
	}
	args, whole := libc.ParseFormat(format.Text)
	if bp.Scan {
		args, _, whole = s.conv.parseScan(format.Text) // pointers, read at the return
	}
	whole = whole && !format.Truncated // conversions past the bytes read are not known
	if bp.VaList != "" {
		more, extra, variadic, err := s.vaArgs(ctx, regs[bp.VaList], args, whole)
		return append(texts, more...), extra, variadic, err
	}
	places, ok := s.conv.placeFormat(at, args)
	if !ok {
		return texts, nil, nil, nil
	}
	known := func(name string) bool {
		return slices.ContainsFunc(have, func(r ports.TraceRegister) bool { return r.Name == name }) ||
			slices.ContainsFunc(extra, func(r ports.TraceRegister) bool { return r.Name == name })
	}
	for k, a := range args {
		value := uint64(0)
		for part, name := range strings.Split(places[k], ",") {
			off, slot := s.conv.slotOffset(name)
			switch {
			case slot && a.Kind == libc.ArgLongDouble:
				n := 10 // x87's extended value; AArch64's binary128 is 16 bytes
				if s.conv.lr != "" {
					n = 16
				}
				b, err := s.cl.readMemory(ctx, regs[s.conv.sp]+off, n)
				var er *errorReply
				if err != nil && !errors.As(err, &er) {
					return nil, nil, nil, err
				}
				if len(b) != n {
					whole = false // an unreadable stack: the value is not shown
					continue
				}
				extra = append(extra, wideRegister(name, b)) // beside the slot's word, when that is an argument too
			case slot:
				v, seen := regs[name]
				if !seen {
					var er *errorReply
					v, err = s.readAddr(ctx, regs[s.conv.sp]+off)
					if err != nil && !errors.As(err, &er) {
						return nil, nil, nil, err
					}
					regs[name] = v // an unreadable slot reads as a null pointer
				}
				if !known(name) {
					extra = append(extra, ports.TraceRegister{Name: name, Value: v})
				}
				if part == 0 {
					value = v
				}
			case slices.Contains(s.conv.floats, name):
				b, ok := wide[name]
				if !ok {
					whole = false // the target does not describe it
					continue
				}
				if !known(name) {
					extra = append(extra, wideRegister(name, b))
				}
			default:
				value = regs[name]
			}
		}
		if a.Kind == libc.ArgText || a.Kind == libc.ArgWideText {
			ts, err := s.readString(ctx, places[k], value, a.Kind == libc.ArgWideText)
			if err != nil {
				return nil, nil, nil, err
			}
			texts = append(texts, ts)
		}
		variadic = append(variadic, ports.Parameter{Name: a.Spec, Type: a.Type, Location: places[k]})
	}
	switch {
	case !whole:
		variadic = nil
	case variadic == nil:
		variadic = []ports.Parameter{} // a format of no conversion
	}
	return texts, extra, variadic, nil
}

// placeVariadic places, as place does the hit's own arguments (with the
// same reading of the memory map per stop), the words among slots (what
// formatArgs read past them: stack slots, a va_list's values) that a
// pointer conversion of the format takes (%s, %p, %n, a scanf's); a
// number's word is not placed. t and sp are the calling thread and its
// stack pointer.
func (s *session) placeVariadic(ctx context.Context, slots []ports.TraceRegister, params []ports.Parameter, t threadID, sp uint64) error {
	var words []ports.TraceRegister
	var at []int
	for i, r := range slots {
		if slices.ContainsFunc(params, func(p ports.Parameter) bool { return p.Location == r.Name && strings.HasSuffix(p.Type, "*") }) {
			words, at = append(words, r), append(at, i)
		}
	}
	if len(words) == 0 {
		return nil
	}
	if err := s.place(ctx, words, t, sp); err != nil {
		return err
	}
	for k, i := range at {
		slots[i] = words[k]
	}
	return nil
}

// scanStore is what a scanf conversion stores through its pointer: text
// up to a NUL (%s, %[...]; wchar_t units for %ls, %l[...]), else size
// bytes (%c: its width; a number: its type's size); with the m modifier
// (%ms), a pointer to text the call allocated.
type scanStore struct {
	text  bool
	wide  bool // the text is wchar_t
	alloc bool // the pointer stored points at the text (%ms, %m[...], %mc)
	size  int
	n     bool // %n: the count so far, which is no assignment
}

// parseScan is the pointers a scanf format takes, in order, typed by what
// each conversion stores (ports/libc.ParseScanf: a suppressed one, %*d,
// takes none), and what each stores on this target; ok is false at a
// conversion the scan does not know, a positional one, or an unterminated
// set, leaving those before it.
func (c convention) parseScan(f []byte) (args []libc.FormatArg, stores []scanStore, ok bool) {
	scanned, ok := libc.ParseScanf(f)
	for _, a := range scanned {
		args = append(args, a.FormatArg)
		stores = append(stores, scanStore{text: a.Text, wide: a.Wide, alloc: a.Alloc, n: a.Count, size: c.storeSize(a)})
	}
	return args, stores, ok
}

// storeSize is how many bytes a scanf conversion stores through its
// pointer on this target: %c's width in characters (wchar_t's 4 bytes
// each), a number's type's size (long and pointers a word, as Linux's
// ILP32 and LP64 have them; x87's long double 10, AArch64's 16); 0 for
// text, which ends at its NUL.
func (c convention) storeSize(a libc.ScanArg) int {
	switch {
	case a.Text:
		return 0
	case a.Chars > 0 && a.Wide:
		return 4 * a.Chars
	case a.Chars > 0:
		return a.Chars
	}
	switch strings.TrimPrefix(strings.TrimPrefix(a.Elem, "unsigned "), "signed ") {
	case "char":
		return 1
	case "short":
		return 2
	case "long", "size_t", "ptrdiff_t", "void *":
		return int(c.word)
	case "long long", "double":
		return 8
	case "long double":
		if c.lr != "" {
			return 16
		}
		return 10
	}
	return 4 // int, float
}

// readStored reads, at a scanf-style call's return, what the first
// assigned conversions (its result, when positive) stored through their
// pointers: text into ReturnStrings, other values into Stored, each named
// by where its pointer arrived. %n stores no assignment and is not read.
func (s *session) readStored(ctx context.Context, h *ports.TraceHit, format string) error {
	i := -1
	for k, t := range h.Strings {
		if t.Register == format {
			i = k // the last: a wide format's text follows any narrow read of its register
		}
	}
	assigned := int64(int32(h.ReturnValue)) // an int; EOF is -1
	if i < 0 || h.Variadic == nil || assigned <= 0 {
		return nil
	}
	_, stores, _ := s.conv.parseScan(h.Strings[i].Text)
	for k, st := range stores {
		if assigned == 0 || k >= len(h.Variadic) {
			break
		}
		if st.n {
			continue
		}
		assigned--
		loc, _, _ := strings.Cut(h.Variadic[k].Location, ",")
		var ptr uint64
		if at := slices.IndexFunc(h.Arguments, func(a ports.TraceRegister) bool { return a.Name == loc }); at >= 0 {
			ptr = h.Arguments[at].Value
		}
		if st.alloc { // the call stored a pointer to what it allocated
			var er *errorReply
			p, err := s.readAddr(ctx, ptr)
			if err != nil && !errors.As(err, &er) {
				return err
			}
			ptr = p // an unreadable pointer reads as null: what it points at is unreadable
		}
		if st.text {
			ts, err := s.readString(ctx, h.Variadic[k].Location, ptr, st.wide)
			if err != nil {
				return err
			}
			h.ReturnStrings = append(h.ReturnStrings, ts)
			continue
		}
		b, err := s.cl.readMemory(ctx, ptr, min(st.size, ports.MaxTraceString))
		var er *errorReply
		if err != nil && !errors.As(err, &er) {
			return err
		}
		r := ports.TraceRegister{Name: h.Variadic[k].Location}
		if err == nil {
			r = wideRegister(r.Name, b)
			r.Bytes = slices.Clone(b) // every stored value keeps its bytes, whatever its size
		}
		h.Stored = append(h.Stored, r)
	}
	return nil
}

// vaArgs reads a format's arguments through the va_list at ap (vprintf's):
// System V x86-64's structure (gp_offset, fp_offset, overflow_arg_area,
// reg_save_area), AAPCS64's (__stack, __gr_top, __vr_top, __gr_offs,
// __vr_offs), or on 32-bit x86 the arguments' address itself, walked as
// va_arg would. Each argument is named "va#1", "va#2"... (its value's bytes
// when not one word); a %s's text is read (a scanf format's conversions
// are pointers, whose targets are read at the return). Memory that cannot
// be read ends the walk and the variadic list.
func (s *session) vaArgs(ctx context.Context, ap uint64, args []libc.FormatArg, whole bool) (texts []ports.TraceString, extra []ports.TraceRegister, variadic []ports.Parameter, err error) {
	var gp, fp, overflow, save, grTop, vrTop uint64
	var grOffs, vrOffs int64
	sysv, aapcs := s.conv.name == ports.ConventionSysV, s.conv.name == ports.ConventionAAPCS64
	read := func(addr uint64, n int) ([]byte, bool, error) {
		b, err := s.cl.readMemory(ctx, addr, n)
		var er *errorReply
		if err != nil && !errors.As(err, &er) {
			return nil, false, err
		}
		return b, err == nil && len(b) == n, nil
	}
	switch {
	case sysv:
		b, ok, err := read(ap, 24)
		if err != nil || !ok {
			return nil, nil, nil, err
		}
		gp, fp = uint64(binary.LittleEndian.Uint32(b)), uint64(binary.LittleEndian.Uint32(b[4:]))
		overflow, save = binary.LittleEndian.Uint64(b[8:]), binary.LittleEndian.Uint64(b[16:])
	case aapcs:
		b, ok, err := read(ap, 32)
		if err != nil || !ok {
			return nil, nil, nil, err
		}
		overflow, grTop, vrTop = binary.LittleEndian.Uint64(b), binary.LittleEndian.Uint64(b[8:]), binary.LittleEndian.Uint64(b[16:])
		grOffs, vrOffs = int64(int32(binary.LittleEndian.Uint32(b[24:]))), int64(int32(binary.LittleEndian.Uint32(b[28:])))
	case s.conv.name == ports.ConventionCdecl:
		overflow = ap
	default:
		return nil, nil, nil, nil // Go's convention has no C va_list
	}
	stack := func(size, align uint64) uint64 {
		overflow = (overflow + align - 1) / align * align
		at := overflow
		overflow += size
		return at
	}
	for k, a := range args {
		var addr uint64
		n := int(s.conv.word)
		switch {
		case a.Kind == libc.ArgLongDouble && sysv:
			addr, n = stack(16, 16), 10
		case a.Kind == libc.ArgLongDouble && aapcs && vrOffs < 0:
			addr, n, vrOffs = uint64(int64(vrTop)+vrOffs), 16, vrOffs+16
		case a.Kind == libc.ArgLongDouble && aapcs:
			addr, n = stack(16, 16), 16
		case a.Kind == libc.ArgLongDouble:
			addr, n = stack(12, 4), 10
		case a.Kind == libc.ArgDouble && sysv && fp < 176:
			addr, n, fp = save+fp, 8, fp+16
		case a.Kind == libc.ArgDouble && aapcs && vrOffs < 0:
			addr, n, vrOffs = uint64(int64(vrTop)+vrOffs), 8, vrOffs+16
		case a.Kind == libc.ArgDouble || a.Kind == libc.ArgLongLong && s.conv.word == 4:
			addr, n = stack(8, s.conv.word), 8
		case sysv && gp < 48:
			addr, gp = save+gp, gp+8
		case aapcs && grOffs < 0:
			addr, grOffs = uint64(int64(grTop)+grOffs), grOffs+8
		default:
			addr = stack(s.conv.word, s.conv.word)
		}
		b, ok, err := read(addr, n)
		if err != nil {
			return nil, nil, nil, err
		}
		if !ok {
			return texts, extra, nil, nil
		}
		name := fmt.Sprintf("va#%d", k+1)
		r := wideRegister(name, b) // a 32-bit target's double or long long: one 8-byte value
		extra = append(extra, r)
		if a.Kind == libc.ArgText || a.Kind == libc.ArgWideText {
			ts, err := s.readString(ctx, name, r.Value, a.Kind == libc.ArgWideText)
			if err != nil {
				return nil, nil, nil, err
			}
			texts = append(texts, ts)
		}
		variadic = append(variadic, ports.Parameter{Name: a.Spec, Type: a.Type, Location: name})
	}
	switch {
	case !whole:
		variadic = nil
	case variadic == nil:
		variadic = []ports.Parameter{}
	}
	return texts, extra, variadic, nil
}

// readString reads the NUL-terminated text at addr for the argument named
// reg: char text as readText does, or wchar_t text as libc.WideString decodes Linux's 4-byte units,
// at most MaxTraceString units.
func (s *session) readString(ctx context.Context, reg string, addr uint64, wide bool) (ports.TraceString, error) {
	if !wide {
		return s.readText(ctx, reg, addr, ports.MaxTraceString, true)
	}
	raw, err := s.readText(ctx, reg, addr, 4*ports.MaxTraceString, false)
	if err != nil {
		return raw, err
	}
	text, end := libc.WideString(raw.Text, 4)
	return ports.TraceString{Register: reg, Text: text, Unreadable: raw.Unreadable, Truncated: !end && !raw.Unreadable}, nil
}
