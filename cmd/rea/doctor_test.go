package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/matryer/is"
)

// home is a temporary user: home directory, project directory (the working
// directory) and temporary directory.
type home struct {
	t              *testing.T
	dir, proj, tmp string
	env            []string // more variables for rea, after the cleaned ones
}

func newHome(t *testing.T) *home {
	root := t.TempDir()
	h := &home{t: t, dir: filepath.Join(root, "home"), proj: filepath.Join(root, "project"), tmp: filepath.Join(root, "tmp")}
	for _, d := range []string{h.dir, h.proj, h.tmp} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return h
}

func (h *home) write(rel, content string) string {
	h.t.Helper()
	p := filepath.Join(h.dir, rel)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		h.t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		h.t.Fatal(err)
	}
	return p
}

func (h *home) read(rel string) string {
	h.t.Helper()
	b, err := os.ReadFile(filepath.Join(h.dir, rel))
	if err != nil {
		h.t.Fatal(err)
	}
	return string(b)
}

// run runs the built rea as this user, with stdin not a terminal.
func (h *home) run(args ...string) (stdout, stderr string, code int) {
	h.t.Helper()
	cmd := exec.Command(reaBin, args...)
	cmd.Dir = h.proj
	var env []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		switch k {
		case "HOME", "TMPDIR", "XDG_CONFIG_HOME", "XDG_CACHE_HOME", "CODEX_HOME", "APPDATA", "GHIDRA_INSTALL_DIR", "HOPPER_LAUNCHER_PATH":
			continue
		}
		env = append(env, kv)
	}
	cmd.Env = append(append(env, "HOME="+h.dir, "TMPDIR="+h.tmp), h.env...)
	var o, e bytes.Buffer
	cmd.Stdout, cmd.Stderr = &o, &e
	err := cmd.Run()
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return o.String(), e.String(), ee.ExitCode()
	}
	if err != nil {
		h.t.Fatal(err)
	}
	return o.String(), e.String(), 0
}

type doctorJSON struct {
	Healthy bool
	Checks  []struct {
		Name, Classification, Detail, Remediation string
		OK                                        bool
		Registration                              *struct{ Status, Reason, Path, Command, Version string }
		Skill                                     *struct{ Status string }
	}
	Extract_Directories []struct {
		Path    string
		Stale   bool
		Removed bool
	} `json:"extract_directories"`
}

func (h *home) doctor(args ...string) (doctorJSON, int) {
	h.t.Helper()
	out, stderr, code := h.run(append([]string{"doctor", "--format", "json"}, args...)...)
	var d doctorJSON
	if err := json.Unmarshal([]byte(out), &d); err != nil {
		h.t.Fatalf("doctor --format json: %v\n%s\n%s", err, out, stderr)
	}
	return d, code
}

func (d doctorJSON) registration(t *testing.T, name string) (status, reason string, ok bool) {
	t.Helper()
	for _, c := range d.Checks {
		if c.Name == name {
			if c.Registration == nil {
				t.Fatalf("%s has no registration", name)
			}
			return c.Registration.Status, c.Registration.Reason, c.OK
		}
	}
	t.Fatalf("no check %s", name)
	return
}

const (
	cursorOther = "{\n  \"mcpServers\": {\n    \"rea\": {\"command\": \"/opt/old/rea\", \"args\": [\"serve\"]},\n    \"other\": {\"command\": \"x\"}\n  }\n}\n"
	codexConfig = "# my codex settings\nmodel = \"o3\"\n\n[mcp_servers.other]\ncommand = \"other\" # keep me\n"
	claudeJSON  = "{\n  \"numStartups\": 3,\n  \"mcpServers\": {}\n}\n"
)

// TestDoctorSetupUninstall: doctor classifies each state, setup then doctor
// is aligned, a second setup changes nothing, uninstall puts back the bytes.
func TestDoctorSetupUninstall(t *testing.T) {
	is := is.New(t)
	h := newHome(t)
	h.write(".codex/config.toml", codexConfig)
	h.write(".claude.json", claudeJSON)
	h.write(".cursor/mcp.json", cursorOther)
	geminiSettings := "{\n  // Gemini CLI settings: comments are allowed\n  \"theme\": \"Default\",\n}\n"
	h.write(".gemini/settings.json", geminiSettings)

	d, code := h.doctor()
	is.Equal(code, 1) // a stale registration is drift
	is.True(!d.Healthy)
	st, reason, ok := d.registration(t, "registration:cursor")
	is.Equal(st, "stale")
	is.Equal(reason, "other_path")
	is.True(!ok)
	st, _, ok = d.registration(t, "registration:codex")
	is.Equal(st, "missing")
	is.True(ok) // missing is not drift unless asked for
	st, _, _ = d.registration(t, "registration:gemini-cli")
	is.Equal(st, "missing")
	d, code = h.doctor("--client", "codex")
	is.Equal(code, 1) // a requested client must be registered
	_, _, ok = d.registration(t, "registration:codex")
	is.True(!ok)

	// Without --yes nothing changes.
	out, _, code := h.run("setup")
	is.Equal(code, 1)
	is.True(strings.Contains(out, "needs_confirmation")) // out
	is.Equal(h.read(".cursor/mcp.json"), cursorOther)
	is.Equal(h.read(".codex/config.toml"), codexConfig)
	_, _, code = h.run("setup", "--yes", "--dry-run")
	is.Equal(code, 1)
	is.Equal(h.read(".codex/config.toml"), codexConfig)

	out, stderr, code := h.run("setup", "--yes", "--install-skill", "--format", "json")
	is.Equal(code, 0) // ready
	var res struct {
		Status string
		Plan   struct{ Actions []struct{ ID, Kind string } }
	}
	is.NoErr(json.Unmarshal([]byte(out), &res))
	is.Equal(res.Status, "ready")
	_ = stderr
	is.True(strings.Contains(h.read(".codex/config.toml"), "# keep me")) // comments kept
	is.True(strings.HasPrefix(h.read(".codex/config.toml"), codexConfig[:20]))
	skill := h.read(".agents/skills/rea/SKILL.md")
	is.True(strings.Contains(skill, "catalog_digest"))
	is.True(strings.Contains(skill, "`binary_session`"))

	d, code = h.doctor()
	is.Equal(code, 0)
	is.True(d.Healthy)
	for _, name := range []string{"registration:codex", "registration:cursor", "registration:claude-code", "registration:gemini-cli"} {
		st, _, _ := d.registration(t, name)
		is.Equal(st, "aligned") // name
	}
	out, _, code = h.run("doctor")
	is.Equal(code, 0)
	is.True(strings.Contains(out, "rea doctor: healthy"))

	// A second setup is a no-op: every file byte-identical.
	before := map[string]string{}
	for _, f := range []string{".codex/config.toml", ".claude.json", ".cursor/mcp.json", ".gemini/settings.json", ".agents/skills/rea/SKILL.md"} {
		before[f] = h.read(f)
	}
	out, _, code = h.run("setup", "--install-skill", "--format", "json") // no --yes needed: nothing to change
	is.Equal(code, 0)
	is.NoErr(json.Unmarshal([]byte(out), &res))
	for _, a := range res.Plan.Actions {
		is.Equal(a.Kind, "already_current") // a.ID
	}
	for f, b := range before {
		is.Equal(h.read(f), b) // f
	}

	// Uninstall restores what rea added to byte for byte.
	_, _, code = h.run("uninstall")
	is.Equal(code, 1) // needs_confirmation
	is.Equal(h.read(".codex/config.toml"), before[".codex/config.toml"])
	out, _, code = h.run("uninstall", "--yes")
	is.Equal(code, 0)
	is.True(strings.Contains(out, "rea uninstall: complete"))
	is.Equal(h.read(".codex/config.toml"), codexConfig)
	is.Equal(h.read(".claude.json"), claudeJSON)
	is.Equal(h.read(".gemini/settings.json"), geminiSettings)
	is.True(strings.Contains(h.read(".cursor/mcp.json"), "\"other\"")) // the other server stays
	_, err := os.Stat(filepath.Join(h.dir, ".agents/skills/rea/SKILL.md"))
	is.True(errors.Is(err, os.ErrNotExist))
	d, _ = h.doctor()
	st, _, _ = d.registration(t, "registration:codex")
	is.Equal(st, "missing")
}

// TestSetupBlockedByInvalidFile: one unparseable file blocks the whole
// plan, and every file stays byte-identical.
func TestSetupBlockedByInvalidFile(t *testing.T) {
	is := is.New(t)
	h := newHome(t)
	broken := "{\n  \"mcpServers\": {\n    \"rea\": \n"
	h.write(".cursor/mcp.json", broken)
	h.write(".codex/config.toml", codexConfig)

	d, code := h.doctor()
	is.Equal(code, 1)
	st, _, ok := d.registration(t, "registration:cursor")
	is.Equal(st, "invalid")
	is.True(!ok)
	for _, c := range d.Checks {
		if c.Name == "registration:cursor" {
			is.True(strings.Contains(c.Remediation, "mcp.json:")) // names where
		}
	}

	out, _, code := h.run("setup", "--yes", "--format", "json")
	is.Equal(code, 1)
	var res struct {
		Status string
		Plan   struct {
			Blocked  bool
			Blockers []string
		}
		Result any
	}
	is.NoErr(json.Unmarshal([]byte(out), &res))
	is.Equal(res.Status, "needs_human")
	is.True(res.Plan.Blocked)
	is.True(len(res.Plan.Blockers) == 1)
	is.Equal(res.Result, nil)
	is.Equal(h.read(".cursor/mcp.json"), broken)
	is.Equal(h.read(".codex/config.toml"), codexConfig)
	_, err := os.Stat(filepath.Join(h.dir, ".codex/config.toml.rea.backup"))
	is.True(errors.Is(err, os.ErrNotExist)) // not even a backup

	_, stderr, code := h.run("setup", "--client", "emacs")
	is.Equal(code, 2) // an unknown client is a usage error
	is.True(strings.Contains(stderr, "emacs"))
	_, _, code = h.run("doctor", "--provider", "nonesuch")
	is.Equal(code, 4) // an unknown provider: capability_unavailable, as open_binary's provider_id
}

// rea setup on a machine with no MCP client registers nothing and says so:
// needs_human, exit 1, advice to install a client. Before, it printed "no
// supported client detected" and then "rea setup: ready (restart the MCP
// clients that were configured)" with exit 0, so a script took rea for
// registered.
func TestSetupWithoutClientsIsNotReady(t *testing.T) {
	is := is.New(t)
	h := newHome(t)
	out, _, code := h.run("setup", "--yes")
	is.Equal(code, 1)
	is.True(strings.Contains(out, "needs_human"))
	is.True(!strings.Contains(out, "ready"))
	is.True(strings.Contains(out, "no supported MCP client"))
	out, _, code = h.run("setup", "--yes", "--format", "json")
	is.Equal(code, 1)
	var res struct{ Status string }
	is.NoErr(json.Unmarshal([]byte(out), &res))
	is.Equal(res.Status, "needs_human")
}

// TestDoctorExtractDirectories: only rea's own, old, unused extraction
// directories are stale, and --clean removes exactly those.
func TestDoctorExtractDirectories(t *testing.T) {
	is := is.New(t)
	h := newHome(t)
	mk := func(name string, age time.Duration) string {
		p := filepath.Join(h.tmp, name)
		is.NoErr(os.MkdirAll(filepath.Join(p, "sub"), 0o700))
		is.NoErr(os.WriteFile(filepath.Join(p, "sub", "f"), []byte("x"), 0o600))
		old := time.Now().Add(-age)
		is.NoErr(os.Chtimes(p, old, old))
		return p
	}
	stale := mk("rea-extract-1234", 3*time.Hour)
	fresh := mk("rea-extract-5678", time.Minute)
	other := mk("rea-extract-abc", 3*time.Hour) // not a name rea makes
	inUse := mk("rea-extract-9999", 3*time.Hour)
	f, err := os.Open(filepath.Join(inUse, "sub", "f")) // this process holds it open
	is.NoErr(err)
	defer f.Close()
	target := mk("elsewhere", 3*time.Hour)
	is.NoErr(os.Symlink(target, filepath.Join(h.tmp, "rea-extract-4321")))

	d, code := h.doctor()
	is.Equal(code, 1)
	staleSeen := map[string]bool{}
	for _, x := range d.Extract_Directories {
		staleSeen[x.Path] = x.Stale
	}
	is.Equal(len(d.Extract_Directories), 3) // the link and the foreign name are not listed
	is.True(staleSeen[stale])
	is.True(!staleSeen[fresh])
	is.True(!staleSeen[inUse])

	d, code = h.doctor("--clean")
	is.Equal(code, 0)
	for _, p := range []string{fresh, other, inUse, target, filepath.Join(h.tmp, "rea-extract-4321")} {
		_, err := os.Lstat(p)
		is.NoErr(err) // p is kept
	}
	_, err = os.Lstat(stale)
	is.True(errors.Is(err, os.ErrNotExist))
}

// TestDoctorGhidra: Ghidra is a registered provider. Where it is not
// configured it is optional and rea stays healthy for its main job; asked
// for with --provider, or configured but broken, it makes doctor unhealthy
// (PROVIDERS.md §4.1).
func TestDoctorGhidra(t *testing.T) {
	is := is.New(t)
	h := newHome(t)
	check := func(d doctorJSON, name string) (ok bool, class, detail string) {
		t.Helper()
		for _, c := range d.Checks {
			if c.Name == name {
				return c.OK, c.Classification, c.Detail
			}
		}
		t.Fatalf("doctor has no check %s", name)
		return
	}
	d, code := h.doctor()
	is.Equal(code, 0)
	is.True(d.Healthy)
	ok, _, detail := check(d, "provider:ghidra")
	is.True(ok)
	is.True(strings.HasPrefix(detail, "optional, not configured: GHIDRA_INSTALL_DIR is not set")) // detail
	ok, _, detail = check(d, "provider:hopper")
	is.True(ok)
	is.True(strings.HasPrefix(detail, "optional, not configured: Hopper launcher is missing")) // detail
	ok, _, detail = check(d, "provider:rea-native")
	is.True(ok)
	is.True(strings.HasSuffix(detail, "(built in)"))

	d, code = h.doctor("--provider", "ghidra")
	is.Equal(code, 1)
	is.True(!d.Healthy)
	ok, class, _ := check(d, "provider:ghidra")
	is.True(!ok)
	is.Equal(class, "missing_analysis_engine")

	h.env = []string{"GHIDRA_INSTALL_DIR=" + filepath.Join(h.dir, "no-ghidra-here")}
	d, code = h.doctor()
	is.Equal(code, 1) // a configured provider's checks count
	ok, class, detail = check(d, "provider:ghidra")
	is.True(!ok)
	is.Equal(class, "config_drift")
	is.True(strings.Contains(detail, "application.properties")) // detail
}

// TestMCPDoctor runs rea mcp doctor against the built binary: it starts
// that binary as its server.
func TestMCPDoctor(t *testing.T) {
	is := is.New(t)
	out, stderr, code := runCLI(t, "mcp", "doctor", "--format", "json")
	var r struct {
		Healthy bool
		Command []string
		Checks  []struct {
			Name   string
			OK     bool
			Detail string
		}
	}
	is.NoErr(json.Unmarshal([]byte(out), &r))
	if code != 0 {
		t.Fatalf("rea mcp doctor: exit %d\n%s\n%s", code, out, stderr)
	}
	is.True(r.Healthy)
	is.Equal(r.Command[0], reaBin)
	var names []string
	for _, c := range r.Checks {
		names = append(names, c.Name)
	}
	is.Equal(names, []string{"initialize", "inventory:tools", "inventory:prompts", "inventory:resources", "inventory:resource_templates",
		"request-flow", "server-identity", "shutdown"})
}

func TestProvidersAndCapabilities(t *testing.T) {
	is := is.New(t)
	out, _, code := runCLI(t, "providers", "--format", "json")
	is.Equal(code, 0)
	var p struct {
		Open    bool
		Engines []struct {
			ID, Kind              string
			Configured, Available bool
			Operations            []string
		}
		AnalysisProviderCandidates []any `json:"analysis_provider_candidates"`
	}
	is.NoErr(json.Unmarshal([]byte(out), &p))
	is.True(!p.Open)
	is.Equal(len(p.AnalysisProviderCandidates), 3) // rea-native, ghidra and hopper
	ids := map[string]bool{}
	for _, e := range p.Engines {
		ids[e.ID] = true
		if e.ID == "rea-native" {
			is.True(e.Available)
			is.True(len(e.Operations) > 10)
			is.True(strings.Contains(strings.Join(e.Operations, ","), "list_procedures"))
		}
		if (e.ID == "ghidra" || e.ID == "hopper") && e.Kind == "analysis_provider" {
			is.True(!e.Available)  // not installed here
			is.True(!e.Configured) // GHIDRA_INSTALL_DIR is not set
			is.True(strings.Contains(strings.Join(e.Operations, ","), "procedure_pseudo_code"))
		}
	}
	for _, id := range []string{"rea-native", "chromium", "node", "gdbserver", "ghidra", "hopper"} {
		is.True(ids[id]) // id
	}

	out, _, code = runCLI(t, "capabilities", "--format", "json")
	is.Equal(code, 0)
	var c struct {
		Summary      struct{ Total, Available, Unavailable int }
		Capabilities []struct {
			Operation string
			Available bool
			Reason    string
		}
	}
	is.NoErr(json.Unmarshal([]byte(out), &c))
	a, _ := wire(noEnv)
	is.Equal(c.Summary.Total, len(a.cat.Operations()))
	is.Equal(c.Summary.Available+c.Summary.Unavailable, c.Summary.Total)
	for _, x := range c.Capabilities {
		switch x.Operation {
		case "binary_session":
			is.True(x.Available)
		case "list_procedures":
			is.True(!x.Available)
			is.Equal(x.Reason, "target_required")
		}
	}
}
