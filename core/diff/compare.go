package diff

import (
	"fmt"
	"math"
	"regexp"
	"slices"
	"sort"
	"strings"
)

// The dimensions every function comparison reports, in this order.
var dimensionNames = []string{"instructions", "calls", "references", "strings", "constants", "cfg"}

// weights of each dimension in the similarity score; unknown dimensions
// are left out and the rest renormalized.
var weights = map[string]float64{"instructions": 0.4, "calls": 0.15, "references": 0.05, "strings": 0.1, "constants": 0.1, "cfg": 0.2}

// maxListed bounds the differences listed per dimension; omitted counts
// the rest.
const maxListed = 64

// dimension is one compared aspect of two functions.
type dimension struct {
	Status     string   `json:"status"` // changed, unchanged, unknown
	Reason     *string  `json:"reason"`
	Similarity *float64 `json:"similarity"`
	Added      []string `json:"added"`
	Removed    []string `json:"removed"`
	Changes    []string `json:"changes"`
	Omitted    int      `json:"omitted"`
	// imports are the names in Added and Removed that stand for an import
	// (keyedSetDim); compare_binaries' calls differences carry them, so
	// find_changed_behavior need not guess an import from its name.
	imports []string
}

// functionDiff is the comparison of two functions.
type functionDiff struct {
	Status     string                `json:"status"` // changed, unchanged, unknown
	Similarity *float64              `json:"similarity"`
	Dimensions map[string]*dimension `json:"dimensions"`
	Changed    []string              `json:"changed_dimensions"`
	Unknown    []string              `json:"unknown_dimensions"`
	Notes      []string              `json:"notes"`
}

// compareOptions shape one comparison.
type compareOptions struct {
	// notComparable names dimensions that cannot be compared at all (for
	// example instructions across architectures), with the reason.
	notComparable map[string]string
	// calleeName gives the name a callee is compared under (side 0 is
	// left); nil compares keys (an import's identity, else a stable name).
	calleeName func(side int, c callee) string
	// symbol gives the name an address named tok is compared under in
	// instructions and references (a matched function's left name); nil
	// keeps the names.
	symbol func(side int, addr uint64, tok string) string
	// unnamed reports a reference, to addr named name, that only this
	// side can name: this binary has a symbol table and the other,
	// stripped, does not give the name. Such references are left out,
	// counted in *omittedRefs.
	unnamed     func(side int, addr uint64, name string) bool
	omittedRefs *int
}

// renamed is insns with each target token put through symbol, or insns
// itself when nothing changes.
func renamed(side int, insns []string, targets []insnTarget, symbol func(int, uint64, string) string) []string {
	out, cloned := insns, false
	for _, t := range targets {
		if to := symbol(side, t.Addr, t.Token); to != t.Token && t.Index < len(out) {
			if i := strings.LastIndex(out[t.Index], t.Token); i >= 0 {
				if !cloned {
					out, cloned = slices.Clone(insns), true
				}
				out[t.Index] = out[t.Index][:i] + to + out[t.Index][i+len(t.Token):]
			}
		}
	}
	return out
}

// comparedRefs is f's references as o compares them: an import by its
// identity (importIdentities), shown as this side names it (puts@plt, or
// the slot's puts); anything else by its name as o.symbol gives it.
//
// also maps a key to the other names at its address, when it has several
// (fnFacts.RefAliases); ends maps a key to the section end its address
// is, and loose lists the section ends read without a name kept here
// (fnFacts.LooseEnds, and references left out as unnamed), taken those
// only taken without one (fnFacts.TakenEnds, likewise).
func comparedRefs(side int, f *fnFacts, o compareOptions) (keys []string, shown map[string]string, also map[string][]string, ends map[string]sectionEnd, loose, taken []string) {
	keys, shown, also, ends = make([]string, 0, len(f.Refs)), map[string]string{}, map[string][]string{}, map[string]sectionEnd{}
	loose, taken = slices.Clone(f.LooseEnds), slices.Clone(f.TakenEnds)
	hasEnds := len(f.RefEnds) == len(f.Refs)
	bySymbol := o.symbol != nil && len(f.RefAddrs) == len(f.Refs)
	for i, n := range f.Refs {
		if i < len(f.RefImports) && f.RefImports[i] != "" {
			// Never unnamed: a stripped binary keeps its dynamic symbols.
			// Counted once, as its stub and its slot are one import.
			if id := f.RefImports[i]; shown[id] == "" {
				keys = append(keys, id)
				shown[id] = stableName(n)
			}
			continue
		}
		if bySymbol {
			n = o.symbol(side, f.RefAddrs[i], n)
			if o.unnamed != nil && o.unnamed(side, f.RefAddrs[i], n) {
				if o.omittedRefs != nil {
					*o.omittedRefs++
				}
				if hasEnds && f.RefEnds[i].Gap && !slices.Contains(loose, f.RefEnds[i].Name) {
					loose = append(loose, f.RefEnds[i].Name)
				}
				if hasEnds && f.RefEnds[i].Taken && !slices.Contains(taken, f.RefEnds[i].Name) {
					taken = append(taken, f.RefEnds[i].Name)
				}
				continue
			}
		}
		keys = append(keys, stableName(n))
		if _, ok := ends[stableName(n)]; hasEnds && f.RefEnds[i].Name != "" && !ok {
			ends[stableName(n)] = f.RefEnds[i]
		}
		if i < len(f.RefAliases) && len(f.RefAliases[i]) > 1 {
			also[stableName(n)] = f.RefAliases[i]
		}
	}
	return keys, shown, also, ends, loose, taken
}

// sameAddressNames renames a right reference to the left's name when the
// two differ only in which of an address's several names each binary
// shows: crt's deregister_tm_clones reads __TMC_END__, which one build
// names _edata and another, whose linker put the copy-relocated stdout
// there too, stdout. A left key missing on the right is paired with the
// first right key missing on the left whose names share one with it.
// A read or write of a section's end (le, re: comparedRefs' ends) is not
// paired so: it reads the object there, stderr in one build and stdout in
// the other, whatever markers share its address; only a reference that
// takes the address (tmc's lea) is.
func sameAddressNames(lk, rk []string, la, ra map[string][]string, le, re map[string]sectionEnd) []string {
	if len(la) == 0 && len(ra) == 0 {
		return rk
	}
	lc, rc := counts(lk), counts(rk)
	names := func(k string, also map[string][]string) []string { return append([]string{k}, also[k]...) }
	reads := func(e sectionEnd) bool { return e.Name != "" && !e.Taken }
	out, cloned := rk, false
	for _, k := range lk {
		if lc[k] <= rc[k] || reads(le[k]) {
			continue
		}
		for j, k2 := range out {
			if rc[k2] <= lc[k2] || reads(re[k2]) {
				continue
			}
			ln, rn := names(k, la), names(k2, ra)
			if !slices.ContainsFunc(ln, func(n string) bool { return slices.Contains(rn, n) }) {
				continue
			}
			if !cloned {
				out, cloned = slices.Clone(rk), true
			}
			out[j] = k
			rc[k]++
			rc[k2]--
			break
		}
	}
	return out
}

// sectionEnds drops from each side a reference the other side lacks when
// its address is one past the end of a section whose end the other side
// reads without a name (loose): two stripped builds of crt's
// deregister_tm_clones both read __TMC_END__, one past .data, which one
// build's linker followed by .bss's copy-relocated stdout (the dynamic
// symbol names it) and the other by alignment padding (nothing names it).
// A loose end lies in no section, so nothing of the program's is there;
// each is used once.
//
// A reference that only takes the address of a section's end (crt's "lea
// rdi, [rip+__TMC_END__]") likewise pairs with the other side's that only
// takes the same section's end, named otherwise or not named (taken):
// builds whose .bss starts at .data's end with the copy-relocated stderr
// in one and stdout in the other. A read or write there (the program's
// own use of stderr) is no such reference, and still shows.
func sectionEnds(keys [2][]string, ends [2]map[string]sectionEnd, loose, taken [2][]string) [2][]string {
	c := [2]map[string]int{counts(keys[0]), counts(keys[1])}
	extra := func(side int, k string) bool { return c[side][k] > c[1-side][k] }
	// Both named, differently: pair each left key with a right one.
	drop := [2]map[string]int{{}, {}}
	for _, k := range keys[0] {
		e := ends[0][k]
		if !e.Taken || !extra(0, k) {
			continue
		}
		for _, k2 := range keys[1] {
			if e2 := ends[1][k2]; e2.Taken && e2.Name == e.Name && extra(1, k2) {
				c[0][k]--
				c[1][k2]--
				drop[0][k]++
				drop[1][k2]++
				break
			}
		}
	}
	if len(loose[0]) == 0 && len(loose[1]) == 0 && len(taken[0]) == 0 && len(taken[1]) == 0 && len(drop[0]) == 0 {
		return keys
	}
	for side := range 2 {
		other := 1 - side
		free, freeTaken := slices.Clone(loose[other]), slices.Clone(taken[other])
		var kept []string
		for _, k := range keys[side] {
			if drop[side][k] > 0 {
				drop[side][k]--
				continue
			}
			if e := ends[side][k]; e.Name != "" && c[side][k] > c[other][k] {
				if j := slices.Index(free, e.Name); j >= 0 {
					free = slices.Delete(free, j, j+1)
					c[side][k]--
					continue
				}
				if j := slices.Index(freeTaken, e.Name); e.Taken && j >= 0 {
					freeTaken = slices.Delete(freeTaken, j, j+1)
					c[side][k]--
					continue
				}
			}
			kept = append(kept, k)
		}
		if kept == nil {
			kept = []string{}
		}
		keys[side] = kept
	}
	return keys
}

// keyedSetDim compares two multisets of keys and lists a difference by the
// name its side shows it by (shown[side][key], set for imports only), else
// by its key; imports are the listed names that shown gave.
func keyedSetDim(keys [2][]string, shown [2]map[string]string) *dimension {
	x := setDim(keys[0], keys[1])
	x.imports = []string{}
	for side, list := range [2][]string{x.Removed, x.Added} {
		for i, k := range list {
			if n, ok := shown[side][k]; ok {
				list[i] = n
				x.imports = append(x.imports, n)
			}
		}
	}
	sort.Strings(x.Removed)
	sort.Strings(x.Added)
	sort.Strings(x.imports)
	x.imports = slices.Compact(x.imports)
	return x
}

func unknownDim(reason string) *dimension {
	return &dimension{Status: "unknown", Reason: &reason, Added: []string{}, Removed: []string{}, Changes: []string{}}
}

func unchangedDim() *dimension {
	one := 1.0
	return &dimension{Status: "unchanged", Similarity: &one, Added: []string{}, Removed: []string{}, Changes: []string{}}
}

func sideReason(side int, reason string) string {
	return []string{"left", "right"}[side] + ": " + reason
}

// compareFacts compares two functions dimension by dimension.
func compareFacts(l, r *fnFacts, o compareOptions) *functionDiff {
	d := &functionDiff{Dimensions: map[string]*dimension{}, Changed: []string{}, Unknown: []string{}, Notes: []string{}}
	known := func(name string, lr, rr string, lnil, rnil bool) *dimension {
		if why, ok := o.notComparable[name]; ok {
			return unknownDim(why)
		}
		if lnil {
			return unknownDim(sideReason(0, lr))
		}
		if rnil {
			return unknownDim(sideReason(1, rr))
		}
		return nil
	}
	if x := known("instructions", l.InsnsReason, r.InsnsReason, l.Insns == nil, r.Insns == nil); x != nil {
		d.Dimensions["instructions"] = x
		d.Dimensions["constants"] = unknownDim(*x.Reason)
	} else {
		li, ri := l.Insns, r.Insns
		if o.symbol != nil {
			li, ri = renamed(0, li, l.Targets, o.symbol), renamed(1, ri, r.Targets, o.symbol)
		}
		d.Dimensions["instructions"] = sequenceDim(li, ri)
		if x := d.Dimensions["instructions"]; x.Status == "changed" && sameButRegisters(li, ri) {
			x.Changes = append(x.Changes, registersOnly)
		}
		if why, ok := o.notComparable["constants"]; ok {
			d.Dimensions["constants"] = unknownDim(why)
		} else {
			d.Dimensions["constants"] = setDim(l.Consts, r.Consts)
		}
	}
	if x := known("calls", l.CallsReason, r.CallsReason, l.Calls == nil, r.Calls == nil); x != nil {
		d.Dimensions["calls"] = x
	} else {
		name := o.calleeName
		if name == nil {
			name = func(_ int, c callee) string { return c.key() }
		}
		// An import is compared by its identity, once however many ways
		// a function calls it, but shown as the side calls it (puts@plt,
		// or puts through its slot).
		var keys [2][]string
		shown := [2]map[string]string{{}, {}}
		for side, cs := range [2][]callee{l.Calls, r.Calls} {
			for _, c := range cs {
				k := name(side, c)
				if c.Import != "" {
					if _, dup := shown[side][k]; dup {
						continue
					}
					shown[side][k] = stableName(c.Name)
				}
				keys[side] = append(keys[side], k)
			}
		}
		d.Dimensions["calls"] = keyedSetDim(keys, shown)
	}
	if x := known("references", l.RefsReason, r.RefsReason, l.Refs == nil, r.Refs == nil); x != nil {
		d.Dimensions["references"] = x
	} else {
		lk, ls, la, le, ll, lt := comparedRefs(0, l, o)
		rk, rs, ra, re, rl, rt := comparedRefs(1, r, o)
		rk = sameAddressNames(lk, rk, la, ra, le, re)
		keys := sectionEnds([2][]string{lk, rk}, [2]map[string]sectionEnd{le, re}, [2][]string{ll, rl}, [2][]string{lt, rt})
		d.Dimensions["references"] = keyedSetDim(keys, [2]map[string]string{ls, rs})
	}
	if x := known("strings", l.StrReason, r.StrReason, l.Strings == nil, r.Strings == nil); x != nil {
		d.Dimensions["strings"] = x
	} else {
		d.Dimensions["strings"] = setDim(l.Strings, r.Strings)
	}
	if x := known("cfg", l.CFGReason, r.CFGReason, l.CFG == nil, r.CFG == nil); x != nil {
		d.Dimensions["cfg"] = x
	} else {
		d.Dimensions["cfg"] = cfgDim(l.CFG, r.CFG)
	}
	d.finish()
	return d
}

// finish derives the overall status and similarity from the dimensions.
func (d *functionDiff) finish() {
	var sum, wsum float64
	for _, name := range dimensionNames {
		x := d.Dimensions[name]
		switch x.Status {
		case "changed":
			d.Changed = append(d.Changed, name)
		case "unknown":
			d.Unknown = append(d.Unknown, name)
			continue
		}
		if x.Similarity != nil {
			sum += weights[name] * *x.Similarity
			wsum += weights[name]
		}
	}
	switch {
	case len(d.Changed) > 0:
		d.Status = "changed"
	case len(d.Unknown) == len(dimensionNames):
		d.Status = "unknown"
	default:
		d.Status = "unchanged"
	}
	if wsum > 0 {
		s := round(sum / wsum)
		d.Similarity = &s
	}
	if d.Status == "unchanged" && len(d.Unknown) > 0 {
		d.Notes = append(d.Notes, fmt.Sprintf("Unchanged on the %d comparable dimensions; %d could not be compared (unknown_dimensions).",
			len(dimensionNames)-len(d.Unknown), len(d.Unknown)))
	}
}

// identical is the comparison of a record with itself.
func identical(note string) *functionDiff {
	d := &functionDiff{Dimensions: map[string]*dimension{}, Changed: []string{}, Unknown: []string{}, Notes: []string{note}}
	for _, name := range dimensionNames {
		d.Dimensions[name] = unchangedDim()
	}
	d.finish()
	return d
}

func round(f float64) float64 { return math.Round(f*1e4) / 1e4 }

// setDim compares two multisets of names.
func setDim(l, r []string) *dimension {
	lc, rc := counts(l), counts(r)
	d := &dimension{Added: []string{}, Removed: []string{}, Changes: []string{}}
	common := 0
	for k, n := range lc {
		common += min(n, rc[k])
		if n > rc[k] {
			d.Removed = append(d.Removed, k)
		}
	}
	for k, n := range rc {
		if n > lc[k] {
			d.Added = append(d.Added, k)
		}
	}
	sort.Strings(d.Added)
	sort.Strings(d.Removed)
	d.Added, d.Omitted = capList(d.Added, d.Omitted)
	d.Removed, d.Omitted = capList(d.Removed, d.Omitted)
	s := 1.0
	if len(l)+len(r) > 0 {
		s = round(2 * float64(common) / float64(len(l)+len(r)))
	}
	d.Similarity = &s
	d.Status = "unchanged"
	if len(d.Added)+len(d.Removed)+d.Omitted > 0 {
		d.Status = "changed"
	}
	return d
}

func capList(s []string, omitted int) ([]string, int) {
	if len(s) > maxListed {
		return s[:maxListed], omitted + len(s) - maxListed
	}
	return s, omitted
}

func counts(s []string) map[string]int {
	m := make(map[string]int, len(s))
	for _, x := range s {
		m[x]++
	}
	return m
}

// maxLCS bounds the quadratic instruction alignment; longer pairs compare
// as multisets.
const maxLCS = 4_000_000

// sequenceDim compares two instruction sequences: the lines only one side
// has, aligned by a longest common subsequence.
func sequenceDim(l, r []string) *dimension {
	if len(l)*len(r) > maxLCS {
		d := setDim(l, r)
		d.Changes = append(d.Changes, "aligned as multisets: the functions are too long for a line alignment")
		return d
	}
	n, m := len(l), len(r)
	dp := make([][]int32, n+1)
	for i := range dp {
		dp[i] = make([]int32, m+1)
	}
	for i := n - 1; i >= 0; i-- {
		for j := m - 1; j >= 0; j-- {
			if l[i] == r[j] {
				dp[i][j] = dp[i+1][j+1] + 1
			} else {
				dp[i][j] = max(dp[i+1][j], dp[i][j+1])
			}
		}
	}
	d := &dimension{Added: []string{}, Removed: []string{}, Changes: []string{}}
	i, j := 0, 0
	for i < n || j < m {
		switch {
		case i < n && j < m && l[i] == r[j]:
			i, j = i+1, j+1
		case j < m && (i == n || dp[i][j+1] >= dp[i+1][j]):
			d.Added = append(d.Added, fmt.Sprintf("+%d: %s", j, r[j]))
			j++
		default:
			d.Removed = append(d.Removed, fmt.Sprintf("-%d: %s", i, l[i]))
			i++
		}
	}
	d.Added, d.Omitted = capList(d.Added, d.Omitted)
	d.Removed, d.Omitted = capList(d.Removed, d.Omitted)
	s := 1.0
	if n+m > 0 {
		s = round(2 * float64(dp[0][0]) / float64(n+m))
	}
	d.Similarity = &s
	d.Status = "unchanged"
	if len(d.Added)+len(d.Removed)+d.Omitted > 0 {
		d.Status = "changed"
		if n != m {
			d.Changes = append(d.Changes, fmt.Sprintf("instruction_count: %d -> %d", n, m))
		}
	}
	return d
}

// cfgDim compares two CFG shapes: block count, edge kinds and degree
// sequences, each difference named.
func cfgDim(l, r *cfgShape) *dimension {
	d := &dimension{Added: []string{}, Removed: []string{}, Changes: []string{}}
	if l.Blocks != r.Blocks {
		d.Changes = append(d.Changes, fmt.Sprintf("block_count: %d -> %d", l.Blocks, r.Blocks))
	}
	kinds := map[string]bool{}
	for k := range l.Edges {
		kinds[k] = true
	}
	for k := range r.Edges {
		kinds[k] = true
	}
	var ks []string
	for k := range kinds {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	var le, re []string
	for _, k := range ks {
		if l.Edges[k] != r.Edges[k] {
			d.Changes = append(d.Changes, fmt.Sprintf("edges.%s: %d -> %d", k, l.Edges[k], r.Edges[k]))
		}
		for range l.Edges[k] {
			le = append(le, k)
		}
		for range r.Edges[k] {
			re = append(re, k)
		}
	}
	if !slices.Equal(l.Out, r.Out) {
		d.Changes = append(d.Changes, fmt.Sprintf("out_degrees: %v -> %v", l.Out, r.Out))
	}
	if !slices.Equal(l.In, r.In) {
		d.Changes = append(d.Changes, fmt.Sprintf("in_degrees: %v -> %v", l.In, r.In))
	}
	s := cfgSimilarity(l, r, le, re)
	d.Similarity = &s
	d.Status = "unchanged"
	if len(d.Changes) > 0 {
		d.Status = "changed"
	}
	return d
}

func cfgSimilarity(l, r *cfgShape, le, re []string) float64 {
	blocks := 1.0
	if mx := max(l.Blocks, r.Blocks); mx > 0 {
		blocks = float64(min(l.Blocks, r.Blocks)) / float64(mx)
	}
	edges := *setDim(le, re).Similarity
	deg := *setDim(intStrings(l.Out), intStrings(r.Out)).Similarity
	return round((blocks + edges + deg) / 3)
}

func intStrings(s []int) []string {
	out := make([]string, len(s))
	for i, v := range s {
		out[i] = fmt.Sprint(v)
	}
	return out
}

// registersOnly is the instructions dimension's change when its lines
// differ in general registers alone (sameButRegisters).
const registersOnly = "registers only: the differing instructions are the same with their general registers renamed (register allocation, e.g. after data moved)"

// generalRegister matches an AArch64 (x0-x30, w0-w30) or x86 general
// register name; the stack and frame pointers are not renamed.
var generalRegister = regexp.MustCompile(`\b(?:[xw](?:[12]?[0-9]|30)|[re]?(?:[abcd]x|si|di)|[abcd][lh]|sil|dil|r(?:[89]|1[0-5])[dwb]?)\b`)

// sameButRegisters reports two instruction sequences of one length that
// are equal once every general register is called R.
func sameButRegisters(l, r []string) bool {
	if len(l) != len(r) {
		return false
	}
	for i := range l {
		if l[i] != r[i] && generalRegister.ReplaceAllString(l[i], "R") != generalRegister.ReplaceAllString(r[i], "R") {
			return false
		}
	}
	return true
}
