package cli

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

// inspect-web-page's text lists the requests, console events, workers and
// storage names a capture holds (at most pageRows each), says when storage
// names were not asked for rather than printing zero counts, and names
// every exclusion with its count and reason.
func TestInspectPageText(t *testing.T) {
	var requests []any
	for i := range pageRows + 3 {
		requests = append(requests, map[string]any{"method": "GET", "status": 200, "resource_type": "Fetch", "url": fmt.Sprintf("http://127.0.0.1:1/api/%d", i)})
	}
	record := func(storageExcluded bool) map[string]any {
		excluded := []any{map[string]any{"section": "workers", "count": 1, "reason": "unattributed_origin"}}
		if storageExcluded {
			excluded = append(excluded, map[string]any{"section": "storage_keys", "count": 1, "reason": "not_approved"})
		}
		r := map[string]any{
			"target":       map[string]any{"url": "http://127.0.0.1:1/", "title": "Shop"},
			"completeness": map[string]any{"conditions": []any{"policy_filtered"}, "excluded": excluded},
			"network":      map[string]any{"requests": requests},
			"console": map[string]any{"events": []any{
				map[string]any{"type": "log", "url": "http://127.0.0.1:1/app.js", "line": 11, "argument_types": []any{"string", "number"},
					"text_capture": map[string]any{"values": []any{map[string]any{"text": "poll"}, map[string]any{"text": "42"}}}},
				map[string]any{"type": "warn", "url": "http://127.0.0.1:1/app.js", "line": 3, "argument_types": []any{"object"},
					"text_capture": map[string]any{"values": []any{}}},
			}},
			"workers": []any{map[string]any{"type": "service_worker", "url": "http://127.0.0.1:1/sw.js"}},
			"storage": map[string]any{"origin": "http://127.0.0.1:1", "local_storage_keys": []any{"token"}, "session_storage_keys": []any{}},
		}
		// The record arrives decoded from JSON, numbers as float64.
		b, _ := json.Marshal(r)
		var m map[string]any
		_ = json.Unmarshal(b, &m)
		return m
	}
	var b bytes.Buffer
	if err := inspectPageText(&b, record(false)); err != nil {
		t.Fatal(err)
	}
	r := record(false)
	writeCoverage(&b, obj(r["completeness"]), nil)
	out := b.String()
	for _, want := range []string{
		"requests:\n  GET 200 Fetch http://127.0.0.1:1/api/0\n",
		"  … 3 more (--format json has all)\n",
		"console:\n  log app.js:11  poll 42\n  warn app.js:3  <object>\n",
		"workers:\n  service_worker http://127.0.0.1:1/sw.js\n",
		"  localStorage: token\n",
		"excluded: workers 1 (unattributed_origin)\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("text lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, fmt.Sprintf("/api/%d\n", pageRows)) {
		t.Errorf("more than %d requests listed:\n%s", pageRows, out)
	}
	b.Reset()
	if err := inspectPageText(&b, record(true)); err != nil {
		t.Fatal(err)
	}
	if out := b.String(); !strings.Contains(out, "names not listed (--include-storage-keys lists them)") || strings.Contains(out, "0 sessionStorage") {
		t.Errorf("storage names that were not asked for:\n%s", out)
	}
}
