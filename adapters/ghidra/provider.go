package ghidra

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"rea/ports"
	"rea/snapshot"
)

// Options configures a Provider. A nil *Options means the defaults; New
// copies it.
type Options struct {
	// InstallDir is GHIDRA_INSTALL_DIR; "" leaves the provider unavailable
	// (not_configured).
	InstallDir string
	// JavaHome is JAVA_HOME; "" means java on PATH.
	JavaHome string
	// StartupTimeout bounds the first query's wait for import, analysis and
	// bridge readiness; 0 means DefaultStartupTimeout. Parse the
	// environment with ParseStartupTimeout.
	StartupTimeout time.Duration
	// SnapshotRoot, when set, keeps completed analyses there (package
	// rea/snapshot), so a later session on the same bytes, build and profile
	// answers without starting Ghidra.
	SnapshotRoot string
	// TempParent is where private session roots are created; "" means
	// os.TempDir().
	TempParent string
	// MaxHeap is GHIDRA_HEADLESS_MAXMEM; "" means 2G.
	MaxHeap string
}

// waitInterval is how often a pending startup tells an observing caller it
// is still waiting. Tests shorten it.
var waitInterval = 10 * time.Second

// Provider is the Ghidra engine factory. Info, Availability, Support and
// Capabilities never start Ghidra; the first query of an Analysis does.
type Provider struct {
	opts Options
}

var (
	_ ports.Provider         = (*Provider)(nil)
	_ ports.CapabilityLister = (*Provider)(nil)
)

// New returns a Ghidra provider.
func New(opts *Options) *Provider {
	p := &Provider{}
	if opts != nil {
		p.opts = *opts
	}
	if p.opts.StartupTimeout <= 0 {
		p.opts.StartupTimeout = DefaultStartupTimeout
	}
	if p.opts.MaxHeap == "" {
		p.opts.MaxHeap = "2G"
	}
	return p
}

// Info identifies the provider; the version is the analysis's (Version).
func (p *Provider) Info() ports.ProviderInfo {
	return ports.ProviderInfo{ID: "ghidra", Name: "Ghidra"}
}

// Availability reports the first failed discovery check.
func (p *Provider) Availability(ctx context.Context) ports.Availability {
	in := Discover(p.opts.InstallDir, p.opts.JavaHome)
	var diags []string
	for _, c := range in.Checks {
		diags = append(diags, fmt.Sprintf("%s: ok=%v %s", c.Name, c.OK, c.Detail))
	}
	if c, failed := in.Failed(); failed {
		return ports.Availability{Code: c.Code, Reason: c.Detail, Diagnostics: diags}
	}
	return ports.Availability{Available: true, Diagnostics: diags}
}

// Support accepts executables in ELF, PE or Mach-O for x86, x86_64, arm and
// arm64.
func (p *Provider) Support(ctx context.Context, t ports.Target) ports.Support {
	switch t.Format {
	case "elf", "pe", "mach-o":
	default:
		return ports.Support{Code: "target_format_unsupported", Reason: fmt.Sprintf("Ghidra imports ELF, PE and Mach-O, not %q", t.Format)}
	}
	if t.Kind != "executable" && t.Kind != "shared-library" {
		return ports.Support{Code: "target_kind_unsupported", Reason: fmt.Sprintf("Ghidra analyses executables, not %q", t.Kind)}
	}
	switch t.Architecture {
	case "x86", "x86_64", "arm", "arm64":
	default:
		return ports.Support{Code: "architecture_unsupported", Reason: fmt.Sprintf("architecture %q is not one the Ghidra provider is verified for", t.Architecture)}
	}
	return ports.Support{Supported: true}
}

// Capabilities declares what every Analysis implements.
func (p *Provider) Capabilities() []ports.Capability {
	return []ports.Capability{
		ports.CapDisassemble, ports.CapFunctions, ports.CapReferences, ports.CapBytes, ports.CapSignatures, ports.CapDecompile,
		ports.CapDocuments, ports.CapSegments, ports.CapProcedures, ports.CapNames, ports.CapStrings,
	}
}

// Open returns a lazy analysis of t: nothing starts until its first query.
func (p *Provider) Open(ctx context.Context, t ports.Target) (ports.Analysis, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if s := p.Support(ctx, t); !s.Supported {
		return nil, fmt.Errorf("ghidra: %s: %w", s.Reason, ports.ErrUnsupported)
	}
	in := Discover(p.opts.InstallDir, p.opts.JavaHome)
	if c, failed := in.Failed(); failed {
		return nil, fmt.Errorf("ghidra: %s: %w", c.Detail, ports.ErrUnavailable)
	}
	if len(t.SHA256) != 64 || strings.ToLower(t.SHA256) != t.SHA256 {
		return nil, fmt.Errorf("ghidra: target sha256 %q is not lowercase hex: %w", t.SHA256, ports.ErrMalformed)
	}
	prof := profileOf(t)
	a := newAnalysis(p, in, t, prof)
	return a, nil
}

// profileOf is the analysis profile of PROVIDERS.md §1.3 (the [H] form).
func profileOf(t ports.Target) ports.Profile {
	var arch any
	if t.Architecture != "" {
		arch = t.Architecture
	}
	avail := []any{}
	if t.Architecture != "" {
		avail = append(avail, t.Architecture)
	}
	return ports.Profile{SchemaVersion: 1, Parameters: map[string]any{
		"target_kind":              t.Kind,
		"target_format":            t.Format,
		"architecture":             arch,
		"available_architectures":  avail,
		"import_mode":              "ephemeral-read-only",
		"loader":                   "auto-from-header",
		"language_id":              "auto-from-header",
		"compiler_spec_id":         "auto-default",
		"analyzer_preset":          "ghidra-default",
		"analysis_timeout_seconds": 300,
		"max_cpu":                  2,
		"max_heap":                 "2G",
	}}
}

// profileDigest is hex SHA-256 of the profile's JSON (encoding/json sorts
// map keys, and the values are strings, integers and lists of strings, so
// the encoding is canonical).
func profileDigest(p ports.Profile) string {
	b, _ := json.Marshal(map[string]any{"schema_version": p.SchemaVersion, "parameters": p.Parameters})
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

func (p *Provider) store() snapshot.Store { return snapshot.Store{Root: p.opts.SnapshotRoot} }
