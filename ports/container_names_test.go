package ports_test

import (
	"testing"

	"rea/ports"
)

// TestUnsafeName: each reason a container adapter gives for a name it
// leaves out.
func TestUnsafeName(t *testing.T) {
	for name, want := range map[string]string{
		"a/b.js": "", "package/package.json": "", "x": "",
		"": "empty", "a//b": "empty", "a/": "empty",
		"a\x00b": "nul", `a\b`: "backslash", "/etc/passwd": "absolute", "C:evil": "absolute",
		"\xff.js": "utf8", "../x": "dot-dot", "a/../../b": "dot-dot", "./a": "dot", "a/./b": "dot",
	} {
		if got := ports.UnsafeName(name); got != want {
			t.Errorf("UnsafeName(%q) = %q, want %q", name, got, want)
		}
	}
}
