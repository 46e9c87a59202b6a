package native

import (
	"context"
	"fmt"
	"slices"
	"unicode/utf8"

	"rea/ports"
)

const (
	// ID identifies the provider.
	ID = "rea-native"
	// Version is the version of this provider's analysis.
	Version = "0.1.0"
)

// Defaults for Options.
const (
	DefaultMaxStringBytes = 4096
	DefaultMinStringChars = 4
)

// Options configure a Provider. The zero value of a field means its default.
type Options struct {
	// MaxStringBytes caps the UTF-8 bytes of a string's Value; longer strings
	// are cut and marked Truncated. Default 4096; values below 4 mean 4.
	MaxStringBytes int
	// MinStringChars is the shortest run, in characters, reported as a
	// string. Default 4.
	MinStringChars int
	// CacheDir, when set, is the root of the warm cache: whole-file
	// discovery of a file opened by path is kept there (a rea/snapshot
	// store) and the next open of the same bytes by the same build reads
	// it instead of discovering again (cache.go), and so is what the
	// signature libraries named at open (libcache.go). "" disables it.
	CacheDir string
	// CacheMaxBytes bounds the cache root: after each write the least
	// recently used entries are evicted down to it. Default
	// DefaultCacheMaxBytes.
	CacheMaxBytes int64
	// DiscoverOnOpen starts whole-file discovery in the background when
	// Provider.Open returns, so that it is done, or under way, when a
	// query needs it (background.go). Otherwise it starts on the first
	// query that needs it.
	DiscoverOnOpen bool
	// DebugFileDirectories are the roots searched for the separate debug
	// file of an ELF target opened by path that lacks a .symtab or DWARF
	// (gdb's debug-file-directory; debugfile.go): DIR/.build-id/xx/rest.debug
	// by build ID, and, by .gnu_debuglink, the target's directory, its
	// .debug subdirectory and DIR/<target's directory>. nil or empty: no
	// search. cmd/rea passes DefaultDebugFileDirectories unless
	// REA_DEBUG_FILE_DIRECTORIES says otherwise.
	DebugFileDirectories []string
	// Debuginfod, when set, fetches the debug file of such a target by its
	// build ID from debuginfod servers when no local one was taken
	// (debuginfod.go). nil: no server is asked. cmd/rea sets it when
	// DEBUGINFOD_URLS names servers.
	Debuginfod *Debuginfod
	// SignatureLibraries name a target's procedures that have no symbol
	// from the functions of C library archives (or other archives and
	// objects) whose bytes they equal (libraries.go). nil: none. cmd/rea
	// passes the installed C library archives for statically linked
	// targets unless REA_SIGNATURE_LIBRARIES says otherwise.
	SignatureLibraries *SignatureLibraries

	hold   <-chan struct{} // tests: background discovery waits until it is closed
	sha256 string          // Provider.Open: the caller's digest of the target (libcache.go keys by it)
}

func (o *Options) withDefaults() Options {
	var out Options
	if o != nil {
		out = *o
	}
	if out.MaxStringBytes <= 0 {
		out.MaxStringBytes = DefaultMaxStringBytes
	}
	out.MaxStringBytes = max(out.MaxStringBytes, utf8.UTFMax)
	if out.MinStringChars <= 0 {
		out.MinStringChars = DefaultMinStringChars
	}
	if out.CacheMaxBytes <= 0 {
		out.CacheMaxBytes = DefaultCacheMaxBytes
	}
	out.DebugFileDirectories = slices.Clone(out.DebugFileDirectories)
	if d := out.Debuginfod; d != nil {
		c := *d
		c.URLs = slices.Clone(d.URLs)
		c.Headers = d.Headers.Clone()
		if c.Timeout == 0 {
			c.Timeout = DefaultDebuginfodTimeout
		}
		out.Debuginfod = &c
	}
	if l := out.SignatureLibraries; l != nil {
		out.SignatureLibraries = &SignatureLibraries{Paths: slices.Clone(l.Paths), Installed: l.Installed}
	}
	return out
}

// Provider is the rea-native analysis provider. It is safe for concurrent use.
type Provider struct {
	opts Options
}

var _ ports.Provider = (*Provider)(nil)

// New returns a Provider. A nil opts means defaults; opts is copied.
func New(opts *Options) *Provider {
	return &Provider{opts: opts.withDefaults()}
}

// Info identifies the provider.
func (p *Provider) Info() ports.ProviderInfo {
	return ports.ProviderInfo{ID: ID, Name: "rea built-in native analyzer", Version: Version}
}

// Availability is always available: the provider is pure Go.
func (p *Provider) Availability(context.Context) ports.Availability {
	return ports.Availability{Available: true}
}

var supportedFormats = map[string]bool{
	"elf":              true,
	"pe":               true,
	"mach-o":           true,
	"mach-o-universal": true,
}

// Support reports whether t's format is one the provider reads.
func (p *Provider) Support(_ context.Context, t ports.Target) ports.Support {
	if supportedFormats[t.Format] {
		return ports.Support{Supported: true}
	}
	return ports.Support{
		Code:   "target_format_unsupported",
		Reason: fmt.Sprintf("%s reads elf, pe, mach-o and mach-o-universal files, not %q", ID, t.Format),
	}
}

// Open opens and parses t.Path. The caller must Close the result.
func (p *Provider) Open(ctx context.Context, t ports.Target) (ports.Analysis, error) {
	opts := p.opts
	opts.sha256 = t.SHA256
	a, err := openFile(ctx, t.Path, opts)
	if err != nil {
		return nil, err
	}
	if t.SHA256 != "" {
		a.sha256 = t.SHA256 // the caller's digest of the same bytes: the cache key need not read them again
	}
	if p.opts.DiscoverOnOpen {
		// The symbols first, under the caller's context (its memory
		// budget applies to the symbol string table); a failure is left
		// for the query that needs them to report.
		if _, err := a.symbolSet(ctx); err == nil {
			a.startDiscovery(ctx)
		}
	}
	return a, nil
}

var _ ports.CapabilityLister = (*Provider)(nil)

// capabilities is what every analysis of this provider offers, and the
// provider itself (read_layout).
var capabilities = []ports.Capability{
	ports.CapDocuments, ports.CapNames, ports.CapProcedures, ports.CapSegments, ports.CapStrings, ports.CapLayout,
	ports.CapDisassemble, ports.CapFunctions, ports.CapReferences, ports.CapBytes, ports.CapSignatures, ports.CapValueFlow, ports.CapSourceLines,
}

// Capabilities names what every analysis of this provider offers, and the
// provider itself, without opening anything.
func (p *Provider) Capabilities() []ports.Capability {
	return slices.Clone(capabilities)
}
