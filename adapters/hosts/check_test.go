package hosts_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/matryer/is"

	"rea/adapters/hosts"
)

func TestRegistrationChecks(t *testing.T) {
	is := is.New(t)
	regs := []hosts.Registration{
		{Client: "codex", Status: hosts.StatusAligned, Scope: hosts.ScopeUser},
		{Client: "cursor", Status: hosts.StatusMissing, Scope: hosts.ScopeUser, Detail: "the file does not exist"},
		{Client: "zed", Status: hosts.StatusStale, Scope: hosts.ScopeUser},
		{Client: "vscode", Status: hosts.StatusInvalid, Scope: hosts.ScopeProject, Reason: hosts.ReasonParse, Path: "/p/.vscode/mcp.json", Line: 3, Column: 4},
	}
	checks := hosts.RegistrationChecks(regs, []string{"cursor", "windsurf"})
	is.Equal(len(checks), 5)
	is.True(checks[0].OK)
	is.True(!checks[1].OK) // missing, and asked about
	is.True(!checks[2].OK)
	is.Equal(checks[2].Remediation, "run rea setup --client zed")
	is.Equal(checks[3].Name, "registration:vscode:project")
	is.True(!checks[3].OK)
	is.Equal(checks[4].Detail, "Requested client Windsurf was not detected.")
	is.True(hosts.RegistrationChecks(regs[1:2], nil)[0].OK) // missing and not asked about: informational
}

func TestVersionProbe(t *testing.T) {
	is := is.New(t)
	dir := t.TempDir()
	bin := filepath.Join(dir, "rea")
	must(t, os.WriteFile(bin, []byte("#!/bin/sh\necho '{\"name\":\"rea\",\"version\":\"0.9.1\"}'\n"), 0o755))
	probe := hosts.VersionProbe(context.Background(), 10*time.Second)
	v, err := probe(bin)
	if err != nil {
		t.Skipf("cannot run a shell script here: %v", err)
	}
	is.Equal(v, "0.9.1")
	must(t, os.WriteFile(bin, []byte("#!/bin/sh\necho not json\n"), 0o755))
	_, err = probe(bin)
	is.True(err != nil)
	must(t, os.Chmod(bin, 0o644))
	_, err = probe(bin)
	is.True(err != nil) // not executable: not run
}

// TestMissingRegistrationSaysHowToAdd: a detected client without rea, and a
// skill that is not installed, pass (they are optional), but a new user
// reading doctor learns what would add them: the command, and the file.
// Before, the lines read "not registered (the file does not exist)" and
// "the skill is not installed", naming neither.
func TestMissingRegistrationSaysHowToAdd(t *testing.T) {
	is := is.New(t)
	regs := []hosts.Registration{
		{Client: "claude-code", Status: hosts.StatusMissing, Scope: hosts.ScopeUser, Path: "/h/.claude.json", Reason: hosts.ReasonNoFile, Detail: "the file does not exist"},
		{Client: "vscode", Status: hosts.StatusMissing, Scope: hosts.ScopeProject, Path: "/p/.vscode/mcp.json", Reason: hosts.ReasonNoEntry, Detail: `no "rea" entry under servers`},
	}
	checks := hosts.RegistrationChecks(regs, nil)
	is.True(checks[0].OK)
	is.Equal(checks[0].Detail, "not registered: /h/.claude.json does not exist (rea setup --client claude-code adds rea)")
	is.True(checks[1].OK)
	is.Equal(checks[1].Detail, `not registered: no "rea" entry under servers in /p/.vscode/mcp.json (rea setup --client vscode --scope project adds rea)`)

	sk := hosts.SkillState{Path: "/h/.agents/skills/rea/SKILL.md", Status: hosts.StatusMissing, Reason: hosts.ReasonNoFile, Detail: "the skill is not installed"}.Check(false)
	is.True(sk.OK)
	is.Equal(sk.Detail, "the skill is not installed (rea setup --install-skill installs it at /h/.agents/skills/rea/SKILL.md)")
}

// TestUninstallTextListsSkipsOnce: rea uninstall visits every supported
// client; the files that hold nothing of rea's are one line of the plan and
// one of the result, not one each. Before, a machine with one registration
// printed ten "skip" lines before the one change, and ten "skipped" after
// it. The JSON keeps every action and outcome.
func TestUninstallTextListsSkipsOnce(t *testing.T) {
	is := is.New(t)
	root := t.TempDir()
	env := hosts.Env{Home: filepath.Join(root, "home"), Dir: filepath.Join(root, "project"), GOOS: "linux"}
	must(t, os.MkdirAll(filepath.Join(env.Home, ".codex"), 0o755))
	plan, err := hosts.PlanSetup(env, hosts.Entry{Command: "/usr/local/bin/rea", Version: "1.2.0"}, nil)
	is.NoErr(err)
	_, err = hosts.Apply(plan)
	is.NoErr(err)

	plan, err = hosts.PlanUninstall(env, nil)
	is.NoErr(err)
	skips := 0
	for _, a := range plan.Actions {
		if a.Kind == hosts.ActionSkip && a.ClientName != "" {
			skips++
		}
	}
	is.True(skips > 5) // every other supported client file is visited
	var b strings.Builder
	is.NoErr(plan.WriteText(&b))
	text := b.String()
	lines := strings.Split(strings.TrimSuffix(text, "\n"), "\n")
	n := 0
	for _, l := range lines {
		if strings.HasPrefix(l, "skip ") && !strings.Contains(l, "agent skill") {
			n++
		}
	}
	is.Equal(n, 1) // one line for the skips
	is.True(strings.Contains(text, fmt.Sprintf("%d client files hold no rea entry: ", skips)))
	is.True(strings.Contains(text, "Zed (user)"))                  // named there
	is.Equal(strings.Count(text, "\n"), len(plan.Actions)-skips+1) // one line per other action

	res, err := hosts.ApplyUninstall(plan)
	is.NoErr(err)
	b.Reset()
	is.NoErr(res.WriteText(&b))
	is.True(!strings.Contains(b.String(), "remove_client:zed")) // not a line of its own
	is.True(strings.Contains(b.String(), fmt.Sprintf("%d client files held no rea entry", skips)))
}
