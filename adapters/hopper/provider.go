package hopper

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"rea/ports"
)

// Options configures a Provider. A nil *Options means the defaults; New
// copies it.
type Options struct {
	// Launcher is HOPPER_LAUNCHER_PATH; "" means DefaultLauncher().
	Launcher string
	// LoaderArgs overrides the loader arguments derived from the target
	// (HOPPER_LOADER_ARGS_JSON, read with ParseLoaderArgs); nil derives them.
	LoaderArgs []string
	// StartupTimeout bounds the first query's wait; 0 means
	// DefaultStartupTimeout.
	StartupTimeout time.Duration
	// TempParent is where private session roots are created; "" means
	// os.TempDir().
	TempParent string
	// SnapshotRoot, when set, keeps completed analyses there (package
	// rea/snapshot, keyed by target digest, launcher digest and profile
	// digest), so a later session on the same bytes answers without
	// starting Hopper.
	SnapshotRoot string
	// DemoHelper is the X11 helper that runs the Hopper 6.4.2 Linux demo
	// (PROVIDERS.md §2.2; REA_HOPPER_DEMO_HELPER, read with
	// ParseDemoHelper); without it the demo is refused at start. Python
	// runs it; "" means DefaultPython.
	DemoHelper string
	Python     string
}

// waitInterval is how often a pending startup tells an observing caller it
// is still waiting. Tests shorten it.
var waitInterval = 10 * time.Second

// Provider is the Hopper engine factory. Info, Availability, Support and
// Capabilities never start Hopper; the first query of an Analysis does.
type Provider struct {
	opts Options
}

var (
	_ ports.Provider         = (*Provider)(nil)
	_ ports.CapabilityLister = (*Provider)(nil)
)

// New returns a Hopper provider.
func New(opts *Options) *Provider {
	p := &Provider{}
	if opts != nil {
		p.opts = *opts
		p.opts.LoaderArgs = append([]string(nil), opts.LoaderArgs...)
		if opts.LoaderArgs == nil {
			p.opts.LoaderArgs = nil
		}
	}
	if p.opts.StartupTimeout <= 0 {
		p.opts.StartupTimeout = DefaultStartupTimeout
	}
	if p.opts.Python == "" {
		p.opts.Python = DefaultPython
	}
	return p
}

// Info identifies the provider.
func (p *Provider) Info() ports.ProviderInfo {
	return ports.ProviderInfo{ID: "hopper", Name: "Hopper Disassembler"}
}

// Availability reports whether the launcher is there, without running it.
func (p *Provider) Availability(ctx context.Context) ports.Availability {
	in := Discover(p.opts.Launcher)
	diag := []string{"launcher: " + in.Launcher}
	if !in.Available() {
		return ports.Availability{Code: in.Code, Reason: in.Reason, Diagnostics: diag}
	}
	return ports.Availability{Available: true, Diagnostics: diag}
}

// loaderFlag is Hopper's CPU flag for an architecture, or "".
func loaderFlag(arch string) string {
	switch arch {
	case "x86":
		return "--intel-32"
	case "x86_64":
		return "--intel-64"
	case "arm":
		return "--armv7"
	case "arm64":
		return "--aarch64"
	}
	return ""
}

// loaderName is Hopper's loader for a format, or "".
func loaderName(format string) string {
	switch format {
	case "elf":
		return "ELF"
	case "pe":
		return "WinPE"
	case "mach-o":
		return "Mach-O"
	}
	return ""
}

// Support accepts ELF, PE and Mach-O executables and libraries for x86,
// x86_64, arm and arm64, and Hopper databases (a .hop file: rea does not
// identify their format, so the name decides).
func (p *Provider) Support(ctx context.Context, t ports.Target) ports.Support {
	if isDatabase(t) {
		return ports.Support{Supported: true}
	}
	if loaderName(t.Format) == "" {
		return ports.Support{Code: "target_format_unsupported", Reason: fmt.Sprintf("the Hopper provider loads ELF, PE and Mach-O, not %q", t.Format)}
	}
	if t.Kind != "executable" && t.Kind != "shared-library" {
		return ports.Support{Code: "target_kind_unsupported", Reason: fmt.Sprintf("Hopper analyses executables, not %q", t.Kind)}
	}
	if loaderFlag(t.Architecture) == "" {
		return ports.Support{Code: "architecture_unsupported", Reason: fmt.Sprintf("architecture %q has no Hopper loader flag", t.Architecture)}
	}
	return ports.Support{Supported: true}
}

// Capabilities declares what every Analysis implements.
func (p *Provider) Capabilities() []ports.Capability {
	return []ports.Capability{ports.CapFunctions, ports.CapBytes, ports.CapDecompile,
		ports.CapDocuments, ports.CapSegments, ports.CapProcedures, ports.CapNames, ports.CapStrings}
}

// isDatabase reports whether t is a Hopper database (.hop).
func isDatabase(t ports.Target) bool { return strings.EqualFold(filepath.Ext(t.Path), ".hop") }

// loaderArgs are the configured arguments, else those derived from t; a
// database needs none (Hopper reads how it was loaded from it).
func (p *Provider) loaderArgs(t ports.Target) (args []string, source string) {
	if isDatabase(t) {
		return []string{}, "derived"
	}
	if p.opts.LoaderArgs != nil {
		return append([]string(nil), p.opts.LoaderArgs...), "configured_override"
	}
	return []string{"-l", loaderName(t.Format), loaderFlag(t.Architecture)}, "derived"
}

// Open returns a lazy analysis of t: nothing starts until its first query.
func (p *Provider) Open(ctx context.Context, t ports.Target) (ports.Analysis, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if s := p.Support(ctx, t); !s.Supported {
		return nil, fmt.Errorf("hopper: %s: %w", s.Reason, ports.ErrUnsupported)
	}
	in := Discover(p.opts.Launcher)
	if !in.Available() {
		return nil, fmt.Errorf("hopper: %s: %w", in.Reason, ports.ErrUnavailable)
	}
	if len(t.SHA256) != 64 || strings.ToLower(t.SHA256) != t.SHA256 {
		return nil, fmt.Errorf("hopper: target sha256 %q is not lowercase hex: %w", t.SHA256, ports.ErrMalformed)
	}
	launcherSum, err := fileSHA256(in.Launcher)
	if err != nil {
		return nil, fmt.Errorf("hopper: reading the launcher: %v: %w", err, ports.ErrUnavailable)
	}
	args, source := p.loaderArgs(t)
	a := newAnalysis(p, in, t, args, profileOf(t, args, source), "launcher-sha256:"+launcherSum)
	a.demo = runtime.GOOS == "linux" && launcherSum == demoSHA256
	return a, nil
}

// profileOf is the analysis profile of PROVIDERS.md §2.1.
func profileOf(t ports.Target, args []string, source string) ports.Profile {
	var arch any
	avail := []any{}
	if t.Architecture != "" {
		arch = t.Architecture
		avail = append(avail, t.Architecture)
	}
	b, _ := json.Marshal(args)
	sum := sha256.Sum256(b)
	kind, format := t.Kind, t.Format
	if isDatabase(t) {
		kind, format = "database", "hopper-database"
	}
	return ports.Profile{SchemaVersion: 1, Parameters: map[string]any{
		"target_kind":             kind,
		"target_format":           format,
		"architecture":            arch,
		"available_architectures": avail,
		"loader": map[string]any{
			"source":           source,
			"argument_count":   len(args),
			"arguments_sha256": hex.EncodeToString(sum[:]),
		},
	}}
}

// fileSHA256 hashes a file (the launcher: its digest is the profile's
// version, since Hopper reports none without starting).
func fileSHA256(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}
