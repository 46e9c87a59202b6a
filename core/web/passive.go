package web

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"sort"
	"strings"

	"rea/core"
)

// Passive capture comparison (BROWSER.md §5 "compare_web_captures,
// passive"): each dimension maps item identities to digests of their
// compared projection and reports added, removed and modified items.
// Completeness decides what absence proves: an incomplete section on either
// side never yields unchanged, and only modifications (both sides saw the
// item) are reported for it, since an add or remove may be a coverage gap.

// passiveDimensions in budget order: max_changes is spent in this order.
var passiveDimensions = []string{"dom_structure", "scripts", "resources", "network", "metadata", "webmcp", "accessibility", "storage"}

// webCompleteness is the part of a passive completeness ledger comparison
// reads.
type webCompleteness struct {
	Status         string   `json:"status"`
	Conditions     []string `json:"conditions"`
	PolicyFiltered []string `json:"policy_filtered_sections"`
	AttachLimited  []string `json:"attach_limited_sections"`
	Truncated      []string `json:"truncated_sections"`
	Unavailable    []string `json:"unavailable_sections"`
	Excluded       []struct {
		Section string `json:"section"`
		Reason  string `json:"reason"`
	} `json:"excluded"`
	Dropped map[string]int `json:"dropped_events"`
}

// incomplete reports whether section is listed as policy-filtered,
// attach-limited, truncated or unavailable.
func (c *webCompleteness) incomplete(sections ...string) bool {
	for _, s := range sections {
		for _, l := range [][]string{c.PolicyFiltered, c.AttachLimited, c.Truncated, c.Unavailable} {
			if slices.Contains(l, s) {
				return true
			}
		}
	}
	return false
}

func (c *webCompleteness) excludedFor(section, reason string) bool {
	for _, e := range c.Excluded {
		if e.Section == section && e.Reason == reason {
			return true
		}
	}
	return false
}

// incompleteReason says why what (the sections' inventory) was incomplete,
// per side, and what to pass to compare it fully: an agent comparing two
// captures of a page with a frame of another origin otherwise reads only
// that something was incomplete.
func incompleteReason(what string, b, a *webInspection, sections ...string) string {
	var sides []string
	scope := false
	for _, side := range []struct {
		name string
		c    *webCompleteness
	}{{"before", &b.Completeness}, {"after", &a.Completeness}} {
		var why []string
		for _, sec := range sections {
			var rs []string
			for _, e := range side.c.Excluded {
				if e.Section == sec && !slices.Contains(rs, e.Reason) {
					rs = append(rs, e.Reason)
					scope = scope || e.Reason == "disallowed_origin"
				}
			}
			for _, l := range []struct {
				list []string
				name string
			}{{side.c.Truncated, "truncated"}, {side.c.Unavailable, "unavailable"}, {side.c.AttachLimited, "attach_limited"}} {
				if slices.Contains(l.list, sec) && !slices.Contains(rs, l.name) {
					rs = append(rs, l.name)
				}
			}
			if len(rs) > 0 {
				why = append(why, sec+" "+strings.Join(rs, ", "))
			}
		}
		if len(why) > 0 {
			sides = append(sides, "the "+side.name+" capture's "+strings.Join(why, "; "))
		}
	}
	r := what + " was incomplete in at least one observation"
	if len(sides) > 0 {
		r += " (" + strings.Join(sides, "; ") + ")"
	}
	r += "."
	if scope {
		r += " Inspect both pages again with allowed_origins listing the page's origin and those of its other-origin frames and scripts to compare it fully."
	}
	return r
}

type webInspection struct {
	ParentEvidenceID string `json:"parent_evidence_id"`
	Target           struct {
		TargetID string `json:"target_id"`
		URL      string `json:"url"`
	} `json:"target"`
	Completeness webCompleteness `json:"completeness"`
	Frames       []struct {
		URL         string   `json:"url"`
		Origin      *string  `json:"origin"`
		NotCaptured []string `json:"not_captured"`
	} `json:"frames"`
	DOM struct {
		TotalNodes int              `json:"total_nodes"`
		Nodes      []map[string]any `json:"nodes"`
	} `json:"dom"`
	Accessibility struct {
		TotalNodes  int `json:"total_nodes"`
		TextCapture struct {
			Status          string `json:"status"`
			ExcludedFields  int    `json:"excluded_fields"`
			TruncatedFields int    `json:"truncated_fields"`
		} `json:"text_capture"`
		Nodes []struct {
			NodeID      string  `json:"node_id"`
			ParentID    *string `json:"parent_id"`
			Role        *string `json:"role"`
			Name        *string `json:"name"`
			Description *string `json:"description"`
			Ignored     bool    `json:"ignored"`
			States      []any   `json:"states"`
		} `json:"nodes"`
	} `json:"accessibility"`
	Scripts struct {
		Total int              `json:"total"`
		Items []map[string]any `json:"items"`
	} `json:"scripts"`
	Resources []map[string]any `json:"resources"`
	Network   struct {
		Requests []struct {
			Method            string  `json:"method"`
			URL               string  `json:"url"`
			ResourceType      *string `json:"resource_type"`
			Status            any     `json:"status"`
			MimeType          *string `json:"mime_type"`
			EncodedDataLength any     `json:"encoded_data_length"`
			Initiator         any     `json:"initiator"`
			BodyShapes        any     `json:"body_shapes"`
		} `json:"requests"`
	} `json:"network"`
	Metadata struct {
		Responses          []map[string]any `json:"responses"`
		DOMURLs            []any            `json:"dom_urls"`
		AgentHints         []any            `json:"agent_hints"`
		ExcludedDOMURLs    any              `json:"excluded_dom_urls"`
		HeadersAllowlisted any              `json:"headers_allowlisted"`
	} `json:"metadata"`
	Storage webStorage `json:"storage"`
}

type webStorage struct {
	Origin               string           `json:"origin"`
	UsageBytes           any              `json:"usage_bytes"`
	QuotaBytes           any              `json:"quota_bytes"`
	LocalStorageKeys     []string         `json:"local_storage_keys"`
	SessionStorageKeys   []string         `json:"session_storage_keys"`
	IndexedDBNames       []string         `json:"indexed_db_names"`
	CacheNames           []string         `json:"cache_names"`
	ContentFingerprints  []webFingerprint `json:"content_fingerprints"`
	FingerprintsComplete bool             `json:"fingerprints_complete"`
	ValuesRedacted       bool             `json:"values_redacted"`
}

type webFingerprint struct {
	Scope          string  `json:"scope"`
	IdentitySHA256 string  `json:"identity_sha256"`
	ValueSHA256    *string `json:"value_sha256"`
	Complete       bool    `json:"complete"`
}

type webMCPCapture struct {
	Status string `json:"status"`
	Tools  struct {
		Total int              `json:"total"`
		Items []map[string]any `json:"items"`
	} `json:"tools"`
	Completeness webCompleteness `json:"completeness"`
}

type webPassiveCapture struct {
	Inspection webInspection  `json:"inspection"`
	WebMCP     *webMCPCapture `json:"webmcp"`
}

// identityMap maps an item identity to the digest of its projection.
type identityMap map[string]string

// pendingDimension is a dimension before the change budget is applied.
type pendingDimension struct {
	changes  []WebChange
	complete bool
	reason   string
}

func compareIdentities(before, after identityMap, complete bool, reason string) pendingDimension {
	var out []WebChange
	for id, b := range before {
		a, ok := after[id]
		switch {
		case !ok:
			if complete {
				out = append(out, WebChange{Identity: id, Change: "removed", Before: &b})
			}
		case a != b:
			out = append(out, WebChange{Identity: id, Change: "modified", Before: &b, After: &a})
		}
	}
	if complete {
		for id, a := range after {
			if _, ok := before[id]; !ok {
				out = append(out, WebChange{Identity: id, Change: "added", After: &a})
			}
		}
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Identity != out[j].Identity {
			return out[i].Identity < out[j].Identity
		}
		return out[i].Change < out[j].Change
	})
	return pendingDimension{changes: out, complete: complete, reason: reason}
}

// comparePassive compares two passive captures. The inputs are already
// validated against the canonical schema and the domain rules.
func comparePassive(ctx context.Context, before, after *webPassiveCapture, maxChanges int) (*CompareWebCapturesResult, error) {
	b, a := &before.Inspection, &after.Inspection
	matchConcise(b, a)
	matchConcise(a, b)
	uncaptured := uncapturedFrames(b, a)
	pending := map[string]pendingDimension{}

	pending["dom_structure"] = compareIdentities(
		identityMap{"document": core.MustDigest(domProjection(b))},
		identityMap{"document": core.MustDigest(domProjection(a))},
		!b.Completeness.incomplete("frames", "dom") && !a.Completeness.incomplete("frames", "dom"),
		incompleteReason("DOM or frame capture", b, a, "frames", "dom"))

	pending["scripts"] = compareIdentities(scriptMap(b), scriptMap(a),
		!b.Completeness.incomplete("scripts") && !a.Completeness.incomplete("scripts"),
		incompleteReason("Script inventory", b, a, "scripts"))

	pending["resources"] = compareIdentities(resourceMap(b), resourceMap(a),
		!b.Completeness.incomplete("resources") && !a.Completeness.incomplete("resources"),
		incompleteReason("Resource inventory", b, a, "resources"))
	if err := ctx.Err(); err != nil {
		return nil, err
	}

	shapes := bodyShapesSelected(b) && bodyShapesSelected(a)
	// Network is always attach-limited: activity before attachment is never
	// observed, so absence is never proven and the dimension is never
	// unchanged, whatever the ledger says.
	pending["network"] = compareIdentities(networkMap(b, shapes), networkMap(a, shapes), false,
		"Network capture covers only activity after each attachment, so unchanged cannot be established.")

	// Safe metadata is derived from attach-limited responses: never unchanged.
	pending["metadata"] = compareIdentities(
		identityMap{"metadata": core.MustDigest(metadataProjection(b))},
		identityMap{"metadata": core.MustDigest(metadataProjection(a))},
		false, "Safe metadata derives from attach-limited responses, so unchanged cannot be established.")

	pending["webmcp"] = compareIdentities(webMCPMap(before.WebMCP), webMCPMap(after.WebMCP),
		webMCPComplete(before.WebMCP) && webMCPComplete(after.WebMCP),
		"WebMCP discovery was absent, unavailable or incomplete in at least one capture.")

	pending["accessibility"] = accessibilityDimension(b, a)
	pending["storage"] = storageDimension(b, a)
	if p := pending["dom_structure"]; len(p.changes) == 0 && !p.complete && uncaptured != "" {
		p.reason = uncaptured
		pending["dom_structure"] = p
	}
	for dim, what := range map[string]string{"dom_structure": "DOM", "accessibility": "accessibility"} {
		if p := pending[dim]; len(p.changes) == 0 && !p.complete {
			if r := conciseReason(b, a, what); r != "" {
				p.reason = r
				pending[dim] = p
			}
		}
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}

	out := &CompareWebCapturesResult{SchemaVersion: 1,
		BeforeTarget: WebTargetRef{TargetID: b.Target.TargetID, URL: b.Target.URL},
		AfterTarget:  WebTargetRef{TargetID: a.Target.TargetID, URL: a.Target.URL}}
	remaining, omitted := maxChanges, 0
	overall := "unchanged"
	for _, name := range passiveDimensions {
		p := pending[name]
		d := WebDimension{Changes: []WebChange{}}
		switch {
		case len(p.changes) > 0:
			keep := min(remaining, len(p.changes))
			remaining -= keep
			d.Status, d.TotalChanges, d.Changes, d.OmittedChanges = "changed", len(p.changes), p.changes[:keep], len(p.changes)-keep
			omitted += d.OmittedChanges
			overall = "changed"
		case p.complete:
			d.Status = "unchanged"
		default:
			r := p.reason
			d.Status, d.Reason = "unknown", &r
			if overall == "unchanged" {
				overall = "unknown"
			}
		}
		*out.Dimensions.dimension(name) = d
	}
	out.OverallStatus = overall
	out.Limitations = []string{
		"A changed status proves an observed difference; an unknown status means absence could not be established from capture completeness.",
		"Where a section is incomplete on either side only modifications of items seen on both sides are reported; additions and removals there may be coverage gaps.",
		"Network and safe metadata are attach-window limited and are never reported unchanged.",
		"Request body shapes are compared only when both captures selected them.",
		"Accessibility hierarchy, roles, ignored state and states are compared when both trees were fully retained, names and descriptions only when both captures included untruncated text; otherwise only node totals are compared, and unchanged needs all of them.",
		"Storage key inventories are compared only when complete; usage and quota only when reported on both sides; redacted content only through complete SHA-256 fingerprints.",
	}
	if omitted > 0 {
		out.Limitations = append(out.Limitations, fmt.Sprintf("%d change record(s) were omitted by max_changes.", omitted))
	}
	return out, nil
}

// matchConcise compares a concise inspection's DOM (one whose complete
// record, named by parent_evidence_id, this connection does not retain, so
// it lists only its first nodes) with the other side's first nodes: the
// other's longer list is cut to the same length and its DOM marked
// truncated, so that nodes one side does not list never read as a change.
// Before, a concise inspection from another connection compared with a
// complete one (or one this connection expanded) was "changed" for the
// same page.
func matchConcise(concise, other *webInspection) {
	n := len(concise.DOM.Nodes)
	if concise.ParentEvidenceID == "" || concise.DOM.TotalNodes <= n || len(other.DOM.Nodes) <= n {
		return
	}
	other.DOM.Nodes = other.DOM.Nodes[:n]
	other.Completeness.Truncated = append(slices.Clone(other.Completeness.Truncated), "dom")
}

// uncapturedFrames marks, on each side, the sections its frames' not_captured
// name as unavailable (a frame of another site in its own renderer process,
// whose content the inspection did not read), so that no dimension is
// unchanged over content neither side saw; it says which frames they are,
// "" when there is none.
func uncapturedFrames(b, a *webInspection) string {
	var says []string
	for _, side := range []struct {
		name string
		in   *webInspection
	}{{"before", b}, {"after", a}} {
		var urls []string
		c := &side.in.Completeness
		for _, f := range side.in.Frames {
			if len(f.NotCaptured) == 0 {
				continue
			}
			urls = append(urls, f.URL)
			for _, s := range f.NotCaptured {
				if !slices.Contains(c.Unavailable, s) {
					c.Unavailable = append(slices.Clone(c.Unavailable), s)
				}
			}
		}
		if len(urls) > 0 {
			says = append(says, fmt.Sprintf("the %s inspection lists %d frame(s) of another site whose content it did not read (%s)",
				side.name, len(urls), strings.Join(urls, ", ")))
		}
	}
	if len(says) == 0 {
		return ""
	}
	return "DOM and frames were not fully comparable: " + strings.Join(says, "; ") + ". Such a frame runs in its own renderer process; " +
		"its DOM, scripts and child frames may differ unseen."
}

// conciseReason says why the DOM or accessibility (what) dimension stays
// unknown when a side is a concise inspection whose complete record this
// connection does not retain, and what to pass instead; "" when neither
// side lists fewer of those nodes than it counts so.
func conciseReason(b, a *webInspection, what string) string {
	var says []string
	for _, side := range []struct {
		name string
		in   *webInspection
	}{{"before", b}, {"after", a}} {
		listed, total := len(side.in.DOM.Nodes), side.in.DOM.TotalNodes
		if what != "DOM" {
			listed, total = len(side.in.Accessibility.Nodes), side.in.Accessibility.TotalNodes
		}
		if side.in.ParentEvidenceID == "" || total <= listed {
			continue
		}
		says = append(says, fmt.Sprintf("The %s inspection is concise: it lists the first %d of its %d %s nodes, and its complete record, parent_evidence_id %s, is not retained by this connection.",
			side.name, listed, total, what, side.in.ParentEvidenceID))
	}
	if len(says) == 0 {
		return ""
	}
	compared := " Only the listed nodes and the totals were compared."
	if what != "DOM" {
		compared = " Only the totals were compared."
	}
	return strings.Join(says, " ") + compared + " To compare every node, pass complete records instead: " +
		"their Evidence on the connection that made them, inspect_web_page results with detail \"complete\", " +
		"or an evidence bundle holding them, imported here with import_evidence_bundle."
}

func domProjection(in *webInspection) map[string]any {
	frames := make([]map[string]any, len(in.Frames))
	for i, f := range in.Frames {
		frames[i] = map[string]any{"url": f.URL, "origin": f.Origin}
	}
	sort.SliceStable(frames, func(i, j int) bool { return frames[i]["url"].(string) < frames[j]["url"].(string) })
	nodes := make([]map[string]any, len(in.DOM.Nodes))
	for i, n := range in.DOM.Nodes {
		c := make(map[string]any, len(n))
		for k, v := range n {
			if k != "index" {
				c[k] = v
			}
		}
		nodes[i] = c
	}
	return map[string]any{"frames": frames, "nodes": nodes, "total_nodes": in.DOM.TotalNodes}
}

// scriptIdentityFields are the fields a script's identity covers.
var scriptIdentityFields = []string{"script_key", "url", "cdp_hash", "length", "is_module", "language", "source_map_url"}

func scriptMap(in *webInspection) identityMap {
	m := identityMap{}
	for _, s := range in.Scripts.Items {
		p := map[string]any{}
		for _, k := range scriptIdentityFields {
			p[k] = s[k]
		}
		m[s["script_key"].(string)] = core.MustDigest(p)
	}
	return m
}

func resourceMap(in *webInspection) identityMap {
	m := identityMap{}
	for _, r := range in.Resources {
		m[r["resource_key"].(string)] = core.MustDigest(r)
	}
	return m
}

// bodyShapesSelected reports whether a capture opted in to JSON body
// shapes: the ledger records a not_approved exclusion otherwise.
func bodyShapesSelected(in *webInspection) bool {
	return !in.Completeness.excludedFor("json_body_shapes", "not_approved")
}

// networkMap groups requests by net_<Digest{method, url, resource_type}>
// and fingerprints each group by the sorted digests of its requests.
func networkMap(in *webInspection, shapes bool) identityMap {
	groups := map[string][]string{}
	for _, r := range in.Network.Requests {
		id := "net_" + core.MustDigest(map[string]any{"method": r.Method, "url": r.URL, "resource_type": r.ResourceType})
		v := map[string]any{"status": r.Status, "mime_type": r.MimeType, "encoded_data_length": r.EncodedDataLength, "initiator": r.Initiator}
		if shapes {
			v["body_shapes"] = r.BodyShapes
		}
		groups[id] = append(groups[id], core.MustDigest(v))
	}
	m := identityMap{}
	for id, ds := range groups {
		sort.Strings(ds)
		m[id] = core.MustDigest(ds)
	}
	return m
}

func sortedDigests[T any](items []T) []string {
	out := make([]string, len(items))
	for i, it := range items {
		out[i] = core.MustDigest(it)
	}
	sort.Strings(out)
	return out
}

func metadataProjection(in *webInspection) map[string]any {
	responses := make([]map[string]any, len(in.Metadata.Responses))
	for i, r := range in.Metadata.Responses {
		c := make(map[string]any, len(r))
		for k, v := range r {
			if k != "request_id" {
				c[k] = v
			}
		}
		responses[i] = c
	}
	return map[string]any{
		"responses":           sortedDigests(responses),
		"dom_urls":            sortedDigests(in.Metadata.DOMURLs),
		"agent_hints":         sortedDigests(in.Metadata.AgentHints),
		"excluded_dom_urls":   in.Metadata.ExcludedDOMURLs,
		"headers_allowlisted": in.Metadata.HeadersAllowlisted,
	}
}

func webMCPMap(d *webMCPCapture) identityMap {
	m := identityMap{}
	if d == nil {
		return m
	}
	for _, t := range d.Tools.Items {
		m[t["tool_key"].(string)] = core.MustDigest(t)
	}
	return m
}

func webMCPComplete(d *webMCPCapture) bool {
	return d != nil && d.Status == "available" && !d.Completeness.incomplete("webmcp_tools")
}

// accessibilityDimension compares node totals always, the tree (parent
// position, role, ignored, states) when both sides hold every node, and
// names and descriptions when both included untruncated text.
func accessibilityDimension(b, a *webInspection) pendingDimension {
	textOK := func(in *webInspection) bool {
		tc := in.Accessibility.TextCapture
		return tc.Status == "included" && tc.ExcludedFields == 0 && tc.TruncatedFields == 0
	}
	nodesOK := func(in *webInspection) bool { return in.Accessibility.TotalNodes == len(in.Accessibility.Nodes) }
	text, nodes := textOK(b) && textOK(a), nodesOK(b) && nodesOK(a)
	complete := text && nodes && !b.Completeness.incomplete("accessibility") && !a.Completeness.incomplete("accessibility")
	return compareIdentities(
		identityMap{"accessibility_tree": core.MustDigest(accessibilityProjection(b, text, nodes))},
		identityMap{"accessibility_tree": core.MustDigest(accessibilityProjection(a, text, nodes))},
		complete, axReason(b, a))
}

// axReason says which inspection kept the accessibility dimension from a
// full comparison, and what to pass to inspect_web_page instead.
func axReason(b, a *webInspection) string {
	var says, pass []string
	for _, side := range []struct {
		name string
		in   *webInspection
	}{{"before", b}, {"after", a}} {
		ax := side.in.Accessibility
		switch tc := ax.TextCapture; {
		case tc.Status != "included" && tc.Status != "truncated":
			says = append(says, fmt.Sprintf("the %s inspection's accessibility text is %s", side.name, cmp.Or(tc.Status, "absent")))
			pass = appendNew(pass, "include_accessibility_text: true")
		case tc.ExcludedFields > 0 || tc.TruncatedFields > 0 || tc.Status == "truncated":
			says = append(says, fmt.Sprintf("the %s inspection's accessibility text left out %d and cut %d names or descriptions", side.name, tc.ExcludedFields, tc.TruncatedFields))
		}
		if ax.TotalNodes != len(ax.Nodes) {
			says = append(says, fmt.Sprintf("the %s inspection lists %d of its %d accessibility nodes", side.name, len(ax.Nodes), ax.TotalNodes))
			pass = appendNew(pass, `detail: "complete"`)
		}
		if side.in.Completeness.incomplete("accessibility") {
			says = append(says, fmt.Sprintf("the %s inspection's accessibility section is incomplete (its completeness says why)", side.name))
		}
	}
	return unknownReason("Accessibility", says, pass)
}

// unknownReason is a dimension's reason for staying unknown: what kept it
// from a full comparison (says) and, when some of it is the callers'
// choice, the inspect_web_page arguments that lift it (pass).
func unknownReason(dim string, says, pass []string) string {
	if len(says) == 0 {
		return dim + " capture was incomplete in at least one observation."
	}
	r := dim + " was not fully comparable: " + strings.Join(says, "; ") + "."
	if len(pass) > 0 {
		r += " Inspect both pages again with " + strings.Join(pass, " and ") + " to compare it fully."
	}
	return r
}

func appendNew(list []string, s string) []string {
	if slices.Contains(list, s) {
		return list
	}
	return append(list, s)
}

func accessibilityProjection(in *webInspection, text, nodes bool) map[string]any {
	ax := in.Accessibility
	out := map[string]any{"total_nodes": ax.TotalNodes}
	if !nodes {
		return out
	}
	pos := make(map[string]int, len(ax.Nodes))
	for i, n := range ax.Nodes {
		if _, dup := pos[n.NodeID]; !dup {
			pos[n.NodeID] = i
		}
	}
	list := make([]map[string]any, len(ax.Nodes))
	for i, n := range ax.Nodes {
		var parent any
		if n.ParentID != nil {
			p, ok := pos[*n.ParentID]
			if !ok {
				p = -1
			}
			parent = p
		}
		states := n.States
		if states == nil {
			states = []any{}
		}
		e := map[string]any{"parent_index": parent, "role": n.Role, "ignored": n.Ignored, "states": states}
		if text {
			e["name"], e["description"] = n.Name, n.Description
		}
		list[i] = e
	}
	out["nodes"] = list
	return out
}

// storageDimension compares a summary (origin, redaction, and usage/quota
// when known on both sides), key inventories when complete on both sides,
// and content fingerprints comparable on both sides.
func storageDimension(b, a *webInspection) pendingDimension {
	keys := !b.Completeness.incomplete("storage_keys") && !a.Completeness.incomplete("storage_keys")
	usage := b.Storage.UsageBytes != nil && a.Storage.UsageBytes != nil && b.Storage.QuotaBytes != nil && a.Storage.QuotaBytes != nil
	ids := comparableFingerprints(&b.Storage, &a.Storage)
	complete := keys && usage && b.Storage.FingerprintsComplete && a.Storage.FingerprintsComplete &&
		!b.Completeness.incomplete("storage") && !a.Completeness.incomplete("storage")
	return compareIdentities(storageMap(&b.Storage, keys, usage, ids), storageMap(&a.Storage, keys, usage, ids), complete, storageReason(b, a))
}

// storageReason says which inspection kept the storage dimension from a
// full comparison, and what to pass to inspect_web_page instead.
func storageReason(b, a *webInspection) string {
	var says, pass []string
	for _, side := range []struct {
		name string
		in   *webInspection
	}{{"before", b}, {"after", a}} {
		in := side.in
		switch {
		case in.Completeness.excludedFor("storage_keys", "not_approved"):
			says = append(says, "the "+side.name+" inspection did not list storage keys")
			pass = appendNew(pass, "include_storage_keys: true")
		case in.Completeness.incomplete("storage_keys"):
			says = append(says, "the "+side.name+" inspection's storage key inventory is incomplete")
		}
		switch {
		case in.Storage.FingerprintsComplete:
		case len(in.Storage.ContentFingerprints) == 0:
			says = append(says, "the "+side.name+" inspection holds no fingerprints of stored values")
			pass = appendNew(pass, "include_storage_fingerprints: true")
		default:
			says = append(says, "the "+side.name+" inspection's value fingerprints are incomplete")
		}
		if in.Storage.UsageBytes == nil || in.Storage.QuotaBytes == nil {
			says = append(says, "the browser reported no storage usage or quota to the "+side.name+" inspection")
		}
		if in.Completeness.incomplete("storage") {
			says = append(says, "the "+side.name+" inspection's storage section is incomplete (its completeness says why)")
		}
	}
	return unknownReason("Storage", says, pass)
}

func completeFingerprints(s *webStorage) map[string]bool {
	m := map[string]bool{}
	for _, f := range s.ContentFingerprints {
		if f.Complete {
			m[f.Scope+":"+f.IdentitySHA256] = true
		}
	}
	return m
}

// comparableFingerprints are the identities whose content both sides can
// speak for: all complete ones when both inventories are complete, else
// only those complete on both sides.
func comparableFingerprints(b, a *webStorage) map[string]bool {
	bc, ac := completeFingerprints(b), completeFingerprints(a)
	out := map[string]bool{}
	if b.FingerprintsComplete && a.FingerprintsComplete {
		for k := range bc {
			out[k] = true
		}
		for k := range ac {
			out[k] = true
		}
		return out
	}
	for k := range bc {
		if ac[k] {
			out[k] = true
		}
	}
	return out
}

func storageMap(s *webStorage, keys, usage bool, ids map[string]bool) identityMap {
	summary := map[string]any{"origin": s.Origin, "values_redacted": s.ValuesRedacted}
	if usage {
		summary["usage_bytes"], summary["quota_bytes"] = s.UsageBytes, s.QuotaBytes
	}
	m := identityMap{"storage:summary": core.MustDigest(summary)}
	if !keys {
		return m
	}
	add := func(kind string, names []string) {
		for _, n := range names {
			m["storage:"+kind+":"+n] = core.MustDigest(n)
		}
	}
	add("local_storage", s.LocalStorageKeys)
	add("session_storage", s.SessionStorageKeys)
	add("indexed_db", s.IndexedDBNames)
	add("cache", s.CacheNames)
	for _, f := range s.ContentFingerprints {
		id := f.Scope + ":" + f.IdentitySHA256
		if ids[id] && f.Complete {
			m["storage:content:"+id] = core.MustDigest(f.ValueSHA256)
		}
	}
	return m
}

// validatePassive checks the cross-field invariants JSON Schema cannot
// express: retained counts within totals, unique identities, and a
// consistent completeness ledger.
func validatePassive(op string, side string, c *webPassiveCapture) error {
	in := &c.Inspection
	var issues []core.Issue
	bad := func(msg string, path ...any) {
		issues = append(issues, core.Issue{Path: append([]any{side}, path...), Reason: core.ReasonInvalidValue, Message: msg})
	}
	if in.DOM.TotalNodes < len(in.DOM.Nodes) {
		bad(fmt.Sprintf("dom.total_nodes %d is less than the %d retained nodes", in.DOM.TotalNodes, len(in.DOM.Nodes)), "inspection", "dom", "total_nodes")
	}
	if in.Accessibility.TotalNodes < len(in.Accessibility.Nodes) {
		bad(fmt.Sprintf("accessibility.total_nodes %d is less than the %d retained nodes", in.Accessibility.TotalNodes, len(in.Accessibility.Nodes)),
			"inspection", "accessibility", "total_nodes")
	}
	if in.Scripts.Total < len(in.Scripts.Items) {
		bad(fmt.Sprintf("scripts.total %d is less than the %d retained scripts", in.Scripts.Total, len(in.Scripts.Items)), "inspection", "scripts", "total")
	}
	dup := func(items []map[string]any, key string, path ...any) {
		seen := map[string]bool{}
		for i, it := range items {
			k, _ := it[key].(string)
			if seen[k] {
				bad(fmt.Sprintf("duplicate %s %s", key, k), append(append([]any{}, path...), i, key)...)
			}
			seen[k] = true
		}
	}
	dup(in.Scripts.Items, "script_key", "inspection", "scripts", "items")
	dup(in.Resources, "resource_key", "inspection", "resources")
	checkLedger := func(l *webCompleteness, path ...any) {
		sum := 0
		for _, k := range browserDroppedKinds {
			sum += l.Dropped[k]
		}
		if l.Dropped["total"] != sum {
			bad(fmt.Sprintf("dropped_events.total %d is not the sum %d of the per-kind counts", l.Dropped["total"], sum),
				append(append([]any{}, path...), "dropped_events", "total")...)
		}
		want := "complete_within_window"
		for _, c := range []string{"attach_limited", "policy_filtered", "truncated"} {
			if slices.Contains(l.Conditions, c) {
				want = c
			}
		}
		if l.Status != want {
			bad(fmt.Sprintf("completeness status %s does not match its conditions (%s)", l.Status, strings.Join(l.Conditions, ", ")),
				append(append([]any{}, path...), "status")...)
		}
	}
	checkLedger(&in.Completeness, "inspection", "completeness")
	if w := c.WebMCP; w != nil {
		if w.Tools.Total < len(w.Tools.Items) {
			bad(fmt.Sprintf("tools.total %d is less than the %d retained tools", w.Tools.Total, len(w.Tools.Items)), "webmcp", "tools", "total")
		}
		dup(w.Tools.Items, "tool_key", "webmcp", "tools", "items")
		checkLedger(&w.Completeness, "webmcp", "completeness")
	}
	if len(issues) > 0 {
		return core.InvalidRequest(op, issues...)
	}
	return nil
}
