package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"rea/core"
)

// nativeFormats are the formats rea compare hands to compare_binaries.
var nativeFormats = map[string]bool{"elf": true, "pe": true, "mach-o": true, "mach-o-universal": true}

// compareBinaries runs compare_binaries when both paths are native
// binaries; ok is false otherwise, and the files are compared as bundles.
// One native binary and one file of another kind is an invalid_request
// naming the other (or the error that file gave), since the bundle reader
// would only say the binary is not JSON.
func (c *compareCmd) compareBinaries(e *env) (ok bool, err error) {
	sides := [2]struct {
		name, path, format string
		err                error
	}{{name: "left", path: c.Left}, {name: "right", path: c.Right}}
	natives := 0
	for i := range sides {
		t, err := core.Classify(e.ctx, abs(sides[i].path)) // the format only: compare_binaries hashes each file
		sides[i].format, sides[i].err = t.Format, err
		if err == nil && nativeFormats[t.Format] {
			natives++
		}
	}
	switch natives {
	case 0:
		return false, nil
	case 1:
		bin, other := sides[0], sides[1]
		if nativeFormats[other.format] && other.err == nil {
			bin, other = other, bin
		}
		if other.err != nil {
			if ce := (*core.Error)(nil); errors.As(other.err, &ce) && ce.Code != core.CodeUnsupportedTarget {
				return true, other.err
			}
		}
		kind := "not a native binary"
		if other.err == nil {
			kind = "not a native binary (" + other.format + ")"
		}
		return true, core.InvalidRequest("compare", core.Issue{Path: []any{other.name}, Reason: core.ReasonInvalidValue,
			Message: fmt.Sprintf("%s is %s but %s is a native binary (%s); rea compare takes two native binaries or two Evidence bundle files",
				other.path, kind, bin.path, bin.format)})
	}
	s := e.session()
	defer s.Close(context.WithoutCancel(e.ctx))
	args := map[string]any{"left_path": abs(c.Left), "right_path": abs(c.Right)}
	// The table lists every changed, added and removed function: the
	// concise result is a first page of them when they are many.
	if c.Complete || e.g.Format != "json" {
		args["detail"] = "complete"
	}
	if p := e.g.Provider; p != "" && p != core.SelectorAuto {
		args["provider_id"] = p
	}
	res, err := e.call(s, "compare_binaries", args)
	if err != nil {
		return true, err
	}
	if e.g.Format == "json" {
		return true, e.writeJSON(res.Evidence)
	}
	return true, writeBinaryComparison(e.opts.Stdout, res.Evidence.NormalizedResult)
}

// writeBinaryComparison writes a compare_binaries result as text: the
// summary, then one row per changed, renamed, removed and added function.
func writeBinaryComparison(w io.Writer, result json.RawMessage) error {
	type ref struct{ Name, Address string }
	var out struct {
		Summary struct {
			LeftFunctions  int            `json:"left_functions"`
			RightFunctions int            `json:"right_functions"`
			Matched        int            `json:"matched"`
			Unchanged      int            `json:"unchanged"`
			Changed        int            `json:"changed"`
			Added          int            `json:"added"`
			Removed        int            `json:"removed"`
			MatchRate      *float64       `json:"match_rate"`
			ByBasis        map[string]int `json:"by_basis"`
		} `json:"summary"`
		NotComparable []struct{ Dimension, Reason string } `json:"not_comparable"`
		Changed       []struct {
			Left, Right ref
			Basis       string
			Similarity  *float64
			Dimensions  []string `json:"changed_dimensions"`
		} `json:"changed"`
		Added, Removed []ref
		Renamed        []struct{ Left, Right ref }
		Imports        struct{ Added, Removed []string } `json:"imports"`
		Data           struct {
			Strings struct {
				Added, Removed []string
				Omitted        int
			}
			SectionsChanged []string `json:"sections_changed"`
		}
		Limitations []string
	}
	if err := json.Unmarshal(result, &out); err != nil {
		return err
	}
	sm := out.Summary
	rate := "n/a"
	if sm.MatchRate != nil {
		rate = fmt.Sprintf("%.0f%%", *sm.MatchRate*100)
	}
	fmt.Fprintf(w, "%d and %d functions: %d matched (%s; by name %d, instruction hash %d, structure %d, call graph %d), %d unchanged, %d changed, %d added, %d removed\n",
		sm.LeftFunctions, sm.RightFunctions, sm.Matched, rate, sm.ByBasis["name"], sm.ByBasis["instruction-hash"], sm.ByBasis["structure"], sm.ByBasis["call-graph"],
		sm.Unchanged, sm.Changed, sm.Added, sm.Removed)
	// Dimensions with the same reason share one line: two binaries of
	// different architectures printed the same sentence three times.
	for i := 0; i < len(out.NotComparable); {
		n, dims := out.NotComparable[i], []string{out.NotComparable[i].Dimension}
		for i++; i < len(out.NotComparable) && out.NotComparable[i].Reason == n.Reason; i++ {
			dims = append(dims, out.NotComparable[i].Dimension)
		}
		fmt.Fprintf(w, "  not comparable: %s (%s)\n", strings.Join(dims, ", "), n.Reason)
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	// A renamed function that also changed has its changed row, which
	// names both sides already.
	changed := map[string]bool{}
	for _, x := range out.Changed {
		changed[x.Left.Address] = true
	}
	var renamed []struct{ Left, Right ref }
	for _, x := range out.Renamed {
		if !changed[x.Left.Address] {
			renamed = append(renamed, x)
		}
	}
	if len(out.Changed)+len(renamed)+len(out.Added)+len(out.Removed) > 0 {
		fmt.Fprintln(tw, "\nSTATUS\tLEFT\tRIGHT\tBASIS\tSIMILARITY\tCHANGED")
	}
	for _, x := range out.Changed {
		sim := "-"
		if x.Similarity != nil {
			sim = fmt.Sprintf("%.2f", *x.Similarity)
		}
		fmt.Fprintf(tw, "changed\t%s %s\t%s %s\t%s\t%s\t%s\n", x.Left.Name, x.Left.Address, x.Right.Name, x.Right.Address, x.Basis, sim, strings.Join(x.Dimensions, ","))
	}
	for _, x := range renamed {
		fmt.Fprintf(tw, "renamed\t%s %s\t%s %s\t-\t-\t-\n", x.Left.Name, x.Left.Address, x.Right.Name, x.Right.Address)
	}
	for _, x := range out.Removed {
		fmt.Fprintf(tw, "removed\t%s %s\t-\t-\t-\t-\n", x.Name, x.Address)
	}
	for _, x := range out.Added {
		fmt.Fprintf(tw, "added\t-\t%s %s\t-\t-\t-\n", x.Name, x.Address)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if len(out.Imports.Added)+len(out.Imports.Removed) > 0 {
		fmt.Fprintf(w, "imports: +%v -%v\n", out.Imports.Added, out.Imports.Removed)
	}
	// Data can change behaviour with no function changed (ls and dir
	// differ in one byte of .data): without these lines the table said
	// only "0 changed".
	if ds := out.Data.Strings; len(ds.Added)+len(ds.Removed) > 0 {
		more := ""
		if ds.Omitted > 0 {
			more = fmt.Sprintf(" (%d more not listed)", ds.Omitted)
		}
		fmt.Fprintf(w, "data strings: +%q -%q%s\n", ds.Added, ds.Removed, more)
	}
	if len(out.Data.SectionsChanged) > 0 {
		fmt.Fprintf(w, "data sections changed: %s\n", strings.Join(out.Data.SectionsChanged, ", "))
	}
	for _, l := range out.Limitations {
		fmt.Fprintf(w, "limitation: %s\n", l)
	}
	return nil
}
