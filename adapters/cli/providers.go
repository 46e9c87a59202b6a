package cli

import (
	"cmp"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"text/tabwriter"

	"rea/core"
	"rea/ports"
)

type providersCmd struct{}

type capabilitiesCmd struct{}

// targetFreeSession runs binary_session with nothing open: what the
// registry and the catalog say without any target.
func (e *env) targetFreeSession() (map[string]any, error) {
	s := e.session()
	defer s.Close(e.ctx)
	res, err := e.call(s, "binary_session", map[string]any{})
	if err != nil {
		return nil, err
	}
	j, err := res.StructuredJSON()
	if err != nil {
		return nil, err
	}
	var out struct {
		Result map[string]any `json:"result"`
	}
	if err := json.Unmarshal(j, &out); err != nil {
		return nil, err
	}
	return out.Result, nil
}

// providerOperations lists the operations a provider's declared
// capabilities cover: those that need a provider capability and need
// nothing the provider lacks. declared is false when the provider declares
// nothing (what it offers then depends on the target).
func providerOperations(cat *core.Catalog, p ports.Provider) (ops []string, declared bool) {
	caps, _, ok := ports.DeclaredCapabilities(p)
	have := map[string]bool{}
	for _, c := range caps {
		have[string(c)] = true
	}
	ops = []string{}
	for _, op := range cat.Operations() {
		if len(op.Needs) == 0 {
			continue
		}
		all := true
		for _, n := range op.Needs {
			all = all && have[string(n)]
		}
		if all || !ok {
			ops = append(ops, op.Name)
		}
	}
	sort.Strings(ops)
	return ops, ok
}

func (providersCmd) Run(e *env) error {
	st, err := e.targetFreeSession()
	if err != nil {
		return err
	}
	type engine struct {
		ID                   string   `json:"id"`
		Name                 string   `json:"name"`
		Kind                 string   `json:"kind"` // analysis_provider (in the registry) or external_engine
		Version              string   `json:"version,omitempty"`
		Configured           bool     `json:"configured"`
		Available            bool     `json:"available"`
		Detail               string   `json:"detail"`
		Role                 string   `json:"role,omitempty"`      // an external engine's: what rea uses it for
		Operations           []string `json:"operations,omitzero"` // a provider's, [] when it has none; left out (nil) for an external engine
		CapabilitiesDeclared bool     `json:"capabilities_declared"`
	}
	var engines []engine
	registered := map[string]bool{}
	for _, p := range e.opts.Registry.Providers() {
		registered[p.Info().ID] = true
		info := p.Info()
		av := p.Availability(e.ctx)
		ops, declared := providerOperations(e.opts.Catalog, p)
		d := "registered"
		if info.ID == core.BuiltInProviderID {
			d = "built in"
		}
		if !av.Available {
			d = av.Reason
		}
		engines = append(engines, engine{ID: info.ID, Name: info.Name, Kind: "analysis_provider", Version: info.Version,
			Configured: av.Code != "not_configured", Available: av.Available, Detail: d, Operations: ops, CapabilitiesDeclared: declared})
	}
	if e.opts.Engines != nil {
		for _, in := range e.opts.Engines(e.ctx) {
			if registered[in.Engine] {
				continue // a registered provider (Ghidra, Hopper): its line above says it
			}
			// The operations that drive an external engine (Chromium for
			// the browser tools, gdbserver for tracing) are not declared
			// per engine: its role says what it is for, rather than a
			// count of 0.
			engines = append(engines, engine{ID: in.Engine, Name: in.Name, Kind: "external_engine", Version: in.Version,
				Configured: in.Configured, Available: in.Available, Detail: in.Detail, Role: in.Role, CapabilitiesDeclared: true})
		}
	}
	if e.g.Format == "json" {
		out := map[string]any{"engines": engines}
		for _, k := range []string{"open", "provider", "providers", "analysis_provider_binding", "analysis_provider_candidates", "server_identity"} {
			out[k] = st[k]
		}
		return e.writeJSON(out)
	}
	tw := tabwriter.NewWriter(e.opts.Stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "ENGINE\tKIND\tCONFIGURED\tAVAILABLE\tOPERATIONS\tDETAIL")
	for _, en := range engines {
		ops, detail := fmt.Sprint(len(en.Operations)), en.Detail
		if en.Kind == "external_engine" {
			ops = "-"
			if en.Role != "" {
				detail = "for " + en.Role + ": " + detail
			}
		}
		fmt.Fprintf(tw, "%s\t%s\t%v\t%v\t%s\t%s\n", en.ID, en.Kind, en.Configured, en.Available, ops, detail)
	}
	return tw.Flush()
}

func (capabilitiesCmd) Run(e *env) error {
	st, err := e.targetFreeSession()
	if err != nil {
		return err
	}
	type capability struct {
		Operation string   `json:"operation"`
		Available bool     `json:"available"`
		Reason    any      `json:"reason"`
		Needs     []string `json:"needs"`
	}
	needs := map[string][]string{}
	for _, op := range e.opts.Catalog.Operations() {
		for _, n := range op.Needs {
			needs[op.Name] = append(needs[op.Name], string(n))
		}
		if needs[op.Name] == nil {
			needs[op.Name] = []string{}
		}
	}
	var caps []capability
	avail := 0
	list, _ := st["tool_availability"].([]any)
	for _, t := range list {
		m, _ := t.(map[string]any)
		name, _ := m["name"].(string)
		ok, _ := m["available"].(bool)
		if ok {
			avail++
		}
		caps = append(caps, capability{Operation: name, Available: ok, Reason: m["reason"], Needs: core.NonNil(needs[name])})
	}
	if e.g.Format == "json" {
		return e.writeJSON(map[string]any{"open": st["open"], "summary": map[string]int{"total": len(caps), "available": avail, "unavailable": len(caps) - avail},
			"capabilities": caps, "analysis_provider_binding": st["analysis_provider_binding"], "server_identity": st["server_identity"]})
	}
	tw := tabwriter.NewWriter(e.opts.Stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "OPERATION\tAVAILABLE\tREASON\tNEEDS")
	for _, c := range caps {
		// "-" for no needs: an empty last cell left the padding of the
		// reason column at the end of the line.
		fmt.Fprintf(tw, "%s\t%v\t%v\t%s\n", c.Operation, c.Available, c.Reason, cmp.Or(strings.Join(c.Needs, ","), "-"))
	}
	fmt.Fprintf(tw, "\n%d of %d operations available with no target open\n", avail, len(caps))
	return tw.Flush()
}
