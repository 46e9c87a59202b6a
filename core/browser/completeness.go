package browser

import (
	"slices"
	"sort"
	"time"

	"rea/ports"
)

// Completeness (BROWSER.md §4).

var policyReasons = map[string]bool{"disallowed_origin": true, "unsupported_url": true, "unattributed_origin": true,
	"not_approved": true, "out_of_target_scope": true}

var unavailableReasons = map[string]bool{"provider_unavailable": true, "invalid_protocol_value": true}

// pageAttachLimited are the sections a page capture observes only after
// attaching.
var pageAttachLimited = []string{"network_requests", "console_events", "websocket_connections", "websocket_frames", "metadata"}

// completeness derives the ledger object from the engine's counts.
func completeness(c ports.BrowserCompleteness, attachLimited []string) WebCompleteness {
	set := func() map[string]bool { return map[string]bool{} }
	policy, attach, trunc, unavail := set(), set(), set(), set()
	for _, s := range attachLimited {
		attach[s] = true
	}
	type key struct{ s, r string }
	counts := map[key]int{}
	var order []key
	for _, e := range c.Excluded {
		k := key{e.Section, e.Reason}
		if _, ok := counts[k]; !ok {
			order = append(order, k)
		}
		counts[k] += e.Count
		switch {
		case policyReasons[e.Reason]:
			policy[e.Section] = true
		case unavailableReasons[e.Reason]:
			unavail[e.Section] = true
		case e.Reason == "resource_budget_exhausted":
			trunc[e.Section] = true
		}
	}
	for _, u := range c.Unavailable {
		unavail[u.Section] = true
	}
	for _, s := range c.Truncated {
		trunc[s] = true
	}
	d := c.Dropped
	dropped := WebCompletenessDroppedEvents{Scripts: d.Scripts, NetworkRequests: d.NetworkRequests, ConsoleEvents: d.ConsoleEvents,
		WebsocketConnections: d.WebSocketConnections, WebsocketFrames: d.WebSocketFrames, WebMCPTools: d.WebMCPTools,
		TimelineEvents: d.TimelineEvents}
	for _, k := range []struct {
		section string
		n       int
	}{{"scripts", d.Scripts}, {"network_requests", d.NetworkRequests}, {"console_events", d.ConsoleEvents},
		{"websocket_connections", d.WebSocketConnections}, {"websocket_frames", d.WebSocketFrames}, {"webmcp_tools", d.WebMCPTools},
		{"timeline", d.TimelineEvents}} {
		if k.n > 0 {
			dropped.Total += k.n
			trunc[k.section] = true
		}
	}
	sort.Slice(order, func(i, j int) bool {
		if order[i].s != order[j].s {
			return order[i].s < order[j].s
		}
		return order[i].r < order[j].r
	})
	excluded := make([]WebCompletenessExcludedItem, 0, len(order))
	for _, k := range order {
		n := counts[k]
		excluded = append(excluded, WebCompletenessExcludedItem{Section: k.s, Reason: k.r, Count: &n})
	}
	list := func(m map[string]bool) []string {
		out := make([]string, 0, len(m))
		for k := range m {
			out = append(out, k)
		}
		slices.Sort(out)
		return out
	}
	var conds []string
	if len(attach) > 0 || len(unavail) > 0 {
		conds = append(conds, "attach_limited")
	}
	if len(policy) > 0 {
		conds = append(conds, "policy_filtered")
	}
	if len(trunc) > 0 {
		conds = append(conds, "truncated")
	}
	status := "complete_within_window"
	switch {
	case len(trunc) > 0:
		status = "truncated"
	case len(policy) > 0:
		status = "policy_filtered"
	case len(attach) > 0 || len(unavail) > 0:
		status = "attach_limited"
	}
	if len(conds) == 0 {
		conds = []string{"complete_within_window"}
	}
	return WebCompleteness{Status: status, Conditions: conds,
		PolicyFilteredSections: list(policy), AttachLimitedSections: list(attach),
		TruncatedSections: list(trunc), UnavailableSections: list(unavail),
		Excluded: excluded, DroppedEvents: dropped}
}

// isoTime is BROWSER.md's ISO time with milliseconds and Z.
func isoTime(t time.Time) string { return t.UTC().Format("2006-01-02T15:04:05.000Z") }
