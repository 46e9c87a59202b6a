package diff

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"

	"rea/core"
	"rea/ports"
)

// binSide is one binary opened for whole-binary matching.
type binSide struct {
	path     string
	target   ports.Target
	provider ports.ProviderInfo
	funcs    []*fnFacts
	byAddr   map[uint64]int // function start -> index in funcs
	imports  []string       // the imports' identities, sorted (importIdentities)
	callers  [][]int        // callers[i]: functions that call funcs[i]
	lim      []string
	// symtab says the binary has a symbol table (some procedure was found
	// through it); names holds every name the binary gives an address;
	// versioned holds the names that also come with a symbol version
	// (stderr beside stderr@GLIBC_2.2.5): a shared library's, which the
	// dynamic symbols give, so a stripped build would too.
	symtab    bool
	names     map[string]bool
	versioned map[string]bool
	// strs are the binary's string values (nil when the provider lists
	// none); data are its data sections' SHA-256 digests by name (data.go).
	strs []string
	data map[string]string
	// segs are the binary's sections and load segments (nil when the
	// provider lists none): what mapped reads.
	segs []ports.Segment
}

// mapped reports an address inside one of the binary's sections or load
// segments; with none listed, nothing is.
func (s *binSide) mapped(v uint64) bool {
	return ports.Holding(s.segs, v) != nil
}

// sectionEnd reports the section whose end (one past its last byte) is
// v, if any, and whether no section holds v. Sections of size 0 and
// unloaded ones (address 0) have no end here.
func (s *binSide) sectionEnd(v uint64) sectionEnd {
	var e sectionEnd
	held := false
	for _, g := range s.segs {
		if g.Kind != "section" || g.Start == 0 || g.Size == 0 {
			continue
		}
		if g.Start+g.Size == v && e.Name == "" {
			e.Name = g.Name
		}
		held = held || v >= g.Start && v-g.Start < g.Size
	}
	e.Gap = e.Name != "" && !held
	return e
}

// maxFunctionInstructions bounds the instructions decoded per function.
const maxFunctionInstructions = 5000

// openSide identifies path, selects a provider as open_binary would, and
// reads every function's facts. The analysis is closed before it returns.
func openSide(ctx context.Context, c *core.Call, path, provider string) (*binSide, error) {
	t, err := core.Identify(ctx, path)
	if err != nil {
		return nil, asOwnError(c.Op.Name, err)
	}
	b, err := c.SelectProvider(ctx, provider, t)
	if err != nil {
		return nil, err
	}
	if b == nil {
		return nil, &core.Error{Code: core.CodeCapabilityUnavailable, Message: c.Op.Name + ": no registered provider can analyze " + path,
			Remediation: "Pass native binaries (ELF, PE, Mach-O) that the built-in provider reads.",
			Details:     map[string]any{"path": path, "format": t.Format}}
	}
	a, err := b.Provider.Open(ctx, t)
	if err != nil {
		return nil, core.AsError(c.Op.Name, err)
	}
	defer a.Close(context.WithoutCancel(ctx))
	s := &binSide{path: path, target: t, provider: b.Provider.Info(), byAddr: map[uint64]int{}}
	if err := s.read(ctx, a); err != nil {
		return nil, core.AsError(c.Op.Name, err)
	}
	return s, nil
}

// symbolVersioned reports an ELF symbol name with a version suffix
// (stderr@GLIBC_2.2.5, memcpy@@GLIBC_2.14), not a PLT stub's @plt nor a
// stdcall decoration (_Sleep@4).
func symbolVersioned(name string) bool {
	i := strings.IndexByte(name, '@')
	if i <= 0 || strings.HasSuffix(name, "@plt") {
		return false
	}
	v := strings.TrimPrefix(name[i+1:], "@")
	return v != "" && (v[0] == '_' || v[0] >= 'A' && v[0] <= 'Z' || v[0] >= 'a' && v[0] <= 'z')
}

func (s *binSide) read(ctx context.Context, a ports.Analysis) error {
	pl, ok1 := a.(ports.ProcedureLister)
	fa, ok2 := a.(ports.FunctionAnalyzer)
	if !ok1 || !ok2 {
		return fmt.Errorf("provider %s does not list procedures and analyze functions: %w", s.provider.ID, ports.ErrUnsupported)
	}
	procs, err := pl.Procedures(ctx)
	if err != nil {
		return err
	}
	if !sort.SliceIsSorted(procs, func(i, j int) bool { return procs[i].Address < procs[j].Address }) {
		procs = slices.Clone(procs) // the list is shared: sort a copy
		sort.Slice(procs, func(i, j int) bool { return procs[i].Address < procs[j].Address })
	}
	names := map[uint64]string{}
	aliases := map[uint64][]string{} // every name at an address
	labels := map[uint64]string{}    // import labels: a slot's, or a stub's
	if nl, ok := a.(ports.NameLister); ok {
		ns, err := nl.Names(ctx)
		if err != nil && !errors.Is(err, ports.ErrUnsupported) {
			return err
		}
		for _, n := range ns {
			// Of several names at one address, a symbol version's
			// (stderr@GLIBC_2.2.5, a copy relocation's .symtab name) never
			// replaces a plain one (the dynamic symbol's stderr), which a
			// stripped build gives too.
			if old, ok := names[n.Address]; n.Name != "" && (!ok || !symbolVersioned(n.Name) || symbolVersioned(old)) {
				names[n.Address] = n.Name
			}
			if n.Name != "" && !symbolVersioned(n.Name) && !slices.Contains(aliases[n.Address], n.Name) {
				aliases[n.Address] = append(aliases[n.Address], n.Name)
			}
			if symbolVersioned(n.Name) {
				if s.versioned == nil {
					s.versioned = map[string]bool{}
				}
				s.versioned[n.Name[:strings.IndexByte(n.Name, '@')]] = true
			}
			if _, dup := labels[n.Address]; n.Kind == "import" && n.Name != "" && !dup {
				labels[n.Address] = n.Name
			}
		}
	}
	for _, p := range procs {
		if p.Name != "" {
			names[p.Address] = p.Name
		}
	}
	var strs []ports.String
	if sl, ok := a.(ports.StringLister); ok {
		if strs, err = sl.Strings(ctx); err != nil && !errors.Is(err, ports.ErrUnsupported) {
			return err
		}
		sort.Slice(strs, func(i, j int) bool { return strs[i].Address < strs[j].Address })
	} else {
		s.lim = append(s.lim, "The provider lists no strings: the strings dimension is unknown.")
	}
	if strs != nil {
		// A build ID or a hash table can hold a printable run that is no
		// string of the program's.
		s.strs = make([]string, 0, len(strs))
		for _, x := range strs {
			if !layoutSection(x.Section) {
				s.strs = append(s.strs, x.Value)
			}
		}
	}
	if err := s.readData(ctx, a); err != nil {
		return err
	}
	stringAt := func(addr uint64) (string, bool) {
		i := sort.Search(len(strs), func(i int) bool { return strs[i].Address > addr }) - 1
		if i >= 0 && addr < strs[i].Address+uint64(max(strs[i].ByteLength, 1)) {
			return strs[i].Value, true
		}
		return "", false
	}
	xr, hasXR := a.(ports.CrossReferencer)
	if !hasXR {
		s.lim = append(s.lim, "The provider finds no references: the references and strings dimensions are unknown.")
	}
	isProc := map[uint64]bool{}
	local := map[string]bool{} // names of the binary's own functions
	for _, p := range procs {
		isProc[p.Address] = true
		s.symtab = s.symtab || p.Source == "symbol"
		if !p.External && !p.Thunk && p.Name != "" {
			local[p.Name] = true
		}
	}
	s.names = make(map[string]bool, len(names))
	for _, n := range names {
		s.names[n] = true
	}
	imports, home := importIdentities(procs, labels, local)
	s.imports = slices.Sorted(maps.Keys(home))
	for _, p := range procs {
		if err := ctx.Err(); err != nil {
			return err
		}
		if p.External || p.Thunk {
			continue
		}
		fn, err := fa.Function(ctx, ports.FunctionRequest{Address: p.Address, MaxInstructions: maxFunctionInstructions})
		if err != nil {
			if errors.Is(err, ports.ErrNotFound) || errors.Is(err, ports.ErrMalformed) || errors.Is(err, ports.ErrUnsupported) {
				s.lim = append(s.lim, fmt.Sprintf("%s: not decoded (%v).", displayName(p.Name, p.Address), err))
				continue
			}
			return err
		}
		f := &fnFacts{Name: displayName(p.Name, p.Address), Address: p.Address, Start: fn.Start, End: max(fn.End, fn.Start+1),
			Placeholder: p.Source == "entry" && p.Name == "entry"}
		partial := ""
		if fn.Truncated || len(fn.Instructions) < fn.InstructionCount {
			partial = fmt.Sprintf("only the first %d of %d instructions were decoded", len(fn.Instructions), fn.InstructionCount)
		}
		var refs []ports.Reference
		if hasXR {
			if refs, err = xr.ReferencesFrom(ctx, f.Start, f.End); err != nil && !errors.Is(err, ports.ErrNotFound) {
				return err
			}
		}
		refFrom := map[uint64][]uint64{}
		// touched holds the addresses the function reads or writes, or
		// calls or jumps to, rather than only taking them (lea).
		touched := map[uint64]bool{}
		for _, x := range refs {
			if !x.Unresolved && x.Kind != ports.RefAddress {
				touched[x.To] = true
			}
		}
		f.Refs, f.Strings, f.Calls = []string{}, []string{}, []callee{}
		seenS, seenN, seenC := map[string]bool{}, map[string]bool{}, map[uint64]bool{}
		slotJumps := map[uint64]uint64{} // an unresolved jump through an import's slot -> the slot
		// callImport records a call to import id through addr, its stub or
		// its slot: one callee at the import's home.
		callImport := func(addr uint64, id string) {
			if h := home[id]; !seenC[h] {
				seenC[h] = true
				shown := labels[addr] // the slot's import name, not a COFF __imp_ symbol
				if isProc[addr] {
					shown = names[addr]
				}
				f.Calls = append(f.Calls, callee{Addr: h, Name: shown, Import: id})
			}
		}
		// addRef records a named reference; an import is one reference
		// whether made to its stub or to its slot.
		addRef := func(to uint64) {
			n, id := names[to], imports[to]
			seen := n
			if id != "" {
				seen = "\x00" + id
			}
			if n == "" {
				e := s.sectionEnd(to)
				if e.Gap && !seenN["\x01"+e.Name] {
					seenN["\x01"+e.Name] = true
					f.LooseEnds = append(f.LooseEnds, e.Name)
				}
				if e.Name != "" && !touched[to] && !seenN["\x02"+e.Name] {
					seenN["\x02"+e.Name] = true
					f.TakenEnds = append(f.TakenEnds, e.Name)
				}
			}
			if n != "" && !seenN[seen] {
				seenN[seen] = true
				f.Refs, f.RefAddrs, f.RefImports = append(f.Refs, n), append(f.RefAddrs, to), append(f.RefImports, id)
				e := s.sectionEnd(to)
				e.Taken = e.Name != "" && !touched[to]
				f.RefEnds = append(f.RefEnds, e)
				var also []string
				if len(aliases[to]) > 1 {
					also = aliases[to]
				}
				f.RefAliases = append(f.RefAliases, also)
			}
		}
		for _, x := range refs {
			if x.Unresolved {
				// A call or jump through an import's slot that the provider
				// leaves unresolved with its slot (rea-native resolves both
				// to the slot; another engine may not) still calls the
				// import: gcc -fno-plt's tail call, jmp [rip+GOT].
				if id := imports[x.Slot]; id != "" && !isProc[x.Slot] && (x.Kind == ports.RefCall || x.Kind == ports.RefJump) {
					callImport(x.Slot, id)
					if x.Kind == ports.RefJump {
						slotJumps[x.From] = x.Slot
					}
				}
				continue
			}
			refFrom[x.From] = append(refFrom[x.From], x.To)
			if x.Kind == ports.RefCall || x.Kind == ports.RefJump {
				if x.To >= f.Start && x.To < f.End {
					continue
				}
				if id := imports[x.To]; id != "" && (isProc[x.To] || x.Kind == ports.RefCall || x.Kind == ports.RefJump) {
					// A call or tail call to an import's stub, or through
					// its slot (resolved, to the slot, as procedure_callees
					// says), calls the import.
					callImport(x.To, id)
				} else if isProc[x.To] && !seenC[x.To] {
					seenC[x.To] = true
					f.Calls = append(f.Calls, callee{Addr: x.To, Name: names[x.To]})
				}
				addRef(x.To)
				continue
			}
			if v, ok := stringAt(x.To); ok {
				if !seenS[v] {
					seenS[v] = true
					f.Strings = append(f.Strings, v)
				}
				continue
			}
			addRef(x.To)
		}
		if !hasXR {
			f.Refs, f.RefAddrs, f.RefImports, f.RefAliases, f.Strings, f.Calls = nil, nil, nil, nil, nil, nil
			f.RefEnds, f.LooseEnds, f.TakenEnds = nil, nil, nil
			f.RefsReason, f.StrReason, f.CallsReason = "no references from the provider", "no references from the provider", "no references from the provider"
		} else if strs == nil {
			f.Strings, f.StrReason = nil, "no strings from the provider"
		}
		ins := make([]insn, len(fn.Instructions))
		for k, in := range fn.Instructions {
			flow := string(in.Flow)
			if flow == "" {
				flow = "next"
			}
			ins[k] = insn{Addr: in.Address, Mnemonic: in.Mnemonic, Operands: in.Operands, Flow: flow, Target: in.Target, HasTarget: in.HasTarget}
		}
		if partial != "" {
			f.InsnsReason = partial
		} else {
			f.Insns, f.Consts, f.Targets = normalize(ins, f.Start, f.End, func(a uint64) string { return names[a] }, refFrom, s.mapped)
			if f.Consts == nil {
				f.Consts = []string{}
			}
		}
		var bs []block
		for _, b := range fn.Blocks {
			x := block{Start: b.Start}
			for _, e := range b.Successors {
				ed := edge{Kind: e.Kind, Target: e.Target, Known: e.Kind != ports.EdgeUnresolved}
				if !ed.Known {
					for from, slot := range slotJumps {
						if from >= b.Start && from < b.End {
							// The stub's build has a tail-call edge here.
							ed = edge{Kind: ports.EdgeTailCall, Target: slot, Known: true}
						}
					}
				}
				x.Succ = append(x.Succ, ed)
			}
			bs = append(bs, x)
		}
		if fn.Truncated {
			f.CFGReason = "the provider stopped decoding this function at its cap"
		} else {
			f.CFG = shapeOf(bs)
		}
		s.byAddr[p.Address] = len(s.funcs)
		s.funcs = append(s.funcs, f)
	}
	s.callers = make([][]int, len(s.funcs))
	for i, f := range s.funcs {
		for _, x := range f.Calls {
			if j, ok := s.byAddr[x.Addr]; ok {
				s.callers[j] = append(s.callers[j], i)
			}
		}
	}
	return nil
}

// importIdentities names each import by one identity, whether a call goes
// to its stub (puts@plt, a PE or Mach-O thunk) or through its slot (gcc
// -fno-plt's call [rip+GOT], an IAT entry): the library function's name
// without a stub or version suffix (puts for puts@plt and
// memcpy@GLIBC_2.14), as core/binary's importStub reads a name. imports
// maps a stub's or a slot's address to its identity; home maps an identity
// to the lowest such address, where its calls are counted as one callee.
//
// A stub is an external procedure (puts@plt, even beside a static puts),
// or a thunk whose target is no function of the binary's own (frame_dummy's
// jmp register_tm_clones is none), whose name is no placeholder (libc's
// IRELATIVE *ABS*+0x9f550@plt is none); a slot is an import label where no
// procedure starts.
func importIdentities(procs []ports.Procedure, labels map[uint64]string, local map[string]bool) (imports map[uint64]string, home map[string]uint64) {
	imports, home = map[uint64]string{}, map[string]uint64{}
	add := func(addr uint64, name string) {
		id := importID(name)
		if id == "" {
			return
		}
		imports[addr] = id
		if h, ok := home[id]; !ok || addr < h {
			home[id] = addr
		}
	}
	isProc := make(map[uint64]bool, len(procs))
	for _, p := range procs {
		isProc[p.Address] = true
		if !p.External && !p.Thunk {
			continue
		}
		// An external stub (a PLT entry) names its import even when a
		// static function has the same name; only a thunk of the binary's
		// own (frame_dummy's jmp) can lead to a local function.
		if n := firstOf(p.ThunkTarget, p.Name); !isAutoName(n) && (p.External || !local[n]) {
			add(p.Address, n)
		}
	}
	for addr, n := range labels {
		if !isProc[addr] {
			add(addr, n)
		}
	}
	return imports, home
}

// importID is the identity of the import named name: name without a stub
// or version suffix, or "" for a placeholder name.
func importID(name string) string {
	if isAutoName(name) {
		return ""
	}
	id, _, _ := strings.Cut(name, "@")
	return id
}

// asOwnError names op in an error core.Identify made for open_binary: the
// caller asked compare_binaries, not open_binary.
func asOwnError(op string, err error) error {
	var e *core.Error
	if !errors.As(err, &e) {
		return err
	}
	c := *e
	if rest, ok := strings.CutPrefix(c.Message, "open_binary: "); ok {
		c.Message = op + ": " + rest
	}
	if c.Code == core.CodeUnsupportedTarget {
		c.Remediation = "Pass two native binaries (ELF, PE, Mach-O)."
	}
	if c.Details != nil && c.Details["operation"] == "open_binary" {
		c.Details = maps.Clone(c.Details)
		c.Details["operation"] = op
	}
	return &c
}

func displayName(name string, addr uint64) string {
	if name == "" {
		return fmt.Sprintf("sub_%x", addr)
	}
	return name
}
