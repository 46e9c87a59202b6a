package core

import (
	"context"
	"fmt"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"

	"rea/ports"
)

// SelectorAuto lets rea choose among available, supporting providers.
const SelectorAuto = "auto"

// BuiltInProviderID is rea's own analyzer. auto binds it whenever it is
// one of several usable candidates, so registering another engine for the
// same formats never makes an open without a choice fail.
const BuiltInProviderID = "rea-native"

// Selection sources of a binding (analysis_provider_binding.selection_source).
const (
	SourceRequest             = "request"               // open_binary provider_id, CLI --provider
	SourceEnvironment         = "environment"           // REA_ANALYSIS_PROVIDER
	SourceAutoSingleCandidate = "auto-single-candidate" // auto, and one candidate was usable
	SourceAutoBuiltIn         = "auto-built-in"         // auto, several were usable, rea-native among them
)

var providerIDPattern = regexp.MustCompile(`^[a-z][a-z0-9-]*$`)

// ParseProviderSelector is the one parser for MCP provider_id, CLI
// --provider and REA_ANALYSIS_PROVIDER. Empty means auto.
func ParseProviderSelector(s string) (string, error) {
	if s == "" || s == SelectorAuto {
		return SelectorAuto, nil
	}
	if len(s) > 64 || !providerIDPattern.MatchString(s) {
		return "", fmt.Errorf("provider id %q: want \"auto\" or an id matching ^[a-z][a-z0-9-]*$ of at most 64 characters", s)
	}
	return s, nil
}

// Registry holds the providers this process can use. It is immutable after
// NewRegistry and safe for concurrent use.
type Registry struct {
	providers []ports.Provider
	def       string
	defSource string
	// containers open ASAR, ZIP and other containers for the artifact
	// operations (see core/artifact.go).
	containers []ports.ContainerOpener
	// javascript extracts syntactic facts for analyze_javascript_application.
	javascript ports.JavaScriptEngine
	// browser, scenarios and sourceMaps serve the browser family.
	browser           ports.BrowserObserver
	scenarios         ports.BrowserScenarioRunner
	sourceMaps        ports.SourceMapFetcher
	scenarioAvailable func() ports.Availability
	// capturer runs capture_process_scenario; tracer runs trace_native_calls.
	capturer ports.ProcessCapturer
	tracer   ports.CallTracer
	// runtime serves the running-JavaScript family (V8 inspector, Electron).
	runtime ports.JavaScriptRuntimeObserver
}

// RegistryOptions configure a Registry.
type RegistryOptions struct {
	// Default is the configured selector (REA_ANALYSIS_PROVIDER); empty is auto.
	Default string
	// Containers are the container formats the artifact operations can
	// open, tried in order; none means directories and plain files only.
	Containers []ports.ContainerOpener
	// JavaScript is the engine analyze_javascript_application uses; nil
	// makes that operation capability_unavailable.
	JavaScript ports.JavaScriptEngine
	// Browser observes live pages for the passive browser tools, Scenarios
	// runs owned browser scenarios, SourceMaps fetches in-scope source maps;
	// nil makes the tools that need them capability_unavailable.
	// ScenarioAvailability reports whether Scenarios can launch a browser
	// now (nil: available whenever Scenarios is set).
	Browser              ports.BrowserObserver
	Scenarios            ports.BrowserScenarioRunner
	SourceMaps           ports.SourceMapFetcher
	ScenarioAvailability func() ports.Availability
	// Capturer is the process-capture engine; nil makes
	// capture_process_scenario capability_unavailable.
	Capturer ports.ProcessCapturer
	// Tracer is the native call tracer; nil makes trace_native_calls
	// capability_unavailable.
	Tracer ports.CallTracer
	// Runtime observes Node and Electron over the V8 inspector and CDP and
	// runs owned Electron scenarios; nil makes those tools
	// capability_unavailable.
	Runtime ports.JavaScriptRuntimeObserver
}

// NewRegistry sorts providers by id. A duplicate id or an invalid default is
// a configuration_invalid error.
func NewRegistry(providers []ports.Provider, opts *RegistryOptions) (*Registry, error) {
	var o RegistryOptions
	if opts != nil {
		o = *opts
	}
	r := &Registry{providers: append([]ports.Provider(nil), providers...), def: SelectorAuto, defSource: SelectorAuto,
		containers: append([]ports.ContainerOpener(nil), o.Containers...), javascript: o.JavaScript,
		browser: o.Browser, scenarios: o.Scenarios, sourceMaps: o.SourceMaps, scenarioAvailable: o.ScenarioAvailability,
		capturer: o.Capturer, tracer: o.Tracer}
	r.runtime = o.Runtime
	sort.Slice(r.providers, func(i, j int) bool { return r.providers[i].Info().ID < r.providers[j].Info().ID })
	seen := map[string]bool{}
	for _, p := range r.providers {
		id := p.Info().ID
		if _, err := ParseProviderSelector(id); err != nil || id == SelectorAuto || seen[id] {
			return nil, fmt.Errorf("provider registry: invalid or duplicate provider id %q", id)
		}
		seen[id] = true
	}
	if o.Default != "" {
		sel, err := ParseProviderSelector(o.Default)
		if err != nil {
			return nil, &Error{Code: CodeConfigurationInvalid, Message: "REA_ANALYSIS_PROVIDER: " + err.Error(),
				Details: map[string]any{"settings": []map[string]any{{"setting": "REA_ANALYSIS_PROVIDER", "constraint": "auto or a provider id"}}}}
		}
		r.def, r.defSource = sel, SourceEnvironment
	}
	return r, nil
}

// Providers returns the providers sorted by id.
func (r *Registry) Providers() []ports.Provider { return r.providers }

func (r *Registry) lookup(id string) ports.Provider {
	for _, p := range r.providers {
		if p.Info().ID == id {
			return p
		}
	}
	return nil
}

// Binding is the immutable result of provider selection for one target.
type Binding struct {
	Provider ports.Provider
	Source   string // one of the Source constants
}

type rejection struct {
	ProviderID  string   `json:"provider_id"`
	Code        string   `json:"code"`
	Reason      string   `json:"reason"`
	Diagnostics []string `json:"diagnostics"`
}

// selectProvider applies the selection policy (ARCHITECTURE.md, "Selection
// among several engines"). It returns a nil binding (and no error) when
// nothing usable exists and nothing was asked for.
func (r *Registry) selectProvider(ctx context.Context, requested string, t ports.Target) (*Binding, error) {
	sel, source, asked := requested, SourceRequest, requested
	if requested == "" {
		sel, source = r.def, r.defSource
	}
	ids := make([]string, len(r.providers))
	for i, p := range r.providers {
		ids[i] = p.Info().ID
	}
	if sel != SelectorAuto { // asked for by the call or the default (--provider, REA_ANALYSIS_PROVIDER)
		asked = sel
	}
	selErr := func(code Code, reason, msg string, rej []rejection) *Error {
		if rej == nil {
			rej = []rejection{}
		}
		cat := CategoryUnsupportedProvider
		if code == CodeProviderUnavailable {
			cat = CategoryUnavailable
		}
		return &Error{Code: code, Category: cat, Message: "open_binary: " + msg,
			Remediation: "Choose a provider listed in binary_session.analysis_provider_candidates with open_binary provider_id, CLI --provider or REA_ANALYSIS_PROVIDER.",
			Details: map[string]any{"operation": "open_binary", "selection_reason": reason,
				"requested_provider_id": OrNull(asked), "candidate_ids": ids, "rejections": rej}}
	}
	if sel != SelectorAuto {
		p := r.lookup(sel)
		if p == nil {
			return nil, selErr(CodeCapabilityUnavailable, "unknown_provider", fmt.Sprintf("unknown provider %q (known: %s)", sel, strings.Join(ids, ", ")), nil)
		}
		if s := p.Support(ctx, t); !s.Supported {
			if requested == "" {
				// A configured default that cannot take this target leaves it
				// unbound when every candidate refuses it.
				if r.noneSupports(ctx, t) {
					return nil, nil
				}
			}
			return nil, selErr(CodeCapabilityUnavailable, "target_unsupported",
				fmt.Sprintf("provider %s does not support %s: %s", sel, describeTarget(t), s.Reason),
				[]rejection{{sel, s.Code, s.Reason, NonNil(s.Diagnostics)}})
		}
		if a := p.Availability(ctx); !a.Available {
			return nil, selErr(CodeProviderUnavailable, "provider_unavailable",
				fmt.Sprintf("provider %s is unavailable: %s", sel, a.Reason),
				[]rejection{{sel, a.Code, a.Reason, NonNil(a.Diagnostics)}})
		}
		return &Binding{Provider: p, Source: source}, nil
	}
	type cand struct {
		p  ports.Provider
		ok bool
	}
	res := make([]cand, len(r.providers))
	var wg sync.WaitGroup
	for i, p := range r.providers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			res[i] = cand{p, p.Availability(ctx).Available && p.Support(ctx, t).Supported}
		}()
	}
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	var usable []ports.Provider
	for _, c := range res {
		if c.ok {
			usable = append(usable, c.p)
		}
	}
	switch len(usable) {
	case 0:
		return nil, nil
	case 1:
		return &Binding{Provider: usable[0], Source: SourceAutoSingleCandidate}, nil
	}
	names := make([]string, len(usable))
	cands := make([]map[string]any, len(usable))
	for i, p := range usable {
		names[i] = p.Info().ID
		if names[i] == BuiltInProviderID {
			return &Binding{Provider: p, Source: SourceAutoBuiltIn}, nil
		}
		caps := []string{}
		if declared, _, ok := ports.DeclaredCapabilities(p); ok {
			for _, c := range declared {
				caps = append(caps, c.String())
			}
		}
		cands[i] = map[string]any{"provider_id": names[i], "capabilities": caps}
	}
	e := selErr(CodeCapabilityUnavailable, "ambiguous",
		"several providers can analyze this target ("+strings.Join(names, ", ")+"); choose one with provider_id, --provider or REA_ANALYSIS_PROVIDER", nil)
	e.Details["candidates"] = cands
	e.Remediation = "Choose one of " + strings.Join(names, ", ") + " with open_binary provider_id, CLI --provider or REA_ANALYSIS_PROVIDER."
	return nil, e
}

// Offer is a registered engine, other than the bound one, that offers
// capabilities the bound one lacks.
type Offer struct {
	ProviderID string
	Name       string
	Installed  bool   // its Availability is true on this host
	Reason     string // why it is not installed, when it is not
}

// offersElsewhere lists the registered providers other than the bound one
// that declare every capability in caps and support t (when a target is
// open), sorted by id.
func (r *Registry) offersElsewhere(ctx context.Context, b *Binding, t *ports.Target, caps []ports.Capability) []Offer {
	var out []Offer
	if r == nil || len(caps) == 0 {
		return out
	}
	for _, p := range r.providers {
		info := p.Info()
		if b != nil && b.Provider.Info().ID == info.ID {
			continue
		}
		declared, _, ok := ports.DeclaredCapabilities(p)
		if !ok {
			continue
		}
		all := true
		for _, c := range caps {
			if !slices.Contains(declared, c) {
				all = false
				break
			}
		}
		if !all || (t != nil && !p.Support(ctx, *t).Supported) {
			continue
		}
		av := p.Availability(ctx)
		out = append(out, Offer{ProviderID: info.ID, Name: info.Name, Installed: av.Available, Reason: av.Reason})
	}
	return out
}

// capabilityRemediation says where the capabilities the bound provider
// lacks can be had: each registered engine that offers them, whether it is
// installed here and how to choose it or get it; when none does, it says so
// and adds fallback (what to use instead). It never names an engine that is
// not registered.
func capabilityRemediation(offers []Offer, caps []ports.Capability, fallback string) string {
	what := capabilityList(caps)
	if len(offers) == 0 {
		msg := "No registered engine offers " + what + " for this target."
		if fallback != "" {
			msg += " " + fallback
		}
		return msg
	}
	parts := make([]string, len(offers))
	for i, o := range offers {
		if o.Installed {
			parts[i] = fmt.Sprintf("%s offers %s and is installed: open the target with it (open_binary provider_id %q, CLI --provider %s or REA_ANALYSIS_PROVIDER=%s).",
				o.ProviderID, what, o.ProviderID, o.ProviderID, o.ProviderID)
			continue
		}
		reason := ""
		if o.Reason != "" {
			reason = " (" + strings.TrimSuffix(o.Reason, ".") + ")"
		}
		parts[i] = fmt.Sprintf("%s offers %s but is not installed here%s; rea doctor says what it needs.", o.ProviderID, what, reason)
	}
	return strings.Join(parts, " ")
}

func (r *Registry) noneSupports(ctx context.Context, t ports.Target) bool {
	for _, p := range r.providers {
		if p.Support(ctx, t).Supported {
			return false
		}
	}
	return true
}

// OrNull is s, or nil (JSON null) for the empty string.
func OrNull(s string) any {
	if s == "" {
		return nil
	}
	return s
}

// Containers returns the container openers the artifact operations use.
func (r *Registry) Containers() []ports.ContainerOpener { return r.containers }

// capabilityList joins capability names with "and".
func capabilityList(caps []ports.Capability) string {
	names := make([]string, len(caps))
	for i, c := range caps {
		names[i] = c.String()
	}
	return strings.Join(names, " and ")
}
