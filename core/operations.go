package core

import (
	"fmt"
	"maps"
	"reflect"

	"rea/ports"
)

// A Family is what one feature family contributes to a catalog: its
// operations, the viewers inspect_analysis_view projects their results
// with, and the summarizers get_evidence_bundle detail:"summary" uses for
// their records. Families are plain values, assembled in one place
// (rea/core/standard for the default catalog); the kernel keeps no global
// list of them.
type Family struct {
	Name        string
	Operations  []*Operation
	Viewers     map[string]Viewer     // keyed by the parent operation
	Summarizers map[string]Summarizer // keyed by the record's operation
	Types       map[string]Types      // keyed by the operation; Assemble sets Operation.Types
	// AnalystNames, when set, is the source of analysts' names other
	// families show in place of the engine's (Call.AnalystNames); at most
	// one family of a catalog sets it.
	AnalystNames NameOverlay
	// Annotations, when set, lists analysts' annotations of the bound
	// target for other families (Call.Annotations); at most one family.
	Annotations AnnotationSource
}

// Types are an operation's Go input and result types: what a typed function
// sends and decodes (Invoke). rea/core/typecheck compares them with the
// schemas, and core/standard's test fails when an operation has none.
type Types struct{ Input, Result reflect.Type }

// TypesOf returns the Types of In and Out.
func TypesOf[In, Out any]() Types { return Types{reflect.TypeFor[In](), reflect.TypeFor[Out]()} }

// A Summarizer gives the native_dossier of one retained record in a bundle
// summary: an object with "available" (and, when available,
// "procedure_address"). ok false means the record has none, which the
// summary reports as {"available":false,"reason":"different-operation"}.
type Summarizer func(e *Evidence) (dossier map[string]any, ok bool)

// Kernel is the kernel's own family: the session, bundle, unknown and view
// operations every catalog needs.
func Kernel() Family {
	var ops []*Operation
	for _, f := range []func() []*Operation{sessionOperations, bundleOperations, unknownOperations, viewOperations} {
		ops = append(ops, f()...)
	}
	return Family{Name: "kernel", Types: operationTypes, Operations: ops}
}

// Assemble builds a catalog of the families' operations, viewers and
// summarizers (include Kernel() for the kernel's operations). A name
// declared twice is an error.
func Assemble(fams ...Family) (*Catalog, error) {
	var ops []*Operation
	for _, f := range fams {
		ops = append(ops, f.Operations...)
	}
	c, err := NewCatalog(ops)
	if err != nil {
		return nil, err
	}
	for _, f := range fams {
		for name, t := range f.Types {
			op, ok := c.byName[name]
			if !ok {
				return nil, fmt.Errorf("catalog: types for unknown operation %s", name)
			}
			op.Types = t
		}
		for op, v := range f.Viewers {
			if _, dup := c.viewers[op]; dup {
				return nil, fmt.Errorf("catalog: two viewers for %s", op)
			}
			c.viewers[op] = v
		}
		for op, s := range f.Summarizers {
			if _, dup := c.summarizers[op]; dup {
				return nil, fmt.Errorf("catalog: two summarizers for %s", op)
			}
			c.summarizers[op] = s
		}
		if f.AnalystNames != nil {
			if c.analystNames != nil {
				return nil, fmt.Errorf("catalog: two families give analyst names (%s is the second)", f.Name)
			}
			c.analystNames = f.AnalystNames
		}
		if f.Annotations != nil {
			if c.annotations != nil {
				return nil, fmt.Errorf("catalog: two families list annotations (%s is the second)", f.Name)
			}
			c.annotations = f.Annotations
		}
	}
	return c, nil
}

// What a handler reaches of its session. Families use these methods, never
// Session fields.

// Bound returns the analysis, provider binding and target this call
// started with; each is nil when absent. A concurrent open_binary or
// close_binary does not change them: the analysis stays open until every
// call that started with it has ended.
func (c *Call) Bound() (ports.Analysis, *Binding, *ports.Target) {
	return c.bound.analysis, c.bound.binding, c.bound.target
}

// Resolve returns a record retained in this session's ledger.
func (c *Call) Resolve(id EvidenceID) (*Evidence, error) { return c.Session.ledger.Resolve(id) }

// LedgerRoom reports the bytes this session's ledger can still take and its
// bound, so an operation can refuse work whose Evidence cannot be kept
// before doing it.
func (c *Call) LedgerRoom() (free, maximum int64) { return c.Session.ledger.Room() }

// Retain records ev in this session's ledger (a parent the handler sealed
// itself, such as the complete record behind a summary).
func (c *Call) Retain(ev *Evidence) (RecordResult, error) { return c.Session.ledger.Record(ev) }

// Seal seals obs as Evidence of op called with args, as the session seals
// a handler's result.
func (c *Call) Seal(op *Operation, args map[string]any, obs *Observation) (*Evidence, error) {
	return c.Session.seal(op, args, c.withRenamed(obs), c.bound)
}

// RetainComplete seals obs as this call with "detail":"complete" records it
// (the call's arguments with detail set to "complete"), retains it, and
// returns its ID, which the concise page the handler returns instead links
// as evidence_links[0] (Observation.Links), so every part of the complete
// result stays readable by ID. c.Args is not changed.
func (c *Call) RetainComplete(obs *Observation) (EvidenceID, error) {
	params := maps.Clone(c.Args)
	params["detail"] = "complete"
	ev, err := c.Seal(c.Op, params, obs)
	if err != nil {
		return "", err
	}
	if _, err := c.Retain(ev); err != nil {
		return "", err
	}
	return ev.EvidenceID, nil
}

// SealAs seals obs as if the operation named op had been called with args.
func (c *Call) SealAs(op string, args map[string]any, obs *Observation) (*Evidence, error) {
	return c.Session.seal(&Operation{Name: op}, args, obs, c.bound)
}

// Lookup finds an operation of the session's catalog.
func (c *Call) Lookup(name string) (*Operation, bool) { return c.Session.cat.Lookup(name) }

// Providers lists the registered analysis providers.
func (c *Call) Providers() []ports.Provider {
	if c.Session.reg == nil {
		return nil
	}
	return c.Session.reg.Providers()
}

// Containers lists the registered container openers.
func (c *Call) Containers() []ports.ContainerOpener {
	if c.Session.reg == nil {
		return nil
	}
	return c.Session.reg.Containers()
}

// JavaScript is the registered JavaScript engine, or nil.
func (c *Call) JavaScript() ports.JavaScriptEngine {
	if c.Session.reg == nil {
		return nil
	}
	return c.Session.reg.javascript
}

// Browser is the registered browser observer, or nil.
func (c *Call) Browser() ports.BrowserObserver { return c.Session.reg.Browser() }

// BrowserScenarios is the registered scenario runner, or nil.
func (c *Call) BrowserScenarios() ports.BrowserScenarioRunner {
	return c.Session.reg.BrowserScenarios()
}

// SourceMaps is the registered source map fetcher, or nil.
func (c *Call) SourceMaps() ports.SourceMapFetcher { return c.Session.reg.SourceMaps() }

// ScenarioAvailability reports whether the scenario runner can launch a
// browser now.
func (c *Call) ScenarioAvailability() ports.Availability { return c.Session.reg.ScenarioAvailability() }

// Browser is the registered browser observer, or nil (also on a nil
// Registry).
func (r *Registry) Browser() ports.BrowserObserver {
	if r == nil {
		return nil
	}
	return r.browser
}

// BrowserScenarios is the registered scenario runner, or nil.
func (r *Registry) BrowserScenarios() ports.BrowserScenarioRunner {
	if r == nil {
		return nil
	}
	return r.scenarios
}

// SourceMaps is the registered source map fetcher, or nil.
func (r *Registry) SourceMaps() ports.SourceMapFetcher {
	if r == nil {
		return nil
	}
	return r.sourceMaps
}

// ScenarioAvailability reports whether the scenario runner can launch a
// browser now: unavailable with not_configured when none is registered.
func (r *Registry) ScenarioAvailability() ports.Availability {
	switch {
	case r == nil || r.scenarios == nil:
		return ports.Availability{Code: "not_configured", Reason: "no browser scenario runner is wired into this build"}
	case r.scenarioAvailable == nil:
		return ports.Availability{Available: true}
	}
	return r.scenarioAvailable()
}

// Capturer is the registered process-capture engine, or nil.
func (c *Call) Capturer() ports.ProcessCapturer {
	if c.Session.reg == nil {
		return nil
	}
	return c.Session.reg.capturer
}

// Tracer is the registered native call tracer, or nil.
func (c *Call) Tracer() ports.CallTracer {
	if c.Session.reg == nil {
		return nil
	}
	return c.Session.reg.tracer
}

// RunID is the open analysis's analysis_run.run_id, or "" when no target is
// open; engines that launch processes pass it on.
func (c *Call) RunID() string {
	c.Session.mu.Lock()
	defer c.Session.mu.Unlock()
	return c.Session.runID
}

// ProjectView projects a view of parent with the catalog's viewer for its
// operation, as inspect_analysis_view does.
func (c *Call) ProjectView(parent *Evidence, view ViewSpec) (*InspectAnalysisViewResult, error) {
	return c.Session.cat.projectView(parent, view)
}

// offers reports whether the binding's provider (for a provider capability
// such as read_layout) or its open analysis offers c.
func offers(b *Binding, a ports.Analysis, c ports.Capability) bool {
	if c.OfProvider() {
		return b != nil && c.ImplementedBy(b.Provider)
	}
	return a != nil && c.ImplementedBy(a)
}

// NonNil returns s, or an empty slice for nil, so JSON says [] not null.
func NonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}
