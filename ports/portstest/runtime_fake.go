package portstest

import (
	"context"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"rea/ports"
)

// RuntimeFake is a working in-memory ports.JavaScriptRuntimeObserver for
// tests of code that consumes runtime observations (core's runtime
// family). Its endpoint is any http://127.0.0.1:PORT; Targets are the
// inspector's targets and Scripts what ObserveRuntime reports for any of
// them. Electron pages and scenarios return Page and Scenario. Set Err to
// make every call after validation fail with it.
type RuntimeFake struct {
	Runtime  ports.RuntimeInfo
	Targets  []ports.RuntimeTarget
	Scripts  []ports.RuntimeScript
	Page     *ports.ElectronPageCapture
	Scenario *ports.ElectronScenarioCapture
	Err      error
}

var _ ports.JavaScriptRuntimeObserver = (*RuntimeFake)(nil)

// NewRuntimeFake returns a fake with one node target "N1" at root/main.mjs
// that loaded root/main.mjs.
func NewRuntimeFake(root string) *RuntimeFake {
	loc := ports.RuntimeLocation{Kind: "file", FilePath: root + "/main.mjs"}
	return &RuntimeFake{
		Runtime: ports.RuntimeInfo{Product: "node.js/v0.0.0-fake", ProtocolVersion: "1.1"},
		Targets: []ports.RuntimeTarget{{TargetID: "N1", ProtocolType: "node", Title: "main.mjs", Location: loc}},
		Scripts: []ports.RuntimeScript{{ScriptID: "1", ContextID: 1, Location: loc, CDPHash: strings.Repeat("0", 64), Length: 1, IsModule: true}},
	}
}

// Info names the fake.
func (f *RuntimeFake) Info() ports.ProviderInfo {
	return ports.ProviderInfo{ID: "fake-runtime", Name: "in-memory runtime observer", Version: "1"}
}

func (f *RuntimeFake) check(ctx context.Context, ep, field string) error {
	u, err := url.Parse(ep)
	bad := err != nil || u.Scheme != "http" || u.User != nil || (u.Path != "" && u.Path != "/") || u.RawQuery != "" || u.Fragment != "" ||
		(u.Hostname() != "127.0.0.1" && u.Hostname() != "::1")
	if !bad {
		p, err := strconv.Atoi(u.Port())
		bad = err != nil || p < 1 || p > 65535
	}
	if bad {
		return &ports.BrowserError{Code: ports.BrowserInvalidRequest, Field: field, Msg: "not a loopback endpoint"}
	}
	if ctx.Err() != nil {
		return &ports.BrowserError{Code: ports.BrowserCancelled, Err: ctx.Err()}
	}
	return f.Err
}

func inRoots(p string, roots []string) bool {
	if len(roots) == 0 {
		return true
	}
	for _, r := range roots {
		if strings.HasPrefix(p, strings.TrimRight(r, "/")+"/") {
			return true
		}
	}
	return false
}

// ListRuntimeTargets lists Targets within the roots.
func (f *RuntimeFake) ListRuntimeTargets(ctx context.Context, req ports.RuntimeListRequest) (*ports.RuntimeTargetList, error) {
	if err := f.check(ctx, req.Endpoint, "inspector_endpoint"); err != nil {
		return nil, err
	}
	out := &ports.RuntimeTargetList{Runtime: f.Runtime, Targets: []ports.RuntimeTarget{}}
	for _, t := range f.Targets {
		if t.Location.Kind == "file" && !inRoots(t.Location.FilePath, req.Scope.AllowedFileRoots) {
			out.Excluded.OutsideFileRoots++
			continue
		}
		out.Targets = append(out.Targets, t)
	}
	slices.SortFunc(out.Targets, func(a, b ports.RuntimeTarget) int { return strings.Compare(a.TargetID, b.TargetID) })
	return out, nil
}

// ObserveRuntime reports Scripts within the roots.
func (f *RuntimeFake) ObserveRuntime(ctx context.Context, req ports.RuntimeObserveRequest) (*ports.RuntimeObservation, error) {
	if err := f.check(ctx, req.Endpoint, "inspector_endpoint"); err != nil {
		return nil, err
	}
	i := slices.IndexFunc(f.Targets, func(t ports.RuntimeTarget) bool { return t.TargetID == req.TargetID })
	if i < 0 {
		return nil, &ports.BrowserError{Code: ports.BrowserTargetNotFound, Msg: "no target " + req.TargetID}
	}
	t := f.Targets[i]
	switch {
	case t.Attached:
		return nil, &ports.BrowserError{Code: ports.BrowserTargetNotAllowed, Msg: "already attached"}
	case (req.RuntimeKind == "node" || req.RuntimeKind == "electron-main") && t.ProtocolType != "node",
		(req.RuntimeKind == "electron-preload" || req.RuntimeKind == "electron-renderer") && t.ProtocolType != "page":
		return nil, &ports.BrowserError{Code: ports.BrowserTargetNotAllowed, Msg: "runtime kind does not fit the target"}
	}
	ms := req.ObservationMS // 0: only what the attach reports
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	o := &ports.RuntimeObservation{Runtime: f.Runtime, Target: t, StartedAt: now, EndedAt: now.Add(time.Duration(ms) * time.Millisecond), ObservationMS: ms,
		Contexts: []ports.RuntimeContext{{ContextID: 1, Name: "main", State: "live"}}}
	for _, s := range f.Scripts {
		o.EventsObserved++
		o.ScriptsObserved++
		if s.Location.Kind == "file" && !inRoots(s.Location.FilePath, req.Scope.AllowedFileRoots) {
			o.Excluded.OutsideFileRoots++
			continue
		}
		o.EventsRetained++
		o.Scripts = append(o.Scripts, s)
	}
	return o, nil
}

// ListElectronTargets returns Page's target when set.
func (f *RuntimeFake) ListElectronTargets(ctx context.Context, req ports.ElectronListRequest) (*ports.ElectronTargetList, error) {
	if err := f.check(ctx, req.Endpoint, "cdp_endpoint"); err != nil {
		return nil, err
	}
	out := &ports.ElectronTargetList{Browser: ports.BrowserInfo{Product: "Electron/0.0.0-fake"}, Targets: []ports.ElectronTarget{}}
	if f.Page != nil {
		out.Browser = f.Page.Browser
		out.Targets = append(out.Targets, f.Page.Target)
	}
	return out, nil
}

// InspectElectronPage returns Page.
func (f *RuntimeFake) InspectElectronPage(ctx context.Context, req ports.ElectronInspectRequest) (*ports.ElectronPageCapture, error) {
	if err := f.check(ctx, req.Endpoint, "cdp_endpoint"); err != nil {
		return nil, err
	}
	if f.Page == nil || f.Page.Target.TargetID != req.TargetID {
		return nil, &ports.BrowserError{Code: ports.BrowserTargetNotFound, Msg: "no target " + req.TargetID}
	}
	c := *f.Page
	return &c, nil
}

// RunElectronScenario returns Scenario.
func (f *RuntimeFake) RunElectronScenario(ctx context.Context, req ports.ElectronScenarioRequest) (*ports.ElectronScenarioCapture, error) {
	if ctx.Err() != nil {
		return nil, &ports.BrowserError{Code: ports.BrowserCancelled, Err: ctx.Err()}
	}
	if f.Err != nil {
		return nil, f.Err
	}
	if f.Scenario == nil {
		return nil, &ports.BrowserError{Code: ports.BrowserProcessOwnership, Msg: "the fake has no scenario"}
	}
	c := *f.Scenario
	return &c, nil
}
