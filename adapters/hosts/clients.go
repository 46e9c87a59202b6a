package hosts

import (
	"os"
	"path/filepath"
	"runtime"
	"sync"
)

// Env is where the hosts' files are looked for. Tests point it at temporary
// directories; EnvFromOS reads the running process's environment.
type Env struct {
	Home       string // $HOME (%USERPROFILE% on Windows)
	ConfigHome string // $XDG_CONFIG_HOME; empty means Home/.config
	AppData    string // %APPDATA% (Windows)
	CodexHome  string // $CODEX_HOME; empty means Home/.codex
	Dir        string // the working directory, for project-scope files; empty disables them
	GOOS       string // empty means runtime.GOOS
}

// EnvFromOS describes the current user and working directory.
func EnvFromOS() Env {
	home, _ := os.UserHomeDir()
	dir, _ := os.Getwd()
	return Env{
		Home:       home,
		ConfigHome: os.Getenv("XDG_CONFIG_HOME"),
		AppData:    os.Getenv("APPDATA"),
		CodexHome:  os.Getenv("CODEX_HOME"),
		Dir:        dir,
		GOOS:       runtime.GOOS,
	}
}

func (e Env) goos() string {
	if e.GOOS == "" {
		return runtime.GOOS
	}
	return e.GOOS
}

func (e Env) home(parts ...string) string {
	if e.Home == "" {
		return ""
	}
	return filepath.Join(append([]string{e.Home}, parts...)...)
}

func (e Env) config(parts ...string) string {
	base := e.ConfigHome
	if base == "" || !filepath.IsAbs(base) {
		if e.Home == "" {
			return ""
		}
		base = filepath.Join(e.Home, ".config")
	}
	return filepath.Join(append([]string{base}, parts...)...)
}

func (e Env) appData(parts ...string) string {
	if e.AppData == "" {
		return ""
	}
	return filepath.Join(append([]string{e.AppData}, parts...)...)
}

func (e Env) macSupport(parts ...string) string {
	return e.home(append([]string{"Library", "Application Support"}, parts...)...)
}

func (e Env) codex(parts ...string) string {
	if e.CodexHome != "" {
		return filepath.Join(append([]string{e.CodexHome}, parts...)...)
	}
	return e.home(append([]string{".codex"}, parts...)...)
}

func (e Env) project(parts ...string) string {
	if e.Dir == "" {
		return ""
	}
	return filepath.Join(append([]string{e.Dir}, parts...)...)
}

// Scope says whose file a registration lives in.
type Scope string

const (
	ScopeUser    Scope = "user"    // the user's own configuration
	ScopeProject Scope = "project" // a file in the working directory, shared through the project
)

// Client is an agent host rea can register with.
type Client struct {
	ID     string  `json:"id"`
	Name   string  `json:"name"`
	Scopes []Scope `json:"scopes"`
}

type format int

const (
	formatJSON  format = iota // strict JSON
	formatJSONC               // JSON with comments and trailing commas
	formatTOML
)

func (f format) String() string {
	return [...]string{"json", "jsonc", "toml"}[f]
}

// shape is how a client spells one server entry.
type shape int

const (
	shapePlain  shape = iota // {"command", "args"}
	shapeVSCode              // {"type": "stdio", "command", "args"}
)

// location is one configuration file of one client in one scope.
type location struct {
	client  Client
	scope   Scope
	path    func(Env) string   // "" when the client has no such file on this system
	markers func(Env) []string // user scope: any existing path means the client is installed
	format  format
	servers []string // keys leading to the servers object
	shape   shape
}

// serverName is the key rea registers under.
const serverName = "rea"

// locations are the clients' configuration files, built on first use (a
// package-level table built by a function call is init code every rea
// process runs). The formats follow each client's published documentation
// as of late 2025. Points of uncertainty are noted beside the entry.
var locationsOnce struct {
	sync.Once
	l []location
}

func locations() []location {
	locationsOnce.Do(func() { locationsOnce.l = buildLocations() })
	return locationsOnce.l
}

func buildLocations() []location {
	claudeCode := Client{ID: "claude-code", Name: "Claude Code", Scopes: []Scope{ScopeUser, ScopeProject}}
	claudeDesktop := Client{ID: "claude-desktop", Name: "Claude Desktop", Scopes: []Scope{ScopeUser}}
	codex := Client{ID: "codex", Name: "Codex", Scopes: []Scope{ScopeUser}}
	cursor := Client{ID: "cursor", Name: "Cursor", Scopes: []Scope{ScopeUser, ScopeProject}}
	gemini := Client{ID: "gemini-cli", Name: "Gemini CLI", Scopes: []Scope{ScopeUser, ScopeProject}}
	windsurf := Client{ID: "windsurf", Name: "Windsurf", Scopes: []Scope{ScopeUser}}
	vscode := Client{ID: "vscode", Name: "VS Code", Scopes: []Scope{ScopeUser, ScopeProject}}
	zed := Client{ID: "zed", Name: "Zed", Scopes: []Scope{ScopeUser}}
	paths := func(ps ...string) []string { return ps }
	byOS := func(linux, darwin, windows func(Env) string) func(Env) string {
		return func(e Env) string {
			switch e.goos() {
			case "darwin":
				return darwin(e)
			case "windows":
				return windows(e)
			default:
				return linux(e)
			}
		}
	}
	vscodeUser := byOS(
		func(e Env) string { return e.config("Code", "User") },
		func(e Env) string { return e.macSupport("Code", "User") },
		func(e Env) string { return e.appData("Code", "User") })
	desktopDir := byOS(
		// Claude Desktop has no official Linux build; community builds
		// read this path.
		func(e Env) string { return e.config("Claude") },
		func(e Env) string { return e.macSupport("Claude") },
		func(e Env) string { return e.appData("Claude") })
	zedDir := byOS(
		func(e Env) string { return e.config("zed") },
		func(e Env) string { return e.home(".config", "zed") }, // Zed uses ~/.config/zed on macOS too
		func(e Env) string { return e.appData("Zed") })         // uncertain: Zed's Windows builds are recent
	join := func(dir func(Env) string, name string) func(Env) string {
		return func(e Env) string {
			if d := dir(e); d != "" {
				return filepath.Join(d, name)
			}
			return ""
		}
	}
	return []location{
		{client: claudeCode, scope: ScopeUser, format: formatJSON, servers: []string{"mcpServers"},
			// User scope ("claude mcp add --scope user"). Per-project "local"
			// entries under "projects" in the same file are not edited.
			path:    func(e Env) string { return e.home(".claude.json") },
			markers: func(e Env) []string { return paths(e.home(".claude.json"), e.home(".claude")) }},
		{client: claudeCode, scope: ScopeProject, format: formatJSON, servers: []string{"mcpServers"},
			path: func(e Env) string { return e.project(".mcp.json") }},
		{client: claudeDesktop, scope: ScopeUser, format: formatJSON, servers: []string{"mcpServers"},
			path:    join(desktopDir, "claude_desktop_config.json"),
			markers: func(e Env) []string { return paths(desktopDir(e)) }},
		{client: codex, scope: ScopeUser, format: formatTOML, servers: []string{"mcp_servers"},
			path:    func(e Env) string { return e.codex("config.toml") },
			markers: func(e Env) []string { return paths(e.codex()) }},
		{client: cursor, scope: ScopeUser, format: formatJSON, servers: []string{"mcpServers"},
			path:    func(e Env) string { return e.home(".cursor", "mcp.json") },
			markers: func(e Env) []string { return paths(e.home(".cursor")) }},
		{client: cursor, scope: ScopeProject, format: formatJSON, servers: []string{"mcpServers"},
			path: func(e Env) string { return e.project(".cursor", "mcp.json") }},
		// Gemini CLI strips comments from settings.json before parsing it.
		{client: gemini, scope: ScopeUser, format: formatJSONC, servers: []string{"mcpServers"},
			path:    func(e Env) string { return e.home(".gemini", "settings.json") },
			markers: func(e Env) []string { return paths(e.home(".gemini")) }},
		{client: gemini, scope: ScopeProject, format: formatJSONC, servers: []string{"mcpServers"},
			path: func(e Env) string { return e.project(".gemini", "settings.json") }},
		{client: windsurf, scope: ScopeUser, format: formatJSON, servers: []string{"mcpServers"},
			path:    func(e Env) string { return e.home(".codeium", "windsurf", "mcp_config.json") },
			markers: func(e Env) []string { return paths(e.home(".codeium", "windsurf")) }},
		// VS Code user settings: the "mcp" setting's "servers". Recent
		// releases also read a separate User/mcp.json; rea edits
		// settings.json, which every release with MCP support reads.
		{client: vscode, scope: ScopeUser, format: formatJSONC, servers: []string{"mcp", "servers"}, shape: shapeVSCode,
			path:    join(vscodeUser, "settings.json"),
			markers: func(e Env) []string { return paths(vscodeUser(e)) }},
		{client: vscode, scope: ScopeProject, format: formatJSONC, servers: []string{"servers"}, shape: shapeVSCode,
			path: func(e Env) string { return e.project(".vscode", "mcp.json") }},
		// Zed: "context_servers" entries with command and args at the top
		// level of the entry. Older releases nested them as
		// {"command": {"path", "args"}}; rea reads both and writes the flat form.
		{client: zed, scope: ScopeUser, format: formatJSONC, servers: []string{"context_servers"},
			path:    join(zedDir, "settings.json"),
			markers: func(e Env) []string { return paths(zedDir(e)) }},
	}
}

// Clients lists the supported clients in a stable order.
func Clients() []Client {
	var out []Client
	seen := map[string]bool{}
	for _, l := range locations() {
		if !seen[l.client.ID] {
			seen[l.client.ID] = true
			out = append(out, l.client)
		}
	}
	return out
}

// Detected is one installed client.
type Detected struct {
	Client Client `json:"client"`
	Marker string `json:"marker"` // the path whose presence shows it is installed
}

// Detect lists the clients installed for env's user (by their configuration
// directories), in the order of Clients.
func Detect(env Env) []Detected {
	var out []Detected
	for _, l := range locations() {
		if l.scope != ScopeUser {
			continue
		}
		if m := l.marker(env); m != "" {
			out = append(out, Detected{Client: l.client, Marker: m})
		}
	}
	return out
}

func (l *location) marker(env Env) string {
	if l.markers == nil {
		return ""
	}
	for _, p := range l.markers(env) {
		if p == "" {
			continue
		}
		if _, err := os.Stat(p); err == nil {
			return p
		}
	}
	return ""
}

// codexStartupTimeout is the startup_timeout_sec rea writes for Codex
// (PROVIDERS.md §4.2): Codex's own default (10 s) can pass before a first
// start through npx has fetched the package.
const codexStartupTimeout = int64(30)

// desired is the entry rea writes for want.
func (l *location) desired(want Entry) fields {
	args := want.args()
	switch {
	case l.shape == shapeVSCode:
		return fields{{"type", "stdio"}, {"command", want.Command}, {"args", args}}
	case l.client.ID == "codex":
		return fields{{"command", want.Command}, {"args", args}, {"startup_timeout_sec", codexStartupTimeout}}
	}
	return fields{{"command", want.Command}, {"args", args}}
}

func (l *location) entryPath() []string {
	return append(append([]string{}, l.servers...), serverName)
}

// Formats lists the file formats of the client's configuration files
// (json, jsonc, toml), in the order of its scopes, without repeats.
func (c Client) Formats() []string {
	var out []string
	seen := map[string]bool{}
	for _, l := range locations() {
		if l.client.ID == c.ID && !seen[l.format.String()] {
			seen[l.format.String()] = true
			out = append(out, l.format.String())
		}
	}
	return out
}
