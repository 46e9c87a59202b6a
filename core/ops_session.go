package core

import (
	"context"
	"encoding/json"
	"os"
	"time"

	"rea/ports"
)

func sessionOperations() []*Operation {
	return []*Operation{opBinarySession(), opOpenBinary(), opCloseBinary(), opGetEvidenceBundle()}
}

func opOpenBinary() *Operation {
	return &Operation{
		Name:  "open_binary",
		Title: "Open Binary",
		Description: "Open a local file as the analysis target: identify it (sha256, format, kind, architecture) and bind an analysis provider. " +
			"The built-in provider rea-native analyzes ELF, PE and Mach-O without any external engine. Retained Evidence is preserved across targets.",
		Kind:            KindSession,
		RequiresSession: true,
		Effects:         Effects{MutatesSession: true, LaunchesProcess: true, Idempotent: true},
		Input: json.RawMessage(`{
 "$schema": "https://json-schema.org/draft/2020-12/schema",
 "type": "object",
 "additionalProperties": false,
 "required": ["path"],
 "properties": {
  "path": {"type": "string", "minLength": 1, "description": "Path of the file to analyze (ELF, PE, Mach-O, universal Mach-O, ASAR, ZIP, JavaScript or source map).", "examples": ["/usr/bin/ls"]},
  "provider_id": {"type": "string", "minLength": 1, "maxLength": 64, "pattern": "^[a-z][a-z0-9-]*$", "description": "\"auto\" (default: the single available provider that supports the target) or a concrete provider id such as \"rea-native\".", "examples": ["auto", "rea-native"]}
 }
}`),
		Result: json.RawMessage(`{"type":"object","additionalProperties":false,
 "required":["path","sha256","format","kind","architecture","loaderArgs","provider","selection_source","run_id"],
 "properties":{"path":{"type":"string"},"sha256":{"type":"string","pattern":"^[0-9a-f]{64}$"},"format":{"type":"string"},"kind":{"type":"string"},
  "architecture":{"type":["string","null"]},"loaderArgs":{"type":"array","items":{"type":"string"}},
  "provider":{"anyOf":[{"type":"null"},{"type":"object","required":["id","name","version"],"properties":{"id":{"type":"string"},"name":{"type":"string"},"version":{"type":["string","null"]}}}]},
  "selection_source":{"type":["string","null"]},"run_id":{"type":"string"}}}`),
		Examples: []json.RawMessage{json.RawMessage(`{"path":"/usr/bin/ls"}`), json.RawMessage(`{"path":"/usr/bin/ls","provider_id":"rea-native"}`)},
		Handler:  handleOpenBinary,
	}
}

func handleOpenBinary(ctx context.Context, c *Call) (any, error) {
	s := c.Session
	path := c.Args["path"].(string)
	requested := ""
	if v, ok := c.Args["provider_id"].(string); ok {
		sel, err := ParseProviderSelector(v)
		if err != nil {
			return nil, InvalidRequest("open_binary", Issue{Path: []any{"provider_id"}, Reason: ReasonInvalidFormat, Message: err.Error()})
		}
		if sel != SelectorAuto {
			requested = sel
		}
	}
	c.Observe("identifying target")
	t, err := Identify(ctx, path)
	if err != nil {
		return nil, err
	}
	b, err := s.reg.selectProvider(ctx, requested, t)
	if err != nil {
		return nil, err
	}
	runID := newRunID() // allocated before any provider starts
	var a ports.Analysis
	var prof *Profile
	if b != nil {
		c.Observe("opening with " + b.Provider.Info().ID)
		a, err = b.Provider.Open(ctx, t)
		if err != nil {
			e := AsError("open_binary", err)
			if e.Details == nil {
				e.Details = map[string]any{}
			}
			e.Details["path"] = t.Path
			e.Details["provider_id"] = b.Provider.Info().ID
			return nil, e
		}
		info := b.Provider.Info()
		pp := a.Profile()
		params := pp.Parameters
		prof, err = NewProfile(ProfileProvider{ID: info.ID, Name: info.Name, Version: a.Version()}, max(pp.SchemaVersion, 1), params)
		if err != nil {
			_ = a.Close(context.WithoutCancel(ctx))
			return nil, err
		}
	}
	if err := ctx.Err(); err != nil {
		if a != nil {
			_ = a.Close(context.WithoutCancel(ctx))
		}
		return nil, err
	}
	s.mu.Lock()
	old := s.analysis
	s.target, s.binding, s.analysis, s.profile, s.runID = &t, b, a, prof, runID
	s.mu.Unlock()
	if old != nil && old != a {
		if err := old.Close(context.WithoutCancel(ctx)); err != nil {
			// The previous provider could not be released: its records may
			// describe state we cannot vouch for any more.
			s.ledger.Clear()
		}
	}
	out := map[string]any{"path": t.Path, "sha256": t.SHA256, "format": t.Format, "kind": t.Kind,
		"architecture": OrNull(t.Architecture), "loaderArgs": []string{}, "provider": nil, "selection_source": nil, "run_id": runID}
	if b != nil {
		info := b.Provider.Info()
		out["provider"] = map[string]any{"id": info.ID, "name": info.Name, "version": a.Version()}
		out["selection_source"] = b.Source
	}
	return out, nil
}

func opCloseBinary() *Operation {
	return &Operation{
		Name:            "close_binary",
		Title:           "Close Binary",
		Description:     "Drain owned work, close the analysis provider and clear every retained Evidence record of this connection, even when no target is open. Export the bundle first if it is still needed.",
		Kind:            KindSession,
		RequiresSession: true,
		Effects:         Effects{MutatesSession: true, WritesFilesystem: true, MayDiscardData: true},
		Input:           json.RawMessage(`{"$schema":"https://json-schema.org/draft/2020-12/schema","type":"object","additionalProperties":false,"properties":{}}`),
		Result:          json.RawMessage(`{"type":"null"}`),
		Examples:        []json.RawMessage{json.RawMessage(`{}`)},
		Handler: func(ctx context.Context, c *Call) (any, error) {
			s := c.Session
			// Drain: wait (bounded) for this connection's other calls to finish.
			s.drain(ctx, 30*time.Second)
			return nil, s.Close(ctx)
		},
	}
}

func opGetEvidenceBundle() *Operation {
	return &Operation{
		Name:  "get_evidence_bundle",
		Title: "Get Evidence Bundle",
		Description: "Return the complete canonical Evidence bundle of this connection's ledger: every retained record sorted by evidence_id, with artifact, provider and environment manifests and the residual unknowns. " +
			"With detail \"summary\" return only each record's identity, provenance and native procedure metadata, optionally narrowed by exact-match filters, to discover records too large to deliver. Starts no provider.",
		Kind:            KindSession,
		RequiresSession: true,
		Effects:         Effects{Idempotent: true},
		Input:           getEvidenceBundleInput,
		Result:          getEvidenceBundleResult,
		Examples: []json.RawMessage{json.RawMessage(`{}`), json.RawMessage(`{"detail":"summary"}`),
			json.RawMessage(`{"detail":"summary","filters":{"operation":"inspect_binary_layout"}}`)},
		Handler: handleGetEvidenceBundle,
	}
}

func opBinarySession() *Operation {
	return &Operation{
		Name:  "binary_session",
		Title: "Binary Session",
		Description: "Report this connection's state: server identity and catalog digest, the open target, provider candidates and binding, the analysis run, " +
			"and tool_availability for every tool. Call with {} first to choose a callable operation; optional expectations check alignment.",
		Kind:            KindSession,
		RequiresSession: true,
		Effects:         Effects{Idempotent: true},
		Input: json.RawMessage(`{
 "$schema": "https://json-schema.org/draft/2020-12/schema",
 "type": "object",
 "additionalProperties": false,
 "properties": {
  "expected_package_version": {"type": "string", "minLength": 1, "description": "The rea version the caller expects to be running.", "examples": ["0.1.0"]},
  "expected_catalog_digest": {"type": "string", "pattern": "^[0-9a-f]{64}$", "description": "The combined_sha256 catalog digest the caller expects."},
  "expected_server_path": {"type": "string", "pattern": "^(/|[A-Za-z]:[\\\\/])", "description": "Absolute path of the rea executable the caller registered."}
 }
}`),
		Result:   json.RawMessage(binarySessionResultSchema),
		Examples: []json.RawMessage{json.RawMessage(`{}`), json.RawMessage(`{"expected_package_version":"0.1.0"}`)},
		Handler:  handleBinarySession,
	}
}

const binarySessionResultSchema = `{"type":"object","additionalProperties":false,
 "required":["open","path","sha256","format","kind","architecture","provider","providers","server_identity","client_features","analysis_provider_candidates","analysis_provider_binding","analysis_run","tool_availability"],
 "properties":{
  "open":{"type":"boolean"},"path":{"type":["string","null"]},"sha256":{"type":["string","null"]},"format":{"type":["string","null"]},
  "kind":{"type":["string","null"]},"architecture":{"type":["string","null"]},
  "provider":{"anyOf":[{"type":"null"},{"$ref":"#/$defs/providerRef"}]},
  "providers":{"type":"array","items":{"$ref":"#/$defs/providerRef"}},
  "server_identity":{"type":"object","required":["package","server","sdk","negotiated_protocol_version","client","catalog","protocol_features","alignment"],
   "properties":{"catalog":{"type":"object","required":["tools_sha256","combined_sha256","tool_count"],"properties":{"combined_sha256":{"type":"string","pattern":"^[0-9a-f]{64}$"}}},
    "alignment":{"type":"object","required":["state","reasons","remediation"],"properties":{"state":{"enum":["aligned","unknown","mcp_server_restart_required"]},"reasons":{"type":"array","items":{"enum":["package_version_mismatch","catalog_digest_mismatch","registration_path_mismatch"]}}}}}},
  "client_features":{"type":"object","required":["elicitation_form","elicitation_url","roots","sampling"],"properties":{"elicitation_form":{"type":"boolean"},"elicitation_url":{"type":"boolean"},"roots":{"type":"boolean"},"sampling":{"type":"boolean"}}},
  "analysis_provider_candidates":{"type":"array","items":{"type":"object","required":["provider","availability","target_support","selected","capabilities"],
   "properties":{"provider":{"$ref":"#/$defs/providerRef"},"availability":{"type":"object","required":["status","code","reason","diagnostics"],"properties":{"status":{"enum":["available","unavailable"]}}},
    "target_support":{"type":"object","required":["status","code","reason","diagnostics"],"properties":{"status":{"enum":["unknown","supported","unsupported"]}}},
    "selected":{"type":"boolean"},"capabilities":{"type":"array","items":{"type":"string"}}}}},
  "analysis_provider_binding":{"anyOf":[{"type":"null"},{"type":"object","required":["provider","selection_source","analysis_profile"],
   "properties":{"provider":{"$ref":"#/$defs/providerRef"},"selection_source":{"enum":["request","environment","auto-single-candidate"]},"analysis_profile":{"type":"object"}}}]},
  "analysis_run":{"anyOf":[{"type":"null"},{"type":"object","required":["run_id","process_lineage"],"properties":{"run_id":{"type":"string"},"process_lineage":{"type":"object","required":["status"]}}}]},
  "tool_availability":{"type":"array","items":{"type":"object","required":["name","surface","client_requirements","effects","annotations","available","reason","remediation"],
   "properties":{"name":{"type":"string"},"available":{"type":"boolean"},"reason":{"enum":["available","client_capability_missing","target_required","provider_missing","provider_unavailable","target_unsupported","unsupported_host","policy_disabled"]},"remediation":{"type":["string","null"]}}}}
 },
 "$defs":{"providerRef":{"type":"object","required":["id","name","version"],"properties":{"id":{"type":"string"},"name":{"type":"string"},"version":{"type":["string","null"]}}}}}`

func providerRefOf(p ports.Provider, version string) map[string]any {
	info := p.Info()
	v := any(nil)
	if version != "" {
		v = version
	} else if info.Version != "" {
		v = info.Version
	}
	return map[string]any{"id": info.ID, "name": info.Name, "version": v}
}

func handleBinarySession(ctx context.Context, c *Call) (any, error) {
	s := c.Session
	a, b, t := s.boundAnalysis()
	s.mu.Lock()
	prof, runID := s.profile, s.runID
	s.mu.Unlock()
	out := map[string]any{"open": t != nil, "path": nil, "sha256": nil, "format": nil, "kind": nil, "architecture": nil,
		"provider": nil, "analysis_provider_binding": nil, "analysis_run": nil}
	if t != nil {
		out["path"], out["sha256"], out["format"], out["kind"], out["architecture"] = t.Path, t.SHA256, t.Format, t.Kind, OrNull(t.Architecture)
		out["analysis_run"] = map[string]any{"run_id": runID, "process_lineage": map[string]any{"status": "not_observed"}}
	}
	if b != nil {
		ref := providerRefOf(b.Provider, a.Version())
		out["provider"] = ref
		out["analysis_provider_binding"] = map[string]any{"provider": ref, "selection_source": b.Source, "analysis_profile": prof}
	}
	providers := []any{}
	cands := []any{}
	for _, p := range s.reg.Providers() {
		providers = append(providers, providerRefOf(p, ""))
		av := p.Availability(ctx)
		avail := map[string]any{"status": "available", "code": nil, "reason": nil, "diagnostics": NonNil(av.Diagnostics)}
		if !av.Available {
			avail = map[string]any{"status": "unavailable", "code": av.Code, "reason": av.Reason, "diagnostics": NonNil(av.Diagnostics)}
		}
		sup := map[string]any{"status": "unknown", "code": nil, "reason": nil, "diagnostics": []string{}}
		if t != nil {
			ts := p.Support(ctx, *t)
			sup = map[string]any{"status": "supported", "code": nil, "reason": nil, "diagnostics": NonNil(ts.Diagnostics)}
			if !ts.Supported {
				sup = map[string]any{"status": "unsupported", "code": ts.Code, "reason": ts.Reason, "diagnostics": NonNil(ts.Diagnostics)}
			}
		}
		selected := b != nil && b.Provider.Info().ID == p.Info().ID
		caps := []string{}
		if selected {
			for _, cp := range capabilityOrder {
				if hasCapability(a, cp) {
					caps = append(caps, cp)
				}
			}
		}
		cands = append(cands, map[string]any{"provider": providerRefOf(p, ""), "availability": avail, "target_support": sup, "selected": selected, "capabilities": caps})
	}
	out["providers"] = providers
	out["analysis_provider_candidates"] = cands
	var client *ClientInfo = c.Client
	features := ClientFeatures{}
	if client != nil {
		features = client.Features
	}
	out["client_features"] = features
	out["server_identity"] = s.serverIdentity(c)
	out["tool_availability"] = s.toolAvailability(a, b, t)
	return out, nil
}

func (s *Session) serverIdentity(c *Call) map[string]any {
	id := s.opts.Server
	cat := s.cat.Identity()
	var client any
	proto := any(nil)
	if c.Client != nil {
		if c.Client.Name != "" {
			client = map[string]any{"name": c.Client.Name, "version": c.Client.Version}
		}
		if c.Client.ProtocolVersion != "" {
			proto = c.Client.ProtocolVersion
		}
	}
	var reasons []string
	expected := false
	if v, ok := c.Args["expected_package_version"].(string); ok {
		expected = true
		if v != id.Version {
			reasons = append(reasons, "package_version_mismatch")
		}
	}
	if v, ok := c.Args["expected_catalog_digest"].(string); ok {
		expected = true
		if v != cat.Combined {
			reasons = append(reasons, "catalog_digest_mismatch")
		}
	}
	if v, ok := c.Args["expected_server_path"].(string); ok {
		expected = true
		if !samePath(v, id.CommandPath) {
			reasons = append(reasons, "registration_path_mismatch")
		}
	}
	state, rem := "unknown", any(nil)
	switch {
	case len(reasons) > 0:
		state, rem = "mcp_server_restart_required", "Restart the MCP server from the expected installation so the client talks to the rea it registered."
	case expected:
		state = "aligned"
	}
	started := ""
	if !id.StartedAt.IsZero() {
		started = id.StartedAt.UTC().Format(time.RFC3339Nano)
	}
	return map[string]any{
		"package":                     map[string]any{"name": id.PackageName, "version": id.Version, "root_path": OrNull(id.RootPath), "build_commit": OrNull(id.BuildCommit)},
		"server":                      map[string]any{"name": "rea", "version": id.Version, "started_at": OrNull(started), "command_path": OrNull(id.CommandPath)},
		"sdk":                         map[string]any{"server": OrNull(id.SDKServer), "client_test": OrNull(id.SDKClientTest), "core": "rea/core"},
		"negotiated_protocol_version": proto,
		"client":                      client,
		"catalog":                     map[string]any{"tools_sha256": cat.Tools, "combined_sha256": cat.Combined, "tool_count": len(s.cat.ops)},
		"protocol_features":           map[string]any{"progress": true, "cancellation": true, "evidence_resources": true, "elicitation": false},
		"alignment":                   map[string]any{"state": state, "reasons": NonNil(reasons), "remediation": rem},
	}
}

func samePath(a, b string) bool {
	if a == b {
		return true
	}
	sa, err1 := os.Stat(a)
	sb, err2 := os.Stat(b)
	return err1 == nil && err2 == nil && os.SameFile(sa, sb)
}

func (s *Session) toolAvailability(a ports.Analysis, b *Binding, t *ports.Target) []any {
	out := make([]any, 0, len(s.cat.ops))
	for _, op := range s.cat.ops {
		avail, reason, rem := true, "available", any(nil)
		switch {
		case (op.NeedsTarget || len(op.Needs) > 0) && t == nil:
			avail, reason, rem = false, "target_required", "Call open_binary with a target path first."
		case len(op.Needs) > 0 && b == nil:
			avail, reason, rem = false, "provider_missing", "No provider supports this target; see analysis_provider_candidates."
		case len(op.Needs) > 0:
			for _, n := range op.Needs {
				if !hasCapability(a, n) {
					avail, reason, rem = false, "target_unsupported", "The bound provider does not offer "+n+" for this target."
					if op.MissingRemediation != "" {
						rem = op.MissingRemediation
					}
					break
				}
			}
		}
		if avail && op.Unavailable != nil {
			if r, m := op.Unavailable(s.reg); r != "" {
				avail, reason, rem = false, r, m
			}
		}
		out = append(out, map[string]any{
			"name": op.Name, "surface": "mcp",
			"client_requirements": map[string]any{"required": []string{}, "optional": []string{}, "missing_required": []string{}, "missing_optional": []string{}},
			"effects":             op.Effects, "annotations": op.Effects.Annotations(),
			"available": avail, "reason": reason, "remediation": rem,
		})
	}
	return out
}
