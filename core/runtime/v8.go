package runtime

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"rea/core"
	"rea/ports"
)

const locationSchema = `{"type":"object","required":["kind"],"properties":{"kind":{"enum":["file","url","unresolved"]},"file_path":{"type":"string"},"origin":{"type":"string"},"sanitized_url":{"type":"string"},"reported_url":{"type":"string"},"reason":{"type":"string"}}}`

const runtimeInfoSchema = `{"type":"object","additionalProperties":false,"required":["product","protocol_version","v8_version"],"properties":{"product":{"type":"string"},"protocol_version":{"type":"string"},"v8_version":{"type":["string","null"]}}}`

// ---- list_javascript_runtime_targets

func opListRuntimeTargets() *core.Operation {
	return &core.Operation{
		Name:  "list_javascript_runtime_targets",
		Title: "List JavaScript Runtime Targets",
		Description: "List the targets of a loopback V8 inspector endpoint (node --inspect=127.0.0.1:PORT, an Electron main process) without " +
			"attaching: each with its protocol type, attached flag and file-gated location, sorted by target_id, with counts of the " +
			"targets left out (outside the file roots or origins, builtin or unsupported locations, no validated WebSocket).",
		Kind:    core.KindApplication,
		Effects: passiveEffects,
		Input:   core.InputSchema([]string{"inspector_endpoint"}, propInspector, propRoots, propOrigins, propPage),
		Result: json.RawMessage(`{"type":"object","additionalProperties":false,"required":["schema_version","runtime","targets","excluded","limitations"],"properties":{
 "schema_version":{"const":1},
 "runtime":` + runtimeInfoSchema + `,
 "targets":{"type":"object","required":["items","total","offset","limit","next_offset"],"properties":{
   "items":{"type":"array","items":{"type":"object","additionalProperties":false,"required":["target_id","protocol_type","title","attached","location"],
     "properties":{"target_id":{"type":"string"},"protocol_type":{"type":"string"},"title":{"type":"string"},"attached":{"type":"boolean"},"location":` + locationSchema + `}}},
   "total":{"type":"integer","minimum":0},"offset":{"type":"integer","minimum":0},"limit":{"type":"integer","minimum":1},"next_offset":{"type":["integer","null"]}}},
 "excluded":{"type":"object","additionalProperties":false,"required":["outside_file_roots","outside_origins","unsupported_location","unconnectable"],"properties":{
   "outside_file_roots":{"type":"integer","minimum":0},"outside_origins":{"type":"integer","minimum":0},"unsupported_location":{"type":"integer","minimum":0},"unconnectable":{"type":"integer","minimum":0}}},
 "limitations":{"type":"array","items":{"type":"string"}}}}`),
		Examples:    ex(`{"inspector_endpoint":"http://127.0.0.1:9229"}`, `{"inspector_endpoint":"http://127.0.0.1:9229","allowed_file_roots":["/srv/app"]}`),
		Unavailable: runtimeUnavailable,
		Handler:     handleListRuntimeTargets,
	}
}

func runtimeInfo(r ports.RuntimeInfo) RuntimeInfo {
	return RuntimeInfo{Product: r.Product, ProtocolVersion: r.ProtocolVersion, V8Version: strPtr(r.V8Version)}
}

// locationFields is a location in BROWSER.md's schema order (kind first),
// as script keys hash it.
type locationFields struct {
	Kind         string `json:"kind"`
	FilePath     string `json:"file_path,omitempty"`
	Origin       string `json:"origin,omitempty"`
	SanitizedURL string `json:"sanitized_url,omitempty"`
	ReportedURL  string `json:"reported_url,omitempty"`
	Reason       string `json:"reason,omitempty"`
}

func locFields(l ports.RuntimeLocation) locationFields {
	return locationFields{Kind: l.Kind, FilePath: l.FilePath, Origin: l.Origin, SanitizedURL: l.URL, ReportedURL: l.ReportedURL, Reason: l.Reason}
}

// location is a location as results carry it: the members of its kind,
// even when empty.
func location(l ports.RuntimeLocation) RuntimeLocation {
	out := RuntimeLocation{Kind: l.Kind}
	switch l.Kind {
	case "file":
		out.FilePath = &l.FilePath
	case "url":
		out.Origin, out.SanitizedURL = &l.Origin, &l.URL
	case "unresolved":
		out.ReportedURL, out.Reason = &l.ReportedURL, &l.Reason
	}
	return out
}

func envID(r ports.RuntimeInfo) string {
	if r.V8Version != "" {
		return r.Product + "@" + r.V8Version
	}
	return r.Product
}

func handleListRuntimeTargets(ctx context.Context, c *core.Call) (any, error) {
	r, err := needRuntime(c, v8ProviderID)
	if err != nil {
		return nil, err
	}
	in, err := core.Input[ListJavaScriptRuntimeTargetsInput](c)
	if err != nil {
		return nil, err
	}
	c.Observe("listing inspector targets")
	l, err := r.ListRuntimeTargets(ctx, ports.RuntimeListRequest{Endpoint: in.InspectorEndpoint,
		Scope: ports.RuntimeScope{AllowedFileRoots: core.NonNil(in.AllowedFileRoots), AllowedOrigins: core.NonNil(in.AllowedOrigins)}})
	if err != nil {
		return nil, runtimeErr(c.Op.Name, err)
	}
	items := make([]RuntimeTarget, len(l.Targets))
	for i, t := range l.Targets {
		items[i] = RuntimeTarget{TargetID: t.TargetID, ProtocolType: t.ProtocolType, Title: t.Title, Attached: t.Attached, Location: location(t.Location)}
	}
	ex := l.Excluded
	res := &ListJavaScriptRuntimeTargetsResult{SchemaVersion: 1, Runtime: runtimeInfo(l.Runtime), Targets: page(items, in.Offset, in.Limit),
		Excluded: RuntimeTargetsExcluded{OutsideFileRoots: ex.OutsideFileRoots, OutsideOrigins: ex.OutsideOrigins,
			UnsupportedLocation: ex.UnsupportedLocation, Unconnectable: ex.Unconnectable},
		Limitations: core.NonNil(l.Limitations)}
	return observed(v8ProviderID, "1", envID(l.Runtime), "rea.javascript-runtime-target-list/v1", authorityExternal, res, nil), nil
}

// ---- observe_javascript_runtime

func opObserveRuntime() *core.Operation {
	return &core.Operation{
		Name:  "observe_javascript_runtime",
		Title: "Observe JavaScript Runtime",
		Description: "Attach to one V8 inspector target passively (enables and a pause skip only; no evaluation or " +
			"breakpoints) and record over an observation window the scripts it has loaded (file-gated locations, V8 content hashes, module " +
			"flag) and its execution contexts, with what cannot be observed without instrumentation. The result is valid input to " +
			"reconcile_javascript_runtime.",
		Kind:    core.KindApplication,
		Effects: passiveEffects,
		Input: core.InputSchema([]string{"inspector_endpoint", "target_id"}, propInspector, propTarget, propRoots, propOrigins,
			`"runtime_kind":{"enum":["node","electron-main","electron-preload","electron-renderer"],"description":"What the caller says the target is; node and electron-main need a node target, the others a page. Absent: unknown."}`,
			`"observation_ms":{"type":"integer","minimum":0,"maximum":60000,"default":100,"description":"Observation window in ms; 0 keeps only what the attach reports."}`,
			`"limits":{"type":"object","additionalProperties":false,"description":"Caps; events over them are dropped and counted.","properties":{
  "max_events":{"type":"integer","minimum":1,"maximum":100000,"default":10000},"max_scripts":{"type":"integer","minimum":1,"maximum":100000,"default":2000},
  "max_execution_contexts":{"type":"integer","minimum":1,"maximum":10000,"default":1000},"max_location_bytes":{"type":"integer","minimum":64,"maximum":65536,"default":16384},
  "max_total_metadata_bytes":{"type":"integer","minimum":1024,"maximum":67108864,"default":4194304}}}`),
		Result:      observationSchema,
		Examples:    ex(`{"inspector_endpoint":"http://127.0.0.1:9229","target_id":"0f2c6a0e-5b7d-4c1e-9a55-0d3f1b2c4e6a","runtime_kind":"node"}`, `{"inspector_endpoint":"http://127.0.0.1:9229","target_id":"0f2c6a0e-5b7d-4c1e-9a55-0d3f1b2c4e6a","observation_ms":500,"allowed_file_roots":["/srv/app"]}`),
		Unavailable: runtimeUnavailable,
		Handler:     handleObserveRuntime,
	}
}

var observationSchema = json.RawMessage(`{"type":"object","additionalProperties":false,
"required":["schema_version","runtime","target","capture","scripts","execution_contexts","directly_observed","unavailable_without_instrumentation","unknowns","limitations"],
"properties":{
 "schema_version":{"const":1},
 "runtime":` + runtimeInfoSchema + `,
 "target":{"type":"object","required":["target_id","protocol_type","title","location","runtime_kind","runtime_kind_authority"],"properties":{
   "target_id":{"type":"string"},"protocol_type":{"type":"string"},"title":{"type":"string"},"location":` + locationSchema + `,
   "runtime_kind":{"enum":["node","electron-main","electron-preload","electron-renderer","unknown"]},"runtime_kind_authority":{"enum":["caller-declared-unverified","not-declared"]}}},
 "capture":{"type":"object","required":["observation_ms","started_at","ended_at","events_observed","events_retained","events_dropped","metadata_bytes_retained","truncated","truncation_reasons"],"properties":{
   "observation_ms":{"type":"integer"},"started_at":{"type":"string"},"ended_at":{"type":"string"},"events_observed":{"type":"integer"},"events_retained":{"type":"integer"},
   "events_dropped":{"type":"integer"},"metadata_bytes_retained":{"type":"integer"},"truncated":{"type":"boolean"},"truncation_reasons":{"type":"array","items":{"type":"string"}}}},
 "scripts":{"type":"object","required":["items","observed_total","excluded"],"properties":{
   "items":{"type":"array","items":{"type":"object","additionalProperties":false,"required":["script_key","location","execution_context_key","cdp_hash","length","is_module","status"],
     "properties":{"script_key":{"type":"string","pattern":"^v8_script_[0-9a-f]{64}$"},"location":` + locationSchema + `,"execution_context_key":{"type":["string","null"]},
       "cdp_hash":{"type":"string"},"length":{"type":"integer","minimum":0},"is_module":{"type":"boolean"},"status":{"enum":["observed-loaded","observed-failed-to-parse"]}}}},
   "observed_total":{"type":"integer","minimum":0},
   "excluded":{"type":"object","required":["builtin","outside_file_roots","outside_origins","unsupported_location","invalid_protocol_value"],"properties":{
     "builtin":{"type":"integer"},"outside_file_roots":{"type":"integer"},"outside_origins":{"type":"integer"},"unsupported_location":{"type":"integer"},"invalid_protocol_value":{"type":"integer"}}}}},
 "execution_contexts":{"type":"array","items":{"type":"object","additionalProperties":false,"required":["context_key","state","name","origin"],"properties":{
   "context_key":{"type":"string"},"state":{"enum":["live","destroyed"]},"name":{"type":["string","null"]},"origin":{"type":["string","null"]}}}},
 "directly_observed":{"type":"array","items":{"type":"string"}},
 "unavailable_without_instrumentation":{"type":"array","items":{"type":"string"}},
 "unknowns":{"type":"array","items":{"type":"string"}},
 "limitations":{"type":"array","items":{"type":"string"}}}}`)

// stringify is JSON.stringify of a struct: fields in declaration order, no
// HTML escaping.
func stringify(v any) []byte {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.Encode(v)
	return bytes.TrimRight(b.Bytes(), "\n")
}

func sha(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

// contextKey names an execution context of a target.
func contextKey(targetID string, id int) string {
	return "v8_context_" + sha(stringify(struct {
		TargetID string `json:"target_id"`
		Context  int    `json:"execution_context_id"`
	}{targetID, id}))
}

// scriptKey is BROWSER.md's v8_script_ key: SHA-256 of the JSON text of
// {location, execution_context_key, cdp_hash, length, is_module} in that
// order (not JCS).
func scriptKey(loc ports.RuntimeLocation, ctxKey *string, hash string, length int, module bool) string {
	return "v8_script_" + sha(stringify(struct {
		Location locationFields `json:"location"`
		Context  *string        `json:"execution_context_key"`
		Hash     string         `json:"cdp_hash"`
		Length   int            `json:"length"`
		Module   bool           `json:"is_module"`
	}{locFields(loc), ctxKey, hash, length, module}))
}

func runtimeLimits(l *ObserveJavaScriptRuntimeLimits) ports.RuntimeLimits {
	if l == nil {
		return ports.RuntimeLimits{}
	}
	return ports.RuntimeLimits{MaxEvents: intOr(l.MaxEvents, 0), MaxScripts: intOr(l.MaxScripts, 0), MaxContexts: intOr(l.MaxExecutionContexts, 0),
		MaxLocationBytes: intOr(l.MaxLocationBytes, 0), MaxTotalMetadataSize: intOr(l.MaxTotalMetadataBytes, 0)}
}

func handleObserveRuntime(ctx context.Context, c *core.Call) (any, error) {
	r, err := needRuntime(c, v8ProviderID)
	if err != nil {
		return nil, err
	}
	in, err := core.Input[ObserveJavaScriptRuntimeInput](c)
	if err != nil {
		return nil, err
	}
	req := ports.RuntimeObserveRequest{Endpoint: in.InspectorEndpoint, TargetID: in.TargetID, RuntimeKind: in.RuntimeKind, ObservationMS: intOr(in.ObservationMS, 100),
		Scope:  ports.RuntimeScope{AllowedFileRoots: core.NonNil(in.AllowedFileRoots), AllowedOrigins: core.NonNil(in.AllowedOrigins)},
		Limits: runtimeLimits(in.Limits)}
	c.Observe(fmt.Sprintf("observing the runtime over %d ms", req.ObservationMS))
	o, err := r.ObserveRuntime(ctx, req)
	if err != nil {
		// A target lost mid-window (disconnected) keeps what was seen
		// before: the error carries it, as a capture's does.
		return nil, withPartial(runtimeErr(c.Op.Name, err), err, func(o *ports.RuntimeObservation) any { return normalizeObservation(o, in.RuntimeKind) },
			"The observed process ended (or closed its inspector) during the window; details.partial_observation holds what it reported before. "+
				"rea did not start it: read its own output or exit status for the cause, then start it again with --inspect=127.0.0.1:PORT "+
				"and observe with a window that ends before it exits.")
	}
	res := normalizeObservation(o, in.RuntimeKind)
	return observed(v8ProviderID, "1", envID(o.Runtime), "rea.javascript-runtime-observation/v1", authorityExternal, res, nil), nil
}

// withPartial adds to ce, the classified error of a call whose engine
// failed with err, what a *ports.PartialError[T] in err saw before the
// loss (details.partial_observation, normalized) and remediation.
func withPartial[T any](ce, err error, normalize func(*T) any, remediation string) error {
	var pe *ports.PartialError[T]
	if e, ok := ce.(*core.Error); ok && errors.As(err, &pe) && pe.Partial != nil && e.Details != nil {
		e.Details["partial_observation"] = normalize(pe.Partial)
		e.Remediation = remediation
	}
	return ce
}

func normalizeObservation(o *ports.RuntimeObservation, kind string) *ObserveJavaScriptRuntimeResult {
	authority := "caller-declared-unverified"
	if kind == "" {
		kind, authority = "unknown", "not-declared"
	}
	ctxKeys := map[int]string{}
	contexts := make([]RuntimeExecutionContext, 0, len(o.Contexts))
	for _, cx := range o.Contexts {
		k := contextKey(o.Target.TargetID, cx.ContextID)
		ctxKeys[cx.ContextID] = k
		contexts = append(contexts, RuntimeExecutionContext{ContextKey: k, State: cx.State, Origin: strPtr(cx.Origin)})
	}
	slices.SortFunc(contexts, func(a, b RuntimeExecutionContext) int { return strings.Compare(a.ContextKey, b.ContextKey) })
	seen := map[string]bool{}
	scripts := make([]RuntimeScript, 0, len(o.Scripts))
	for _, s := range o.Scripts {
		var ck *string
		if k, ok := ctxKeys[s.ContextID]; ok {
			ck = &k
		} else if s.ContextID > 0 {
			k := contextKey(o.Target.TargetID, s.ContextID)
			ck = &k
		}
		key := scriptKey(s.Location, ck, s.CDPHash, s.Length, s.IsModule)
		if seen[key] {
			continue
		}
		seen[key] = true
		status := "observed-loaded"
		if s.Failed {
			status = "observed-failed-to-parse"
		}
		scripts = append(scripts, RuntimeScript{ScriptKey: key, Location: location(s.Location), ExecutionContextKey: ck,
			CDPHash: s.CDPHash, Length: s.Length, IsModule: s.IsModule, Status: status})
	}
	slices.SortFunc(scripts, func(a, b RuntimeScript) int { return strings.Compare(a.ScriptKey, b.ScriptKey) })
	ex := o.Excluded
	unknowns := []string{"Scripts V8 had already collected before the attach are not reported."}
	if len(o.TruncationReasons) > 0 {
		unknowns = append(unknowns, "Events over the limits were dropped; the script list is incomplete.")
	}
	lims := append([]string{}, o.Limitations...)
	lims = append(lims, "cdp_hash is V8's content hash of the script source (SHA-256 of the source text); a wrapped or transpiled source differs from the file on disk.")
	return &ObserveJavaScriptRuntimeResult{
		SchemaVersion: 1,
		Runtime:       runtimeInfo(o.Runtime),
		Target: ObservedRuntimeTarget{TargetID: o.Target.TargetID, ProtocolType: o.Target.ProtocolType, Title: o.Target.Title,
			Location: location(o.Target.Location), RuntimeKind: kind, RuntimeKindAuthority: authority},
		Capture: RuntimeCapture{ObservationMS: o.ObservationMS, StartedAt: o.StartedAt.Format(time.RFC3339Nano), EndedAt: o.EndedAt.Format(time.RFC3339Nano),
			EventsObserved: o.EventsObserved, EventsRetained: o.EventsRetained, EventsDropped: o.EventsDropped,
			MetadataBytesRetained: o.MetadataBytes, Truncated: len(o.TruncationReasons) > 0, TruncationReasons: core.NonNil(o.TruncationReasons)},
		Scripts: RuntimeScripts{Items: scripts, ObservedTotal: o.ScriptsObserved,
			Excluded: RuntimeScriptsExcluded{Builtin: ex.Builtin, OutsideFileRoots: ex.OutsideFileRoots, OutsideOrigins: ex.OutsideOrigins,
				UnsupportedLocation: ex.UnsupportedLocation, InvalidProtocolValue: ex.InvalidProtocolValue}},
		ExecutionContexts: contexts,
		DirectlyObserved:  []string{"parsed scripts with their V8 content hashes and lengths", "execution contexts created and destroyed during the window"},
		UnavailableWithoutInstrumentation: []string{"function calls and module evaluation order", "console output", "network and file system activity",
			workersUnavailable(o.Target.ProtocolType), "heap contents and values"},
		Unknowns:    unknowns,
		Limitations: lims,
	}
}

// workersUnavailable says where a target's workers are: a Node program's
// worker threads are reached through the NodeWorker domain, which a
// passive observation does not enable; a page's workers are targets of
// their own.
func workersUnavailable(protocolType string) string {
	if protocolType == "node" {
		return "worker thread scripts (the NodeWorker domain is not enabled by a passive observation)"
	}
	return "scripts of the workers the target started (each worker is a target of its own, which list_javascript_runtime_targets lists)"
}
