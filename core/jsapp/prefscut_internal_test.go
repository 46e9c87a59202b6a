package jsapp

import "testing"

// A window whose web preferences the engine cut is a partial obligation:
// the ledger cannot say the rebuilt window must match settings it did not
// read. One read whole is evidenced.
func TestWindowObligationIsPartialWhenPreferencesWereCut(t *testing.T) {
	win := func(props map[string]any) *Node {
		label := "BrowserWindow"
		return &Node{NodeID: "jag_node_aaaaaaaaaaaa1", Kind: "browser-window", Observations: []Observation{{Label: &label, Properties: props}}}
	}
	for _, c := range []struct {
		props map[string]any
		want  string
	}{
		{map[string]any{"sandbox": true, "web_preferences_unseen": []any{"contextIsolation"}}, "partial"},
		{map[string]any{"sandbox": true}, "evidenced"},
	} {
		if got := obligation(nil, win(c.props), "window")["status"]; got != c.want {
			t.Errorf("%v: status %v, want %s", c.props, got, c.want)
		}
	}
}
