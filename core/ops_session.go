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
	s.mu.Lock()
	old := s.analysis
	s.target, s.binding, s.analysis, s.profile, s.runID = &t, b, a, prof, runID
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

func providerRefOf(p ports.Provider, version string) ProviderRef {
	info := p.Info()
	if version == "" {
		version = info.Version
	}
	return ProviderRef{ID: info.ID, Name: info.Name, Version: OptString(version)}
}

// status is a candidate status: code and reason null unless refused.
func status(st string, refused bool, code, reason string, diags []string) CandidateStatus {
	out := CandidateStatus{Status: st, Diagnostics: NonNil(diags)}
	if refused {
		out.Code, out.Reason = &code, &reason
	}
	return out
}

func handleBinarySession(ctx context.Context, c *Call) (any, error) {
	in, err := Input[BinarySessionInput](c)
	if err != nil {
		return nil, err
	}
	s := c.Session
	a, b, t := s.boundAnalysis()
	s.mu.Lock()
	prof, runID := s.profile, s.runID
	s.mu.Unlock()
	var lineage *ports.ProcessLineage // the engine's own retained observation, once its process is ready
	if lr, ok := a.(ports.LineageReporter); ok {
		if l := lr.ProcessLineage(ctx); l.Status != "" {
			lineage = &l
		}
	}
	out := &BinarySessionResult{Open: t != nil, Providers: []ProviderRef{}, AnalysisProviderCandidates: []ProviderCandidate{}}
	if t != nil {
		out.Path, out.SHA256, out.Format, out.Kind, out.Architecture = &t.Path, &t.SHA256, &t.Format, &t.Kind, OptString(t.Architecture)
		out.AnalysisRun = &AnalysisRun{RunID: runID, ProcessLineage: processLineage(b, a, lineage)}
	}
	if b != nil {
		ref := providerRefOf(b.Provider, a.Version())
		out.Provider = &ref
		out.AnalysisProviderBinding = &ProviderBindingState{Provider: ref, SelectionSource: string(b.Source), AnalysisProfile: prof}
	}
	for _, p := range s.reg.Providers() {
		out.Providers = append(out.Providers, providerRefOf(p, ""))
		av := p.Availability(ctx)
		cand := ProviderCandidate{Provider: providerRefOf(p, ""), Capabilities: []string{},
			Availability:  status("available", false, "", "", av.Diagnostics),
			TargetSupport: status("unknown", false, "", "", nil)}
		if !av.Available {
			cand.Availability = status("unavailable", true, av.Code, av.Reason, av.Diagnostics)
		}
		if t != nil {
			ts := p.Support(ctx, *t)
			cand.TargetSupport = status("supported", false, "", "", ts.Diagnostics)
			if !ts.Supported {
				cand.TargetSupport = status("unsupported", true, ts.Code, ts.Reason, ts.Diagnostics)
			}
		}
		cand.Selected = b != nil && b.Provider.Info().ID == p.Info().ID
		if cand.Selected {
			for _, cp := range ports.CapabilitiesOf(a) {
				cand.Capabilities = append(cand.Capabilities, cp.String())
			}
		}
		out.AnalysisProviderCandidates = append(out.AnalysisProviderCandidates, cand)
	}
	if c.Client != nil {
		out.ClientFeatures = c.Client.Features
	}
	out.ServerIdentity = s.serverIdentity(c, in)
	out.ToolAvailability = s.toolAvailability(ctx, a, b, t, in.Detail == "complete")
	return out, nil
}

// processLineage renders analysis_run.process_lineage: not_observed until an
// engine that launched a process reported a snapshot (an in-process engine
// such as rea-native never does), then that snapshot under its provider.
func processLineage(b *Binding, a ports.Analysis, l *ports.ProcessLineage) ProcessLineageView {
	if l == nil || b == nil {
		return ProcessLineageView{Status: "not_observed"}
	}
	at := l.ObservedAt.UTC().Format(timestampLayout)
	var obs any
	switch l.Status {
	case ports.LineageVerified:
		desc := make([]LineageProcess, len(l.Descendants))
		for i, d := range l.Descendants {
			desc[i] = LineageProcess{PID: d.PID, ParentPID: d.ParentPID, ProcessGroupID: d.ProcessGroupID}
		}
		obs = VerifiedLineage{Status: string(l.Status), ObservedAt: at, SchemaVersion: 1, LauncherPID: pidOrNull(l.LauncherPID),
			LauncherParentPID: pidOrNull(l.LauncherParentPID), ProcessGroupID: pidOrNull(l.ProcessGroupID), Descendants: desc}
	default:
		reason := l.Reason
		if reason == "" {
			reason = ports.LineageReasonNotRevalidated
		}
		obs = UnavailableLineage{Status: string(ports.LineageUnavailable), ObservedAt: at, LauncherPID: pidOrNull(l.LauncherPID),
			ProcessGroupID: pidOrNull(l.ProcessGroupID), Reason: reason}
	}
	return ProcessLineageView{Status: "snapshots", Snapshots: []LineageSnapshot{{Provider: providerRefOf(b.Provider, a.Version()), Observation: obs}}}
}

func pidOrNull(pid int) *int {
	if pid <= 0 {
		return nil
	}
	return &pid
}

func (s *Session) serverIdentity(c *Call, in BinarySessionInput) ServerIdentityResult {
	id := s.opts.Server
	cat := s.cat.Identity()
	var out ServerIdentityResult
	if c.Client != nil {
		if c.Client.Name != "" {
			out.Client = &struct {
				Name    string `json:"name"`
				Version string `json:"version"`
			}{c.Client.Name, c.Client.Version}
		}
		out.NegotiatedProtocolVersion = OptString(c.Client.ProtocolVersion)
	}
	var reasons []string
	expected := in.ExpectedPackageVersion != "" || in.ExpectedCatalogDigest != "" || in.ExpectedServerPath != ""
	if in.ExpectedPackageVersion != "" && in.ExpectedPackageVersion != id.Version {
		reasons = append(reasons, "package_version_mismatch")
	}
	if in.ExpectedCatalogDigest != "" && in.ExpectedCatalogDigest != cat.Combined {
		reasons = append(reasons, "catalog_digest_mismatch")
	}
	if in.ExpectedServerPath != "" && !samePath(in.ExpectedServerPath, id.CommandPath) {
		reasons = append(reasons, "registration_path_mismatch")
	}
	out.Alignment.State, out.Alignment.Reasons = "unknown", NonNil(reasons)
	switch {
	case len(reasons) > 0:
		out.Alignment.State = "mcp_server_restart_required"
		out.Alignment.Remediation = OptString("Restart the MCP server from the expected installation so the client talks to the rea it registered.")
	case expected:
		out.Alignment.State = "aligned"
	}
	started := ""
	if !id.StartedAt.IsZero() {
		started = id.StartedAt.UTC().Format(time.RFC3339Nano)
	}
	out.Package.Name, out.Package.Version, out.Package.RootPath, out.Package.BuildCommit = id.PackageName, id.Version, OptString(id.RootPath), OptString(id.BuildCommit)
	out.Server.Name, out.Server.Version, out.Server.StartedAt, out.Server.CommandPath = "rea", id.Version, OptString(started), OptString(id.CommandPath)
	out.SDK.Server, out.SDK.ClientTest, out.SDK.Core = OptString(id.SDKServer), OptString(id.SDKClientTest), "rea/core"
	out.Catalog.ToolsSHA256, out.Catalog.CombinedSHA256, out.Catalog.ToolCount = cat.Tools, cat.Combined, len(s.cat.ops)
	out.ProtocolFeatures.Progress, out.ProtocolFeatures.Cancellation, out.ProtocolFeatures.EvidenceResources = true, true, true
	return out
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
func (s *Session) toolAvailability(ctx context.Context, a ports.Analysis, b *Binding, t *ports.Target, complete bool) []ToolAvailability {
	out := make([]ToolAvailability, 0, len(s.cat.ops))
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
		entry := ToolAvailability{Name: op.Name, Available: avail, Reason: reason}
		if r, ok := rem.(string); ok {
			entry.Remediation = &r
		}
		if complete {
			ann := op.Effects.Annotations()
			entry.Surface, entry.Effects, entry.Annotations = "mcp", &op.Effects, &ann
			entry.ClientRequirements = &ClientRequirements{Required: []string{}, Optional: []string{}, MissingRequired: []string{}, MissingOptional: []string{}}
		}
		out = append(out, entry)
	}
	return out
}
