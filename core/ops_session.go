package core

import (
	"context"
	"encoding/json"
	"fmt"
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
  "provider_id": {"type": "string", "minLength": 1, "maxLength": 64, "pattern": "^[a-z][a-z0-9-]*$", "description": "\"auto\" (default: rea-native when it supports the target, else the single available provider that does) or a concrete provider id such as \"rea-native\".", "examples": ["auto", "rea-native"]}
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
	in, err := Input[OpenBinaryInput](c)
	if err != nil {
		return nil, err
	}
	path := in.Path
	requested := ""
	if v := in.ProviderID; v != "" {
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
	// An engine that launched a process reports its lineage once it is
	// ready; the snapshot is retained for binary_session.
	var lineage *ports.ProcessLineage
	if lr, ok := a.(ports.LineageReporter); ok {
		l := lr.ProcessLineage(ctx)
		lineage = &l
	}
	s.mu.Lock()
	old := s.analysis
	s.target, s.binding, s.analysis, s.profile, s.runID, s.lineage = &t, b, a, prof, runID, lineage
	s.mu.Unlock()
	if old != nil && old != a {
		if err := s.retire(ctx, old, c.bound.analysis); err != nil {
			// The previous provider could not be released: its records may
			// describe state we cannot vouch for any more.
			s.ledger.Clear()
		}
	}
	out := &OpenBinaryResult{Path: t.Path, SHA256: t.SHA256, Format: t.Format, Kind: t.Kind,
		Architecture: OptString(t.Architecture), LoaderArgs: []string{}, RunID: runID}
	if b != nil {
		info, v, src := b.Provider.Info(), a.Version(), b.Source
		out.Provider, out.SelectionSource = &OpenedProvider{ID: info.ID, Name: info.Name, Version: &v}, &src
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
			return json.RawMessage("null"), s.closeTargetFor(ctx, true, c.bound.analysis)
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
			"and tool_availability for every tool. Call with {} first to choose a callable operation; optional expectations check alignment. " +
			"Each tool_availability entry is compact by default (name, available, reason, remediation, and client_requirements only when the tool declares some; effects and annotations are in tools/list); " +
			"detail \"complete\" adds surface, client_requirements, effects and annotations to every entry.",
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
  "expected_server_path": {"type": "string", "pattern": "^(/|[A-Za-z]:[\\\\/])", "description": "Absolute path of the rea executable the caller registered."},
  "detail": {"enum": ["compact", "complete"], "default": "compact", "description": "compact: each tool_availability entry is name, available, reason and remediation; complete: also surface, client_requirements, effects and annotations."}
 }
}`),
		Result:   json.RawMessage(binarySessionResultSchema),
		Examples: []json.RawMessage{json.RawMessage(`{}`), json.RawMessage(`{"expected_package_version":"0.1.0"}`), json.RawMessage(`{"detail":"complete"}`)},
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
   "properties":{"provider":{"$ref":"#/$defs/providerRef"},"selection_source":{"enum":["request","environment","auto-single-candidate","auto-built-in"]},"analysis_profile":{"type":"object"}}}]},
  "analysis_run":{"anyOf":[{"type":"null"},{"type":"object","required":["run_id","process_lineage"],"properties":{"run_id":{"type":"string"},"process_lineage":{"$ref":"#/$defs/processLineage"}}}]},
  "tool_availability":{"type":"array","items":{"type":"object","required":["name","available","reason","remediation"],
   "properties":{"name":{"type":"string"},"available":{"type":"boolean"},"reason":{"enum":["available","client_capability_missing","target_required","provider_missing","provider_unavailable","target_unsupported","unsupported_host","policy_disabled"]},"remediation":{"type":["string","null"]}}}}
 },
 "$defs":{
  "processLineage":{"type":"object","required":["status"],"properties":{"status":{"enum":["not_observed","snapshots"]},
   "snapshots":{"type":"array","items":{"type":"object","additionalProperties":false,"required":["provider","observation"],
    "properties":{"provider":{"$ref":"#/$defs/providerRef"},"observation":{"anyOf":[
     {"type":"object","additionalProperties":false,"required":["status","observed_at","schema_version","launcher_pid","launcher_parent_pid","process_group_id","descendants"],
      "properties":{"status":{"const":"verified"},"observed_at":{"type":"string"},"schema_version":{"const":1},"launcher_pid":{"type":["integer","null"]},
       "launcher_parent_pid":{"type":["integer","null"]},"process_group_id":{"type":["integer","null"]},
       "descendants":{"type":"array","items":{"type":"object","additionalProperties":false,"required":["pid","parent_pid","process_group_id"],
        "properties":{"pid":{"type":"integer"},"parent_pid":{"type":"integer"},"process_group_id":{"type":"integer"}}}}}},
     {"type":"object","additionalProperties":false,"required":["status","observed_at","launcher_pid","process_group_id","reason"],
      "properties":{"status":{"const":"unavailable"},"observed_at":{"type":"string"},"launcher_pid":{"type":["integer","null"]},
       "process_group_id":{"type":["integer","null"]},"reason":{"type":"string"}}}]}}}}},
   "allOf":[{"if":{"properties":{"status":{"const":"snapshots"}}},"then":{"required":["snapshots"]},"else":{"not":{"required":["snapshots"]}}}]},
  "providerRef":{"type":"object","required":["id","name","version"],"properties":{"id":{"type":"string"},"name":{"type":"string"},"version":{"type":["string","null"]}}}}}`

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
	prof, runID, lineage := s.profile, s.runID, s.lineage
	s.mu.Unlock()
	out := map[string]any{"open": t != nil, "path": nil, "sha256": nil, "format": nil, "kind": nil, "architecture": nil,
		"provider": nil, "analysis_provider_binding": nil, "analysis_run": nil}
	if t != nil {
		out["path"], out["sha256"], out["format"], out["kind"], out["architecture"] = t.Path, t.SHA256, t.Format, t.Kind, OrNull(t.Architecture)
		out["analysis_run"] = map[string]any{"run_id": runID, "process_lineage": processLineage(b, a, lineage)}
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
			for _, cp := range ports.CapabilitiesOf(a) {
				caps = append(caps, cp.String())
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
	complete, _ := c.Args["detail"].(string)
	out["tool_availability"] = s.toolAvailability(ctx, a, b, t, complete == "complete")
	return out, nil
}

// processLineage renders analysis_run.process_lineage: not_observed until an
// engine that launched a process reported a snapshot (an in-process engine
// such as rea-native never does), then that snapshot under its provider.
func processLineage(b *Binding, a ports.Analysis, l *ports.ProcessLineage) map[string]any {
	if l == nil || b == nil {
		return map[string]any{"status": "not_observed"}
	}
	obs := map[string]any{"status": string(l.Status), "observed_at": l.ObservedAt.UTC().Format(timestampLayout),
		"launcher_pid": pidOrNull(l.LauncherPID), "process_group_id": pidOrNull(l.ProcessGroupID)}
	switch l.Status {
	case ports.LineageVerified:
		desc := make([]map[string]any, len(l.Descendants))
		for i, d := range l.Descendants {
			desc[i] = map[string]any{"pid": d.PID, "parent_pid": d.ParentPID, "process_group_id": d.ProcessGroupID}
		}
		obs["schema_version"] = 1
		obs["launcher_parent_pid"] = pidOrNull(l.LauncherParentPID)
		obs["descendants"] = desc
	default:
		obs["status"] = string(ports.LineageUnavailable)
		reason := l.Reason
		if reason == "" {
			reason = ports.LineageReasonNotRevalidated
		}
		obs["reason"] = reason
	}
	return map[string]any{"status": "snapshots",
		"snapshots": []any{map[string]any{"provider": providerRefOf(b.Provider, a.Version()), "observation": obs}}}
}

func pidOrNull(pid int) any {
	if pid <= 0 {
		return nil
	}
	return pid
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

// toolAvailability lists every tool's availability. The compact form, the
// default, keeps what a caller needs to choose a call (about a third of the
// complete form's bytes): effects and annotations repeat tools/list, and
// client requirements appear only for a tool that declares some.
func (s *Session) toolAvailability(ctx context.Context, a ports.Analysis, b *Binding, t *ports.Target, complete bool) []any {
	out := make([]any, 0, len(s.cat.ops))
	elsewhere := map[string][]Offer{} // by the missing capabilities, asked once per set
	for _, op := range s.cat.ops {
		avail, reason, rem := true, "available", any(nil)
		needs := len(op.Needs) > 0 || len(op.Wants) > 0
		switch {
		case (op.NeedsTarget || needs) && t == nil:
			avail, reason, rem = false, "target_required", "Call open_binary with a target path first."
		case needs && b == nil:
			avail, reason, rem = false, "provider_missing", "No provider supports this target; see analysis_provider_candidates."
		case needs:
			if missing := missingCapabilities(op, b, a); len(missing) > 0 {
				key := fmt.Sprint(missing)
				offers, seen := elsewhere[key]
				if !seen {
					offers = s.reg.offersElsewhere(ctx, b, t, missing)
					elsewhere[key] = offers
				}
				avail, reason = false, "target_unsupported"
				rem = "The bound provider " + b.Provider.Info().ID + " does not offer " + capabilityList(missing) + " for this target. " +
					capabilityRemediation(offers, missing, op.MissingRemediation)
			}
		}
		if avail && op.Unavailable != nil {
			if r, m := op.Unavailable(s.reg); r != "" {
				avail, reason, rem = false, r, m
			}
		}
		entry := map[string]any{"name": op.Name, "available": avail, "reason": reason, "remediation": rem}
		if complete {
			entry["surface"] = "mcp"
			entry["client_requirements"] = map[string]any{"required": []string{}, "optional": []string{}, "missing_required": []string{}, "missing_optional": []string{}}
			entry["effects"], entry["annotations"] = op.Effects, op.Effects.Annotations()
		}
		out = append(out, entry)
	}
	return out
}
