package hosts

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// Entry is the registration rea wants: the absolute path of this rea binary
// and its arguments (nil means ["serve"]). Version is what this binary
// reports; when Options.Version is set, a registered binary reporting
// another version is stale.
type Entry struct {
	Command string
	Args    []string
	Version string
}

func (e Entry) args() []string {
	if e.Args == nil {
		return []string{"serve"}
	}
	return e.Args
}

// Status classifies a registration.
type Status string

const (
	StatusAligned Status = "aligned" // runs this rea binary as rea wants
	StatusStale   Status = "stale"   // a rea entry that points at another rea binary or version, or lacks a field
	StatusMissing Status = "missing" // no rea entry (or no file)
	StatusInvalid Status = "invalid" // the file cannot be read or parsed, has the wrong shape, or holds a rea entry rea does not own
)

// Reason says why, in a word a program can switch on.
type Reason string

const (
	ReasonNone          Reason = ""
	ReasonNoFile        Reason = "no_file"
	ReasonEmptyFile     Reason = "empty_file"
	ReasonNoEntry       Reason = "no_entry"
	ReasonSameFile      Reason = "same_file"     // aligned through another path to the same binary
	ReasonOtherPath     Reason = "other_path"    // stale: another rea binary
	ReasonOtherVersion  Reason = "other_version" // stale: the binary reports another version
	ReasonOtherShape    Reason = "other_shape"   // stale: a field rea writes differs (VS Code's "type")
	ReasonParse         Reason = "parse_error"
	ReasonShape         Reason = "wrong_shape"
	ReasonForeign       Reason = "foreign_entry" // an entry named rea that is not "<path>/rea serve"
	ReasonLayout        Reason = "unsupported_layout"
	ReasonTooLarge      Reason = "too_large"
	ReasonUnreadable    Reason = "unreadable"
	ReasonNotRegular    Reason = "not_regular"
	ReasonUnsafeSymlink Reason = "unsafe_symlink"
	ReasonReadOnly      Reason = "read_only"
	ReasonNotDetected   Reason = "not_detected"
	ReasonBackup        Reason = "backup"
	ReasonWrite         Reason = "write"
	ReasonReadback      Reason = "readback"
	ReasonLock          Reason = "lock"
)

// Registration is the state of rea's entry in one client's file.
type Registration struct {
	Client     string   `json:"client"`
	ClientName string   `json:"client_name"`
	Scope      Scope    `json:"scope"`
	Path       string   `json:"path"`
	Format     string   `json:"format"` // json, jsonc, toml
	Status     Status   `json:"status"`
	Reason     Reason   `json:"reason,omitempty"`
	Detail     string   `json:"detail"`
	Line       int      `json:"line,omitempty"` // where the problem or the entry is (1-based)
	Column     int      `json:"column,omitempty"`
	Command    string   `json:"command,omitempty"` // the registered command, when there is an entry
	Args       []string `json:"args,omitempty"`
	Version    string   `json:"version,omitempty"` // what the registered binary reports, when probed
	ReadOnly   bool     `json:"read_only,omitempty"`
}

// Options narrows what is looked at. The zero value means: every detected
// client, user scope (plus project files that exist, for Inspect), no
// version probe.
type Options struct {
	// Clients restricts to these client IDs; an unknown ID is an
	// *UnknownClientError.
	Clients []string
	// Scopes to consider. Inspect: default user, plus project files that
	// exist. PlanSetup: default user.
	Scopes []Scope
	// Version runs a registered rea binary and returns the version it
	// reports. It is called at most once per path per call.
	Version func(path string) (string, error)
}

// UnknownClientError names a client ID that is not in Clients().
type UnknownClientError struct{ ID string }

func (e *UnknownClientError) Error() string {
	ids := make([]string, 0)
	for _, c := range Clients() {
		ids = append(ids, c.ID)
	}
	return fmt.Sprintf("hosts: unknown client %q (known: %s)", e.ID, strings.Join(ids, ", "))
}

func (o *Options) check() error {
	if o == nil {
		return nil
	}
	known := map[string]bool{}
	for _, c := range Clients() {
		known[c.ID] = true
	}
	for _, id := range o.Clients {
		if !known[id] {
			return &UnknownClientError{ID: id}
		}
	}
	return nil
}

func (o *Options) wantsClient(id string) bool {
	if o == nil || len(o.Clients) == 0 {
		return true
	}
	for _, c := range o.Clients {
		if c == id {
			return true
		}
	}
	return false
}

// named: the caller listed id in Clients.
func (o *Options) named(id string) bool {
	return o != nil && len(o.Clients) > 0 && o.wantsClient(id)
}

func (o *Options) wantsScope(s Scope, def ...Scope) bool {
	scopes := def
	if o != nil && len(o.Scopes) > 0 {
		scopes = o.Scopes
	}
	for _, x := range scopes {
		if x == s {
			return true
		}
	}
	return false
}

// prober remembers version probes by path.
type prober struct {
	fn   func(string) (string, error)
	seen map[string]probeResult
}

type probeResult struct {
	v   string
	err error
}

func (p *prober) version(path string) (string, error, bool) {
	if p == nil || p.fn == nil {
		return "", nil, false
	}
	if r, ok := p.seen[path]; ok {
		return r.v, r.err, true
	}
	v, err := p.fn(path)
	if p.seen == nil {
		p.seen = map[string]probeResult{}
	}
	p.seen[path] = probeResult{v, err}
	return v, err, true
}

// Inspect reports rea's registration in each detected client (user scope)
// and in each project-scope file that exists, or as opts selects.
func Inspect(env Env, want Entry, opts *Options) ([]Registration, error) {
	if err := opts.check(); err != nil {
		return nil, err
	}
	var p *prober
	if opts != nil && opts.Version != nil {
		p = &prober{fn: opts.Version}
	}
	var out []Registration
	for i := range locations() {
		l := &locations()[i]
		if !opts.wantsClient(l.client.ID) {
			continue
		}
		path := l.path(env)
		if path == "" {
			continue
		}
		switch l.scope {
		case ScopeUser:
			if !opts.wantsScope(ScopeUser, ScopeUser, ScopeProject) || l.marker(env) == "" {
				continue
			}
		case ScopeProject:
			if !opts.wantsScope(ScopeProject, ScopeUser, ScopeProject) {
				continue
			}
			if _, err := os.Lstat(path); err != nil {
				continue
			}
		}
		c, ferr := readConfig(path)
		r, _ := l.classify(c, ferr, want, p)
		out = append(out, r)
	}
	return out, nil
}

// found is rea's entry as read from a file.
type found struct {
	present bool
	value   map[string]any // nil when the entry is not an object
	offset  int            // where it is written, -1 if unknown
	empty   bool           // the whole file holds nothing
}

// lookup finds rea's entry in data.
func (l *location) lookup(data []byte) (found, error) {
	f := found{offset: -1}
	switch l.format {
	case formatTOML:
		doc, err := tomlDecode(data)
		if err != nil {
			return f, err
		}
		exprs, err := tomlScan(data)
		if err != nil {
			return f, &SyntaxError{Line: 1, Column: 1, Msg: err.Error()}
		}
		if len(doc) == 0 && len(strings.TrimSpace(string(data))) == 0 {
			f.empty = true
		}
		servers, ok := lookupPath(doc, l.servers)
		if !ok {
			return f, nil
		}
		m, ok := servers.(map[string]any)
		if !ok {
			return f, shapeError(data, tomlOffset(exprs, l.servers), "%q is not a table", strings.Join(l.servers, "."))
		}
		v, ok := m[serverName]
		if !ok {
			return f, nil
		}
		f.present = true
		f.offset = tomlOffset(exprs, l.entryPath())
		if e, ok := v.(map[string]any); ok {
			f.value = e
		}
		return f, nil
	default:
		root, err := parseJSON(data, l.format == formatJSONC)
		if err != nil {
			return f, err
		}
		if root == nil {
			f.empty = true
			return f, nil
		}
		obj, n, err := jsonWalk(data, root, l.servers)
		if err != nil {
			return f, err
		}
		if n < len(l.servers) {
			return f, nil
		}
		m, count := obj.member(serverName)
		if m == nil {
			return f, nil
		}
		if count > 1 {
			return f, shapeError(data, m.keyStart, "duplicate key %q", serverName)
		}
		f.present, f.offset = true, m.keyStart
		if v, ok := decode(data, m.val).(map[string]any); ok {
			f.value = v
		}
		return f, nil
	}
}

// tomlOffset is where the first expression at or below path starts.
func tomlOffset(exprs []texpr, path []string) int {
	for _, e := range exprs {
		if hasPrefix(e.path, path) || (e.kind.String() == "KeyValue" && hasPrefix(path, e.path)) {
			return e.start
		}
	}
	return -1
}

// isReaCommand: "rea", or an absolute path whose last element is rea
// (rea.exe on Windows).
func isReaCommand(cmd string) bool {
	if cmd == "rea" || cmd == "rea.exe" {
		return true
	}
	abs := strings.HasPrefix(cmd, "/") || filepath.IsAbs(cmd) || (len(cmd) > 2 && cmd[1] == ':' && (cmd[2] == '\\' || cmd[2] == '/'))
	if !abs {
		return false
	}
	base := cmd[strings.LastIndexAny(cmd, `/\`)+1:]
	return base == "rea" || base == "rea.exe"
}

// entryCommand reads command and args, accepting Zed's older nested form.
func entryCommand(v map[string]any) (cmd string, args []string, ok bool, shapeErr string) {
	c, present := v["command"]
	a := v["args"]
	if nested, isMap := c.(map[string]any); isMap {
		c, present = nested["path"]
		a = nested["args"]
	}
	if !present {
		return "", nil, false, ""
	}
	cmd, isStr := c.(string)
	if !isStr {
		return "", nil, false, "command is not a string"
	}
	if a != nil {
		list, isList := a.([]any)
		if !isList {
			return "", nil, false, "args is not a list"
		}
		for _, x := range list {
			s, isStr := x.(string)
			if !isStr {
				return "", nil, false, "args holds a value that is not a string"
			}
			args = append(args, s)
		}
	}
	return cmd, args, true, ""
}

func owned(cmd string, args []string) bool {
	return isReaCommand(cmd) && len(args) == 1 && args[0] == "serve"
}

func sameFile(a, b string) bool {
	if a == b {
		return true
	}
	fa, err := os.Stat(a)
	if err != nil {
		return false
	}
	fb, err := os.Stat(b)
	return err == nil && os.SameFile(fa, fb)
}

// classify reads the state of one file. It also returns the entry found,
// for the planners.
func (l *location) classify(c config, ferr *FileError, want Entry, p *prober) (Registration, found) {
	r := Registration{Client: l.client.ID, ClientName: l.client.Name, Scope: l.scope, Path: c.path, Format: l.format.String(), ReadOnly: c.readOnly}
	if ferr != nil {
		r.Status, r.Reason, r.Detail = StatusInvalid, ferr.Reason, ferr.Error()
		return r, found{}
	}
	if !c.exists {
		r.Status, r.Reason, r.Detail = StatusMissing, ReasonNoFile, "the file does not exist"
		return r, found{}
	}
	f, err := l.lookup(c.data)
	if err != nil {
		r.Status = StatusInvalid
		var se *SyntaxError
		var sh *ShapeError
		switch {
		case errors.As(err, &se):
			r.Reason, r.Line, r.Column = ReasonParse, se.Line, se.Column
			r.Detail = fmt.Sprintf("not valid %s: %s", l.format, err)
		case errors.As(err, &sh):
			r.Reason, r.Line, r.Column = ReasonShape, sh.Line, sh.Column
			r.Detail = "unexpected shape: " + err.Error()
		default:
			r.Reason, r.Detail = ReasonParse, err.Error()
		}
		return r, f
	}
	if f.offset >= 0 {
		r.Line, r.Column = position(c.data, f.offset)
	}
	if !f.present {
		r.Status, r.Reason, r.Detail = StatusMissing, ReasonNoEntry, fmt.Sprintf("no %q entry under %s", serverName, strings.Join(l.servers, "."))
		if f.empty {
			r.Reason, r.Detail = ReasonEmptyFile, "the file is empty"
		}
		return r, f
	}
	if f.value == nil {
		r.Status, r.Reason, r.Detail = StatusInvalid, ReasonShape, fmt.Sprintf("the %q entry is not an object", serverName)
		return r, f
	}
	cmd, args, ok, shapeErr := entryCommand(f.value)
	if shapeErr != "" {
		r.Status, r.Reason, r.Detail = StatusInvalid, ReasonShape, fmt.Sprintf("the %q entry: %s", serverName, shapeErr)
		return r, f
	}
	r.Command, r.Args = cmd, args
	if !ok || !owned(cmd, args) {
		r.Status, r.Reason = StatusInvalid, ReasonForeign
		r.Detail = fmt.Sprintf("an entry named %q that is not rea's (%q with args %q); rename or remove it", serverName, cmd, args)
		if !ok {
			r.Detail = fmt.Sprintf("an entry named %q without a command; rename or remove it", serverName)
		}
		return r, f
	}
	if !sameFile(cmd, want.Command) {
		r.Status, r.Reason = StatusStale, ReasonOtherPath
		r.Detail = fmt.Sprintf("runs %s, not %s", cmd, want.Command)
		if _, err := os.Stat(cmd); err != nil && filepath.IsAbs(cmd) {
			r.Detail += " (that file does not exist)"
		} else if v, err, probed := p.version(cmd); probed {
			if err != nil {
				r.Detail += fmt.Sprintf(" (its version could not be read: %v)", err)
			} else {
				r.Version = v
				r.Detail += fmt.Sprintf(" (version %s)", v)
			}
		}
		return r, f
	}
	for _, fd := range l.desired(want) {
		if fd.key == "command" || fd.key == "args" {
			continue
		}
		if !sameValue(f.value[fd.key], fd.val) {
			r.Status, r.Reason = StatusStale, ReasonOtherShape
			want := fmt.Sprintf("%q", fd.val)
			if n, ok := fd.val.(int64); ok {
				want = strconv.FormatInt(n, 10)
			}
			r.Detail = fmt.Sprintf("%q should be %s", fd.key, want)
			return r, f
		}
	}
	if v, err, probed := p.version(cmd); probed && want.Version != "" {
		if err != nil {
			r.Status, r.Reason = StatusStale, ReasonOtherVersion
			r.Detail = fmt.Sprintf("%s did not report its version: %v", cmd, err)
			return r, f
		}
		r.Version = v
		if v != want.Version {
			r.Status, r.Reason = StatusStale, ReasonOtherVersion
			r.Detail = fmt.Sprintf("%s reports version %s, not %s", cmd, v, want.Version)
			return r, f
		}
	}
	r.Status, r.Detail = StatusAligned, fmt.Sprintf("runs %s %s", cmd, strings.Join(args, " "))
	if cmd != want.Command {
		r.Reason = ReasonSameFile
		r.Detail += fmt.Sprintf(" (the same file as %s)", want.Command)
	}
	return r, f
}

// sameValue reports whether a value read from a configuration file is the
// string or integer rea writes (a TOML integer decodes as int64, a JSON
// number as float64).
func sameValue(got, want any) bool {
	if w, ok := want.(int64); ok {
		switch g := got.(type) {
		case int64:
			return g == w
		case float64:
			return g == float64(w)
		}
		return false
	}
	g, ok := got.(string)
	return ok && g == want
}
