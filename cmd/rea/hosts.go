package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"rea/adapters/cli"
	"rea/adapters/hosts"
)

// registrar adapts adapters/hosts to the CLI's Registrar. Only setup,
// uninstall and doctor use it, so it finds this binary (resolve) on first
// use rather than in every command's start-up.
type registrar struct {
	version string
	once    sync.Once
	env     hosts.Env
	want    hosts.Entry
	wantErr error
}

func newRegistrar(version string) *registrar { return &registrar{version: version} }

// resolve registers this binary: the rea on PATH when it is this same file
// (so an upgrade behind a symlink stays aligned), else the executable.
func (r *registrar) resolve() *registrar {
	r.once.Do(func() {
		r.env = hosts.EnvFromOS()
		exe, err := os.Executable()
		if err != nil {
			r.wantErr = fmt.Errorf("setup: cannot tell where this rea is: %w", err)
			return
		}
		if abs, err := filepath.EvalSymlinks(exe); err == nil {
			exe = abs
		}
		if p, err := exec.LookPath("rea"); err == nil && filepath.IsAbs(p) && sameFile(p, exe) {
			exe = p
		}
		r.want = hosts.Entry{Command: exe, Version: r.version}
	})
	return r
}

func sameFile(a, b string) bool {
	sa, err1 := os.Stat(a)
	sb, err2 := os.Stat(b)
	return err1 == nil && err2 == nil && os.SameFile(sa, sb)
}

func (r *registrar) options(req cli.RegistrationRequest) (hosts.Options, error) {
	o := hosts.Options{Clients: req.Clients}
	for _, s := range req.Scopes {
		switch s {
		case string(hosts.ScopeUser), string(hosts.ScopeProject):
			o.Scopes = append(o.Scopes, hosts.Scope(s))
		default:
			return o, cli.Usage(fmt.Errorf("--scope %q: want user or project", s))
		}
	}
	return o, nil
}

func usage(err error) error {
	var uce *hosts.UnknownClientError
	if errors.As(err, &uce) || errors.Is(err, hosts.ErrNotRea) {
		return cli.Usage(err)
	}
	return err
}

func skillOf(s cli.Skill) hosts.Skill {
	return hosts.Skill{Description: s.Description, Version: s.Version, ToolCount: s.ToolCount, CatalogDigest: s.CatalogDigest, Body: s.Body}
}

func (r *registrar) Inspect(ctx context.Context, req cli.RegistrationRequest) ([]cli.Check, error) {
	if r.resolve().wantErr != nil {
		return nil, r.wantErr
	}
	o, err := r.options(req)
	if err != nil {
		return nil, err
	}
	o.Version = hosts.VersionProbe(ctx, 5*time.Second)
	regs, err := hosts.Inspect(r.env, r.want, &o)
	if err != nil {
		return nil, usage(err)
	}
	checks := hosts.RegistrationChecks(regs, req.Clients)
	checks = append(checks, hosts.InspectSkill(r.env, skillOf(req.Skill)).Check(false))
	out := make([]cli.Check, len(checks))
	for i, c := range checks {
		out[i] = cli.Check{Name: c.Name, OK: c.OK, Classification: c.Classification, Detail: c.Detail, Remediation: c.Remediation}
		if c.Registration != nil {
			out[i].Registration = c.Registration
		}
		if c.Skill != nil {
			out[i].Skill = c.Skill
		}
	}
	return out, nil
}

func (r *registrar) PlanSetup(_ context.Context, req cli.RegistrationRequest) (*cli.Plan, error) {
	if r.resolve().wantErr != nil {
		return nil, r.wantErr
	}
	o, err := r.options(req)
	if err != nil {
		return nil, err
	}
	so := &hosts.SetupOptions{Options: o}
	if req.InstallSkill {
		sk := skillOf(req.Skill)
		so.Skill = &sk
	}
	plan, err := hosts.PlanSetup(r.env, r.want, so)
	if err != nil {
		return nil, usage(err)
	}
	return projectPlan(plan, hosts.Apply), nil
}

func (r *registrar) PlanUninstall(_ context.Context, req cli.RegistrationRequest) (*cli.Plan, error) {
	o, err := r.resolve().options(req)
	if err != nil {
		return nil, err
	}
	plan, err := hosts.PlanUninstall(r.env, &o)
	if err != nil {
		return nil, usage(err)
	}
	return projectPlan(plan, hosts.ApplyUninstall), nil
}

func projectPlan(plan hosts.Plan, apply func(hosts.Plan) (hosts.Result, error)) *cli.Plan {
	var b strings.Builder
	_ = plan.WriteText(&b)
	return &cli.Plan{Value: plan, Text: b.String(), Blocked: plan.Blocked, Changes: plan.Changes(), Empty: len(plan.Actions) == 0,
		Apply: func(context.Context) (*cli.Outcome, error) {
			res, err := apply(plan)
			if err != nil && !errors.Is(err, hosts.ErrBlocked) {
				return nil, err
			}
			var b strings.Builder
			_ = res.WriteText(&b)
			return &cli.Outcome{Value: res, Text: b.String(), Failed: res.Failed || err != nil}, nil
		}}
}

// setupClients describes the supported clients for the product catalog.
func setupClients() []any {
	var out []any
	for _, c := range hosts.Clients() {
		scopes := make([]string, len(c.Scopes))
		for i, s := range c.Scopes {
			scopes[i] = string(s)
		}
		out = append(out, map[string]any{"id": c.ID, "display_name": c.Name, "scopes": scopes,
			"format": strings.Join(c.Formats(), ","), "configuration": "managed"})
	}
	return out
}
