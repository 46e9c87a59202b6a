package binary

import (
	"context"
	"encoding/json"

	"rea/core"
)

// Typed functions for Go programs that embed rea: each runs one of this
// family's operations on a session with an open target (core.OpenBinary)
// and returns its result as a Go value with the sealed Evidence. The
// types are checked against the operations' schemas (typed_test.go), so a
// schema change that the type does not follow fails the build's tests.

// OverviewInput is binary_overview's input.
type OverviewInput struct {
	Detail string `json:"detail,omitempty"` // "concise" (default) or "detailed"
	Limit  int    `json:"limit,omitempty"`  // procedures and strings a detailed overview samples (1-50, default 10)
}

// Overview is binary_overview's result. Addresses are 0x hex strings.
type Overview struct {
	Detail         string             `json:"detail"`
	Document       string             `json:"document"`
	Format         string             `json:"format"`
	Architecture   *string            `json:"architecture"`
	Entry          *string            `json:"entry"`
	ProcedureCount int                `json:"procedure_count"`
	SegmentCount   int                `json:"segment_count"`
	StringCount    int                `json:"string_count"`
	NameCount      *int               `json:"name_count"`
	Segments       []OverviewSegment  `json:"segments"`
	Procedures     []ProcedureSummary `json:"procedures"`
	Strings        []StringSummary    `json:"strings"`
}

// OverviewSegment is one segment of an Overview.
type OverviewSegment struct {
	Name   string `json:"name"`
	Start  string `json:"start"`
	End    string `json:"end"`
	Length string `json:"length"`
}

// ProcedureSummary is a listed procedure (list_procedures' item).
type ProcedureSummary = procedureItem

// StringSummary is a listed string (list_strings' item).
type StringSummary = stringItem

// BinaryOverview runs binary_overview.
func BinaryOverview(ctx context.Context, s *core.Session, in OverviewInput) (Overview, *core.Evidence, error) {
	return core.Invoke[Overview](ctx, s, "binary_overview", in)
}

// AnalyzeFunctionInput is analyze_function's input; zero values take the
// operation's defaults.
type AnalyzeFunctionInput struct {
	Procedure          string `json:"procedure"` // a name or an address (0x hex or decimal)
	IncludeAssembly    bool   `json:"include_assembly,omitempty"`
	MaxInstructions    int    `json:"max_instructions,omitempty"`
	MaxPseudocodeChars int    `json:"max_pseudocode_chars,omitempty"`
	PseudocodeOffset   int    `json:"pseudocode_offset,omitempty"`
	AssemblyOffset     int    `json:"assembly_offset,omitempty"`
	Limit              int    `json:"limit,omitempty"`
	CollectionOffset   int    `json:"collection_offset,omitempty"`
	Detail             string `json:"detail,omitempty"` // "concise" (default) or "complete"
}

// DossierPage is one page of a dossier collection. Items stay JSON: each
// collection's item shape is documented by the operation's result schema.
type DossierPage struct {
	Items      []json.RawMessage `json:"items"`
	Returned   int               `json:"returned"`
	Total      *int              `json:"total"`
	Truncated  bool              `json:"truncated"`
	NextOffset *int              `json:"next_offset"`
}

// DossierProcedure is the procedure a dossier is about.
type DossierProcedure struct {
	Address        string   `json:"address"`
	Name           string   `json:"name"`
	Signature      *string  `json:"signature"`
	Classification *string  `json:"classification"`
	Locals         []string `json:"locals"`
	End            string   `json:"end"`
	EndSource      string   `json:"end_source"`
	Source         string   `json:"source"`
}

// Pseudocode is a dossier's pseudo-code section.
type Pseudocode struct {
	Available     bool    `json:"available"`
	Reason        *string `json:"reason"`
	Text          *string `json:"text"`
	ReturnedChars int     `json:"returned_chars"`
	TotalChars    *int    `json:"total_chars"`
	Truncated     bool    `json:"truncated"`
	NextOffset    *int    `json:"next_offset"`
}

// InstructionScan says how much of the procedure was decoded.
type InstructionScan struct {
	Scanned   int  `json:"scanned"`
	Truncated bool `json:"truncated"`
}

// Dossier is analyze_function's result.
type Dossier struct {
	Procedure          DossierProcedure `json:"procedure"`
	Pseudocode         Pseudocode       `json:"pseudocode"`
	Assembly           DossierPage      `json:"assembly"`
	BasicBlocks        DossierPage      `json:"basic_blocks"`
	Comments           DossierPage      `json:"comments"`
	Callers            DossierPage      `json:"callers"`
	Callees            DossierPage      `json:"callees"`
	IncomingReferences DossierPage      `json:"incoming_references"`
	OutgoingReferences DossierPage      `json:"outgoing_references"`
	ReferencedStrings  DossierPage      `json:"referenced_strings"`
	ReferencedNames    DossierPage      `json:"referenced_names"`
	UnresolvedCalls    DossierPage      `json:"unresolved_calls"`
	InstructionScan    InstructionScan  `json:"instruction_scan"`
	NativeAPI          json.RawMessage  `json:"native_api"`
	NativeValueFlow    json.RawMessage  `json:"native_value_flow"`
	Limitations        []string         `json:"limitations"`
}

// AnalyzeFunction runs analyze_function: one function's dossier.
func AnalyzeFunction(ctx context.Context, s *core.Session, in AnalyzeFunctionInput) (Dossier, *core.Evidence, error) {
	return core.Invoke[Dossier](ctx, s, "analyze_function", in)
}

// CallGraphInput is get_call_graph's input.
type CallGraphInput struct {
	Address   string `json:"address"`             // the root procedure: an address or a name
	Depth     int    `json:"depth,omitempty"`     // 1-5, default 2
	Direction string `json:"direction,omitempty"` // "forward" (default) or "backward"
	MaxNodes  int    `json:"max_nodes,omitempty"` // 1-500, default 48
}

// ProcedureRef names a procedure by address and name.
type ProcedureRef = procRef

// CallGraphNode is one procedure of a call graph.
type CallGraphNode struct {
	Address         string `json:"address"`
	Name            string `json:"name"`
	Depth           int    `json:"depth"`
	Procedure       bool   `json:"procedure"`
	External        bool   `json:"external"`
	Thunk           bool   `json:"thunk"`
	UnresolvedCalls int    `json:"unresolved_calls"`
	Expanded        bool   `json:"expanded"`
}

// CallGraphEdge is one call (or tail call) between two procedures.
type CallGraphEdge struct {
	From      string   `json:"from"`
	To        string   `json:"to"`
	Kind      string   `json:"kind"`
	CallSites []string `json:"call_sites"`
}

// CallGraph is get_call_graph's result.
type CallGraph struct {
	Root      ProcedureRef    `json:"root"`
	Direction string          `json:"direction"`
	Depth     int             `json:"depth"`
	Nodes     []CallGraphNode `json:"nodes"`
	Edges     []CallGraphEdge `json:"edges"`
	Truncated bool            `json:"truncated"`
}

// GetCallGraph runs get_call_graph.
func GetCallGraph(ctx context.Context, s *core.Session, in CallGraphInput) (CallGraph, *core.Evidence, error) {
	return core.Invoke[CallGraph](ctx, s, "get_call_graph", in)
}
