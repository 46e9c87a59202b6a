package jsapp

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"

	"rea/core"
	"rea/core/artifact"
)

// AnalyzeApplicationInput is analyze_javascript_application's input for a
// complete analysis; zero values take the operation's defaults.
type AnalyzeApplicationInput struct {
	Path              string `json:"path"`                          // an application directory, .asar or ZIP archive, or JavaScript file
	Format            string `json:"format,omitempty"`              // "auto" (default), "asar", "directory", "zip" or "tar"
	IntegrityPolicy   string `json:"integrity_policy,omitempty"`    // "fail" (default) or "record-and-continue"
	AnalysisTimeoutMS int    `json:"analysis_timeout_ms,omitempty"` // default 300000
	MaxHeapMB         int    `json:"max_heap_mb,omitempty"`         // accepted for compatibility; rea bounds memory itself
}

// Application is the complete JavaScript Application Graph result (graph
// schema_version 4, the lean form of docs/jsapp-graph.md). Graph,
// SemanticGraph and StringIndex are the lean parts as canonical JSON,
// encoded once when the analysis sealed them and written as they are into
// its Evidence: expand them with DecodeGraph (the graph) or read them as
// the operation's result schema says.
type Application struct {
	SchemaVersion           int                      `json:"schema_version"`
	InputPath               string                   `json:"input_path"`
	Format                  string                   `json:"format"`
	RootArtifactSHA256      string                   `json:"root_artifact_sha256"`
	InventoryManifestID     string                   `json:"inventory_manifest_id"`
	InventoryGraphSHA256    string                   `json:"inventory_graph_sha256"`
	Statistics              map[string]int           `json:"statistics"`
	Summary                 map[string]int           `json:"summary"`
	Electron                AppElectron              `json:"electron"`
	Coverage                GraphCoverage            `json:"coverage"`
	Graph                   core.Canonical           `json:"graph"`
	SemanticGraph           core.Canonical           `json:"semantic_graph"`
	StringIndex             core.Canonical           `json:"string_index"`
	IntegrityContradictions []artifact.Contradiction `json:"integrity_contradictions"`
	Limitations             []string                 `json:"limitations"`
	Unknowns                []AppUnknown             `json:"unknowns"`

	small int // the length of the canonical form of the members other than the lean parts, when known
}

// CanonicalSize bounds the length of the result's canonical form, so that
// the Evidence's copy of it is made at once rather than grown.
func (a *Application) CanonicalSize() int {
	return a.Graph.Len() + a.SemanticGraph.Len() + a.StringIndex.Len() + a.small + 4096
}

// AppElectron is what an analysis found of Electron: process scripts,
// windows, context-bridge APIs and IPC channels.
type AppElectron struct {
	Detected          bool     `json:"detected"`
	Main              []string `json:"main"`
	Preload           []string `json:"preload"`
	Renderer          []string `json:"renderer"`
	Utility           []string `json:"utility"`
	BrowserWindows    int      `json:"browser_windows"`
	ContextBridgeAPIs []string `json:"context_bridge_apis"`
	IPC               AppIPC   `json:"ipc"`
}

// AppIPC counts IPC channels and names the paired and unresolved ones.
type AppIPC struct {
	Channels   int             `json:"channels"`
	Paired     []string        `json:"paired"`
	Unresolved []AppIPCChannel `json:"unresolved"`
	Dynamic    int             `json:"dynamic"`
}

// AppIPCChannel is an IPC channel that is not paired, and why.
type AppIPCChannel struct {
	Channel string `json:"channel"`
	Status  string `json:"status"`
}

// AppUnknown is something the analysis could not resolve, where.
type AppUnknown struct {
	Kind   string  `json:"kind"`
	NodeID *string `json:"node_id"`
	Path   string  `json:"path"`
	Offset *int64  `json:"offset"`
	Detail string  `json:"detail"`
}

// applicationOf is the builder's result as an Application: the lean parts
// are taken as they are, the small records re-read into their types.
func applicationOf(res map[string]any) (*Application, error) {
	app := &Application{}
	var ok [4]bool
	app.Graph, ok[0] = res["graph"].(core.Canonical)
	app.SemanticGraph, ok[1] = res["semantic_graph"].(core.Canonical)
	app.StringIndex, ok[2] = res["string_index"].(core.Canonical)
	app.IntegrityContradictions, ok[3] = res["integrity_contradictions"].([]artifact.Contradiction)
	if ok != [4]bool{true, true, true, true} {
		return nil, fmt.Errorf("analyze_javascript_application: the result's parts have unexpected types")
	}
	small := map[string]any{}
	for k, v := range res {
		switch k {
		case "graph", "semantic_graph", "string_index", "integrity_contradictions":
		default:
			small[k] = v
		}
	}
	b, err := core.CanonicalJSON(small)
	if err != nil {
		return nil, err
	}
	c, err := core.CanonicalJSON(app.IntegrityContradictions)
	if err != nil {
		return nil, err
	}
	app.small = len(b) + len(c)
	return app, json.Unmarshal(b, app)
}

// digestWithout is the Digest a typed result's ID is taken from: the
// result's canonical form without its (still empty) ID member, as the map
// results digested before their ID was added.
func digestWithout(v any, idKey string) string {
	b, err := core.CanonicalJSON(v)
	if err != nil {
		panic(fmt.Sprintf("jsapp: %T does not encode: %v", v, err)) // rea's own types always encode
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var m map[string]any
	if err := dec.Decode(&m); err != nil {
		panic(fmt.Sprintf("jsapp: %T does not decode: %v", v, err))
	}
	delete(m, idKey)
	return core.MustDigest(m)
}

// analyzeArgs is the wire input: a typed call always asks for the complete
// analysis.
type analyzeArgs struct {
	AnalyzeApplicationInput
	Detail string `json:"detail"`
}

// AnalyzeApplication runs analyze_javascript_application on in.Path and
// returns the complete application graph with its Evidence. It needs no
// open target.
func AnalyzeApplication(ctx context.Context, s *core.Session, in AnalyzeApplicationInput) (Application, *core.Evidence, error) {
	return core.Invoke[Application](ctx, s, "analyze_javascript_application", analyzeArgs{in, "complete"})
}
