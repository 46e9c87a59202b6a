package hosts

import (
	"errors"
	"fmt"
)

// PlanUninstall plans removing rea's entries from every supported client
// (user and project scope, detected or not) and the skill. Only entries
// rea owns ("<abs path>/rea" or "rea" with args ["serve"]) are removed;
// another entry named rea is retained. An unreadable or unparseable file is
// an invalid action, left unchanged; it does not stop the others.
func PlanUninstall(env Env, opts *Options) (Plan, error) {
	if err := opts.check(); err != nil {
		return Plan{}, err
	}
	plan := Plan{Operation: "uninstall"}
	for i := range locations() {
		l := &locations()[i]
		if !opts.wantsClient(l.client.ID) || !opts.wantsScope(l.scope, ScopeUser, ScopeProject) {
			continue
		}
		path := l.path(env)
		if path == "" {
			continue
		}
		a := Action{ID: fmt.Sprintf("remove_client:%s:%s", l.client.ID, l.scope), Client: l.client.ID,
			ClientName: l.client.Name, Scope: l.scope, Path: path, loc: l}
		planRemoval(&a)
		plan.add(a)
	}
	if opts == nil || len(opts.Clients) == 0 {
		plan.add(planSkillRemoval(env))
	}
	return plan, nil
}

// removal decides what to do with c; it is used when planning and again
// under the lock when applying.
func (l *location) removal(c config, ferr *FileError) (kind ActionKind, reason Reason, detail string, next []byte, del, exact bool) {
	if ferr != nil {
		return ActionInvalid, ferr.Reason, ferr.Error(), nil, false, false
	}
	if !c.exists {
		return ActionSkip, ReasonNoFile, "the file does not exist", nil, false, false
	}
	f, err := l.lookup(c.data)
	if err != nil {
		return ActionInvalid, ReasonParse, err.Error(), nil, false, false
	}
	if !f.present {
		return ActionSkip, ReasonNoEntry, fmt.Sprintf("no %q entry", serverName), nil, false, false
	}
	var cmd string
	var args []string
	ok := false
	if f.value != nil {
		cmd, args, ok, _ = entryCommand(f.value)
	}
	if !ok || !owned(cmd, args) {
		return ActionRetain, ReasonForeign, fmt.Sprintf("the %q entry is not rea's", serverName), nil, false, false
	}
	if c.readOnly {
		return ActionInvalid, ReasonReadOnly, "the file or its directory is read-only", nil, false, false
	}
	if old, del, ok := l.restoreExact(c, cmd, args); ok {
		detail := "restores the file as it was before rea added its entry"
		if del {
			detail = "deletes the file, which rea created"
		}
		return ActionRemove, ReasonNone, detail, old, del, true
	}
	next, err = l.remove(c.data)
	if err != nil {
		return ActionInvalid, ReasonLayout, err.Error(), nil, false, false
	}
	return ActionRemove, ReasonNone, "removes rea's entry; the rest of the file is kept", next, false, false
}

func planRemoval(a *Action) {
	c, ferr := readConfig(a.Path)
	kind, reason, detail, _, _, _ := a.loc.removal(c, ferr)
	a.Kind, a.Reason, a.Detail = kind, reason, detail
	if kind == ActionInvalid {
		a.Remediation = remediation(Registration{Path: a.Path, Reason: reason, Detail: detail})
	}
	if kind == ActionRemove {
		a.BackupPath, _ = backupPath(c.real, c.data, false)
	}
}

// ApplyUninstall carries out an uninstall plan; invalid actions are
// reported failed and change nothing.
func ApplyUninstall(plan Plan) (Result, error) {
	if plan.Operation != "uninstall" {
		return Result{}, errors.New("hosts: ApplyUninstall takes an uninstall plan")
	}
	var res Result
	for _, a := range plan.Actions {
		switch {
		case a.skill != nil:
			res.add(removeSkill(a))
		case a.Kind == ActionSkip:
			res.add(Outcome{ID: a.ID, Client: a.Client, Scope: a.Scope, Path: a.Path, Status: OutcomeSkipped, Reason: a.Reason, Detail: a.Detail})
		case a.Kind == ActionRetain:
			res.add(Outcome{ID: a.ID, Client: a.Client, Scope: a.Scope, Path: a.Path, Status: OutcomeRetained, Reason: a.Reason, Detail: a.Detail})
		case a.Kind == ActionInvalid:
			res.add(failed(a, "read", a.Reason, errors.New(a.Detail)))
		default:
			res.add(locked(a, false, func(c config) Outcome {
				kind, reason, detail, next, del, exact := a.loc.removal(c, nil)
				switch kind {
				case ActionSkip:
					return Outcome{ID: a.ID, Client: a.Client, Scope: a.Scope, Path: a.Path, Status: OutcomeSkipped, Reason: reason, Detail: detail}
				case ActionRetain:
					return Outcome{ID: a.ID, Client: a.Client, Scope: a.Scope, Path: a.Path, Status: OutcomeRetained, Reason: reason, Detail: detail}
				case ActionInvalid:
					return failed(a, "read", reason, errors.New(detail))
				}
				if del {
					next = nil
				} else if next == nil {
					next = []byte{}
				}
				backup, ferr := commit(c, next)
				status := OutcomeRemoved
				if exact {
					status = OutcomeRestored
				}
				o := outcome(a, status, backup, ferr)
				if ferr == nil {
					o.Detail = detail
				}
				return o
			}))
		}
	}
	return res, nil
}
