package browser

import (
	"cmp"
	"fmt"
	"sort"

	"rea/core"
	"rea/ports"
)

// evidenceReserve is the room kept for what the Evidence record adds
// around inspect_web_page's result (parameters, provider, environment,
// limitations) when fitScriptSources measures the result alone.
const evidenceReserve = 64 << 10

// defaultRoom is the room for a result when the front end names none: the
// default response budget's, the smallest an MCP server runs with
// (REA_MCP_MAX_RESPONSE_BYTES may only raise it).
var defaultRoom = core.ResponseBudget{MaxResponseBytes: core.DefaultMaxResponseBytes}.ResultBudget()

// fitScriptSources keeps inspect_web_page's result within room, the call's
// room for its result (core.CallOptions.ResultBytes, the server's response
// budget less its envelope reserve) less evidenceReserve. Only
// script texts grow without a bound the caller chose (include_script_sources
// keeps up to 4 MiB of them, which JSON escaping and the response's two
// copies can make more than 10 MiB): when the result is over, the largest
// texts are left out, each replaced by a reason that gives its digest and
// size, until it fits. The section is counted as truncated
// (resource_budget_exhausted) and a limitation says how to get the texts
// back. It returns the number of texts left out.
func fitScriptSources(res *InspectWebPageResult, pc *ports.BrowserPageCapture, room int64) int {
	budget := cmp.Or(room, defaultRoom)
	fitLimit := budget - evidenceReserve
	size, ok := successSize(res)
	if !ok || size <= fitLimit {
		return 0
	}
	type text struct {
		i    int
		cost int64
	}
	var texts []text
	for i, s := range res.Scripts.Items {
		if src, ok := s.Source.(scriptSourceIncluded); ok {
			texts = append(texts, text{i, stringCost(src.Artifact.Text)})
		}
	}
	sort.SliceStable(texts, func(a, b int) bool { return texts[a].cost > texts[b].cost })
	n, cut := 0, 0
	for _, t := range texts {
		if size <= fitLimit {
			// The running figure is an estimate: measure before stopping.
			if size, ok = successSize(res); !ok || size <= fitLimit {
				break
			}
		}
		it := &res.Scripts.Items[t.i]
		a := it.Source.(scriptSourceIncluded).Artifact
		reason := fmt.Sprintf("left out to fit the response budget (sha256 %s, %d bytes)", a.SHA256, a.Bytes)
		it.Source = scriptSourceOmitted{Included: false, Reason: reason}
		size -= t.cost - stringCost(reason)
		n++
		cut += a.Bytes
	}
	if n == 0 {
		return 0
	}
	pc.Completeness.Excluded = append(pc.Completeness.Excluded, ports.BrowserExclusion{Section: "script_sources", Reason: "resource_budget_exhausted", Count: n})
	res.Completeness = completeness(pc.Completeness, pageAttachLimited)
	res.Limitations = append(res.Limitations, fmt.Sprintf("%d script source(s) (%d bytes) were left out, largest first, so that the result fits the %d-byte response budget; "+
		"each says so in its source.reason with its sha256 and size. To get them, call again with allowed_origins naming fewer origins, so fewer scripts share the budget; "+
		"analyze_web_bundle analyzes every script's text without returning it.", n, cut, budget+core.ResponseEnvelopeReserve))
	return n
}

// successSize is what v costs in a success response (core.SuccessBytes of
// its JSON).
func successSize(v any) (int64, bool) {
	j, err := core.MarshalNoEscape(v)
	if err != nil {
		return 0, false
	}
	return core.SuccessBytes(j), true
}

// stringCost is what the JSON string s adds to a success response.
func stringCost(s string) int64 {
	n, _ := successSize(s)
	return n - core.SuccessBytes(nil)
}
