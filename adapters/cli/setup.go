package cli

import (
	"bufio"
	"errors"
	"fmt"

	"os"
	"path/filepath"
	"strings"
)

type setupCmd struct {
	Client       []string `help:"Register with this client only (repeatable); default every detected client."`
	Scope        []string `help:"user (default) or project (files in the working directory); repeatable."`
	InstallSkill bool     `name:"install-skill" help:"Also install the agent skill (~/.agents/skills/rea/SKILL.md)."`
	Yes          bool     `short:"y" help:"Apply the plan without asking."`
	DryRun       bool     `name:"dry-run" help:"Print the plan and change nothing."`
}

// Statuses of setup (PROVIDERS.md §4.2); every one but ready exits 1.
const (
	statusReady             = "ready"
	statusPlanned           = "planned"
	statusNeedsConfirmation = "needs_confirmation"
	statusNeedsHuman        = "needs_human"
	statusComplete          = "complete"
	statusFailed            = "failed"
)

func (e *env) registrar() (Registrar, error) {
	if e.opts.Registrar == nil {
		return nil, errors.New("setup: no registration engine is wired into this build")
	}
	return e.opts.Registrar, nil
}

// confirm decides whether to apply a plan that changes something: --yes,
// else a question on a terminal; ok=false with the status to report.
func (e *env) confirm(yes bool, question string) (ok bool, status string) {
	if yes {
		return true, ""
	}
	if !e.opts.StdinIsTerminal || e.opts.Stdin == nil || e.g.Format == "json" {
		return false, statusNeedsConfirmation
	}
	fmt.Fprintf(e.opts.Stderr, "%s [y/N] ", question)
	line, _ := bufio.NewReader(e.opts.Stdin).ReadString('\n')
	switch strings.ToLower(strings.TrimSpace(line)) {
	case "y", "yes":
		return true, ""
	}
	return false, statusPlanned
}

func (c *setupCmd) Run(e *env) error {
	r, err := e.registrar()
	if err != nil {
		return err
	}
	req := RegistrationRequest{Clients: c.Client, Scopes: c.Scope, Skill: SkillFor(e.opts.Catalog, e.opts.Identity.Version), InstallSkill: c.InstallSkill}
	plan, err := r.PlanSetup(e.ctx, req)
	if err != nil {
		return err
	}
	out := map[string]any{"plan": plan.Value, "result": nil, "doctor": nil}
	text := e.g.Format != "json"
	if text {
		fmt.Fprint(e.opts.Stdout, plan.Text)
	}
	status := ""
	switch {
	case plan.Blocked || plan.Empty:
		// Nothing detected is nothing registered: not ready.
		status = statusNeedsHuman
	case c.DryRun:
		status = statusPlanned
	case plan.Changes:
		if ok, st := e.confirm(c.Yes, "Apply this plan?"); !ok {
			status = st
		}
	}
	if status == "" {
		res, err := plan.Apply(e.ctx)
		if err != nil {
			return err
		}
		out["result"] = res.Value
		if text {
			fmt.Fprint(e.opts.Stdout, res.Text)
		}
		rep, err := e.doctor(c.Client, "", false)
		if err != nil {
			return err
		}
		out["doctor"] = rep
		status = statusReady
		if res.Failed || !rep.Healthy {
			status = statusNeedsHuman
		}
		if text && !rep.Healthy {
			fmt.Fprintln(e.opts.Stdout)
			if err := writeDoctor(e.opts.Stdout, rep); err != nil {
				return err
			}
		}
	}
	out["status"] = status
	if text {
		fmt.Fprintf(e.opts.Stdout, "\nrea setup: %s%s\n", status, statusHint(status))
	} else if err := e.writeJSON(out); err != nil {
		return err
	}
	if status != statusReady {
		return errNotReady
	}
	return nil
}

func statusHint(status string) string {
	switch status {
	case statusNeedsConfirmation:
		return " (nothing was changed: run again with --yes to apply the plan)"
	case statusPlanned:
		return " (nothing was changed)"
	case statusNeedsHuman:
		return " (see above for what to fix)"
	case statusReady:
		return " (restart the MCP clients that were configured)"
	}
	return ""
}

type uninstallCmd struct {
	Client    []string `help:"Only this client (repeatable); default every supported client."`
	PurgeData bool     `name:"purge-data" help:"Also remove rea's caches (nothing else of yours)."`
	Yes       bool     `short:"y" help:"Apply the plan without asking."`
	DryRun    bool     `name:"dry-run" help:"Print the plan and change nothing."`
}

// dataItem is one of rea's data directories --purge-data removes.
type dataItem struct {
	Name   string `json:"name"`
	Path   string `json:"path"`
	Status string `json:"status"` // planned, removed, skipped, retained, failed
	Detail string `json:"detail,omitempty"`
}

// dataDirs are rea's caches: $XDG_CACHE_HOME/rea (or the OS's cache
// directory) and ~/.rea/{cache,state}.
func dataDirs() []dataItem {
	var out []dataItem
	if d, err := os.UserCacheDir(); err == nil {
		out = append(out, dataItem{Name: "cache", Path: filepath.Join(d, "rea")})
	}
	if h, err := os.UserHomeDir(); err == nil {
		out = append(out, dataItem{Name: "cache", Path: filepath.Join(h, ".rea", "cache")},
			dataItem{Name: "state", Path: filepath.Join(h, ".rea", "state")})
	}
	for i := range out {
		out[i].Status, out[i].Detail = classifyData(out[i].Path)
	}
	return out
}

func classifyData(p string) (status, detail string) {
	st, err := os.Lstat(p)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return "skipped", "does not exist"
	case err != nil:
		return "failed", err.Error()
	case !st.IsDir():
		return "retained", "not a directory (a link or a file is never followed or removed)"
	case !ownedByMe(st):
		return "retained", "owned by another user"
	}
	return "planned", "will be removed"
}

func (c *uninstallCmd) Run(e *env) error {
	r, err := e.registrar()
	if err != nil {
		return err
	}
	plan, err := r.PlanUninstall(e.ctx, RegistrationRequest{Clients: c.Client})
	if err != nil {
		return err
	}
	var data []dataItem
	if c.PurgeData {
		data = dataDirs()
	}
	text := e.g.Format != "json"
	if text {
		fmt.Fprint(e.opts.Stdout, plan.Text)
		for _, d := range data {
			fmt.Fprintf(e.opts.Stdout, "%-16s %-26s %s\n", "purge", d.Name, d.Path+" ("+d.Detail+")")
		}
	}
	changes := plan.Changes
	for _, d := range data {
		changes = changes || d.Status == "planned"
	}
	out := map[string]any{"plan": plan.Value, "result": nil, "data": data}
	status := ""
	switch {
	case c.DryRun:
		status = statusPlanned
	case changes:
		if ok, st := e.confirm(c.Yes, "Remove rea as planned?"); !ok {
			status = st
		}
	}
	if status == "" {
		res, err := plan.Apply(e.ctx)
		if err != nil {
			return err
		}
		out["result"] = res.Value
		status = statusComplete
		if res.Failed {
			status = statusFailed
		}
		if text {
			fmt.Fprint(e.opts.Stdout, res.Text)
		}
		for i := range data {
			d := &data[i]
			if d.Status != "planned" {
				continue
			}
			// Checked again just before removing.
			if st, _ := classifyData(d.Path); st != "planned" {
				d.Status, d.Detail = "failed", "changed since it was planned; left alone"
			} else if err := os.RemoveAll(d.Path); err != nil {
				d.Status, d.Detail = "failed", err.Error()
			} else {
				d.Status, d.Detail = "removed", ""
			}
			if d.Status == "failed" {
				status = statusFailed
			}
			if text {
				fmt.Fprintf(e.opts.Stdout, "%-16s %s\n", d.Status, d.Path)
			}
		}
	}
	out["status"] = status
	if text {
		fmt.Fprintf(e.opts.Stdout, "\nrea uninstall: %s%s\n", status, statusHint(status))
	} else if err := e.writeJSON(out); err != nil {
		return err
	}
	if status != statusComplete {
		return errNotReady
	}
	return nil
}
