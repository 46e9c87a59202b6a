package cli

import (
	"context"
	"errors"
)

// Registrar edits the agent hosts' configuration files (adapters/hosts);
// cmd/rea injects it, so the CLI does not import another adapter. Its
// methods read files; only Plan.Apply writes.
type Registrar interface {
	// Inspect checks rea's registration with each detected client (or the
	// requested ones) and the installed agent skill.
	Inspect(ctx context.Context, req RegistrationRequest) ([]Check, error)
	// PlanSetup plans registering this binary (and installing the skill).
	PlanSetup(ctx context.Context, req RegistrationRequest) (*Plan, error)
	// PlanUninstall plans removing rea from every supported client and the
	// skill.
	PlanUninstall(ctx context.Context, req RegistrationRequest) (*Plan, error)
}

// RegistrationRequest scopes a Registrar call.
type RegistrationRequest struct {
	Clients []string // client ids; empty means every detected client
	Scopes  []string // user, project
	Skill   Skill    // the skill this build would install
	// InstallSkill plans the skill's installation (setup).
	InstallSkill bool
}

// ErrUsage marks an error in what the user asked for (an unknown client):
// exit status 2. Wrap one with Usage.
var ErrUsage = errors.New("usage")

// Usage marks err as a usage error (errors.Is(err, ErrUsage)) without
// changing its message.
func Usage(err error) error { return usageMark{err} }

type usageMark struct{ err error }

func (u usageMark) Error() string        { return u.err.Error() }
func (u usageMark) Unwrap() error        { return u.err }
func (u usageMark) Is(target error) bool { return target == ErrUsage }

// Plan is a setup or uninstall plan: what would change, shown before
// anything changes.
type Plan struct {
	Value   any    // the plan as JSON
	Text    string // the plan for a terminal
	Blocked bool   // an invalid registration blocks the whole plan
	Changes bool   // applying it would write something
	Empty   bool   // no client was detected (or named) and no skill asked for: nothing to do
	// Apply carries the plan out.
	Apply func(ctx context.Context) (*Outcome, error)
}

// Outcome is what applying a plan did.
type Outcome struct {
	Value  any
	Text   string
	Failed bool
}

// Check is one doctor check (PROVIDERS.md §4.1): classification is
// healthy, missing_dependency, unsupported_host, missing_analysis_engine or
// config_drift; remediation only when failing.
type Check struct {
	Name           string `json:"name"`
	OK             bool   `json:"ok"`
	Classification string `json:"classification"`
	Detail         string `json:"detail,omitempty"`
	// Registration, Skill, Engine and Details carry what the check looked at.
	Registration any    `json:"registration,omitempty"`
	Skill        any    `json:"skill,omitempty"`
	Engine       any    `json:"engine,omitempty"`
	Details      any    `json:"details,omitempty"`
	Remediation  string `json:"remediation,omitempty"`
}

// Skill is the agent skill this build installs (hosts renders SKILL.md).
type Skill struct {
	Description   string
	Version       string
	ToolCount     int
	CatalogDigest string
	Body          string
}
