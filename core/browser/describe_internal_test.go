package browser

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestResultSchemasDescribeStatusesAndExceptions: an agent reading the
// result schemas could not tell which timeline entries carry http_status
// (commits and redirects) nor what argument_types holds for
// an uncaught exception (one "error" for a thrown Error). Both descriptions
// now say so.
func TestResultSchemasDescribeStatusesAndExceptions(t *testing.T) {
	var observe struct {
		Properties struct {
			Timeline struct {
				Items struct {
					Properties map[string]struct {
						Description string `json:"description"`
					} `json:"properties"`
				} `json:"items"`
			} `json:"timeline"`
		} `json:"properties"`
	}
	if err := json.Unmarshal(observeResultSchema, &observe); err != nil {
		t.Fatal(err)
	}
	d := observe.Properties.Timeline.Items.Properties["http_status"].Description
	if !strings.Contains(d, "commit") || !strings.Contains(d, "redirect") {
		t.Errorf("http_status description %q names neither commits nor redirects", d)
	}
	var insp struct {
		Defs map[string]struct {
			Properties struct {
				Console struct {
					Properties struct {
						Events struct {
							Items struct {
								Properties map[string]struct {
									Description string `json:"description"`
								} `json:"properties"`
							} `json:"items"`
						} `json:"events"`
					} `json:"properties"`
				} `json:"console"`
			} `json:"properties"`
		} `json:"$defs"`
	}
	if err := json.Unmarshal(defResult("web_inspection"), &insp); err != nil {
		t.Fatal(err)
	}
	d = insp.Defs["web_inspection"].Properties.Console.Properties.Events.Items.Properties["argument_types"].Description
	if !strings.Contains(d, "exception") || !strings.Contains(d, `"error"`) {
		t.Errorf("argument_types description %q says nothing of exception events' \"error\"", d)
	}
}
