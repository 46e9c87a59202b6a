package cli

import (
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"sort"
	"strings"
	"time"

	"rea/core"
	"rea/ports"
)

type doctorCmd struct {
	Client []string `help:"Check only this client's registration (repeatable); a requested client that is missing fails."`
	Clean  bool     `help:"Remove stale rea-extract-* temporary directories (rea's own, older than an hour, not in use)."`
	// ClearCache empties the analysis caches (Options.Caches).
	ClearCache bool `name:"clear-cache" help:"Empty rea's analysis caches (rea-native's warm cache of whole-file discovery)."`
}

// doctorReport is rea doctor's JSON.
type doctorReport struct {
	Healthy     bool      `json:"healthy"`
	Scope       any       `json:"scope"`
	Checks      []Check   `json:"checks"`
	Identity    any       `json:"identity"`
	LiveServer  any       `json:"live_server"`
	ExtractDirs []tempDir `json:"extract_directories"`
}

func (c *doctorCmd) Run(e *env) error {
	rep, err := e.doctor(c.Client, e.g.Provider, c.Clean)
	if err != nil {
		return err
	}
	rep.Checks = append(rep.Checks, e.cacheChecks(c.ClearCache)...)
	if e.g.Format == "json" {
		if err := e.writeJSON(rep); err != nil {
			return err
		}
	} else if err := writeDoctor(e.opts.Stdout, rep); err != nil {
		return err
	}
	if !rep.Healthy {
		return errNotReady
	}
	return nil
}

// errNotReady is exit status 1 after a report that says why (doctor not
// healthy; setup or uninstall not done): nothing more is printed.
var errNotReady = errors.New("not ready")

// doctor runs every check; provider scopes the engine checks (a named
// engine must be available).
func (e *env) doctor(clients []string, provider string, clean bool) (*doctorReport, error) {
	ctx := e.ctx
	id := e.opts.Identity
	var checks []Check

	host := Check{Name: "host", OK: true, Classification: "healthy", Detail: runtime.GOOS + "/" + runtime.GOARCH}
	if runtime.GOOS != "linux" && runtime.GOOS != "darwin" {
		host.OK, host.Classification = false, "unsupported_host"
		host.Remediation = "rea is built and tested for Linux and macOS"
	}
	checks = append(checks, host)

	// The analysis providers in the registry (rea-native), then the
	// external engines; none is started.
	provider = strings.TrimSpace(provider)
	if provider == "auto" {
		provider = ""
	}
	known := map[string]bool{}
	providerCheck := map[string]int{} // a provider's check, by id, in checks
	anyProvider := false
	for _, p := range e.opts.Registry.Providers() {
		info := p.Info()
		known[info.ID] = true
		av := p.Availability(ctx)
		// A registered engine that is not configured here (Ghidra without
		// GHIDRA_INSTALL_DIR) is optional: it makes rea unhealthy only when
		// --provider names it (PROVIDERS.md §4.1: the checks of configured
		// providers count, and at least one provider must be available).
		configured := av.Code != "not_configured"
		origin := " (registered)"
		if info.ID == core.BuiltInProviderID {
			origin = " (built in)"
		}
		c := Check{Name: "provider:" + info.ID, OK: true, Classification: "healthy",
			Detail: strings.TrimSpace(info.Name+" "+info.Version) + origin,
			Engine: map[string]any{"id": info.ID, "name": info.Name, "version": info.Version, "configured": configured, "available": av.Available}}
		switch {
		case av.Available:
			anyProvider = true
		case !configured && info.ID != provider:
			c.Detail = "optional, not configured: " + av.Reason
		default:
			c.OK, c.Classification = false, "missing_analysis_engine"
			switch {
			case av.Code == "unsupported_host":
				c.Classification = "unsupported_host"
			case av.Code == "runtime_missing":
				c.Classification = "missing_dependency"
			case configured:
				c.Classification = "config_drift"
			}
			c.Detail, c.Remediation = av.Reason, "see "+info.ID+"'s requirements"
		}
		providerCheck[info.ID] = len(checks)
		checks = append(checks, c)
	}
	var insts []ports.Installation
	if e.opts.Engines != nil {
		insts = e.opts.Engines(ctx)
	}
	for _, in := range insts {
		known[in.Engine] = true
		required := in.Configured || in.Engine == provider
		if i, ok := providerCheck[in.Engine]; ok {
			// The engine is a registered provider (Ghidra, Hopper): one
			// check, the provider's, so a reader sees it once.
			checks[i] = foldInstallation(checks[i], in, required)
			continue
		}
		c := Check{Name: "engine:" + in.Engine, OK: in.Available || !required, Classification: "healthy", Detail: in.Detail, Engine: in}
		switch {
		case in.Available:
		case required:
			c.Classification, c.Remediation = in.Classification, in.Remediation
			if c.Classification == "" {
				c.Classification = "missing_analysis_engine"
			}
		default:
			c.Detail = "optional, for " + in.Role + ": " + in.Detail
		}
		checks = append(checks, c)
	}
	if provider != "" && !known[provider] {
		return nil, Usage(fmt.Errorf("--provider %q names no engine rea knows", provider))
	}
	if !anyProvider {
		checks = append(checks, Check{Name: "providers", OK: false, Classification: "missing_analysis_engine",
			Detail: "no analysis provider is available", Remediation: "install or configure an analysis engine"})
	}

	// The agent skill and the client registrations.
	skill := SkillFor(e.opts.Catalog, id.Version)
	if e.opts.Registrar != nil {
		regs, err := e.opts.Registrar.Inspect(ctx, RegistrationRequest{Clients: clients, Skill: skill})
		if err != nil {
			return nil, err
		}
		checks = append(checks, regs...)
	} else {
		checks = append(checks, Check{Name: "registrations", OK: true, Classification: "healthy", Detail: "not checked: this build has no registration engine"})
	}

	// rea's own leftovers.
	dirs := findExtractDirs(os.TempDir(), time.Now())
	if clean {
		cleanExtractDirs(dirs)
	}
	tc := Check{Name: "temp:rea-extract", OK: true, Classification: "healthy", Details: map[string]any{"root": os.TempDir()}}
	stale, removed := 0, 0
	for _, d := range dirs {
		if d.Stale {
			stale++
		}
		if d.Removed {
			removed++
		}
	}
	switch {
	case clean && stale > 0:
		tc.Detail = fmt.Sprintf("removed %d of %d stale extraction directories", removed, stale)
		if removed < stale {
			tc.OK, tc.Classification, tc.Remediation = false, "config_drift", "see extract_directories for what was left and why"
		}
	case stale > 0:
		tc.Detail = fmt.Sprintf("%d stale extraction directories (of %d)", stale, len(dirs))
		tc.OK, tc.Classification, tc.Remediation = false, "config_drift", "run rea doctor --clean to remove them"
	default:
		tc.Detail = fmt.Sprintf("no stale extraction directories (%d kept: recent, in use, or not known to be unused)", len(dirs))
	}
	checks = append(checks, tc)

	healthy := true
	for _, c := range checks {
		healthy = healthy && c.OK
	}
	if dirs == nil {
		dirs = []tempDir{}
	}
	mode := "audit-wide"
	if len(clients) > 0 || provider != "" {
		mode = "explicit"
	}
	sortedClients := append([]string{}, clients...)
	sort.Strings(sortedClients)
	var commit any
	if id.BuildCommit != "" {
		commit = id.BuildCommit
	}
	return &doctorReport{
		Healthy: healthy,
		Scope:   map[string]any{"mode": mode, "clients": sortedClients, "provider": core.OrNull(provider)},
		Checks:  checks,
		Identity: map[string]any{"version": id.Version, "commit": commit, "command_path": core.OrNull(id.CommandPath),
			"catalog_digest": skill.CatalogDigest, "tool_count": skill.ToolCount},
		LiveServer:  map[string]any{"state": "unknown", "remediation": "compare rea://server/identity or binary_session from the running server"},
		ExtractDirs: dirs,
	}, nil
}

// foldInstallation adds what the probe found of a provider's engine to the
// provider's check: the installation's path when available, its failure
// when required (configured, or named by --provider) and missing, and its
// remediation, more specific than the provider's, when the check fails.
func foldInstallation(c Check, in ports.Installation, required bool) Check {
	if m, ok := c.Engine.(map[string]any); ok {
		m["installation"] = in
	}
	if c.OK && in.Available && in.Path != "" && !strings.Contains(c.Detail, in.Path) {
		c.Detail += " at " + in.Path
	}
	if c.OK && required && !in.Available {
		c.OK, c.Classification, c.Detail = false, in.Classification, in.Detail
		if c.Classification == "" {
			c.Classification = "missing_analysis_engine"
		}
	}
	if !c.OK && in.Remediation != "" {
		c.Remediation = in.Remediation
	}
	return c
}

// cacheChecks report each analysis cache's root, entries and bytes, after
// emptying it when clear is set. A cache that cannot be read is reported,
// never a failure of the report: the cache only saves time.
func (e *env) cacheChecks(clear bool) []Check {
	var out []Check
	for _, c := range e.opts.Caches {
		ch := Check{Name: "cache:" + c.Name, OK: true, Classification: "healthy",
			Details: map[string]any{"root": c.Path, "env": c.Env}}
		f, verb := c.Usage, "holds"
		if clear {
			f, verb = c.Clear, "cleared"
		}
		n, bytes, err := f()
		ch.Detail = fmt.Sprintf("%s %s %d entries, %.1f MB (%s=off disables it)", c.Path, verb, n, float64(bytes)/1e6, c.Env)
		if err != nil {
			ch.Detail += ": " + err.Error()
		}
		out = append(out, ch)
	}
	return out
}

func writeDoctor(w io.Writer, r *doctorReport) error {
	return writeChecks(w, "rea doctor", r.Checks, r.Healthy, true)
}

// writeChecks prints checks as aligned lines, a remediation under each
// failing one, and the verdict.
func writeChecks(w io.Writer, title string, checks []Check, healthy, liveServer bool) error {
	var b strings.Builder
	for _, c := range checks {
		mark := "ok  "
		if !c.OK {
			mark = "FAIL"
		}
		fmt.Fprintf(&b, "%s  %-34s %s\n", mark, c.Name, c.Detail)
		if !c.OK && c.Remediation != "" {
			fmt.Fprintf(&b, "      %-34s -> %s\n", "", c.Remediation)
		}
	}
	if liveServer {
		fmt.Fprintf(&b, "      %-34s %s\n", "live-server", "unknown (compare rea://server/identity or binary_session)")
	}
	state := "healthy"
	if !healthy {
		state = "NOT healthy"
	}
	fmt.Fprintf(&b, "\n%s: %s\n", title, state)
	_, err := io.WriteString(w, b.String())
	return err
}
