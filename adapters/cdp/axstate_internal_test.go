package cdp

import (
	"encoding/json"
	"testing"
)

// TestAXStateHolds: a state property holds when its value is true, a
// number, or a token other than "false"; false, "false", "" and null do not.
func TestAXStateHolds(t *testing.T) {
	for raw, want := range map[string]bool{
		`true`: true, `false`: false, `"true"`: true, `"false"`: false, `"mixed"`: true, `"polite"`: true,
		`""`: false, `2`: true, `null`: false, ``: false,
	} {
		if got := (axValue{Value: json.RawMessage(raw)}).on(); got != want {
			t.Errorf("%s: on() = %v, want %v", raw, got, want)
		}
	}
}
