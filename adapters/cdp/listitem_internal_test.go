package cdp

import (
	"strings"
	"testing"
)

// Each /json/list reader (browser pages and Node inspectors) refuses an
// item that lacks a member it needs or holds one of the wrong type or
// length, and names the item and the member; an optional member may be
// absent or null.
func TestListItemMembers(t *testing.T) {
	ep, _ := parseEndpoint("http://127.0.0.1:9222")
	long := strings.Repeat("x", 16385)
	for _, c := range []struct {
		name, item, browser, node string // "" means accepted
	}{
		{"complete", `{"id":"A","type":"page","title":"t","url":"http://a.test/"}`, "", ""},
		{"no title", `{"id":"A","type":"page","url":"http://a.test/"}`, "", ""},
		{"null title", `{"id":"A","type":"page","title":null,"url":"http://a.test/"}`, "", ""},
		{"no id", `{"type":"page","url":"http://a.test/"}`, "item 0 lacks id", "item 0 lacks id"},
		{"no type", `{"id":"A","url":"http://a.test/"}`, "item 0 lacks type", "item 0 lacks type"},
		{"no url", `{"id":"A","type":"node"}`, "item 0 lacks url", ""},
		{"numeric type", `{"id":"A","type":7,"url":"http://a.test/"}`, "item 0 has a bad type", "item 0 has a bad type"},
		{"long title", `{"id":"A","type":"page","title":"` + long + `","url":"http://a.test/"}`, "item 0 has a bad title", "item 0 has a bad title"},
	} {
		_, err := parseList([]byte("["+c.item+"]"), ep)
		checkRefusal(t, c.name+" (browser)", err, c.browser)
		_, err = parseV8List([]byte("["+c.item+"]"), ep)
		checkRefusal(t, c.name+" (node)", err, c.node)
	}
}

func checkRefusal(t *testing.T, name string, err error, want string) {
	t.Helper()
	switch {
	case want == "" && err != nil:
		t.Errorf("%s: refused: %v", name, err)
	case want != "" && (err == nil || !strings.Contains(err.Error(), want)):
		t.Errorf("%s: got %v, want %q", name, err, want)
	}
}
