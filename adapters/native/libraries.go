package native

import (
	"bytes"
	"cmp"
	"context"
	"crypto/sha256"
	"debug/elf"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"rea/ports"
)

// Signature libraries: the C library archives (or any ar archive or ELF
// relocatable object) whose functions name a target's unnamed procedures
// by their bytes (libpattern.go, libmatch.go). Matching runs when the
// target opens, over the procedures known before whole-file discovery
// (symbols, the entry point, .eh_frame, init arrays): so its result is
// fixed by the file and the libraries, the profile can say what it named,
// and every list, early or complete, holds the same names. It runs again
// over the procedures discovery found, when it completes (libdiscover.go).
// The open's result is kept in the warm cache's store (libcache.go), so
// that a second open of the same target with the same libraries reads
// neither.

// SignatureLibraries says which libraries name a target's functions.
type SignatureLibraries struct {
	// Paths are absolute paths of ar archives, ELF relocatable objects or
	// GNU ld scripts naming them (Debian's libm.a is one); they apply to
	// any ELF target whose machine their objects are built for.
	Paths []string
	// Installed adds, for a statically linked ELF target (no PT_INTERP,
	// no DT_NEEDED), the C library archives installed for its machine:
	// libc.a and libm.a in Debian's multiarch directory or its cross
	// directory (InstalledLibraries).
	Installed bool
}

// EnvSignatureLibraries names the setting cmd/rea reads: a colon-separated
// list of absolute paths; empty turns matching off; unset is the installed
// C library archives, for statically linked targets only.
const EnvSignatureLibraries = "REA_SIGNATURE_LIBRARIES"

// ParseSignatureLibraries reads EnvSignatureLibraries: unset (set false) is
// Installed, "" is nil (off), and every other entry must be an absolute
// path (empty entries are skipped).
func ParseSignatureLibraries(v string, set bool) (*SignatureLibraries, error) {
	if !set {
		return &SignatureLibraries{Installed: true}, nil
	}
	var out []string
	for _, p := range strings.Split(v, ":") {
		if p == "" {
			continue
		}
		if !filepath.IsAbs(p) {
			return nil, fmt.Errorf("%s: %q is not an absolute path", EnvSignatureLibraries, p)
		}
		out = append(out, filepath.Clean(p))
	}
	if len(out) == 0 {
		return nil, nil
	}
	return &SignatureLibraries{Paths: out}, nil
}

// libDirs are, per machine, the directories Debian installs its C library
// archives in: the native multiarch directory, then the cross one.
var libDirs = map[elf.Machine][]string{
	elf.EM_X86_64:  {"/usr/lib/x86_64-linux-gnu", "/usr/x86_64-linux-gnu/lib"},
	elf.EM_386:     {"/usr/lib/i386-linux-gnu", "/usr/i686-linux-gnu/lib"},
	elf.EM_AARCH64: {"/usr/lib/aarch64-linux-gnu", "/usr/aarch64-linux-gnu/lib"},
}

// InstalledLibraries are the C library archives installed for machine m:
// libc.a and libm.a of the first of its directories that holds a libc.a.
func InstalledLibraries(m elf.Machine) []string {
	for _, d := range libDirs[m] {
		c := filepath.Join(d, "libc.a")
		if st, err := os.Stat(c); err != nil || !st.Mode().IsRegular() {
			continue
		}
		out := []string{c}
		if st, err := os.Stat(filepath.Join(d, "libm.a")); err == nil && st.Mode().IsRegular() {
			out = append(out, filepath.Join(d, "libm.a"))
		}
		return out
	}
	return nil
}

const (
	// maxLibraryBytes bounds one library file, which is read whole
	// (libcrypto.a: 10 MB).
	maxLibraryBytes = 512 << 20
	// maxScriptBytes bounds a GNU ld script read for the libraries it names.
	maxScriptBytes = 64 << 10
)

// libUse is one library file the matcher read.
type libUse struct {
	path    string
	sha256  string
	matched int // procedures it named
}

// libResult is what the signature libraries did for one target.
type libResult struct {
	cands     []candidate  // the names given (source "library"), by address
	labels    []ports.Name // the same, as function labels
	used      []libUse
	ambiguous int      // procedures that equal functions of several names
	short     int      // procedures that equal only functions too short to name
	refuted   int      // procedures whose every match a call contradicted
	byCallers int      // procedures named by where named functions call them (libcallers.go)
	notes     []string // libraries not used, and why
	addr32    bool     // the target's addresses are 32 bits wide

	// What matching discovery's procedures needs (libdiscover.go): the
	// libraries to read again when the index is no longer held.
	paths   []string
	machine elf.Machine
	class   elf.Class
	files   []libFile // every file read, with its identity (libcache.go)
	nocache bool      // the result depends on more than the files

	mu      sync.Mutex
	ix      *libIndex // the patterns, until discovery has used them
	release func()    // the patterns' reservation
}

// dropIndex lets the patterns go and releases their reservation.
func (res *libResult) dropIndex() {
	res.mu.Lock()
	defer res.mu.Unlock()
	res.ix = nil
	if res.release != nil {
		res.release()
		res.release = nil
	}
}

// staticELF reports whether e is statically linked: no PT_INTERP and no
// DT_NEEDED.
func staticELF(e *elfImage) (static bool) {
	defer func() {
		if recover() != nil {
			static = false
		}
	}()
	for _, p := range e.f.Progs {
		if p.Type == elf.PT_INTERP {
			return false
		}
	}
	if e.f.Type != elf.ET_EXEC && e.f.Type != elf.ET_DYN {
		return false
	}
	need, err := e.f.DynString(elf.DT_NEEDED)
	return err == nil && len(need) == 0
}

// matchLibraries names the target's unnamed procedures from the configured
// libraries (at open, so that the profile can say what they named). A
// library that cannot be read is a limitation, never a failure of the
// open; a cancelled context is.
func (a *Analysis) matchLibraries(ctx context.Context) error {
	cfg := a.opts.SignatureLibraries
	e, ok := a.img.(*elfImage)
	if cfg == nil || !ok {
		return nil
	}
	paths := slices.Clone(cfg.Paths)
	if cfg.Installed && staticELF(e) {
		for _, p := range InstalledLibraries(e.f.Machine) {
			if !slices.Contains(paths, p) {
				paths = append(paths, p)
			}
		}
	}
	if len(paths) == 0 {
		return nil
	}
	res := &libResult{addr32: e.f.Class == elf.ELFCLASS32, paths: paths, machine: e.f.Machine, class: e.f.Class}
	a.lib = res
	switch e.f.Machine {
	case elf.EM_X86_64, elf.EM_386, elf.EM_AARCH64:
	default:
		res.notes = append(res.notes, fmt.Sprintf("Signature libraries name functions of x86-64, i386 and AArch64 targets only; this target is %s, so none of %s was read.", elfArch(e.f.Machine), strings.Join(paths, ", ")))
		return nil
	}
	key, cache := a.libCacheKey(ctx, paths)
	if cache && a.libCached(key, res) {
		return nil
	}
	ix, release, err := res.index(ctx)
	if err != nil || ix == nil {
		return err
	}
	set, err := a.symbolSet(ctx)
	if err != nil {
		release()
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return nil // the lists report it
	}
	mm := newMemMap(a.img)
	extra, err := tableStarts(ctx, a.src, a.img, mm, set.labels)
	if err != nil {
		release()
		return err
	}
	stubs, err := e.irelativeStubs(ctx, mm)
	if err != nil {
		release()
		return err
	}
	res.matchOpen(ctx, a.src, mm, ix, set.procs, extra, stubs)
	if err := ctx.Err(); err != nil {
		release()
		return err
	}
	// Kept for discovery's procedures (libdiscover.go), until it has run
	// or the analysis closes.
	res.ix, res.release = ix, release
	a.hold(res.dropIndex)
	if cache && !res.nocache {
		a.libStore(key, res)
	}
	return nil
}

// index reads the libraries into an index of their patterns, reserved
// against ctx's memory account, or takes the one another analysis holds
// for the same files (libshare.go); nil when they give none (the notes say
// why) or the reservation is refused (a note too).
func (res *libResult) index(ctx context.Context) (*libIndex, func(), error) {
	key, share := libShareKey(res.paths, res.machine, res.class) // libshare.go
	if share {
		if ix, release := res.sharedIndex(key); ix != nil {
			return ix, release, nil
		}
	}
	ix, release, err := res.build(ctx)
	if err != nil || ix == nil || !share || res.nocache {
		return ix, release, err
	}
	ix, release = res.share(key, ix, release)
	return ix, release, nil
}

// build reads the libraries and indexes their patterns.
func (res *libResult) build(ctx context.Context) (*libIndex, func(), error) {
	pats, err := res.load(ctx, res.paths, res.machine, res.class)
	if err != nil || len(pats) == 0 {
		return nil, nil, err
	}
	release, err := ports.Reserve(ctx, "the signature library patterns", patternBytes(pats))
	if err != nil {
		res.notes = append(res.notes, fmt.Sprintf("Signature libraries were not matched: %v.", err))
		res.used = nil
		res.nocache = true
		return nil, nil, nil
	}
	strong := map[string]bool{}
	for i := range pats {
		for _, n := range pats[i].strong {
			strong[n] = true
		}
	}
	keepStrongNames(pats, strong)
	return newLibIndex(pats), release, nil
}

// patternBytes is the memory the patterns hold.
func patternBytes(pats []libPattern) int64 {
	n := int64(0)
	for i := range pats {
		n += int64(2*len(pats[i].code)) + 128 + int64(16*(len(pats[i].aliases)+len(pats[i].strong)))
	}
	return n
}

// load reads the libraries at paths (a GNU ld script's, one level deep)
// and returns the patterns of the objects built for machine m.
func (res *libResult) load(ctx context.Context, paths []string, m elf.Machine, class elf.Class) ([]libPattern, error) {
	var pats []libPattern
	seen := map[string]bool{}
	var visit func(path string, depth int) error
	visit = func(path string, depth int) error {
		if seen[path] {
			return nil
		}
		seen[path] = true
		id, ok := fileIdentity(path)
		res.files = append(res.files, libFile{path: path, id: id})
		res.nocache = res.nocache || !ok
		f, err := os.Open(path)
		if err != nil {
			res.notes = append(res.notes, fmt.Sprintf("Signature library %s cannot be read (%v).", path, err))
			return nil
		}
		defer f.Close()
		st, err := f.Stat()
		if err != nil || !st.Mode().IsRegular() {
			res.notes = append(res.notes, fmt.Sprintf("Signature library %s is not a regular file.", path))
			return nil
		}
		if st.Size() > maxLibraryBytes {
			res.notes = append(res.notes, fmt.Sprintf("Signature library %s has %d bytes, more than the %d the engine reads.", path, st.Size(), maxLibraryBytes))
			return nil
		}
		var magic [8]byte
		n, _ := f.ReadAt(magic[:], 0)
		head := magic[:n]
		if !bytes.HasPrefix(head, []byte(arMagic)) && !bytes.HasPrefix(head, []byte(arThinMagic)) && !bytes.HasPrefix(head, []byte("\x7fELF")) {
			inputs, ok := ldScript(f, st.Size())
			if !ok {
				res.notes = append(res.notes, fmt.Sprintf("Signature library %s is neither an ar archive, an ELF object nor a GNU ld script naming them.", path))
				return nil
			}
			if depth > 0 {
				res.notes = append(res.notes, fmt.Sprintf("Signature library %s is a GNU ld script named by another; it is not followed.", path))
				return nil
			}
			for _, p := range inputs {
				if err := visit(p, depth+1); err != nil {
					return err
				}
			}
			return nil
		}
		// Mapped where the system allows (the page cache, not a copy),
		// else read whole into memory charged to the call.
		var whole []byte
		if mp := mapFile(f, st.Size()); mp != nil {
			defer mp.close()
			whole = mp.data
		} else {
			release, err := ports.Reserve(ctx, "a signature library", st.Size())
			if err != nil {
				res.notes = append(res.notes, fmt.Sprintf("Signature library %s is not read: %v.", path, err))
				return nil
			}
			defer release()
			whole = make([]byte, st.Size())
			if _, err := f.ReadAt(whole, 0); err != nil {
				res.notes = append(res.notes, fmt.Sprintf("Signature library %s cannot be read (%v).", path, err))
				return nil
			}
		}
		sum := fmt.Sprintf("%x", sha256.Sum256(whole))
		lib := len(res.used)
		var members []arMember
		if bytes.HasPrefix(head, []byte("\x7fELF")) {
			members = []arMember{{name: filepath.Base(path), off: 0, size: st.Size()}}
		} else if members, err = readArchive(bytes.NewReader(whole), st.Size()); err != nil {
			res.notes = append(res.notes, fmt.Sprintf("Signature library %s is not used: %v.", path, err))
			return nil
		}
		var stats objectStats
		others := map[elf.Machine]bool{}
		bad := 0
		before := len(pats)
		for k, mem := range members {
			if k%64 == 0 {
				if err := ctx.Err(); err != nil {
					return err
				}
			}
			var other elf.Machine
			pats, other, err = objectPatterns(whole[mem.off:mem.off+mem.size], m, class, lib, pats, &stats)
			if err != nil {
				bad++
				continue
			}
			if other != 0 {
				others[other] = true
			}
		}
		if len(pats) == before {
			why := "it holds no function of this target's machine"
			if len(others) > 0 {
				var ms []string
				for o := range others {
					ms = append(ms, elfArch(o))
				}
				slices.Sort(ms)
				why = fmt.Sprintf("it is built for another machine (%s), not %s", strings.Join(ms, ", "), elfArch(m))
			}
			res.notes = append(res.notes, fmt.Sprintf("Signature library %s names nothing: %s.", path, why))
			return nil
		}
		if bad > 0 {
			res.notes = append(res.notes, fmt.Sprintf("Signature library %s: %d of its %d members are not ELF objects that can be read; their functions are not matched.", path, bad, len(members)))
		}
		res.used = append(res.used, libUse{path: path, sha256: sum})
		return nil
	}
	for _, p := range paths {
		if err := visit(p, 0); err != nil {
			return nil, err
		}
	}
	return pats, nil
}

// ldScript reads the inputs a GNU ld script names in GROUP(...) or
// INPUT(...) (AS_NEEDED lists included): the absolute paths, in order.
func ldScript(f io.ReaderAt, size int64) ([]string, bool) {
	if size > maxScriptBytes {
		return nil, false
	}
	b := make([]byte, size)
	if n, _ := f.ReadAt(b, 0); int64(n) != size {
		return nil, false
	}
	// Comments out, parentheses apart.
	for {
		i := bytes.Index(b, []byte("/*"))
		if i < 0 {
			break
		}
		j := bytes.Index(b[i+2:], []byte("*/"))
		if j < 0 {
			return nil, false
		}
		b = append(b[:i:i], b[i+2+j+2:]...)
	}
	s := strings.NewReplacer("(", " ( ", ")", " ) ", ",", " ").Replace(string(b))
	var out []string
	depth, in := 0, false
	for _, tok := range strings.Fields(s) {
		switch {
		case tok == "(":
			depth++
		case tok == ")":
			depth--
			if depth <= 0 {
				in, depth = false, 0
			}
		case depth == 0 && (tok == "GROUP" || tok == "INPUT"):
			in = true
		case in && depth > 0 && filepath.IsAbs(tok):
			out = append(out, filepath.Clean(tok))
		}
	}
	return out, len(out) > 0
}

// matchSet is what one pass of matching works on: at open the procedures
// known before discovery (matchOpen), when discovery completes the ones
// it found (libdiscover.go).
type matchSet struct {
	addrs []uint64            // the procedures to try, sorted, unique
	skip  map[uint64]bool     // named already, or the middle of a function
	names map[uint64][]string // what the target's procedures are called
	size  map[uint64]uint64   // a procedure's length when known exactly (its FDE)
	room  map[uint64]uint64   // a procedure's range when its length is not known (discovery's)
	stubs map[uint64]uint64   // IRELATIVE PLT stubs: the resolver each one calls (libcallers.go)
}

// matchOpen names the unnamed procedures among procs and extra (the seeds
// of discovery) whose bytes equal a pattern's.
func (res *libResult) matchOpen(ctx context.Context, src source, mm *memMap, ix *libIndex, procs []candidate, extra []candidate, stubs map[uint64]uint64) {
	// What each address is called already, and which addresses may be
	// named: code, no name from a symbol (the entry point's synthetic
	// name is none), not the middle of a function (a cold part's FDE).
	ms := &matchSet{skip: map[uint64]bool{}, names: map[uint64][]string{}, size: map[uint64]uint64{}, stubs: stubs}
	for _, c := range procs {
		switch {
		case c.source == "entry":
		case c.name != "":
			ms.names[c.addr] = append(ms.names[c.addr], c.name)
			ms.skip[c.addr] = true
		}
		ms.addrs = append(ms.addrs, c.addr)
	}
	for _, c := range extra {
		if c.midFrame {
			ms.skip[c.addr] = true
		}
		if c.size > 0 && ms.size[c.addr] == 0 {
			ms.size[c.addr] = c.size
		}
		ms.addrs = append(ms.addrs, c.addr)
	}
	slices.Sort(ms.addrs)
	ms.addrs = slices.Compact(ms.addrs)
	res.cands = res.match(ctx, src, mm, ix, ms)
	for _, c := range res.cands {
		res.labels = append(res.labels, ports.Name{Address: c.addr, Name: c.name, Kind: "function"})
	}
}

// endsLife reports a short pattern whose calls are all of functions named
// as not returning (isNoReturn).
func endsLife(p *libPattern) bool {
	return len(p.calls) > 0 && !slices.ContainsFunc(p.calls, func(c libCall) bool { return c.next || !isNoReturn(c.target) })
}

// match names the procedures of ms whose bytes equal a pattern's and
// returns the names, by address; it counts what it did in res.
//
// A pattern of at least minFixedBits names a procedure when every call
// its object aims at a function lands on a procedure that is that
// function, unnamed, or a candidate to be it. A shorter one (a tail jump
// to another function, as glibc's qsort is to qsort_r) equals too much
// unrelated code for that: it names a procedure only when the procedure's
// length is its length (or, for one discovery found, the rest of its range
// is padding), it has at least one such call, and every one lands on a
// procedure already named exactly as the call expects (the name or one of
// its aliases), by a symbol or by an earlier step; the short patterns are
// tried in rounds, each reading the names the previous ones gave, until a
// round names nothing or maxShortRounds.
func (res *libResult) match(ctx context.Context, src source, mm *memMap, ix *libIndex, ms *matchSet) []candidate {
	code := int64(0)
	for _, r := range mm.regions {
		if r.exec {
			code += int64(r.fileSize)
		}
	}
	budget := 16*(code+patternBytes(ix.pats)) + 1<<20
	work := int64(0)
	cands := map[uint64][]int32{}
	var order []uint64
	shorts := map[uint64][]int32{}
	var shortOrder []uint64
	for k, addr := range ms.addrs {
		if k%4096 == 0 && ctx.Err() != nil {
			return nil
		}
		if ms.skip[addr] || !mm.isCode(addr) {
			continue
		}
		if work > budget {
			res.notes = append(res.notes, fmt.Sprintf("Signature matching stopped at 0x%x: the patterns compared exceeded the engine's work bound (%d bytes); later procedures were not matched.", addr, budget))
			break
		}
		code, err := mm.view(src, addr, uint64(ix.maxLen))
		if err != nil || len(code) == 0 {
			continue
		}
		var strong, short []int32
		sawShort := false
		room, hasRoom := ms.room[addr]
		work += int64(ix.lookup(code, func(i int32) {
			p := &ix.pats[i]
			n := uint64(len(p.code))
			if m := ms.size[addr]; m != 0 && m != n {
				return // its FDE says the procedure has another length
			}
			if p.fixed < minFixedBits && hasRoom && endsLife(p) {
				// A few bytes that end in a call of abort (a cold part,
				// mov ebx, [esp+8]; call abort, or glibc's static
				// _dl_start) are the same in many functions, which
				// discovery finds one by one once it knows the call does
				// not return (noreturn.go): they name none of them.
				return
			}
			if p.fixed < minFixedBits {
				if hasRoom && n > room {
					return // it runs into the next procedure
				}
				sawShort = true
				exact := ms.size[addr] == n || hasRoom && room <= uint64(len(code)) && padding(code[n:room], res.machine)
				if exact && len(p.calls) > 0 {
					short = append(short, i)
				}
				return
			}
			strong = append(strong, i)
		}))
		if len(strong) > 0 {
			slices.Sort(strong)
			cands[addr] = strong
			order = append(order, addr)
		} else if sawShort {
			slices.Sort(short)
			shorts[addr] = short
			shortOrder = append(shortOrder, addr)
		}
	}
	// Calls refute candidates: a call the object aims at S must land, in
	// the target, on a procedure that is S (or one of S's aliases) or has
	// no name. Each round reads the previous round's candidates, so the
	// result does not depend on the order addresses are visited in.
	refuted := map[uint64]bool{}
	for range maxCallRounds {
		next := map[uint64][]int32{}
		changed := false
		for _, addr := range order {
			var keep []int32
			for _, i := range cands[addr] {
				if res.callsAgree(src, mm, ix, addr, &ix.pats[i], ms.names, cands) {
					keep = append(keep, i)
				}
			}
			if len(keep) != len(cands[addr]) {
				changed = true
			}
			if len(keep) == 0 && len(cands[addr]) > 0 {
				refuted[addr] = true
			}
			if len(keep) > 0 {
				next[addr] = keep
			}
		}
		cands = next
		if !changed {
			break
		}
	}
	named := map[uint64]candidate{}
	pats := map[uint64]int32{} // the pattern each name given by bytes came from
	give := func(addr uint64, list []int32) bool {
		name, lib := ix.pats[list[0]].name, ix.pats[list[0]].lib
		for _, i := range list[1:] {
			if ix.pats[i].name != name {
				return false
			}
			lib = min(lib, ix.pats[i].lib)
		}
		res.used[lib].matched++
		named[addr] = candidate{addr: addr, name: name, size: uint64(len(ix.pats[list[0]].code)), source: "library", rank: rankLibrary}
		pats[addr] = list[0]
		return true
	}
	for _, addr := range order {
		if list := cands[addr]; len(list) > 0 && !give(addr, list) {
			res.ambiguous++
		}
	}
	// The short patterns, in rounds: each round's calls land on the names
	// given before it; then the procedures the named functions' calls
	// agree on are named (libcallers.go), and the short patterns tried
	// again on their names, until neither names anything.
	taken := map[string]uint64{} // the names given by callers, and where
	for range maxShortRounds {
		res.shortRounds(src, mm, ix, ms, shorts, shortOrder, named, taken, give)
		n := res.nameByCallers(src, mm, ix, ms, cands, named, pats, taken)
		n += res.resolveTaken(ix, order, cands, named, taken, give)
		n += res.resolveByCalls(src, mm, ix, ms, order, cands, named, give)
		if n == 0 {
			break
		}
	}
	for _, addr := range shortOrder {
		if _, ok := named[addr]; !ok && !refuted[addr] {
			res.short++
		}
	}
	for addr := range refuted {
		if _, ok := cands[addr]; !ok {
			if _, ok := named[addr]; !ok {
				res.refuted++
			}
		}
	}
	out := make([]candidate, 0, len(named))
	for _, c := range named {
		out = append(out, c)
	}
	slices.SortFunc(out, func(a, b candidate) int { return cmp.Compare(a.addr, b.addr) })
	return out
}

// shortRounds names, in rounds, the procedures of shortOrder whose short
// patterns' calls all land on procedures named as they expect, by a
// symbol or by the names given so far; give names one. A pattern whose
// name the callers gave another procedure is not this one (glibc's
// __chk_fail and __stack_chk_fail have the same bytes, and the callers
// tell which is which).
func (res *libResult) shortRounds(src source, mm *memMap, ix *libIndex, ms *matchSet, shorts map[uint64][]int32, shortOrder []uint64, named map[uint64]candidate, taken map[string]uint64, give func(uint64, []int32) bool) {
	for range maxShortRounds {
		add := map[uint64][]int32{}
		var addOrder []uint64
		for _, addr := range shortOrder {
			if _, ok := named[addr]; ok {
				continue
			}
			var keep []int32
			for _, i := range shorts[addr] {
				if at, ok := taken[ix.pats[i].name]; ok && at != addr {
					continue
				}
				if res.callsNamed(src, mm, ix, addr, &ix.pats[i], ms, named) {
					keep = append(keep, i)
				}
			}
			if len(keep) > 0 {
				add[addr] = keep
				addOrder = append(addOrder, addr)
			}
		}
		given := 0
		for _, addr := range addOrder {
			if give(addr, add[addr]) {
				given++
			}
		}
		if given == 0 {
			return
		}
	}
}

// callsAgree reports whether every call p's object aims at a function
// lands, with p at addr, on a procedure that is that function or unnamed.
func (res *libResult) callsAgree(src source, mm *memMap, ix *libIndex, addr uint64, p *libPattern, names map[uint64][]string, cands map[uint64][]int32) bool {
	for _, c := range p.calls {
		to, ok := res.landing(src, mm, addr, c)
		if !ok {
			return false
		}
		if r := mm.find(to); r != nil && r.plt {
			if _, named := names[to]; !named && !ix.ifuncOK(c.target) {
				return false // an unnamed stub in .plt: a static link's IRELATIVE stub
			}
		}
		if !ix.compatible(to, c.target, names, cands) {
			return false
		}
	}
	return true
}

// compatible reports whether the procedure at addr may be the function
// named target: it has no name, or a name that is target or one of its
// aliases (a PLT stub's name without "@plt"; an IRELATIVE stub, "*ABS*",
// stands for any IFUNC), or candidates one of which is target.
func (ix *libIndex) compatible(addr uint64, target string, names map[uint64][]string, cands map[uint64][]int32) bool {
	alias := func(n string) bool { return ix.isAlias(target, n) }
	if ns, ok := names[addr]; ok {
		for _, n := range ns {
			if strings.HasPrefix(n, "*ABS*") {
				// An IRELATIVE stub: a static link calls an IFUNC through
				// one, and only an IFUNC (musl's plain strcspn, which a
				// glibc program reaches through its stub, is no match).
				if ix.ifuncOK(target) {
					return true
				}
				continue
			}
			if alias(plainName(n)) {
				return true
			}
		}
		return false
	}
	list, ok := cands[addr]
	if !ok {
		return true
	}
	for _, i := range list {
		if alias(ix.pats[i].name) {
			return true
		}
	}
	return false
}

// isAlias reports whether n names the function target: n is target or
// an alias of a function named target.
func (ix *libIndex) isAlias(target, n string) bool {
	if n == target {
		return true
	}
	for _, i := range ix.byName[target] {
		if slices.Contains(ix.pats[i].aliases, n) {
			return true
		}
	}
	return false
}

// ifuncOK reports whether a call to target may go through an IRELATIVE
// stub: target is an IFUNC in the libraries, or not defined there.
func (ix *libIndex) ifuncOK(target string) bool {
	defs := ix.byName[target]
	return len(defs) == 0 || slices.ContainsFunc(defs, func(i int32) bool { return ix.pats[i].ifunc })
}

// libraryProfile is the profile's record of the libraries used, or nil.
func (a *Analysis) libraryProfile() map[string]any {
	r := a.lib
	if r == nil || len(r.used) == 0 {
		return nil
	}
	libs := make([]any, 0, len(r.used))
	for _, u := range r.used {
		libs = append(libs, map[string]any{"path": u.path, "sha256": u.sha256, "matched": u.matched})
	}
	return map[string]any{"libraries": libs, "ambiguous": r.ambiguous}
}

// libraryKey is the libraries' part of the warm cache key: "" without
// them, so that the key of a target without them is what it always was.
func (a *Analysis) libraryKey() string {
	r := a.lib
	if r == nil || len(r.used) == 0 {
		return ""
	}
	var b strings.Builder
	for _, u := range r.used {
		fmt.Fprintf(&b, " signature_library=%q sha256=%s", u.path, u.sha256)
	}
	return b.String()
}

// libraryNotes are the limitations the libraries add: what they named,
// what they did not and why.
func (a *Analysis) libraryNotes() []string {
	r := a.lib
	if r == nil {
		return nil
	}
	out := slices.Clone(r.notes)
	if len(r.used) == 0 {
		return out
	}
	named := 0
	var from []string
	for _, u := range r.used {
		named += u.matched
		from = append(from, fmt.Sprintf("%d from %s", u.matched, u.path))
	}
	s := fmt.Sprintf("Library functions: %d procedures without a symbol were named by comparing their bytes with the functions of signature libraries (source \"library\"; %s)", named, strings.Join(from, ", "))
	if r.byCallers > 0 {
		s += fmt.Sprintf("; %d of them, whose bytes alone do not tell (too short, as glibc's __chk_fail, or equal to functions of other names), by where the functions named call them: every named function's call of that name lands on it, at least %d of them, or the other names are at other procedures so called", r.byCallers, minCallers)
	}
	var not []string
	if r.ambiguous > 0 {
		not = append(not, fmt.Sprintf("%d equal functions of different names (ambiguous)", r.ambiguous))
	}
	if r.refuted > 0 {
		not = append(not, fmt.Sprintf("%d equal functions whose calls land elsewhere in this target", r.refuted))
	}
	if r.short > 0 {
		not = append(not, fmt.Sprintf("%d equal only functions of fewer than %d fixed bytes whose calls do not land on procedures of the names they expect (too short to name)", r.short, minFixedBits/8))
	}
	if len(not) > 0 {
		s += "; not named: " + strings.Join(not, ", ")
	}
	return append(out, s+". Procedures found only by whole-file discovery (no symbol, FDE or table entry) are matched when it completes: their names are in the procedure list (source \"library\"), not among these labels.")
}
