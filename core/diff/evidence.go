package diff

import (
	"encoding/json"
	"fmt"
	"slices"
	"strconv"

	"rea/core"
	"rea/ports"
)

// Reading analyze_function Evidence. Every section is optional: a record
// may carry a smaller default result, a page of a collection, or no
// assembly; what is absent or incomplete makes its dimension unknown with
// the reason, never an error.

type afColl[T any] struct {
	Items     []T  `json:"items"`
	Total     *int `json:"total"`
	Truncated bool `json:"truncated"`
}

// maxDossierLimit is the largest page analyze_function's limit asks for.
const maxDossierLimit = 500

// complete reports whether the collection holds every item, and why not.
func (c *afColl[T]) complete(name string) (bool, string) {
	switch {
	case c == nil:
		return false, name + " is not included in the record"
	case c.Total == nil:
		return false, name + " has no known total in the record"
	case len(c.Items) < *c.Total && *c.Total <= maxDossierLimit:
		return false, fmt.Sprintf("the record holds %d of %d %s items (a page; analyze_function with limit %d or more records them all)", len(c.Items), *c.Total, name, *c.Total)
	case len(c.Items) < *c.Total:
		return false, fmt.Sprintf("the record holds %d of %d %s items (a page; more than analyze_function's largest limit, %d, records)", len(c.Items), *c.Total, name, maxDossierLimit)
	}
	return true, ""
}

type afResult struct {
	Procedure *struct {
		Address string `json:"address"`
		Name    string `json:"name"`
		End     string `json:"end"`
	} `json:"procedure"`
	Assembly *afColl[struct {
		Address  string  `json:"address"`
		Mnemonic string  `json:"mnemonic"`
		Operands string  `json:"operands"`
		Flow     string  `json:"flow"`
		Target   *string `json:"target"`
	}] `json:"assembly"`
	Blocks *afColl[struct {
		Start      string `json:"start"`
		End        string `json:"end"`
		Successors []struct {
			Kind   string  `json:"kind"`
			Target *string `json:"target"`
		} `json:"successors"`
	}] `json:"basic_blocks"`
	Callees *afColl[struct {
		Address  string `json:"address"`
		Name     string `json:"name"`
		External bool   `json:"external"`
	}] `json:"callees"`
	Unresolved *afColl[struct {
		From     string  `json:"from"`
		Kind     string  `json:"kind"`
		Slot     *string `json:"slot"`
		SlotName *string `json:"slot_name"`
	}] `json:"unresolved_calls"`
	Outgoing *afColl[struct {
		From       string  `json:"from"`
		To         *string `json:"to"`
		ToName     *string `json:"to_name"`
		Unresolved bool    `json:"unresolved"`
	}] `json:"outgoing_references"`
	Strings *afColl[struct {
		Value string `json:"value"`
	}] `json:"referenced_strings"`
	Names *afColl[struct {
		Address string   `json:"address"`
		Name    string   `json:"name"`
		Kinds   []string `json:"kinds"`
	}] `json:"referenced_names"`
	Scan *struct {
		Scanned   int  `json:"scanned"`
		Truncated bool `json:"truncated"`
	} `json:"instruction_scan"`
}

func hexArg(s string) uint64 {
	v, _ := core.ParseHex(s)
	return v
}

// factsOfEvidence reads the function facts of one analyze_function record.
func factsOfEvidence(ev *core.Evidence) (*fnFacts, error) {
	var r afResult
	if err := json.Unmarshal(ev.NormalizedResult, &r); err != nil || r.Procedure == nil {
		why := "no procedure section"
		if err != nil {
			why = err.Error()
		}
		return nil, &core.Error{Code: core.CodeEvidenceIntegrityMismatch, Message: "compare_functions: analyze_function evidence does not hold a dossier: " + why,
			Details: map[string]any{"evidence_id": string(ev.EvidenceID), "reason": "invalid_record"}}
	}
	f := &fnFacts{Name: r.Procedure.Name, Address: hexArg(r.Procedure.Address), Start: hexArg(r.Procedure.Address), End: hexArg(r.Procedure.End)}
	if f.End <= f.Start {
		f.End = f.Start + 1
	}
	scanWhy := ""
	if r.Scan != nil && r.Scan.Truncated {
		scanWhy = fmt.Sprintf("the record scanned only the first %d instructions (max_instructions)", r.Scan.Scanned)
	}

	names := map[uint64]string{}
	refFrom := map[uint64][]uint64{}
	if ok, why := r.Outgoing.complete("outgoing_references"); ok {
		for _, x := range r.Outgoing.Items {
			if x.To == nil || x.Unresolved {
				continue
			}
			to := hexArg(*x.To)
			refFrom[hexArg(x.From)] = append(refFrom[hexArg(x.From)], to)
			if x.ToName != nil {
				names[to] = *x.ToName
			}
		}
	} else if r.Outgoing != nil {
		f.RefsReason = why
	}
	// An import is one callee and one reference whether reached through
	// its stub or its slot, as compare_binaries has it (importIdentities): an
	// external callee (puts@plt, or puts at its slot) is its import, and so
	// is a tail jump through a named slot (gcc -fno-plt's jmp [rip+GOT]),
	// which the record lists as unresolved: it names no callee otherwise,
	// where the stub's build lists printf@plt as a tail call. The record
	// does not say that the slot is an import's; a named function pointer
	// is then a callee named after it, alike on both sides.
	importAt := map[uint64]string{}
	type slotJump struct {
		from uint64
		to   callee // at the slot
	}
	var slotJumps []slotJump
	if r.Unresolved != nil {
		for _, u := range r.Unresolved.Items {
			if u.Kind == "jump" && u.Slot != nil && u.SlotName != nil {
				if id := importID(*u.SlotName); id != "" {
					slot := hexArg(*u.Slot)
					importAt[slot] = id
					slotJumps = append(slotJumps, slotJump{hexArg(u.From), callee{Addr: slot, Name: *u.SlotName, Import: id}})
					continue
				}
			}
			f.Indirect = append(f.Indirect, hexArg(u.From))
		}
	}
	if r.Callees != nil {
		for _, c := range r.Callees.Items {
			if id := importID(c.Name); c.External && id != "" {
				importAt[hexArg(c.Address)] = id
			}
		}
	}
	if ok, why := r.Callees.complete("callees"); ok && scanWhy == "" {
		f.Calls = []callee{}
		for _, c := range r.Callees.Items {
			a := hexArg(c.Address)
			f.Calls = append(f.Calls, callee{Addr: a, Name: c.Name, Import: importAt[a]})
			names[a] = c.Name
		}
		for _, j := range slotJumps {
			if !slices.ContainsFunc(f.Calls, func(c callee) bool { return c.Addr == j.to.Addr }) {
				f.Calls = append(f.Calls, j.to)
			}
		}
	} else {
		f.CallsReason = firstOf(scanWhy, why)
	}
	if ok, why := r.Names.complete("referenced_names"); ok && scanWhy == "" {
		f.Refs, f.RefImports = []string{}, []string{}
		for _, n := range r.Names.Items {
			f.Refs, f.RefImports = append(f.Refs, n.Name), append(f.RefImports, importAt[hexArg(n.Address)])
		}
	} else {
		f.RefsReason = firstOf(scanWhy, f.RefsReason, why)
	}
	if ok, why := r.Strings.complete("referenced_strings"); ok && scanWhy == "" {
		f.Strings = []string{}
		for _, s := range r.Strings.Items {
			f.Strings = append(f.Strings, s.Value)
		}
	} else {
		f.StrReason = firstOf(scanWhy, why)
	}
	if ok, why := r.Blocks.complete("basic_blocks"); ok && scanWhy == "" {
		var bs []block
		for _, b := range r.Blocks.Items {
			x := block{Start: hexArg(b.Start)}
			end := hexArg(b.End)
			for _, e := range b.Successors {
				ed := edge{Kind: e.Kind}
				if e.Target != nil {
					ed.Target, ed.Known = hexArg(*e.Target), true
				}
				for _, j := range slotJumps {
					if ed.Kind == ports.EdgeUnresolved && j.from >= x.Start && j.from < end {
						// The stub's build has a tail-call edge here.
						ed = edge{Kind: ports.EdgeTailCall, Target: j.to.Addr, Known: true}
					}
				}
				x.Succ = append(x.Succ, ed)
			}
			bs = append(bs, x)
		}
		f.CFG = shapeOf(bs)
	} else {
		f.CFGReason = firstOf(scanWhy, why)
	}
	asmOK, asmWhy := r.Assembly.complete("assembly")
	if r.Assembly != nil && len(r.Assembly.Items) == 0 && r.Assembly.Total != nil && *r.Assembly.Total > 0 {
		asmWhy = "assembly is not included in the record (analyze_function include_assembly false)"
	}
	if asmOK && scanWhy == "" {
		var ins []insn
		for _, a := range r.Assembly.Items {
			in := insn{Addr: hexArg(a.Address), Mnemonic: a.Mnemonic, Operands: a.Operands, Flow: a.Flow}
			if a.Target != nil {
				in.Target, in.HasTarget = hexArg(*a.Target), true
			}
			ins = append(ins, in)
		}
		f.Insns, f.Consts, _ = normalize(ins, f.Start, f.End, func(a uint64) string { return names[a] }, refFrom, nil)
		if f.Consts == nil {
			f.Consts = []string{}
		}
	} else {
		f.InsnsReason = firstOf(scanWhy, asmWhy)
	}
	return f, nil
}

func firstOf(s ...string) string {
	for _, x := range s {
		if x != "" {
			return x
		}
	}
	return ""
}

// functionInput resolves c.Args[name]: complete inline Evidence or a
// retained reference. Evidence of another operation is invalid_request.
// The argument is then recorded as the retained reference, so both input
// forms seal the same parameters.
func functionInput(c *core.Call, name string) (*core.Evidence, error) {
	return evidenceInput(c, name, "analyze_function")
}

// evidenceInput resolves c.Args[name] as Evidence of operation op: the
// complete record when the caller passed a concise one or a view of it
// (completeRecord). The argument is kept as a reference to the record the
// caller passed, not to the complete one, so the result's parameters name
// what the agent holds and the call reproduces from them.
func evidenceInput(c *core.Call, name, op string) (*core.Evidence, error) {
	passed, err := c.EvidenceArg(name)
	if err != nil {
		return nil, err
	}
	ev, err := completeRecord(c, passed, op)
	if err != nil {
		return nil, err
	}
	if ev.Operation != op {
		return nil, core.InvalidRequest(c.Op.Name, core.Issue{Path: []any{name}, Reason: core.ReasonInvalidValue,
			Message:  strconv.Quote(string(ev.EvidenceID)) + " is " + ev.Operation + " Evidence; " + c.Op.Name + " takes " + op + " Evidence",
			Expected: op})
	}
	c.KeepReference(name, passed)
	return ev, nil
}

// completeRecord follows a summary or view of an op record to the complete
// record it names when this connection retains it: an inspect_analysis_view
// of it, a smaller default result that carries parent_evidence_id, or a
// concise dossier linking the complete one. The
// complete record is what the comparison reads; otherwise ev is returned.
// A page whose lists are cut (isPage) and whose complete record this
// connection does not hold is evidence_integrity_mismatch saying what to
// pass instead (Call.ResolveParent): read as it is, a compare_binaries page
// ranks or correlates only its first changed functions, and a trace page
// counts only its first hits, so an executed function reads as not
// executed. A concise dossier is read as it is: its cut collections make
// their dimensions unknown with the reason (afColl.complete).
func completeRecord(c *core.Call, ev *core.Evidence, op string) (*core.Evidence, error) {
	var probe struct {
		Parent          string `json:"parent_evidence_id"`
		ParentOperation string `json:"parent_operation"`
	}
	// A concise analyze_function dossier links the complete one it was cut
	// from as its first evidence link.
	if ev.Operation == op && len(ev.EvidenceLinks) > 0 {
		if parent, err := c.Resolve(ev.EvidenceLinks[0]); err == nil && parent.Operation == op {
			return parent, nil
		}
		if isPage(ev) {
			if _, err := c.ResolveParent(ev, string(ev.EvidenceLinks[0])); err != nil {
				return nil, err
			}
		}
	}
	if json.Unmarshal(ev.NormalizedResult, &probe) != nil || probe.Parent == "" {
		return ev, nil
	}
	if ev.Operation != op && !(ev.Operation == "inspect_analysis_view" && probe.ParentOperation == op) {
		return ev, nil
	}
	id, err := core.ParseEvidenceID(probe.Parent)
	if err != nil {
		return ev, nil
	}
	parent, err := c.Resolve(id)
	if err != nil || parent.Operation != op {
		return ev, nil
	}
	return parent, nil
}

// isPage reports whether ev is a concise page whose lists hold fewer items
// than it counts: a compare_binaries page (summary counts) or a
// trace_native_calls page (coverage.hits_recorded).
func isPage(ev *core.Evidence) bool {
	var r struct {
		Summary *struct {
			Changed, Added, Removed int
		} `json:"summary"`
		Changed, Added, Removed, Hits []json.RawMessage
		Coverage                      *struct {
			HitsRecorded *int `json:"hits_recorded"`
		} `json:"coverage"`
	}
	if json.Unmarshal(ev.NormalizedResult, &r) != nil {
		return false
	}
	switch ev.Operation {
	case "compare_binaries":
		return r.Summary != nil && (r.Summary.Changed > len(r.Changed) || r.Summary.Added > len(r.Added) || r.Summary.Removed > len(r.Removed))
	case "trace_native_calls":
		return r.Coverage != nil && r.Coverage.HitsRecorded != nil && *r.Coverage.HitsRecorded > len(r.Hits)
	}
	return false
}
