package binary

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"rea/core"
	"rea/ports"
)

// A code location argument ("address") is read the same way by every
// tool, this family's and the annotation family's (its resolveAddress,
// which this mirrors, as families do not import each other): 0x hex or
// decimal, else an analyst's name (set_address_name), else the engine's
// name of a procedure or a label (list_procedures, list_names; the
// engine's name still works after a rename), else sub_<hex>. An unknown
// name gets the same refusal from every tool. The schema property and
// its description are the annotation family's too.
const (
	addressProp         = `"address": {"type":"string","minLength":1,"maxLength":4096,"description":"` + locationText + `.","examples":["0x401000"]}`
	optionalAddressProp = `"address": {"type":"string","minLength":1,"maxLength":4096,"description":"` + locationText + `; defaults to the cursor's.","examples":["0x401000"]}`
	locationText        = "0x hex, decimal, or a name (an analyst's, a procedure's, a label's, sub_401000)"
)

// locationArg resolves s, the value of the code-location argument arg.
func locationArg(ctx context.Context, c *core.Call, arg, s string) (uint64, error) {
	if a, err := core.ParseHex(s); err == nil {
		return a, nil
	}
	for a, n := range c.AnalystNames(ctx) {
		if n == s {
			return a, nil
		}
	}
	if _, err := analysisFor[ports.ProcedureLister](c); err == nil {
		procs, err := procedures(ctx, c)
		if err != nil {
			return 0, err
		}
		for _, p := range procs {
			if p.Name == s {
				return p.Address, nil
			}
		}
	}
	if _, err := analysisFor[ports.NameLister](c); err == nil {
		ns, err := names(ctx, c)
		if err != nil {
			return 0, err
		}
		at, found := uint64(0), false
		for _, n := range ns {
			if n.Name == s && (!found || n.Address < at) {
				at, found = n.Address, true
			}
		}
		if found {
			return at, nil
		}
	}
	if h, ok := strings.CutPrefix(s, "sub_"); ok {
		if a, err := strconv.ParseUint(h, 16, 64); err == nil {
			return a, nil
		}
	}
	return 0, core.InvalidRequest(c.Op.Name, core.Issue{Path: []any{arg}, Reason: core.ReasonInvalidValue,
		Message: fmt.Sprintf("%q is neither an address nor a known name", s), Expected: "0x hex, decimal, or a name from list_names or list_procedures"})
}
