package web_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/matryer/is"
)

var webDimensionNames = []string{"dom_structure", "scripts", "resources", "network", "metadata", "webmcp", "accessibility", "storage"}

// webPassivePair is the plain inspection on both sides, each with the same
// WebMCP discovery.
func webPassivePair(t *testing.T) map[string]any {
	t.Helper()
	ex := webExample(t, webExPassiveChanged)
	before := webMap(t, ex, "before")
	return map[string]any{"before": webClone(t, before), "after": webClone(t, before)}
}

func webDim(t *testing.T, res map[string]any, name string) map[string]any {
	t.Helper()
	return webMap(t, res, "dimensions", name)
}

func webStatuses(t *testing.T, res map[string]any) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, d := range webDimensionNames {
		out[d], _ = webDim(t, res, d)["status"].(string)
	}
	return out
}

func webMarkIncomplete(t *testing.T, ins map[string]any, kind, section string) {
	t.Helper()
	c := webMap(t, ins, "completeness")
	c[kind] = append(webList(t, c, kind), section)
	if kind == "truncated_sections" {
		c["status"] = "truncated"
		c["conditions"] = append(webList(t, c, "conditions"), "truncated")
	}
}

func TestComparePassive(t *testing.T) {
	contentUnchanged := map[string]string{"dom_structure": "unchanged", "scripts": "unchanged", "resources": "unchanged",
		"network": "unknown", "metadata": "unknown", "webmcp": "unchanged", "accessibility": "unchanged", "storage": "unchanged"}
	cases := []struct {
		name  string
		args  func(t *testing.T) map[string]any
		check func(t *testing.T, res map[string]any)
	}{
		{"identical captures", webPassivePair, func(t *testing.T, res map[string]any) {
			is := is.New(t)
			is.Equal(webStatuses(t, res), contentUnchanged)
			// Network and metadata are attach-limited, so the overall claim
			// is unknown even for identical captures.
			is.Equal(res["overall_status"], "unknown")
			is.Equal(res["schema_version"], 1.0)
			is.Equal(webMap(t, res, "before_target")["url"], "http://127.0.0.1:4173/app")
			is.True(strings.Contains(webDim(t, res, "network")["reason"].(string), "after each attachment"))
		}},
		{"one script added", func(t *testing.T) map[string]any { return webExample(t, webExPassiveChanged) }, func(t *testing.T, res map[string]any) {
			is := is.New(t)
			is.Equal(res["overall_status"], "changed")
			s := webDim(t, res, "scripts")
			is.Equal(s["status"], "changed")
			is.Equal(s["total_changes"], 1.0)
			is.Equal(s["omitted_changes"], 0.0)
			ch := webMap(t, s, "changes", 0)
			is.Equal(ch["change"], "added")
			is.True(strings.HasPrefix(ch["identity"].(string), "scr_"))
			is.Equal(ch["before_sha256"], nil)
			is.True(ch["after_sha256"] != nil)
			is.Equal(webMap(t, res, "dimensions", "resources", "changes", 0)["change"], "added")
			is.Equal(webMap(t, res, "dimensions", "dom_structure", "changes", 0)["change"], "modified")
			is.Equal(webDim(t, res, "metadata")["status"], "changed") // a new DOM URL is a modification
			is.Equal(webDim(t, res, "webmcp")["status"], "unchanged")
		}},
		{"truncated scripts are never unchanged", func(t *testing.T) map[string]any {
			a := webPassivePair(t)
			webMarkIncomplete(t, webMap(t, a, "after", "inspection"), "truncated_sections", "scripts")
			return a
		}, func(t *testing.T, res map[string]any) {
			is := is.New(t)
			s := webDim(t, res, "scripts")
			is.Equal(s["status"], "unknown")
			is.True(s["reason"] != nil)
			is.Equal(len(webList(t, s, "changes")), 0)
		}},
		{"an other-origin script says why and what to pass", func(t *testing.T) map[string]any {
			a := webPassivePair(t)
			ins := webMap(t, a, "before", "inspection")
			webMarkIncomplete(t, ins, "policy_filtered_sections", "scripts")
			c := webMap(t, ins, "completeness")
			c["excluded"] = append(webList(t, c, "excluded"), map[string]any{"section": "scripts", "reason": "disallowed_origin", "count": 1})
			c["status"] = "policy_filtered"
			c["conditions"] = append(webList(t, c, "conditions"), "policy_filtered")
			return a
		}, func(t *testing.T, res map[string]any) {
			is := is.New(t)
			s := webDim(t, res, "scripts")
			is.Equal(s["status"], "unknown")
			is.Equal(s["reason"], "Script inventory was incomplete in at least one observation (the before capture's scripts disallowed_origin). "+
				"Inspect both pages again with allowed_origins listing the page's origin and those of its other-origin frames and scripts to compare it fully.")
		}},
		{"an addition under truncation proves nothing", func(t *testing.T) map[string]any {
			a := webExample(t, webExPassiveChanged)
			webMarkIncomplete(t, webMap(t, a, "before", "inspection"), "truncated_sections", "scripts")
			return a
		}, func(t *testing.T, res map[string]any) {
			is := is.New(t)
			is.Equal(webDim(t, res, "scripts")["status"], "unknown")
			is.Equal(webDim(t, res, "resources")["status"], "changed")
		}},
		{"unavailable accessibility is unknown", func(t *testing.T) map[string]any {
			a := webPassivePair(t)
			webMarkIncomplete(t, webMap(t, a, "before", "inspection"), "unavailable_sections", "accessibility")
			return a
		}, func(t *testing.T, res map[string]any) {
			is.New(t).Equal(webDim(t, res, "accessibility")["status"], "unknown")
		}},
		{"accessibility names are not compared without text", func(t *testing.T) map[string]any {
			a := webPassivePair(t)
			for _, side := range []string{"before", "after"} {
				ax := webMap(t, a, side, "inspection", "accessibility")
				webMap(t, ax, "text_capture")["status"] = "not_approved"
			}
			webMap(t, a, "after", "inspection", "accessibility", "nodes", 1)["name"] = "Buy now"
			return a
		}, func(t *testing.T, res map[string]any) {
			is := is.New(t)
			d := webDim(t, res, "accessibility")
			is.Equal(d["status"], "unknown")
			// The reason names what kept it unknown and what to pass.
			is.Equal(d["reason"], "Accessibility was not fully comparable: the before inspection's accessibility text is not_approved; "+
				"the after inspection's accessibility text is not_approved. Inspect both pages again with include_accessibility_text: true to compare it fully.")
		}},
		{"storage without value fingerprints says what to pass", func(t *testing.T) map[string]any {
			a := webPassivePair(t)
			st := webMap(t, a, "after", "inspection", "storage")
			st["fingerprints_complete"], st["content_fingerprints"] = false, []any{}
			return a
		}, func(t *testing.T, res map[string]any) {
			is := is.New(t)
			d := webDim(t, res, "storage")
			is.Equal(d["status"], "unknown")
			is.Equal(d["reason"], "Storage was not fully comparable: the after inspection holds no fingerprints of stored values. "+
				"Inspect both pages again with include_storage_fingerprints: true to compare it fully.")
		}},
		{"accessibility role change", func(t *testing.T) map[string]any {
			a := webPassivePair(t)
			webMap(t, a, "after", "inspection", "accessibility", "nodes", 1)["role"] = "link"
			return a
		}, func(t *testing.T, res map[string]any) {
			is := is.New(t)
			d := webDim(t, res, "accessibility")
			is.Equal(d["status"], "changed")
			is.Equal(webMap(t, d, "changes", 0)["identity"], "accessibility_tree")
		}},
		{"network status change is a modification", func(t *testing.T) map[string]any {
			a := webPassivePair(t)
			webMap(t, a, "after", "inspection", "network", "requests", 0)["status"] = 500
			return a
		}, func(t *testing.T, res map[string]any) {
			is := is.New(t)
			d := webDim(t, res, "network")
			is.Equal(d["status"], "changed")
			ch := webMap(t, d, "changes", 0)
			is.Equal(ch["change"], "modified")
			is.True(strings.HasPrefix(ch["identity"].(string), "net_"))
		}},
		{"a new request is not proven by an attach-limited capture", func(t *testing.T) map[string]any {
			a := webPassivePair(t)
			net := webMap(t, a, "after", "inspection", "network")
			req := webClone(t, webAt(t, net, "requests", 0)).(map[string]any)
			req["request_id"], req["url"] = "31337.13", "http://127.0.0.1:4173/api/orders"
			net["requests"] = append(webList(t, net, "requests"), req)
			return a
		}, func(t *testing.T, res map[string]any) {
			is.New(t).Equal(webDim(t, res, "network")["status"], "unknown")
		}},
		{"webmcp missing on one side", func(t *testing.T) map[string]any {
			a := webPassivePair(t)
			webMap(t, a, "after")["webmcp"] = nil
			return a
		}, func(t *testing.T, res map[string]any) {
			is.New(t).Equal(webDim(t, res, "webmcp")["status"], "unknown")
		}},
		{"webmcp tool removed", func(t *testing.T) map[string]any {
			a := webPassivePair(t)
			tools := webMap(t, a, "after", "webmcp", "tools")
			tools["items"], tools["total"] = []any{}, 0
			return a
		}, func(t *testing.T, res map[string]any) {
			is := is.New(t)
			d := webDim(t, res, "webmcp")
			is.Equal(d["status"], "changed")
			is.Equal(webMap(t, d, "changes", 0)["change"], "removed")
		}},
		{"a frame not captured is unknown, not unchanged", func(t *testing.T) map[string]any {
			a := webPassivePair(t)
			for _, side := range []string{"before", "after"} {
				in := webMap(t, a, side, "inspection")
				in["frames"] = append(in["frames"].([]any), map[string]any{"frame_id": "IF1", "parent_frame_id": "F1",
					"url": "http://widget.test/w.html", "origin": "http://widget.test", "not_captured": []any{"frames", "dom", "scripts"}})
			}
			return a
		}, func(t *testing.T, res map[string]any) {
			is := is.New(t)
			d := webDim(t, res, "dom_structure")
			is.Equal(d["status"], "unknown")
			is.True(strings.Contains(d["reason"].(string), "the after inspection lists 1 frame(s) of another site whose content it did not read (http://widget.test/w.html)"))
			is.Equal(webDim(t, res, "scripts")["status"], "unknown")
			is.Equal(webDim(t, res, "resources")["status"], "unchanged")
		}},
		{"observed empty storage on both sides is unchanged", func(t *testing.T) map[string]any {
			a := webPassivePair(t)
			for _, side := range []string{"before", "after"} {
				st := webMap(t, a, side, "inspection", "storage")
				st["local_storage_keys"], st["content_fingerprints"], st["fingerprints_complete"] = []any{}, []any{}, true
			}
			return a
		}, func(t *testing.T, res map[string]any) {
			is.New(t).Equal(webDim(t, res, "storage")["status"], "unchanged")
		}},
		{"storage key added", func(t *testing.T) map[string]any {
			a := webPassivePair(t)
			st := webMap(t, a, "after", "inspection", "storage")
			st["local_storage_keys"] = []any{"cart", "theme"}
			return a
		}, func(t *testing.T, res map[string]any) {
			is := is.New(t)
			d := webDim(t, res, "storage")
			is.Equal(d["status"], "changed")
			ch := webMap(t, d, "changes", 0)
			is.Equal(ch["identity"], "storage:local_storage:theme")
			is.Equal(ch["change"], "added")
		}},
		{"storage usage unknown", func(t *testing.T) map[string]any {
			a := webPassivePair(t)
			webMap(t, a, "before", "inspection", "storage")["usage_bytes"] = nil
			return a
		}, func(t *testing.T, res map[string]any) {
			is.New(t).Equal(webDim(t, res, "storage")["status"], "unknown")
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) { tc.check(t, webCompare(t, tc.args(t))) })
	}
}

func TestComparePassiveChangeBudget(t *testing.T) {
	// The changed example has four changes in budget order: the document
	// (dom_structure), the script, the resource, then metadata.
	for _, tc := range []struct {
		max              int
		retained         map[string]int
		omitted          map[string]int
		omittedLimitLine bool
	}{
		{2000, map[string]int{"dom_structure": 1, "scripts": 1, "resources": 1, "metadata": 1}, map[string]int{}, false},
		{2, map[string]int{"dom_structure": 1, "scripts": 1}, map[string]int{"resources": 1, "metadata": 1}, true},
		{1, map[string]int{"dom_structure": 1}, map[string]int{"scripts": 1, "resources": 1, "metadata": 1}, true},
	} {
		t.Run(fmt.Sprint(tc.max), func(t *testing.T) {
			is := is.New(t)
			a := webExample(t, webExPassiveChanged)
			a["max_changes"] = tc.max
			res := webCompare(t, a)
			for _, d := range webDimensionNames {
				dim := webDim(t, res, d)
				is.Equal(len(webList(t, dim, "changes")), tc.retained[d])
				is.Equal(dim["omitted_changes"], float64(tc.omitted[d]))
				is.Equal(dim["total_changes"], float64(tc.retained[d]+tc.omitted[d]))
			}
			found := false
			for _, l := range webList(t, res, "limitations") {
				found = found || strings.Contains(l.(string), "omitted by max_changes")
			}
			is.Equal(found, tc.omittedLimitLine)
		})
	}
}

func TestComparePassiveIsSymmetricInStatus(t *testing.T) {
	is := is.New(t)
	a := webExample(t, webExPassiveChanged)
	forward := webCompare(t, a)
	a["before"], a["after"] = a["after"], a["before"]
	backward := webCompare(t, a)
	is.Equal(webStatuses(t, forward), webStatuses(t, backward))
	is.Equal(webMap(t, backward, "dimensions", "scripts", "changes", 0)["change"], "removed")
}
