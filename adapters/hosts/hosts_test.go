package hosts_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/matryer/is"

	"rea/adapters/hosts"
	"rea/ports"
)

// file is one client's configuration file in a test home.
type file struct {
	client  string
	scope   hosts.Scope
	rel     []string // below Home (user) or Dir (project)
	fixture string   // testdata/fixtures/...
	marker  []string // user scope: the directory that shows the client is installed
}

var files = []file{
	{"claude-code", hosts.ScopeUser, []string{".claude.json"}, "claude-code.user.json", []string{".claude"}},
	{"claude-code", hosts.ScopeProject, []string{".mcp.json"}, "claude-code.project.json", nil},
	{"claude-desktop", hosts.ScopeUser, []string{".config", "Claude", "claude_desktop_config.json"}, "claude-desktop.user.json", []string{".config", "Claude"}},
	{"codex", hosts.ScopeUser, []string{".codex", "config.toml"}, "codex.user.toml", []string{".codex"}},
	{"cursor", hosts.ScopeUser, []string{".cursor", "mcp.json"}, "cursor.user.json", []string{".cursor"}},
	{"cursor", hosts.ScopeProject, []string{".cursor", "mcp.json"}, "cursor.project.json", nil},
	{"gemini-cli", hosts.ScopeUser, []string{".gemini", "settings.json"}, "gemini-cli.user.jsonc", []string{".gemini"}},
	{"gemini-cli", hosts.ScopeProject, []string{".gemini", "settings.json"}, "gemini-cli.project.jsonc", nil},
	{"windsurf", hosts.ScopeUser, []string{".codeium", "windsurf", "mcp_config.json"}, "windsurf.user.json", []string{".codeium", "windsurf"}},
	{"vscode", hosts.ScopeUser, []string{".config", "Code", "User", "settings.json"}, "vscode.user.jsonc", []string{".config", "Code", "User"}},
	{"vscode", hosts.ScopeProject, []string{".vscode", "mcp.json"}, "vscode.project.jsonc", nil},
	{"zed", hosts.ScopeUser, []string{".config", "zed", "settings.json"}, "zed.user.jsonc", []string{".config", "zed"}},
}

type home struct {
	t    *testing.T
	env  hosts.Env
	want hosts.Entry
}

// newHome makes an empty home and project directory, and a rea binary to
// register.
func newHome(t *testing.T) *home {
	t.Helper()
	root := t.TempDir()
	h := &home{t: t, env: hosts.Env{Home: filepath.Join(root, "home"), Dir: filepath.Join(root, "project"), GOOS: "linux"}}
	for _, d := range []string{h.env.Home, h.env.Dir, filepath.Join(root, "bin")} {
		must(t, os.MkdirAll(d, 0o755))
	}
	h.want = hosts.Entry{Command: filepath.Join(root, "bin", "rea"), Version: "1.2.0"}
	must(t, os.WriteFile(h.want.Command, []byte("#!/bin/sh\n"), 0o755))
	return h
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func (h *home) path(f file) string {
	base := h.env.Home
	if f.scope == hosts.ScopeProject {
		base = h.env.Dir
	}
	return filepath.Join(append([]string{base}, f.rel...)...)
}

// install makes the client look installed.
func (h *home) install(f file) {
	if f.marker != nil {
		must(h.t, os.MkdirAll(filepath.Join(append([]string{h.env.Home}, f.marker...)...), 0o755))
	}
}

func (h *home) write(f file, data []byte) string {
	h.install(f)
	p := h.path(f)
	must(h.t, os.MkdirAll(filepath.Dir(p), 0o755))
	must(h.t, os.WriteFile(p, data, 0o644))
	return p
}

func fixture(t *testing.T, name string) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", "fixtures", name))
	must(t, err)
	return data
}

func (h *home) read(f file) []byte {
	data, err := os.ReadFile(h.path(f))
	must(h.t, err)
	return data
}

func opts(f file) *hosts.Options {
	return &hosts.Options{Clients: []string{f.client}, Scopes: []hosts.Scope{f.scope}}
}

func (h *home) inspect(f file, probe func(string) (string, error)) hosts.Registration {
	h.t.Helper()
	o := opts(f)
	o.Version = probe
	regs, err := hosts.Inspect(h.env, h.want, o)
	must(h.t, err)
	if len(regs) != 1 {
		h.t.Fatalf("%s/%s: %d registrations, want 1: %+v", f.client, f.scope, len(regs), regs)
	}
	return regs[0]
}

// entryFor writes rea's entry with command cmd in the client's own syntax.
func entryFor(f file, cmd string) []byte {
	q, _ := json.Marshal(cmd)
	switch {
	case f.client == "codex":
		return []byte("[mcp_servers.rea]\ncommand = " + string(q) + "\nargs = [\"serve\"]\nstartup_timeout_sec = 30\n")
	case f.client == "vscode" && f.scope == hosts.ScopeUser:
		return []byte(`{"mcp": {"servers": {"rea": {"type": "stdio", "command": ` + string(q) + `, "args": ["serve"]}}}}`)
	case f.client == "vscode":
		return []byte(`{"servers": {"rea": {"type": "stdio", "command": ` + string(q) + `, "args": ["serve"]}}}`)
	case f.client == "zed":
		return []byte(`{"context_servers": {"rea": {"command": ` + string(q) + `, "args": ["serve"]}}}`)
	default:
		return []byte(`{"mcpServers": {"rea": {"command": ` + string(q) + `, "args": ["serve"]}}}`)
	}
}

func TestInspectClassifies(t *testing.T) {
	for _, f := range files {
		t.Run(f.client+"/"+string(f.scope), func(t *testing.T) {
			type state struct {
				name   string
				setup  func(h *home)
				probe  func(string) (string, error)
				status hosts.Status
				reason hosts.Reason
				line   bool // a position is reported
			}
			old := "/opt/old/bin/rea"
			states := []state{
				{name: "no entry", setup: func(h *home) { h.write(f, fixture(t, f.fixture)) },
					status: hosts.StatusMissing, reason: hosts.ReasonNoEntry},
				{name: "empty file", setup: func(h *home) { h.write(f, nil) },
					status: hosts.StatusMissing, reason: hosts.ReasonEmptyFile},
				{name: "aligned", setup: func(h *home) { h.write(f, entryFor(f, h.want.Command)) },
					status: hosts.StatusAligned, line: true},
				{name: "aligned, probed", setup: func(h *home) { h.write(f, entryFor(f, h.want.Command)) },
					probe:  func(string) (string, error) { return "1.2.0", nil },
					status: hosts.StatusAligned},
				{name: "stale path", setup: func(h *home) { h.write(f, entryFor(f, old)) },
					status: hosts.StatusStale, reason: hosts.ReasonOtherPath, line: true},
				{name: "stale version", setup: func(h *home) { h.write(f, entryFor(f, h.want.Command)) },
					probe:  func(string) (string, error) { return "1.1.0", nil },
					status: hosts.StatusStale, reason: hosts.ReasonOtherVersion},
				{name: "foreign entry", setup: func(h *home) { h.write(f, entryFor(f, "/usr/bin/node")) },
					status: hosts.StatusInvalid, reason: hosts.ReasonForeign, line: true},
				{name: "unparseable", setup: func(h *home) { h.write(f, []byte("{\n  \"mcpServers\": {\n    \"x\": [1,,2]\n")) },
					status: hosts.StatusInvalid, reason: hosts.ReasonParse, line: true},
				{name: "too large", setup: func(h *home) {
					p := h.write(f, nil)
					must(t, os.Truncate(p, hosts.MaxFileSize+1))
				}, status: hosts.StatusInvalid, reason: hosts.ReasonTooLarge},
				{name: "directory in the way", setup: func(h *home) {
					h.install(f)
					must(t, os.MkdirAll(h.path(f), 0o755))
				}, status: hosts.StatusInvalid, reason: hosts.ReasonNotRegular},
			}
			if f.client != "codex" {
				states = append(states, state{name: "wrong shape", setup: func(h *home) {
					var doc []byte
					switch {
					case f.client == "vscode" && f.scope == hosts.ScopeUser:
						doc = []byte("{\n  \"mcp\": {\n    \"servers\": []\n  }\n}\n")
					case f.client == "vscode":
						doc = []byte("{\n  \"servers\": \"none\"\n}\n")
					case f.client == "zed":
						doc = []byte("{\n  \"context_servers\": 3\n}\n")
					default:
						doc = []byte("{\n  \"mcpServers\": [\"rea\"]\n}\n")
					}
					h.write(f, doc)
				}, status: hosts.StatusInvalid, reason: hosts.ReasonShape, line: true})
				states = append(states, state{name: "root not an object", setup: func(h *home) { h.write(f, []byte("[]\n")) },
					status: hosts.StatusInvalid, reason: hosts.ReasonShape, line: true})
			} else {
				states = append(states, state{name: "wrong shape", setup: func(h *home) { h.write(f, []byte("# servers\nmcp_servers = 3\n")) },
					status: hosts.StatusInvalid, reason: hosts.ReasonShape, line: true})
			}
			if f.scope == hosts.ScopeUser {
				states = append(states, state{name: "no file", setup: func(h *home) { h.install(f) },
					status: hosts.StatusMissing, reason: hosts.ReasonNoFile})
			}
			for _, s := range states {
				t.Run(s.name, func(t *testing.T) {
					is := is.New(t)
					h := newHome(t)
					s.setup(h)
					r := h.inspect(f, s.probe)
					is.Equal(r.Status, s.status) // status
					if s.reason != "" {
						is.Equal(r.Reason, s.reason) // reason
					}
					if s.line {
						is.True(r.Line > 0) // a line is reported
					}
					is.Equal(r.Path, h.path(f))
					is.True(r.Detail != "")
					if s.name == "stale path" {
						is.True(strings.Contains(r.Detail, old))
					}
					if s.name == "stale version" {
						is.Equal(r.Version, "1.1.0")
						is.True(strings.Contains(r.Detail, "1.1.0"))
					}
				})
			}
		})
	}
}

func TestInspectSymlinkAndReadOnly(t *testing.T) {
	f := files[0] // Claude Code, user
	t.Run("symlink of the user is followed", func(t *testing.T) {
		is := is.New(t)
		h := newHome(t)
		h.install(f)
		target := filepath.Join(h.env.Home, "dotfiles", "claude.json")
		must(t, os.MkdirAll(filepath.Dir(target), 0o755))
		must(t, os.WriteFile(target, entryFor(f, h.want.Command), 0o600))
		must(t, os.Symlink(target, h.path(f)))
		is.Equal(h.inspect(f, nil).Status, hosts.StatusAligned)
	})
	t.Run("dangling symlink", func(t *testing.T) {
		is := is.New(t)
		h := newHome(t)
		h.install(f)
		must(t, os.Symlink(filepath.Join(h.env.Home, "nowhere.json"), h.path(f)))
		r := h.inspect(f, nil)
		is.Equal(r.Status, hosts.StatusInvalid)
		is.Equal(r.Reason, hosts.ReasonUnsafeSymlink)
	})
	t.Run("symlink to another user's file", func(t *testing.T) {
		if os.Getuid() != 0 {
			t.Skip("changing a file's owner needs root")
		}
		is := is.New(t)
		h := newHome(t)
		h.install(f)
		target := filepath.Join(h.env.Home, "other.json")
		must(t, os.WriteFile(target, entryFor(f, h.want.Command), 0o644))
		must(t, os.Chown(target, 4242, 4242))
		must(t, os.Symlink(target, h.path(f)))
		r := h.inspect(f, nil)
		is.Equal(r.Status, hosts.StatusInvalid)
		is.Equal(r.Reason, hosts.ReasonUnsafeSymlink)
		plan, err := hosts.PlanSetup(h.env, h.want, &hosts.SetupOptions{Options: *opts(f)})
		is.NoErr(err)
		is.True(plan.Blocked)
	})
	t.Run("read-only", func(t *testing.T) {
		is := is.New(t)
		h := newHome(t)
		orig := fixture(t, f.fixture)
		p := h.write(f, orig)
		must(t, os.Chmod(p, 0o444))
		r := h.inspect(f, nil)
		is.Equal(r.Status, hosts.StatusMissing)
		is.True(r.ReadOnly)
		plan, err := hosts.PlanSetup(h.env, h.want, &hosts.SetupOptions{Options: *opts(f)})
		is.NoErr(err)
		is.True(plan.Blocked)
		is.Equal(plan.Actions[0].Reason, hosts.ReasonReadOnly)
		_, err = hosts.Apply(plan)
		is.True(errors.Is(err, hosts.ErrBlocked))
		is.Equal(h.read(f), orig)
	})
}

// keeps reports whether every byte of before is still in after, in order:
// the edit only inserted text.
func keeps(before, after []byte) bool {
	i := 0
	for _, c := range after {
		if i < len(before) && before[i] == c {
			i++
		}
	}
	return i == len(before)
}

func TestSetupThenUninstall(t *testing.T) {
	for _, f := range files {
		t.Run(f.client+"/"+string(f.scope), func(t *testing.T) {
			for _, start := range []string{"fixture", "no file", "empty file"} {
				t.Run(start, func(t *testing.T) {
					is := is.New(t)
					h := newHome(t)
					var orig []byte
					switch start {
					case "fixture":
						orig = fixture(t, f.fixture)
						h.write(f, orig)
					case "empty file":
						orig = []byte{}
						h.write(f, orig)
					default:
						h.install(f)
					}
					o := &hosts.SetupOptions{Options: *opts(f)}
					plan, err := hosts.PlanSetup(h.env, h.want, o)
					is.NoErr(err)
					is.True(!plan.Blocked)
					is.Equal(len(plan.Actions), 1)
					a := plan.Actions[0]
					is.Equal(a.Kind, hosts.ActionCreate)
					if orig != nil {
						is.Equal(a.BackupPath, h.path(f)+".rea.backup")
					} else {
						is.Equal(a.BackupPath, "")
					}
					// Planning wrote nothing.
					if orig != nil {
						is.Equal(h.read(f), orig)
					} else {
						_, err := os.Stat(h.path(f))
						is.True(errors.Is(err, os.ErrNotExist))
					}

					res, err := hosts.Apply(plan)
					is.NoErr(err)
					is.True(!res.Failed)
					is.Equal(res.Outcomes[0].Status, hosts.OutcomeConfigured)
					after := h.read(f)
					if len(orig) > 0 {
						is.True(keeps(orig, after)) // the rest of the file is kept byte for byte
						backup, err := os.ReadFile(h.path(f) + ".rea.backup")
						is.NoErr(err)
						is.Equal(backup, orig)
						fi, err := os.Stat(h.path(f))
						is.NoErr(err)
						is.Equal(fi.Mode().Perm(), os.FileMode(0o644)) // mode kept
					} else if orig == nil {
						fi, err := os.Stat(h.path(f))
						is.NoErr(err)
						is.Equal(fi.Mode().Perm(), os.FileMode(0o600)) // new files are private
					}
					is.Equal(h.inspect(f, func(string) (string, error) { return "1.2.0", nil }).Status, hosts.StatusAligned)

					again, err := hosts.PlanSetup(h.env, h.want, o)
					is.NoErr(err)
					is.Equal(again.Actions[0].Kind, hosts.ActionAlreadyCurrent)
					is.True(!again.Changes())
					res, err = hosts.Apply(again)
					is.NoErr(err)
					is.Equal(res.Outcomes[0].Status, hosts.OutcomeUnchanged)
					is.Equal(h.read(f), after)

					un, err := hosts.PlanUninstall(h.env, &hosts.Options{Clients: []string{f.client}, Scopes: []hosts.Scope{f.scope}})
					is.NoErr(err)
					is.Equal(un.Actions[0].Kind, hosts.ActionRemove)
					is.Equal(h.read(f), after) // planning wrote nothing
					res, err = hosts.ApplyUninstall(un)
					is.NoErr(err)
					is.True(!res.Failed)
					is.Equal(res.Outcomes[0].Status, hosts.OutcomeRestored)
					if orig != nil {
						is.Equal(h.read(f), orig) // byte for byte
					} else {
						_, err := os.Stat(h.path(f))
						is.True(errors.Is(err, os.ErrNotExist)) // rea created it; it is gone
					}
					if orig != nil || f.scope == hosts.ScopeUser {
						is.Equal(h.inspect(f, nil).Status, hosts.StatusMissing)
					}
				})
			}
		})
	}
}

func TestStaleEntryUpdated(t *testing.T) {
	for _, f := range files {
		t.Run(f.client+"/"+string(f.scope), func(t *testing.T) {
			is := is.New(t)
			h := newHome(t)
			stale := entryFor(f, "/opt/old/rea")
			if f.client != "codex" {
				// Keep a field rea does not write; the update must keep it.
				stale = bytes.Replace(stale, []byte(`"args": ["serve"]`), []byte(`"args": ["serve"], "env": {"REA_LOG": "debug"}`), 1)
			} else {
				stale = append([]byte("# mine\n"), append(stale, "env = { REA_LOG = \"debug\" } # keep\n"...)...)
			}
			h.write(f, stale)
			plan, err := hosts.PlanSetup(h.env, h.want, &hosts.SetupOptions{Options: *opts(f)})
			is.NoErr(err)
			is.Equal(plan.Actions[0].Kind, hosts.ActionUpdate)
			_, err = hosts.Apply(plan)
			is.NoErr(err)
			is.Equal(h.inspect(f, nil).Status, hosts.StatusAligned)
			is.True(bytes.Contains(h.read(f), []byte("REA_LOG"))) // the user's field is kept

			un, err := hosts.PlanUninstall(h.env, opts(f))
			is.NoErr(err)
			res, err := hosts.ApplyUninstall(un)
			is.NoErr(err)
			is.Equal(res.Outcomes[0].Status, hosts.OutcomeRemoved) // not restored to the stale entry
			is.Equal(h.inspect(f, nil).Status, hosts.StatusMissing)
		})
	}
}

func TestForeignEntryRetainedAndBlocks(t *testing.T) {
	is := is.New(t)
	h := newHome(t)
	f := files[3] // codex
	foreign := []byte("[mcp_servers.rea]\ncommand = \"node\"\nargs = [\"rea-agents.js\"]\n")
	h.write(f, foreign)
	plan, err := hosts.PlanSetup(h.env, h.want, &hosts.SetupOptions{Options: *opts(f)})
	is.NoErr(err)
	is.True(plan.Blocked)
	is.Equal(plan.Actions[0].Reason, hosts.ReasonForeign)
	un, err := hosts.PlanUninstall(h.env, opts(f))
	is.NoErr(err)
	is.Equal(un.Actions[0].Kind, hosts.ActionRetain)
	res, err := hosts.ApplyUninstall(un)
	is.NoErr(err)
	is.Equal(res.Outcomes[0].Status, hosts.OutcomeRetained)
	is.Equal(h.read(f), foreign)
}

func TestInvalidFileBlocksPlan(t *testing.T) {
	is := is.New(t)
	h := newHome(t)
	var originals [][]byte
	for _, f := range files {
		if f.scope != hosts.ScopeUser {
			continue
		}
		data := fixture(t, f.fixture)
		if f.client == "vscode" {
			data = append([]byte{}, data[:len(data)-3]...) // cut off the end: unparseable
		}
		h.write(f, data)
		originals = append(originals, data)
	}
	plan, err := hosts.PlanSetup(h.env, h.want, nil)
	is.NoErr(err)
	is.True(plan.Blocked)
	is.Equal(len(plan.Blockers), 1)
	is.True(strings.HasPrefix(plan.Blockers[0], "VS Code: "))
	creates := 0
	for _, a := range plan.Actions {
		if a.Kind == hosts.ActionCreate {
			creates++
		}
		if a.Client == "vscode" {
			is.Equal(a.Kind, hosts.ActionInvalid)
			is.True(strings.Contains(a.Remediation, "settings.json:")) // says where
		}
	}
	is.Equal(creates, 7)
	_, err = hosts.Apply(plan)
	is.True(errors.Is(err, hosts.ErrBlocked))
	i := 0
	for _, f := range files {
		if f.scope != hosts.ScopeUser {
			continue
		}
		is.Equal(h.read(f), originals[i]) // byte-identical
		_, err := os.Stat(h.path(f) + ".rea.backup")
		is.True(errors.Is(err, os.ErrNotExist)) // not even a backup
		i++
	}
}

func TestDetectAndUnknownClient(t *testing.T) {
	is := is.New(t)
	h := newHome(t)
	is.Equal(len(hosts.Detect(h.env)), 0)
	h.install(files[3])
	h.install(files[9])
	d := hosts.Detect(h.env)
	is.Equal(len(d), 2)
	is.Equal(d[0].Client.ID, "codex")
	is.Equal(d[1].Client.ID, "vscode")
	is.Equal(len(hosts.Clients()), 8)

	_, err := hosts.Inspect(h.env, h.want, &hosts.Options{Clients: []string{"emacs"}})
	var uce *hosts.UnknownClientError
	is.True(errors.As(err, &uce))
	is.Equal(uce.ID, "emacs")

	// A requested client that is not installed blocks setup.
	plan, err := hosts.PlanSetup(h.env, h.want, &hosts.SetupOptions{Options: hosts.Options{Clients: []string{"cursor"}}})
	is.NoErr(err)
	is.True(plan.Blocked)
	is.Equal(plan.Actions[0].Reason, hosts.ReasonNotDetected)

	_, err = hosts.PlanSetup(h.env, hosts.Entry{Command: "/usr/bin/node"}, nil)
	is.True(errors.Is(err, hosts.ErrNotRea))
	is.True(strings.Contains(err.Error(), "ln -s")) // it says how to proceed

	// A home that does not exist: nothing detected, nothing planned.
	gone := hosts.Env{Home: filepath.Join(h.env.Home, "missing"), GOOS: "linux"}
	plan, err = hosts.PlanSetup(gone, h.want, nil)
	is.NoErr(err)
	is.Equal(len(plan.Actions), 0)
}

func TestErrorsAreTyped(t *testing.T) {
	is := is.New(t)
	h := newHome(t)
	f := files[0]
	h.write(f, []byte("{\"mcpServers\": }"))
	plan, err := hosts.PlanSetup(h.env, h.want, &hosts.SetupOptions{Options: *opts(f)})
	is.NoErr(err)
	is.Equal(plan.Actions[0].Reason, hosts.ReasonParse)
	is.True(strings.Contains(plan.Actions[0].Remediation, ".claude.json:1:16"))
	var se *hosts.SyntaxError
	_, err = hosts.Inspect(h.env, h.want, nil)
	is.NoErr(err)
	// SyntaxError and ShapeError match ports.ErrMalformed.
	se = &hosts.SyntaxError{Line: 1, Column: 1, Msg: "x"}
	is.True(errors.Is(se, ports.ErrMalformed))
	is.True(errors.Is(&hosts.ShapeError{}, ports.ErrMalformed))
}

func TestApplyThroughSymlink(t *testing.T) {
	is := is.New(t)
	h := newHome(t)
	f := files[3] // codex
	h.install(f)
	target := filepath.Join(h.env.Home, "dotfiles", "codex.toml")
	must(t, os.MkdirAll(filepath.Dir(target), 0o755))
	orig := fixture(t, f.fixture)
	must(t, os.WriteFile(target, orig, 0o640))
	must(t, os.Symlink(target, h.path(f)))
	plan, err := hosts.PlanSetup(h.env, h.want, &hosts.SetupOptions{Options: *opts(f)})
	is.NoErr(err)
	is.Equal(plan.Actions[0].BackupPath, target+".rea.backup") // beside the real file
	_, err = hosts.Apply(plan)
	is.NoErr(err)
	fi, err := os.Lstat(h.path(f))
	is.NoErr(err)
	is.True(fi.Mode()&os.ModeSymlink != 0) // the link is kept
	fi, err = os.Stat(target)
	is.NoErr(err)
	is.Equal(fi.Mode().Perm(), os.FileMode(0o640))
	is.Equal(h.inspect(f, nil).Status, hosts.StatusAligned)
}

func TestProjectScopeOnlyForInstalledClients(t *testing.T) {
	is := is.New(t)
	h := newHome(t)
	h.install(files[0]) // Claude Code
	project := &hosts.SetupOptions{Options: hosts.Options{Scopes: []hosts.Scope{hosts.ScopeProject}}}
	plan, err := hosts.PlanSetup(h.env, h.want, project)
	is.NoErr(err)
	is.Equal(len(plan.Actions), 1)
	is.Equal(plan.Actions[0].ID, "configure_client:claude-code:project")
	is.Equal(plan.Actions[0].Path, filepath.Join(h.env.Dir, ".mcp.json"))
	project.Clients = []string{"vscode"} // asked for by name
	plan, err = hosts.PlanSetup(h.env, h.want, project)
	is.NoErr(err)
	is.Equal(len(plan.Actions), 1)
	is.Equal(plan.Actions[0].Kind, hosts.ActionCreate)
}

// The file changes between planning and applying: apply works from what is
// there under the lock, and an invalid file is left alone.
func TestApplyRereadsUnderLock(t *testing.T) {
	is := is.New(t)
	h := newHome(t)
	f := files[4] // Cursor
	h.write(f, fixture(t, f.fixture))
	plan, err := hosts.PlanSetup(h.env, h.want, &hosts.SetupOptions{Options: *opts(f)})
	is.NoErr(err)
	broken := []byte("{\"mcpServers\": {\n")
	h.write(f, broken)
	res, err := hosts.Apply(plan)
	is.NoErr(err)
	is.True(res.Failed)
	is.Equal(res.Outcomes[0].Reason, hosts.ReasonParse)
	is.Equal(h.read(f), broken)

	h.write(f, entryFor(f, h.want.Command)) // someone else registered it meanwhile
	res, err = hosts.Apply(plan)
	is.NoErr(err)
	is.Equal(res.Outcomes[0].Status, hosts.OutcomeUnchanged)
}
