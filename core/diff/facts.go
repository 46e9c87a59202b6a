package diff

import (
	"crypto/sha256"
	"encoding/hex"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
)

// fnFacts is what the comparison knows about one function, whether read
// from analyze_function Evidence or from an open analysis. A nil list with
// a reason means that dimension is unknown for this side.
type fnFacts struct {
	Name    string
	Address uint64
	Start   uint64
	End     uint64

	Insns       []string // normalized instruction text, in address order
	InsnsReason string
	Consts      []string // immediate operands that are not addresses
	Calls       []callee // direct call and tail-call targets
	CallsReason string
	Refs        []string // names of referenced data and code
	RefsReason  string
	// RefImports is parallel to Refs: a referenced import's identity
	// (callee.Import), else "".
	RefImports []string
	// Targets and RefAddrs say where the names in Insns and Refs point,
	// when the facts come from an open binary (nil from Evidence): a
	// comparison of two binaries names a matched function alike on both
	// sides, whatever each binary calls it.
	Targets  []insnTarget
	RefAddrs []uint64 // parallel to Refs
	// RefAliases is parallel to Refs when set: every name at a referenced
	// address that has several (the linker's __TMC_END__ and _edata
	// beside a copy-relocated stdout), else nil. Which one Refs shows
	// depends on what else the linker put there.
	RefAliases [][]string
	// RefEnds is parallel to Refs when set (facts from an open binary
	// that lists its sections): where a referenced address is one past a
	// section's last byte, that section, else the zero value. LooseEnds
	// lists such ends that references read where the binary gives no name
	// and no section holds the address (a stripped build's __TMC_END__).
	// A linker puts its markers there (__TMC_END__, _edata) and, in one
	// build and not another, the copy-relocated stdout that starts .bss:
	// compareFacts takes a reference of one side to a section's end for an
	// unnamed one of the other to the same section's end (sectionEnds).
	RefEnds   []sectionEnd
	LooseEnds []string
	// TakenEnds lists the section ends whose address the function only
	// takes (lea, never a read or write there) where the binary gives it
	// no name, whether or not a section holds it: crt's __TMC_END__ in a
	// stripped build whose .bss starts there with an unnamed variable.
	// Such an end pairs with the other side's reference that only takes
	// the same section's end, whatever that names it (sectionEnds).
	TakenEnds []string

	Strings   []string // values of referenced strings
	StrReason string
	CFG       *cfgShape
	CFGReason string
	// Placeholder says the engine named the function, not the binary: an
	// unnamed entry point is "entry".
	Placeholder bool
	// Indirect lists where the function calls or jumps through a register
	// or a table that the record leaves unresolved (a jump through an
	// import's slot aside): callees that Calls cannot name. Only facts read
	// from Evidence fill it.
	Indirect []uint64
}

// sectionEnd says that an address is one past the last byte of section
// Name; Gap, that no section holds it; Taken (set per function), that the
// function only takes the address there, never reading or writing it.
type sectionEnd struct {
	Name  string
	Gap   bool
	Taken bool
}

// unnamed reports a function the binary gives no name: an engine's sub_...
// or placeholder, which says nothing across builds.
func (f *fnFacts) unnamed() bool { return f.Placeholder || isAutoName(f.Name) }

// insnTarget is the name token of Insns[Index], which transfers to Addr.
type insnTarget struct {
	Index int
	Addr  uint64
	Token string
}

type callee struct {
	Addr uint64
	Name string
	// Import is the identity of the import called (importIdentities),
	// compared in place of Name: puts for puts@plt and for puts's slot.
	Import string
}

// key is what a callee is compared by when it is no matched function.
func (c callee) key() string { return firstOf(c.Import, stableName(c.Name)) }

// cfgShape is a function's control-flow shape: what survives relinking.
type cfgShape struct {
	Blocks int
	Edges  map[string]int // by edge kind
	Out    []int          // out-degree of each block, sorted
	In     []int          // in-degree of each block (inside the function), sorted
}

// insn is one decoded instruction as either source gives it.
type insn struct {
	Addr      uint64
	Mnemonic  string
	Operands  string
	Flow      string // next, call, jump, branch, return, stop
	Target    uint64
	HasTarget bool
}

// block is one basic block as either source gives it.
type block struct {
	Start uint64
	Succ  []edge
}

type edge struct {
	Kind   string
	Target uint64
	Known  bool
}

var (
	numberRe  = regexp.MustCompile(`#?-?\b(0x[0-9a-fA-F]+|[0-9]+)\b`)
	symbolRe  = regexp.MustCompile(`\s*<[^>]*>`)
	autoName  = regexp.MustCompile(`^(sub|fcn|FUN|func)_[0-9a-fA-F]+$`)
	spaceRe   = regexp.MustCompile(`\s+`)
	bracketRe = regexp.MustCompile(`\[[^\]]*\]`)
)

// isAutoName reports whether name is an engine's placeholder for an
// unnamed procedure (sub_401000), which says nothing across builds.
func isAutoName(name string) bool { return name == "" || autoName.MatchString(name) }

// stableName is name, or "sub" for a placeholder.
func stableName(name string) string {
	if isAutoName(name) {
		return "sub"
	}
	return name
}

// normalize turns instructions into text whose addresses are relative or
// symbolic: a transfer inside the function names L, one outside names its
// target ("sub" when unnamed), a RIP-relative
// displacement is DISP, and an operand equal to a referenced address is
// ADDR. What remains of the numbers are constants, returned apart; targets
// lists the lines that name a target outside the function, with the token
// they name it by. mapped, when not nil, says which absolute numbers lie in
// the binary's image: one from 1 MiB up that does is an address too, as a
// 32-bit PE's [4*ebx+0x409850] table is.
func normalize(ins []insn, start, end uint64, nameOf func(uint64) string, refFrom map[uint64][]uint64, mapped func(uint64) bool) (text, consts []string, targets []insnTarget) {
	starts := make(map[uint64]bool, len(ins)) // the function's instruction starts
	for _, in := range ins {
		starts[in.Addr] = true
	}
	bases := picBases(ins, refFrom)
	pages := pageBases(ins, start, end)
	text = make([]string, 0, len(ins))
	for k, in := range ins {
		ops := cutComment(in.Operands)
		if k > 0 && ins[k-1].Flow == "call" {
			// i386 position-independent code: after call __x86.get_pc_thunk.bx,
			// add ebx, OFFSET makes ebx the GOT's address, this
			// instruction's plus OFFSET. OFFSET moves with the code.
			if reg, v, ok := addImmediate(in.Mnemonic, ops); ok && (bases[in.Addr+v] ||
				strings.HasPrefix(nameOf(ins[k-1].Target), "__x86.get_pc_thunk.")) {
				text = append(text, in.Mnemonic+" "+reg+", ADDR")
				continue
			}
		}
		if strings.Contains(ops, "<") {
			ops = symbolRe.ReplaceAllString(ops, "")
		}
		if isTransfer(in) {
			var dst string
			if starts[in.Target] && in.Target >= start && in.Target < end {
				// A jump inside the function is L, whatever instruction it
				// reaches: an instruction added anywhere would renumber the
				// jumps over it (a switch's every case jumps over the added
				// one to the common exit). Where they go is the cfg
				// dimension's to compare.
				dst = "L"
			} else if in.Target >= start && in.Target < end {
				dst = "L?"
			} else {
				dst = stableName(nameOf(in.Target))
				targets = append(targets, insnTarget{Index: len(text), Addr: in.Target, Token: dst})
			}
			// The target is the last number: tbnz w1, #31, 0x17c4 tests a bit.
			if ns := numberRe.FindAllStringIndex(ops, -1); ns != nil && !strings.Contains(ops, "[") {
				n := ns[len(ns)-1]
				ops = ops[:n[0]] + dst + ops[n[1]:]
			} else {
				ops = dst
			}
			text = append(text, strings.TrimSpace(in.Mnemonic+" "+ops))
			continue
		}
		refs := refFrom[in.Addr]
		if mapped != nil {
			for rest := ops; ; {
				v, tail, ok := nextBigHex(rest)
				if !ok {
					break
				}
				if rest = tail; mapped(v) && !slices.Contains(refs, v) {
					refs = append(slices.Clip(refs), v)
				}
			}
		}
		// Without references the rest depends on the instruction's text
		// alone, which repeats across a binary's functions: memoized.
		key := normKey{in.Mnemonic, in.Operands}
		var page pageUse // a register holds an address from an adrp (pageBases)
		if pages != nil {
			page = pages[k]
		}
		paged := page.Base || page.Low
		if len(refs) == 0 && !paged {
			if v, ok := normMemo.get(key); ok {
				text = append(text, v.text)
				consts = append(consts, v.consts...)
				continue
			}
		}
		nConsts := len(consts)
		// Memory operands: a RIP- or PC-relative displacement is an address.
		ops = bracketRe.ReplaceAllStringFunc(ops, func(m string) string {
			if strings.Contains(m, "rip") || strings.Contains(m, "eip") || strings.Contains(m, "pc") {
				return unsigned(m, "DISP")
			}
			if len(refs) > 0 {
				m = numberRe.ReplaceAllStringFunc(m, func(s string) string {
					if v, ok := parseNumber(s); ok && v >= 0x1000 && slices.Contains(refs, v) {
						return "ADDR"
					}
					return s
				})
				if !strings.Contains(m, "ADDR") && !framePointerRe.MatchString(m) {
					// The engine knew the base register: its displacement
					// is part of the address referenced (i386's [ebx-0x1f81]
					// from the GOT, AArch64's [x8,#232] after adrp).
					m = unsigned(m, "ADDR")
				}
			} else if page.Base {
				m = unsigned(m, "ADDR") // an adrp page's low bits, or an offset from an address built on one
			}
			return m
		})
		// AArch64's add xD, xN, #LOW after adrp: the low 12 bits of the
		// address the engine resolved.
		// AArch64's adrp and adr form a PC-relative address; so does an
		// add of the low bits to a page pageBases finds, unresolved.
		pcRel := in.Mnemonic == "adrp" || in.Mnemonic == "adr" || page.Low
		lowBits := func(v uint64) bool {
			if pcRel {
				return true
			}
			if in.Mnemonic != "add" || strings.Contains(ops, "[") {
				return false
			}
			return slices.ContainsFunc(refs, func(r uint64) bool { return r&0xfff == v })
		}
		// Outside brackets: an address operand, or a constant; but the
		// size of a stack frame (sub rsp, 0x18) is the compiler's choice.
		outside := bracketRe.ReplaceAllString(ops, "")
		if !adjustsStack(ops) {
			for _, s := range numberRe.FindAllString(outside, -1) {
				v, ok := parseNumber(s)
				if ok && (pcRel || len(refs) > 0 && (slices.Contains(refs, v) || v >= 0x1000 || lowBits(v))) {
					continue
				}
				consts = append(consts, "0x"+strconv.FormatUint(v, 16))
			}
		}
		// Inside brackets: a displacement from a register other than the
		// stack or frame pointer is a constant of the program (a field
		// offset, lea eax, [rdi+rdi*8-0x5678]); a scale is not.
		for _, m := range bracketRe.FindAllString(ops, -1) {
			if strings.Contains(m, "DISP") || strings.Contains(m, "ADDR") || framePointerRe.MatchString(m) {
				continue
			}
			for _, loc := range numberRe.FindAllStringIndex(m, -1) {
				if loc[0] > 0 && m[loc[0]-1] == '*' || loc[1] < len(m) && m[loc[1]] == '*' {
					continue
				}
				num := strings.TrimPrefix(m[loc[0]:loc[1]], "#")
				neg := strings.HasPrefix(num, "-")
				if v, ok := parseNumber(strings.TrimPrefix(num, "-")); ok && v != 0 {
					c := "0x" + strconv.FormatUint(v, 16)
					if neg {
						c = "-" + c
					}
					consts = append(consts, c)
				}
			}
		}
		ops = replaceOutside(ops, func(s string) string {
			v, ok := parseNumber(s)
			if ok && (pcRel || len(refs) > 0 && (slices.Contains(refs, v) || v >= 0x1000 || lowBits(v))) {
				return "ADDR"
			}
			return s
		})
		text = append(text, strings.TrimSpace(spaceRe.ReplaceAllString(in.Mnemonic+" "+ops, " ")))
		if len(refs) == 0 && !paged {
			normMemo.put(key, normVal{text[len(text)-1], slices.Clone(consts[nConsts:])})
		}
	}
	slices.Sort(consts)
	return text, consts, targets
}

// nextBigHex finds the first hex literal of at least 1 MiB (0x and six to
// sixteen digits, standing as a word of its own, not negated) in s and
// returns its value and the rest of s after it. It reads the numbers
// numberRe and parseNumber would for the address-in-image rule, in one
// pass without a regular expression: most instructions of a large binary
// carry such a literal (a RIP displacement, a branch target).
func nextBigHex(s string) (v uint64, rest string, ok bool) {
	word := func(c byte) bool {
		return c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_'
	}
	hex := func(c byte) bool { return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F' }
	for {
		i := strings.Index(s, "0x")
		if i < 0 {
			return 0, "", false
		}
		before := byte(' ')
		if i > 0 {
			before = s[i-1]
		}
		d := s[i+2:]
		n := 0
		for n < len(d) && hex(d[n]) {
			n++
		}
		s = d[n:]
		if n < 6 || n > 16 || word(before) || before == '-' || len(s) > 0 && word(s[0]) {
			continue
		}
		if v, err := strconv.ParseUint(d[:n], 16, 64); err == nil && v >= 1<<20 {
			return v, s, true
		}
	}
}

// unsigned replaces each displacement in the memory operand m by word,
// whatever its sign: [rip-0x120] and [rip+0x120] are both [rip+DISP], as
// where the target lies is the layout's; AArch64's [x8,#232] is
// [x8,#ADDR]. A scale (*8) stays.
func unsigned(m, word string) string {
	var b strings.Builder
	last := 0
	for _, loc := range numberRe.FindAllStringIndex(m, -1) {
		if loc[0] > 0 && m[loc[0]-1] == '*' || loc[1] < len(m) && m[loc[1]] == '*' {
			continue
		}
		tok := m[loc[0]:loc[1]]
		hash := strings.HasPrefix(tok, "#")
		b.WriteString(m[last:loc[0]])
		switch {
		case hash:
			b.WriteString("#" + word)
		case strings.HasPrefix(tok, "-"):
			b.WriteString("+" + word)
		default:
			b.WriteString(word)
		}
		last = loc[1]
	}
	b.WriteString(m[last:])
	return b.String()
}

// picBases are the addresses a register holds in a function's memory
// operands that the engine resolved: a reference to R from [REG-D] says
// REG holds R+D (i386's GOT, from lea eax, [ebx-0x1f81]).
func picBases(ins []insn, refFrom map[uint64][]uint64) map[uint64]bool {
	var bases map[uint64]bool
	for _, in := range ins {
		refs := refFrom[in.Addr]
		if len(refs) == 0 {
			continue
		}
		for _, m := range bracketRe.FindAllString(cutComment(in.Operands), -1) {
			if strings.Contains(m, "*") || framePointerRe.MatchString(m) || strings.Contains(m, "rip") {
				continue
			}
			ns := numberRe.FindAllString(m, -1)
			if len(ns) != 1 {
				continue
			}
			neg := strings.HasPrefix(strings.TrimPrefix(ns[0], "#"), "-")
			d, ok := parseNumber(strings.TrimPrefix(strings.TrimPrefix(ns[0], "#"), "-"))
			if !ok {
				continue
			}
			for _, r := range refs {
				if bases == nil {
					bases = map[uint64]bool{}
				}
				if neg {
					bases[r+d] = true
				} else {
					bases[r-d] = true
				}
			}
		}
	}
	return bases
}

// addImmediate reads add REG, IMM: the register and the immediate.
func addImmediate(mnemonic, ops string) (reg string, v uint64, ok bool) {
	if mnemonic != "add" || strings.Contains(ops, "[") {
		return "", 0, false
	}
	reg, imm, found := strings.Cut(ops, ",")
	if !found || strings.Contains(imm, ",") {
		return "", 0, false
	}
	v, ok = parseNumber(strings.TrimSpace(imm))
	return strings.TrimSpace(reg), v, ok && v != 0
}

// framePointerRe matches a memory operand based on the stack or frame
// pointer, whose displacements are the frame's layout.
var framePointerRe = regexp.MustCompile(`\b(rsp|esp|rbp|ebp|sp|x29|fp)\b`)

// adjustsStack reports an instruction whose destination is the stack
// pointer (sub rsp, 0x18; add sp, sp, #0x20).
func adjustsStack(ops string) bool {
	dst, _, _ := strings.Cut(ops, ",")
	dst = strings.TrimSpace(dst)
	return dst == "rsp" || dst == "esp" || dst == "sp"
}

// isTransfer reports an instruction whose target normalize names.
func isTransfer(in insn) bool {
	return in.HasTarget && (in.Flow == "call" || in.Flow == "jump" || in.Flow == "branch")
}

// normMemo remembers the normalization of instructions without references
// (their mnemonic and operands decide it): most instructions of a binary
// repeat one another's text, and the regular expressions dominate the
// cost of reading a large binary. Bounded: it starts over when full.
var normMemo = &memo{m: map[normKey]normVal{}}

const maxNormMemo = 1 << 18

type normKey struct{ mnemonic, operands string }

type normVal struct {
	text   string
	consts []string
}

type memo struct {
	mu sync.Mutex
	m  map[normKey]normVal
}

func (c *memo) get(k normKey) (normVal, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	v, ok := c.m[k]
	return v, ok
}

func (c *memo) put(k normKey, v normVal) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.m) >= maxNormMemo {
		c.m = map[normKey]normVal{}
	}
	c.m[k] = v
}

// replaceOutside rewrites the numbers of ops that are outside brackets.
func replaceOutside(ops string, f func(string) string) string {
	var b strings.Builder
	depth, last := 0, 0
	flush := func(i int) {
		seg := ops[last:i]
		if depth == 0 {
			seg = numberRe.ReplaceAllStringFunc(seg, f)
		}
		b.WriteString(seg)
		last = i
	}
	for i := 0; i < len(ops); i++ {
		switch ops[i] {
		case '[':
			flush(i)
			depth++
		case ']':
			if depth > 0 {
				flush(i + 1)
				depth--
			}
		}
	}
	flush(len(ops))
	return b.String()
}

// cutComment drops an engine's trailing comment from operands: the text
// from the first of "  #", " // ", "\t#" and " ; " (each looked for in what
// the one before left), then outer spaces.
func cutComment(s string) string {
	// Most operands hold none: one pass for the separators' first two
	// bytes finds that without four searches.
	maybe := false
	for i := 0; i+1 < len(s) && !maybe; i++ {
		switch s[i] {
		case ' ':
			maybe = s[i+1] == ' ' || s[i+1] == '/' || s[i+1] == ';'
		case '\t':
			maybe = s[i+1] == '#'
		}
	}
	if !maybe {
		return strings.TrimSpace(s)
	}
	for _, sep := range []string{"  #", " // ", "\t#", " ; "} {
		if i := strings.Index(s, sep); i >= 0 {
			s = s[:i]
		}
	}
	return strings.TrimSpace(s)
}

func parseNumber(s string) (uint64, bool) {
	s = strings.TrimPrefix(s, "#")
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	var v uint64
	var err error
	if h, ok := strings.CutPrefix(strings.ToLower(s), "0x"); ok {
		v, err = strconv.ParseUint(h, 16, 64)
	} else {
		v, err = strconv.ParseUint(s, 10, 64)
	}
	if err != nil {
		return 0, false
	}
	if neg {
		v = -v
	}
	return v, true
}

// shapeOf derives the CFG shape of blocks.
func shapeOf(blocks []block) *cfgShape {
	s := &cfgShape{Blocks: len(blocks), Edges: map[string]int{}, Out: make([]int, 0, len(blocks)), In: make([]int, 0, len(blocks))}
	in := map[uint64]int{}
	for _, b := range blocks {
		s.Out = append(s.Out, len(b.Succ))
		for _, e := range b.Succ {
			s.Edges[e.Kind]++
			if e.Known {
				in[e.Target]++
			}
		}
	}
	for _, b := range blocks {
		s.In = append(s.In, in[b.Start])
	}
	slices.Sort(s.Out)
	slices.Sort(s.In)
	return s
}

// hash is the digest of the normalized instructions, or "" when unknown.
func (f *fnFacts) hash() string {
	if f.Insns == nil || len(f.Insns) == 0 {
		return ""
	}
	h := sha256.New()
	for _, s := range f.Insns {
		h.Write([]byte(s))
		h.Write([]byte{'\n'})
	}
	return hex.EncodeToString(h.Sum(nil))
}
