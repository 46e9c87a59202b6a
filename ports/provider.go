package ports

import (
	"context"
)

// ProviderInfo identifies an analysis engine. Version is empty while it is
// unknown (for example before an external engine has been probed).
type ProviderInfo struct {
	ID      string // ^[a-z][a-z0-9-]*$, 1..64 characters, never "auto"
	Name    string
	Version string
}

// Availability says whether a provider can run on this host at all. It is
// decided without starting the engine.
type Availability struct {
	Available bool
	// Code is empty when available, otherwise one of not_configured,
	// executable_missing, runtime_missing, unsupported_host, unsupported_version.
	Code        string
	Reason      string
	Diagnostics []string
}

// Support says whether a provider can analyze one target.
type Support struct {
	Supported bool
	// Code is empty when supported, otherwise one of target_kind_unsupported,
	// target_format_unsupported, architecture_unsupported,
	// target_role_unsupported, managed_target_unsupported.
	Code        string
	Reason      string
	Diagnostics []string
}

// Target is an identified local file handed to a provider. core identifies it
// (hashing and format detection) before any provider sees it.
type Target struct {
	Path         string
	SHA256       string // hex64
	Format       string // elf, pe, mach-o, mach-o-universal, asar, zip, javascript, source-map, ...
	Kind         string // executable, shared-library, object, archive, script, ...
	Architecture string // x86, x86_64, arm, arm64, or "" when unknown
	Size         int64
}

// Profile is the provider-specific analysis configuration that shaped an
// observation. core wraps it into an analysis profile with its own digest.
type Profile struct {
	SchemaVersion int            // provider_profile_schema_version, >= 1
	Parameters    map[string]any // JSON-compatible values only
}

// Provider is an analysis engine factory. Implementations must be safe for
// concurrent use; Info, Availability and Support must not start the engine.
type Provider interface {
	Info() ProviderInfo
	Availability(ctx context.Context) Availability
	Support(ctx context.Context, t Target) Support
	// Open starts (or attaches) an analysis of t. The returned Analysis is owned
	// by the caller, who must Close it.
	Open(ctx context.Context, t Target) (Analysis, error)
}

// Analysis is one open analysis of one target. Queries are the optional
// capability interfaces below, which core discovers by type assertion.
// Implementations must be safe for concurrent use.
type Analysis interface {
	// Version is the concrete engine version that performs this analysis.
	Version() string
	Profile() Profile
	// Close releases everything the analysis owns. It is safe to call twice.
	Close(ctx context.Context) error
}

// CapabilityLister is optionally implemented by a Provider to declare,
// without starting an engine, which capabilities its analyses (and the
// provider itself, for CapLayout) offer. The declaration must equal what
// the implementation offers, CapabilitiesOf(analysis) plus
// ProviderCapabilitiesOf(provider), in any order
// (portstest.CheckCapabilities enforces it).
type CapabilityLister interface {
	Capabilities() []Capability
}

// DeclaredCapabilities returns what p declares through CapabilityLister,
// with the values that name no declared capability (a Capability converted
// from an arbitrary string) in unknown; ok is false when p declares nothing.
func DeclaredCapabilities(p Provider) (caps []Capability, unknown []string, ok bool) {
	cl, ok := p.(CapabilityLister)
	if !ok {
		return nil, nil, false
	}
	for _, c := range cl.Capabilities() {
		if c.Valid() {
			caps = append(caps, c)
		} else {
			unknown = append(unknown, string(c))
		}
	}
	return caps, unknown, true
}
