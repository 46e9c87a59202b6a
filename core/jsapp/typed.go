package jsapp

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"

	"rea/core"
)

// AnalyzeApplicationInput is analyze_javascript_application's input for a
// complete analysis; zero values take the operation's defaults.
type AnalyzeApplicationInput struct {
	Path              string `json:"path"`                          // an application directory, .asar or ZIP archive, or JavaScript file
	Format            string `json:"format,omitempty"`              // "auto" (default), "asar", "directory" or "zip"
	IntegrityPolicy   string `json:"integrity_policy,omitempty"`    // "fail" (default) or "record-and-continue"
	AnalysisTimeoutMS int    `json:"analysis_timeout_ms,omitempty"` // default 300000
	MaxHeapMB         int    `json:"max_heap_mb,omitempty"`         // accepted for compatibility; rea bounds memory itself
}

// Application is the complete JavaScript Application Graph result (graph
// schema_version 3, the lean form: decode Graph with DecodeGraph).
// The graph's parts stay JSON: their shapes are documented by the
// operation's result schema and CONTRACTS.md §16.
type Application struct {
	SchemaVersion           int               `json:"schema_version"`
	InputPath               string            `json:"input_path"`
	Format                  string            `json:"format"`
	RootArtifactSHA256      string            `json:"root_artifact_sha256"`
	InventoryManifestID     string            `json:"inventory_manifest_id"`
	InventoryGraphSHA256    string            `json:"inventory_graph_sha256"`
	Statistics              map[string]int    `json:"statistics"`
	Summary                 map[string]int    `json:"summary"`
	Electron                json.RawMessage   `json:"electron"`
	Coverage                json.RawMessage   `json:"coverage"`
	Graph                   json.RawMessage   `json:"graph"`
	SemanticGraph           json.RawMessage   `json:"semantic_graph"`
	StringIndex             []json.RawMessage `json:"string_index"`
	IntegrityContradictions []json.RawMessage `json:"integrity_contradictions"`
	Limitations             []string          `json:"limitations"`
	Unknowns                []json.RawMessage `json:"unknowns"`
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
