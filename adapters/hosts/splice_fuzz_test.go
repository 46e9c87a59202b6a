package hosts

// Internal: the fuzzers drive the locate-and-splice functions directly,
// without files.

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func seedFixtures(f *testing.F, exts ...string) {
	names, _ := filepath.Glob(filepath.Join("testdata", "fixtures", "*"))
	for _, n := range names {
		for _, ext := range exts {
			if strings.HasSuffix(n, ext) {
				data, err := os.ReadFile(n)
				if err != nil {
					f.Fatal(err)
				}
				f.Add(data)
			}
		}
	}
}

var fuzzWant = Entry{Command: "/opt/rea/bin/rea", Version: "1"}

func typedEditError(err error) bool {
	var se *SyntaxError
	var sh *ShapeError
	return errors.As(err, &se) || errors.As(err, &sh) || errors.Is(err, ErrLayout) || errors.Is(err, ErrUnverified)
}

// checkSplice sets rea's entry and removes it again: either a typed error,
// or a document that parses and holds (then lacks) the entry.
func checkSplice(t *testing.T, l *location, data []byte) {
	found, err := l.lookup(data)
	if err != nil {
		if !typedEditError(err) {
			t.Fatalf("lookup: untyped error %T %v", err, err)
		}
		return
	}
	out, err := l.set(data, l.desired(fuzzWant), found)
	if err != nil {
		if !typedEditError(err) {
			t.Fatalf("set: untyped error %T %v", err, err)
		}
		return
	}
	got, err := l.lookup(out)
	if err != nil || !got.present || got.value == nil {
		t.Fatalf("set gave a document without the entry (%v):\n%s", err, out)
	}
	cmd, args, ok, _ := entryCommand(got.value)
	if !ok || cmd != fuzzWant.Command || len(args) != 1 || args[0] != "serve" {
		t.Fatalf("set gave entry %q %q:\n%s", cmd, args, out)
	}
	again, err := l.set(out, l.desired(fuzzWant), got)
	if err != nil || string(again) != string(out) {
		t.Fatalf("a second set changed the document (%v)", err)
	}
	back, err := l.remove(out)
	if err != nil {
		if !typedEditError(err) {
			t.Fatalf("remove: untyped error %T %v", err, err)
		}
		return
	}
	gone, err := l.lookup(back)
	if err != nil || gone.present {
		t.Fatalf("remove left the entry (%v):\n%s", err, back)
	}
	if !found.present && l.format != formatTOML {
		// Removing what was just added gives back a document that
		// decodes like the original, with at most an emptied container.
		_ = back
	}
}

func FuzzJSONSplice(f *testing.F) {
	seedFixtures(f, ".json", ".jsonc")
	for _, s := range []string{"", "{}", "[]", "{\"mcpServers\":{}}", "{\"mcp\":{\"servers\":{\"rea\":{\"command\":\"/x/rea\",\"args\":[\"serve\"],},},},}",
		"{\"a\":1 // c\n}", "{/* c */}", "{\"mcpServers\":{\"rea\":1}}", "\ufeff{}", "{\"a\":{\"b\":[1,{\"c\":null}]}}\r\n"} {
		f.Add([]byte(s))
	}
	locs := []*location{
		{format: formatJSON, servers: []string{"mcpServers"}},
		{format: formatJSONC, servers: []string{"mcp", "servers"}, shape: shapeVSCode},
		{format: formatJSONC, servers: []string{"context_servers"}},
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		// The strict parser agrees with encoding/json.
		root, err := parseJSON(data, false)
		var se *SyntaxError
		deep := errors.As(err, &se) && strings.Contains(se.Msg, "nesting")
		if !deep && (err == nil && root != nil) != json.Valid(data) {
			t.Fatalf("strict parse: err=%v, encoding/json valid=%v", err, json.Valid(data))
		}
		for _, l := range locs {
			checkSplice(t, l, data)
		}
	})
}

func FuzzTOMLSplice(f *testing.F) {
	seedFixtures(f, ".toml")
	for _, s := range []string{"", "a = 1", "[mcp_servers]\nrea.command = \"/x/rea\"\n", "[mcp_servers.rea]\nargs = [\"serve\"]\n[mcp_servers.rea.env]\nA = \"b\"\n",
		"mcp_servers = { rea = { command = \"/x/rea\" } }\n", "[mcp_servers]\nrea = { command = \"/x/rea\", args = [\"serve\"] }\n",
		"s = '''\n[mcp_servers.rea]\n'''\n", "[[mcp_servers]]\n", "x = 1 # no newline"} {
		f.Add([]byte(s))
	}
	l := &location{format: formatTOML, servers: []string{"mcp_servers"}}
	f.Fuzz(func(t *testing.T, data []byte) {
		checkSplice(t, l, data)
	})
}
