package hosts_test

import (
	"strings"
	"testing"

	"github.com/matryer/is"

	"rea/adapters/hosts"
)

// Codex files that spell the entry in other TOML layouts.
func TestCodexLayouts(t *testing.T) {
	f := files[3]
	cases := []struct {
		name      string
		doc       string
		plan      hosts.ActionKind
		uninstall hosts.ActionKind
	}{
		{"dotted keys in [mcp_servers]", "# servers\n[mcp_servers]\nrea.command = \"/opt/old/rea\" # old\nrea.args = [\"serve\"]\nother.command = \"x\"\n",
			hosts.ActionUpdate, hosts.ActionRemove},
		{"dotted keys at the root, args missing", "mcp_servers.rea.command = \"/opt/old/rea\"\nmodel = \"m\"\n",
			hosts.ActionUpdate, hosts.ActionRetain}, // without args ["serve"] the entry is not rea's
		{"table with env sub-table", "[mcp_servers.rea]\ncommand = \"/opt/old/rea\"\nargs = [\n  \"serve\",\n]\n\n[mcp_servers.rea.env]\nREA_LOG = \"debug\"\n\n[other]\nx = 1\n",
			hosts.ActionUpdate, hosts.ActionRemove},
		{"inline table in [mcp_servers]", "[mcp_servers]\nrea = { command = \"/opt/old/rea\", args = [\"serve\"] }\n",
			hosts.ActionInvalid, hosts.ActionRemove},
		{"inline table at the root", "mcp_servers = { rea = { command = \"/opt/old/rea\", args = [\"serve\"] } }\n",
			hosts.ActionInvalid, hosts.ActionInvalid},
		{"a multi-line string that looks like a header", "notes = '''\n[mcp_servers.rea]\n'''\n",
			hosts.ActionCreate, hosts.ActionSkip},
		{"CRLF and no final newline", "model = \"m\"\r\n[mcp_servers.x]\r\ncommand = \"x\"",
			hosts.ActionCreate, hosts.ActionSkip},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			is := is.New(t)
			h := newHome(t)
			h.write(f, []byte(c.doc))
			un, err := hosts.PlanUninstall(h.env, opts(f))
			is.NoErr(err)
			is.Equal(un.Actions[0].Kind, c.uninstall)
			if c.name == "dotted keys at the root, args missing" {
				// Foreign for uninstall; setup sees a foreign entry too.
				plan, err := hosts.PlanSetup(h.env, h.want, &hosts.SetupOptions{Options: *opts(f)})
				is.NoErr(err)
				is.Equal(plan.Actions[0].Reason, hosts.ReasonForeign)
				return
			}
			plan, err := hosts.PlanSetup(h.env, h.want, &hosts.SetupOptions{Options: *opts(f)})
			is.NoErr(err)
			is.Equal(plan.Actions[0].Kind, c.plan)
			if c.plan == hosts.ActionInvalid {
				is.Equal(plan.Actions[0].Reason, hosts.ReasonLayout)
				return
			}
			_, err = hosts.Apply(plan)
			is.NoErr(err)
			after := string(h.read(f))
			is.Equal(h.inspect(f, nil).Status, hosts.StatusAligned)
			if strings.Contains(c.doc, "# old") {
				is.True(strings.Contains(after, "# old")) // the comment on the edited line is kept
			}
			if strings.Contains(c.doc, "\r\n") {
				is.True(!strings.Contains(strings.ReplaceAll(after, "\r\n", ""), "\n")) // CRLF kept
			}
			if strings.Contains(c.doc, "REA_LOG") {
				is.True(strings.Contains(after, "REA_LOG"))
			}
			un, err = hosts.PlanUninstall(h.env, opts(f))
			is.NoErr(err)
			_, err = hosts.ApplyUninstall(un)
			is.NoErr(err)
			is.Equal(h.inspect(f, nil).Status, hosts.StatusMissing)
			if c.plan == hosts.ActionCreate {
				is.Equal(string(h.read(f)), c.doc) // byte for byte
			}
		})
	}
}

// TestCodexStartupTimeout: rea setup writes startup_timeout_sec = 30 into
// Codex's entry (PROVIDERS.md §4.2), and an entry an earlier rea wrote
// without it is stale until setup adds it, keeping the user's other
// settings, comments and sub-tables. Before, setup wrote no timeout, and
// Codex's default could pass before a first npx start answered.
func TestCodexStartupTimeout(t *testing.T) {
	is := is.New(t)
	f := files[3]
	h := newHome(t)
	h.write(f, []byte("model = \"m\" # mine\n\n[mcp_servers.rea]\ncommand = "+`"`+h.want.Command+`"`+"\nargs = [\"serve\"]\n\n[mcp_servers.rea.env]\nREA_LOG = \"debug\"\n\n[mcp_servers.other]\ncommand = \"x\"\nstartup_timeout_sec = 5\n"))
	r := h.inspect(f, nil)
	is.Equal(r.Status, hosts.StatusStale)
	is.True(strings.Contains(r.Detail, `"startup_timeout_sec" should be 30`))
	plan, err := hosts.PlanSetup(h.env, h.want, &hosts.SetupOptions{Options: *opts(f)})
	is.NoErr(err)
	is.Equal(plan.Actions[0].Kind, hosts.ActionUpdate)
	_, err = hosts.Apply(plan)
	is.NoErr(err)
	after := string(h.read(f))
	is.True(strings.Contains(after, "[mcp_servers.rea]\ncommand = "))
	is.True(strings.Contains(after, "args = [\"serve\"]\nstartup_timeout_sec = 30\n"))
	is.True(strings.Contains(after, "model = \"m\" # mine"))                                            // the user's settings stay
	is.True(strings.Contains(after, "REA_LOG = \"debug\""))                                             // and rea's env sub-table
	is.True(strings.Contains(after, "[mcp_servers.other]\ncommand = \"x\"\nstartup_timeout_sec = 5\n")) // and another server's timeout
	is.Equal(h.inspect(f, nil).Status, hosts.StatusAligned)

	// A new entry gets the timeout with it.
	h2 := newHome(t)
	h2.write(f, []byte("model = \"m\"\n"))
	plan, err = hosts.PlanSetup(h2.env, h2.want, &hosts.SetupOptions{Options: *opts(f)})
	is.NoErr(err)
	_, err = hosts.Apply(plan)
	is.NoErr(err)
	is.True(strings.Contains(string(h2.read(f)), "startup_timeout_sec = 30\n"))
}
