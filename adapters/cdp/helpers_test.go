package cdp_test

import "encoding/json"

// dump renders a capture as JSON so tests can search it for secrets.
func dump(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}
