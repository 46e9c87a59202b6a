package hosts

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
)

// ActionKind is what a plan would do to one file.
type ActionKind string

const (
	ActionAlreadyCurrent ActionKind = "already_current" // nothing to write
	ActionCreate         ActionKind = "create"          // add rea's entry (a new file, or a backup first)
	ActionUpdate         ActionKind = "update"          // change rea's stale entry (backup first)
	ActionInvalid        ActionKind = "invalid"         // cannot be done safely; blocks a setup plan
	ActionRemove         ActionKind = "remove"          // uninstall: remove rea's entry (backup first)
	ActionSkip           ActionKind = "skip"            // uninstall: nothing of rea's there
	ActionRetain         ActionKind = "retain"          // uninstall: an entry named rea that rea does not own
)

// Action is one step of a plan.
type Action struct {
	ID          string     `json:"id"` // configure_client:<client>:<scope>, install_skill, remove_client:<client>:<scope>, remove_skill
	Kind        ActionKind `json:"kind"`
	Client      string     `json:"client,omitempty"`
	ClientName  string     `json:"client_name,omitempty"`
	Scope       Scope      `json:"scope,omitempty"`
	Path        string     `json:"path"`
	BackupPath  string     `json:"backup_path,omitempty"` // where the current file will be copied first
	Reason      Reason     `json:"reason,omitempty"`
	Detail      string     `json:"detail"`
	Remediation string     `json:"remediation,omitempty"`

	loc   *location
	want  Entry
	skill *Skill
}

// Changes reports whether applying the action writes anything.
func (a Action) Changes() bool {
	return a.Kind == ActionCreate || a.Kind == ActionUpdate || a.Kind == ActionRemove
}

// Plan is what setup or uninstall would do. Nothing is written until it is
// applied.
type Plan struct {
	Operation string   `json:"operation"` // setup or uninstall
	Actions   []Action `json:"actions"`
	// Blocked: a setup plan with an invalid action is applied not at all.
	Blocked  bool     `json:"blocked"`
	Blockers []string `json:"blockers,omitempty"` // "<Client>: <remediation>"
}

// Changes reports whether applying the plan writes anything.
func (p Plan) Changes() bool {
	for _, a := range p.Actions {
		if a.Changes() {
			return true
		}
	}
	return false
}

// ErrBlocked is returned by Apply for a plan that holds an invalid action.
var ErrBlocked = errors.New("hosts: the plan is blocked by an invalid registration")

// ErrNotRea: the Entry to register is not an absolute path to a binary
// named rea, so rea could not recognise the entry as its own afterwards.
var ErrNotRea = errors.New("hosts: the command to register must be an absolute path ending in /rea, the name rea knows its own entries by; " +
	"install or link the binary as rea in a directory on PATH (for example ln -s \"$PWD/rea-linux-amd64\" ~/.local/bin/rea) and run rea setup")

// SetupOptions selects what PlanSetup plans.
type SetupOptions struct {
	Options
	// Skill, when set, is installed too.
	Skill *Skill
}

// PlanSetup plans registering want with every detected client (user scope
// by default), or with opts.Clients; a requested client that is not
// installed is an invalid action. It reads files and writes nothing.
func PlanSetup(env Env, want Entry, opts *SetupOptions) (Plan, error) {
	var o *Options
	if opts != nil {
		o = &opts.Options
	}
	if err := o.check(); err != nil {
		return Plan{}, err
	}
	if !filepath.IsAbs(want.Command) || !isReaCommand(want.Command) || !owned(want.Command, want.args()) {
		return Plan{}, ErrNotRea
	}
	plan := Plan{Operation: "setup"}
	for i := range locations() {
		l := &locations()[i]
		if !o.wantsClient(l.client.ID) || !o.wantsScope(l.scope, ScopeUser) {
			continue
		}
		path := l.path(env)
		if path == "" {
			continue
		}
		a := Action{ID: fmt.Sprintf("configure_client:%s:%s", l.client.ID, l.scope), Client: l.client.ID,
			ClientName: l.client.Name, Scope: l.scope, Path: path, loc: l, want: want}
		if l.scope == ScopeProject && !o.named(l.client.ID) && userLocation(l.client.ID).marker(env) == "" {
			continue // a project file only for an installed client, or one asked for
		}
		if l.scope == ScopeUser && l.marker(env) == "" {
			if o == nil || len(o.Clients) == 0 {
				continue
			}
			a.Kind, a.Reason = ActionInvalid, ReasonNotDetected
			a.Detail = fmt.Sprintf("%s was not detected", l.client.Name)
			a.Remediation = fmt.Sprintf("install %s and start it once, or leave it out of --client", l.client.Name)
		} else {
			planRegistration(&a)
		}
		plan.add(a)
	}
	if opts != nil && opts.Skill != nil {
		plan.add(planSkill(env, *opts.Skill))
	}
	return plan, nil
}

func userLocation(id string) *location {
	for i := range locations() {
		if locations()[i].client.ID == id && locations()[i].scope == ScopeUser {
			return &locations()[i]
		}
	}
	return &location{}
}

func (p *Plan) add(a Action) {
	if a.Kind == ActionInvalid && p.Operation == "setup" {
		p.Blocked = true
		name := a.ClientName
		if name == "" {
			name = a.ID
		}
		p.Blockers = append(p.Blockers, name+": "+a.Remediation)
	}
	p.Actions = append(p.Actions, a)
}

func remediation(r Registration) string {
	where := r.Path
	if r.Line > 0 {
		where = fmt.Sprintf("%s:%d:%d", r.Path, r.Line, r.Column)
	}
	switch r.Reason {
	case ReasonParse, ReasonShape:
		return fmt.Sprintf("fix %s, then run setup again", where)
	case ReasonForeign:
		return fmt.Sprintf("rename or remove the %q entry at %s, then run setup again", serverName, where)
	case ReasonLayout:
		return fmt.Sprintf("write the %q entry at %s as a [table] by hand, or remove it", serverName, where)
	case ReasonReadOnly:
		return fmt.Sprintf("make %s writable, then run setup again", r.Path)
	case ReasonTooLarge:
		return fmt.Sprintf("%s is larger than %d bytes; edit it by hand", r.Path, MaxFileSize)
	case ReasonUnsafeSymlink:
		return fmt.Sprintf("%s is a symbolic link rea does not follow (it and its target must be your regular files); edit it by hand", r.Path)
	default:
		return fmt.Sprintf("check %s (%s)", r.Path, r.Detail)
	}
}

// planRegistration fills a's kind from the file as it is now.
func planRegistration(a *Action) {
	c, ferr := readConfig(a.Path)
	r, f := a.loc.classify(c, ferr, a.want, nil)
	a.Reason, a.Detail = r.Reason, r.Detail
	invalid := func(reason Reason, detail string) {
		a.Kind, a.Reason = ActionInvalid, reason
		if detail != "" {
			a.Detail = detail
		}
		r.Reason, r.Detail = a.Reason, a.Detail
		a.Remediation = remediation(r)
	}
	switch r.Status {
	case StatusInvalid:
		invalid(r.Reason, "")
		return
	case StatusAligned:
		a.Kind = ActionAlreadyCurrent
		return
	}
	if c.readOnly {
		invalid(ReasonReadOnly, "the file or its directory is read-only")
		return
	}
	next, err := a.loc.set(c.data, a.loc.desired(a.want), f)
	if err != nil {
		invalid(ReasonLayout, err.Error())
		return
	}
	if bytes.Equal(next, c.data) {
		a.Kind = ActionAlreadyCurrent
		return
	}
	a.Kind = ActionCreate
	if f.present {
		a.Kind = ActionUpdate
	}
	if c.exists {
		a.BackupPath, _ = backupPath(c.real, c.data, false)
	}
}

// OutcomeStatus is what applying an action did.
type OutcomeStatus string

const (
	OutcomeUnchanged  OutcomeStatus = "unchanged"  // already as wanted
	OutcomeConfigured OutcomeStatus = "configured" // rea's entry written
	OutcomeInstalled  OutcomeStatus = "installed"  // the skill written
	OutcomeRemoved    OutcomeStatus = "removed"    // rea's entry (or skill) removed
	OutcomeRestored   OutcomeStatus = "restored"   // the file put back exactly as before rea added its entry
	OutcomeSkipped    OutcomeStatus = "skipped"
	OutcomeRetained   OutcomeStatus = "retained"
	OutcomeFailed     OutcomeStatus = "failed" // nothing was changed
)

// Outcome is the result of one action.
type Outcome struct {
	ID         string        `json:"id"`
	Client     string        `json:"client,omitempty"`
	Scope      Scope         `json:"scope,omitempty"`
	Path       string        `json:"path"`
	Status     OutcomeStatus `json:"status"`
	BackupPath string        `json:"backup_path,omitempty"`
	Reason     Reason        `json:"reason,omitempty"`
	Detail     string        `json:"detail,omitempty"`
}

// Result is what Apply did.
type Result struct {
	Outcomes []Outcome `json:"outcomes"`
	Failed   bool      `json:"failed"` // at least one outcome failed
}

func (r *Result) add(o Outcome) {
	if o.Status == OutcomeFailed {
		r.Failed = true
	}
	r.Outcomes = append(r.Outcomes, o)
}

// Apply carries out a setup plan. Each file is locked, read again and
// edited from what it holds then (so concurrent runs do not interleave),
// backed up, replaced atomically and read back. A blocked plan changes
// nothing and returns ErrBlocked.
func Apply(plan Plan) (Result, error) {
	if plan.Operation != "setup" {
		return Result{}, errors.New("hosts: Apply takes a setup plan; use ApplyUninstall")
	}
	if plan.Blocked {
		return Result{}, ErrBlocked
	}
	var res Result
	for _, a := range plan.Actions {
		switch {
		case a.skill != nil:
			res.add(applySkill(a))
		case a.Kind == ActionAlreadyCurrent:
			res.add(outcome(a, OutcomeUnchanged, "", nil))
		default:
			res.add(applyRegistration(a))
		}
	}
	return res, nil
}

func outcome(a Action, s OutcomeStatus, backup string, ferr *FileError) Outcome {
	o := Outcome{ID: a.ID, Client: a.Client, Scope: a.Scope, Path: a.Path, Status: s, BackupPath: backup}
	if ferr != nil {
		o.Status, o.Reason, o.Detail = OutcomeFailed, ferr.Reason, ferr.Error()
	}
	return o
}

func failed(a Action, op string, reason Reason, err error) Outcome {
	return outcome(a, OutcomeFailed, "", &FileError{Op: op, Path: a.Path, Reason: reason, Err: err})
}

// locked reads the file at a.Path, locks it, reads it again and runs fn.
func locked(a Action, create bool, fn func(c config) Outcome) Outcome {
	c0, ferr := readConfig(a.Path)
	if ferr != nil {
		return outcome(a, OutcomeFailed, "", ferr)
	}
	if !c0.exists && create {
		perm := os.FileMode(0o700)
		if a.Scope == ScopeProject {
			perm = 0o755
		}
		if err := os.MkdirAll(filepath.Dir(c0.real), perm); err != nil {
			return failed(a, "write", ReasonWrite, err)
		}
	}
	unlock, err := lock(c0.real)
	if err != nil {
		return failed(a, "lock", ReasonLock, err)
	}
	defer unlock()
	c, ferr := readConfig(a.Path)
	if ferr != nil {
		return outcome(a, OutcomeFailed, "", ferr)
	}
	if c.real != c0.real {
		return failed(a, "lock", ReasonLock, errors.New("the file was replaced by a link meanwhile"))
	}
	return fn(c)
}

func applyRegistration(a Action) Outcome {
	return locked(a, true, func(c config) Outcome {
		r, f := a.loc.classify(c, nil, a.want, nil)
		switch {
		case r.Status == StatusInvalid:
			return failed(a, "read", r.Reason, errors.New(r.Detail))
		case r.Status == StatusAligned:
			return outcome(a, OutcomeUnchanged, "", nil)
		case c.readOnly:
			return failed(a, "write", ReasonReadOnly, errors.New("the file or its directory is read-only"))
		}
		next, err := a.loc.set(c.data, a.loc.desired(a.want), f)
		if err != nil {
			return failed(a, "write", ReasonLayout, err)
		}
		if bytes.Equal(next, c.data) {
			return outcome(a, OutcomeUnchanged, "", nil)
		}
		backup, ferr := commit(c, next)
		return outcome(a, OutcomeConfigured, backup, ferr)
	})
}
