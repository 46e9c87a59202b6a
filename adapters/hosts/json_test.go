package hosts_test

import (
	"strings"
	"testing"

	"github.com/matryer/is"

	"rea/adapters/hosts"
)

// JSON and JSONC layouts beyond the fixtures.
func TestJSONLayouts(t *testing.T) {
	vscodeProject, claudeUser := files[10], files[0]
	cases := []struct {
		name string
		f    file
		doc  string
		kind hosts.ActionKind
	}{
		{"JSONC trailing commas and CRLF", vscodeProject, "{\r\n  \"servers\": {\r\n    \"a\": {\"command\": \"a\"},\r\n  },\r\n}\r\n", hosts.ActionCreate},
		{"JSONC comment after the last value", vscodeProject, "{\n  \"servers\": {\n    \"a\": {\"command\": \"a\"} // keep me here\n  }\n}\n", hosts.ActionCreate},
		{"JSONC empty object with a comment", vscodeProject, "{\n  \"servers\": { /* none yet */ }\n}\n", hosts.ActionCreate},
		{"no servers key yet", claudeUser, "{\n  \"theme\": \"dark\"\n}", hosts.ActionCreate},
		{"minified", claudeUser, "{\"theme\":\"dark\",\"mcpServers\":{\"a\":{\"command\":\"a\"}}}", hosts.ActionCreate},
		{"unicode and escapes kept", claudeUser, "{\n  \"name\": \"caf\\u00e9 \\\"q\\\" \u2028\",\n  \"mcpServers\": {}\n}\n", hosts.ActionCreate},
		{"duplicate rea key", claudeUser, "{\"mcpServers\": {\"rea\": {}, \"rea\": {}}}", hosts.ActionInvalid},
		{"duplicate servers key", claudeUser, "{\"mcpServers\": {}, \"mcpServers\": {}}", hosts.ActionInvalid},
		{"comments in strict JSON", claudeUser, "{\n  // no\n  \"mcpServers\": {}\n}\n", hosts.ActionInvalid},
		{"rea entry not an object", claudeUser, "{\"mcpServers\": {\"rea\": \"/x/rea\"}}", hosts.ActionInvalid},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			is := is.New(t)
			h := newHome(t)
			h.write(c.f, []byte(c.doc))
			plan, err := hosts.PlanSetup(h.env, h.want, &hosts.SetupOptions{Options: *opts(c.f)})
			is.NoErr(err)
			is.Equal(plan.Actions[0].Kind, c.kind)
			if c.kind == hosts.ActionInvalid {
				r := h.inspect(c.f, nil)
				is.Equal(r.Status, hosts.StatusInvalid)
				is.True(r.Line > 0)
				return
			}
			_, err = hosts.Apply(plan)
			is.NoErr(err)
			after := string(h.read(c.f))
			is.True(keeps([]byte(c.doc), []byte(after)))
			is.Equal(h.inspect(c.f, nil).Status, hosts.StatusAligned)
			if strings.Contains(c.doc, "\r\n") {
				is.True(!strings.Contains(strings.ReplaceAll(after, "\r\n", ""), "\n")) // CRLF kept
			}
			if strings.Contains(c.doc, "keep me here") {
				is.True(strings.Contains(after, "{\"command\": \"a\"}, // keep me here\n")) // the comment stays on its line
			}
			if c.name == "minified" {
				is.True(!strings.Contains(after, " ")) // written in the file's style
			}
			un, err := hosts.PlanUninstall(h.env, opts(c.f))
			is.NoErr(err)
			_, err = hosts.ApplyUninstall(un)
			is.NoErr(err)
			is.Equal(string(h.read(c.f)), c.doc) // byte for byte
		})
	}
}

// A file edited by the user after setup: uninstall removes only rea's
// entry and keeps the user's later change.
func TestUninstallAfterUserEdit(t *testing.T) {
	is := is.New(t)
	h := newHome(t)
	f := files[6] // Gemini CLI, JSONC
	orig := fixture(t, f.fixture)
	h.write(f, orig)
	plan, err := hosts.PlanSetup(h.env, h.want, &hosts.SetupOptions{Options: *opts(f)})
	is.NoErr(err)
	_, err = hosts.Apply(plan)
	is.NoErr(err)
	edited := strings.Replace(string(h.read(f)), "\"theme\": \"GitHub\",", "\"theme\": \"Dracula\", // changed later", 1)
	h.write(f, []byte(edited))
	un, err := hosts.PlanUninstall(h.env, opts(f))
	is.NoErr(err)
	res, err := hosts.ApplyUninstall(un)
	is.NoErr(err)
	if res.Outcomes[0].Status != hosts.OutcomeRemoved {
		t.Fatalf("%+v", res.Outcomes[0])
	}
	after := string(h.read(f))
	is.True(strings.Contains(after, "// changed later"))
	is.True(strings.Contains(after, "/* web search through a local proxy */"))
	is.Equal(h.inspect(f, nil).Status, hosts.StatusMissing)
	is.Equal(after, strings.Replace(string(orig), "\"theme\": \"GitHub\",", "\"theme\": \"Dracula\", // changed later", 1))
}
