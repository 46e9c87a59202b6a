package diff

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"rea/core"
)

const retainedExample = `{"kind":"retained-evidence","evidence_id":"ev_0000000000000000000000000000000000000000000000000000000000000000"}`

// functionEvidenceInput is the union a function input accepts.
const functionEvidenceInput = `{"anyOf":[
  {"type":"object","description":"A retained reference to analyze_function Evidence recorded on this connection.","additionalProperties":false,"required":["kind","evidence_id"],
   "properties":{"kind":{"const":"retained-evidence"},"evidence_id":{"type":"string","pattern":"^ev_[0-9a-f]{64}$"}}},
  {"type":"object","description":"Complete inline analyze_function Evidence.","required":["evidence_id","operation","normalized_result"],
   "properties":{"evidence_id":{"type":"string","pattern":"^ev_[0-9a-f]{64}$"},"operation":{"type":"string"},"normalized_result":{"type":"object"}}}]}`

const dimensionSchema = `{"type":"object","additionalProperties":false,"required":["status","reason","similarity","added","removed","changes","omitted"],
 "properties":{"status":{"enum":["changed","unchanged","unknown"]},"reason":{"type":["string","null"]},"similarity":{"type":["number","null"],"minimum":0,"maximum":1},
  "added":{"type":"array","items":{"type":"string"}},"removed":{"type":"array","items":{"type":"string"}},
  "changes":{"type":"array","items":{"type":"string"}},"omitted":{"type":"integer","minimum":0}}}`

func dimensionsSchema() string {
	s := `{"type":"object","additionalProperties":false,"required":["instructions","calls","references","strings","constants","cfg"],"properties":{`
	for i, n := range dimensionNames {
		if i > 0 {
			s += ","
		}
		s += `"` + n + `":` + dimensionSchema
	}
	return s + `}}`
}

const functionSideSchema = `{"type":"object","additionalProperties":false,"required":["evidence_id","name","address","target_sha256","architecture","provider_id"],
 "properties":{"evidence_id":{"type":"string"},"name":{"type":"string"},"address":{"type":"string"},"target_sha256":{"type":["string","null"]},
  "architecture":{"type":["string","null"]},"provider_id":{"type":"string"}}}`

func opCompareFunctions() *core.Operation {
	return &core.Operation{
		Name:  "compare_functions",
		Title: "Compare Functions",
		Description: "Compare two analyze_function records (each inline Evidence or a retained reference; from the same or different binaries " +
			"and providers) on six dimensions: instructions (text with addresses made relative or symbolic), calls (callee names), " +
			"references (referenced names), strings (referenced string values), constants (immediates that are not addresses) and cfg " +
			"(block count, edge kinds, degree sequences). Each is changed, unchanged or unknown (with the reason, e.g. a record made " +
			"without include_assembly), with the differences listed by name, and a similarity score from 0 to 1.",
		Kind:    core.KindApplication,
		Effects: core.Effects{MutatesSession: true, Idempotent: true},
		Input: json.RawMessage(`{"$schema":"https://json-schema.org/draft/2020-12/schema","type":"object","additionalProperties":false,
 "required":["left","right"],"properties":{"left":` + functionEvidenceInput + `,"right":` + functionEvidenceInput + `}}`),
		Result: json.RawMessage(`{"type":"object","additionalProperties":false,
 "required":["left","right","same_function","status","similarity","changed_dimensions","unknown_dimensions","dimensions","notes"],
 "properties":{"left":` + functionSideSchema + `,"right":` + functionSideSchema + `,"same_function":{"type":"boolean"},
  "status":{"enum":["changed","unchanged","unknown"]},"similarity":{"type":["number","null"],"minimum":0,"maximum":1},
  "changed_dimensions":{"type":"array","items":{"type":"string"}},"unknown_dimensions":{"type":"array","items":{"type":"string"}},
  "dimensions":` + dimensionsSchema() + `,"notes":{"type":"array","items":{"type":"string"}}}}`),
		Examples: []json.RawMessage{json.RawMessage(`{"left":` + retainedExample +
			`,"right":{"kind":"retained-evidence","evidence_id":"ev_1111111111111111111111111111111111111111111111111111111111111111"}}`)},
		Handler: handleCompareFunctions,
	}
}

func sideOf(ev *core.Evidence, f *fnFacts) CompareFunctionsResultLeft {
	out := CompareFunctionsResultLeft{EvidenceID: string(ev.EvidenceID), Name: f.Name, Address: core.Hex(f.Address), ProviderID: ev.Provider.ID}
	if ev.Subject != nil {
		out.TargetSHA256 = core.OptString(ev.Subject.Digest.SHA256)
		if ev.Subject.Architecture != nil {
			arch := *ev.Subject.Architecture
			out.Architecture = &arch
		}
	}
	return out
}

// dimensionsOf are a comparison's six dimensions (compareFacts and
// identical fill every one).
func dimensionsOf(m map[string]*dimension) CompareFunctionsResultDimensions {
	return CompareFunctionsResultDimensions{Instructions: *m["instructions"], Calls: *m["calls"], References: *m["references"],
		Strings: *m["strings"], Constants: *m["constants"], CFG: *m["cfg"]}
}

func handleCompareFunctions(ctx context.Context, c *core.Call) (any, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	lev, err := functionInput(c, "left")
	if err != nil {
		return nil, err
	}
	rev, err := functionInput(c, "right")
	if err != nil {
		return nil, err
	}
	lf, err := factsOfEvidence(lev)
	if err != nil {
		return nil, err
	}
	rf, err := factsOfEvidence(rev)
	if err != nil {
		return nil, err
	}
	sameTarget := lev.Subject != nil && rev.Subject != nil && lev.Subject.Digest.SHA256 == rev.Subject.Digest.SHA256
	same := lev.EvidenceID == rev.EvidenceID || (sameTarget && lf.Address == rf.Address && lev.Provider.ID == rev.Provider.ID)
	var d *functionDiff
	if lev.EvidenceID == rev.EvidenceID {
		d = identical("Both sides are the same record: a function compared with itself is unchanged on every dimension.")
	} else {
		o := compareOptions{notComparable: map[string]string{}}
		la, ra := archOf(lev), archOf(rev)
		if la != "" && ra != "" && la != ra {
			why := "the functions are of different architectures (" + la + ", " + ra + "); only names and strings are comparable"
			for _, n := range []string{"instructions", "constants", "cfg"} {
				o.notComparable[n] = why
			}
		}
		if sameTarget {
			// In one binary, placeholder names (sub_401000) identify their
			// procedure and are compared as they are; an import still by
			// its identity.
			o.calleeName = func(_ int, x callee) string { return firstOf(x.Import, x.Name) }
		}
		d = compareFacts(lf, rf, o)
		if n := unnamedCalleeNote(d); n != "" && !sameTarget {
			d.Notes = append(d.Notes, n)
		}
		if same {
			d.Notes = append(d.Notes, "Both records describe the same function of the same binary (two calls with different parameters).")
		}
	}
	res := &CompareFunctionsResult{Left: sideOf(lev, lf), Right: sideOf(rev, rf), SameFunction: same, Status: d.Status,
		Similarity: d.Similarity, ChangedDimensions: d.Changed, UnknownDimensions: d.Unknown, Dimensions: dimensionsOf(d.Dimensions), Notes: d.Notes}
	return &core.Observation{Result: res, Unbound: true, Confidence: core.ConfidenceDerived, Links: links(lev.EvidenceID, rev.EvidenceID)}, nil
}

func archOf(ev *core.Evidence) string {
	if ev.Subject != nil && ev.Subject.Architecture != nil {
		return *ev.Subject.Architecture
	}
	return ""
}

func links(l, r core.EvidenceID) []core.EvidenceID {
	if l == r {
		return []core.EvidenceID{l}
	}
	if r < l {
		l, r = r, l
	}
	return []core.EvidenceID{l, r}
}

// unnamedCalleeNote says when one record leaves callees unnamed (sub) that
// the other names: two records of two builds, one stripped, are not matched
// function to function as compare_binaries matches them, so a renamed
// callee shows as a changed call. "" when the calls difference has no sub
// against a name on the other side.
func unnamedCalleeNote(d *functionDiff) string {
	x := d.Dimensions["calls"]
	if x == nil || x.Status != "changed" {
		return ""
	}
	named := func(list []string) []string {
		var out []string
		for _, n := range list {
			if n != "sub" && !slices.Contains(x.imports, n) {
				out = append(out, n)
			}
		}
		return out
	}
	subs := func(list []string) int {
		return len(list) - len(slices.DeleteFunc(slices.Clone(list), func(n string) bool { return n == "sub" }))
	}
	for _, side := range []struct {
		this, other     string
		unnamed, naming []string
	}{{"right", "left", x.Added, x.Removed}, {"left", "right", x.Removed, x.Added}} {
		if k, names := subs(side.unnamed), named(side.naming); k > 0 && len(names) > 0 {
			return fmt.Sprintf("The %s record leaves %d callee(s) unnamed (sub) where the %s names %d not on the %s (%s): "+
				"a stripped build against one with symbols shows such callees as changed. compare_binaries matches functions across two builds and compares calls through the match.",
				side.this, k, side.other, len(names), side.this, strings.Join(names, ", "))
		}
	}
	return ""
}
