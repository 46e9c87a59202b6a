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
	ProcedureList  string             `json:"procedure_list"` // "complete", or "tables": the procedures known from tables, discovery not awaited
	SegmentCount   int                `json:"segment_count"`
	StringCount    int                `json:"string_count"`
	NameCount      *int               `json:"name_count"`
	Stripped       *bool              `json:"stripped"`   // no static symbol table (.symtab) beyond the dynamic symbols; null when the provider does not tell
	DebugInfo      *bool              `json:"debug_info"` // the file keeps DWARF; null when the provider does not tell
	DebugLink      *string            `json:"debug_link"` // the separate debug file the file names (.gnu_debuglink, a PE's PDB), not necessarily read; null when none or untold
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
type ProcedureSummary struct {
	Address   string                            `json:"address"`
	Value     string                            `json:"value"` // the procedure's name, or sub_<address> when it has none
	Symbol    *string                           `json:"symbol"`
	Size      *string                           `json:"size"`
	Source    string                            `json:"source"`
	Procedure ListProceduresResultItemProcedure `json:"procedure"`
	Demangled *string                           `json:"demangled,omitempty"` // the C++ or Rust name demangled; absent when not mangled
	Parts     []ProcedurePartSummary            `json:"parts,omitempty"`     // the body's other ranges (gcc's f.cold); absent when none
}

// StringSummary is a listed string (list_strings' item).
type StringSummary struct {
	Address    string `json:"address"`
	Value      string `json:"value"`
	Charset    string `json:"charset"`
	ByteLength int    `json:"byte_length"`
	Truncated  bool   `json:"truncated"` // value was cut at the provider's maximum string length; byte_length is the full length
	FileOffset string `json:"file_offset"`
	Section    string `json:"section"`
}

// BinaryOverview runs binary_overview.
func BinaryOverview(ctx context.Context, s *core.Session, in OverviewInput) (Overview, *core.Evidence, error) {
	return core.Invoke[Overview](ctx, s, "binary_overview", in)
}

// AnalyzeFunctionInput is analyze_function's input; zero values take the
// operation's defaults.
type AnalyzeFunctionInput struct {
	Procedure          string             `json:"procedure"` // a name or an address (0x hex or decimal)
	IncludeAssembly    bool               `json:"include_assembly,omitempty"`
	MaxInstructions    int                `json:"max_instructions,omitempty"`
	MaxPseudocodeChars int                `json:"max_pseudocode_chars,omitempty"`
	PseudocodeOffset   int                `json:"pseudocode_offset,omitempty"`
	Offset             int                `json:"offset,omitempty"`          // the assembly page's first instruction
	AssemblyOffset     int                `json:"assembly_offset,omitempty"` // offset's old name (the reference contract's); give Offset
	Limit              int                `json:"limit,omitempty"`
	CollectionOffset   *CollectionOffsets `json:"collection_offset,omitempty"`
	Detail             string             `json:"detail,omitempty"` // "concise" (default) or "complete"
}

// CollectionOffsets is the first item of each dossier collection's page
// (PROVIDERS.md §1.9: one offset per collection, each 0 when absent);
// NativeValueFlow pages every list of native_value_flow.
type CollectionOffsets struct {
	Comments           int `json:"comments,omitempty"`
	Callers            int `json:"callers,omitempty"`
	Callees            int `json:"callees,omitempty"`
	IncomingReferences int `json:"incoming_references,omitempty"`
	OutgoingReferences int `json:"outgoing_references,omitempty"`
	ReferencedStrings  int `json:"referenced_strings,omitempty"`
	ReferencedNames    int `json:"referenced_names,omitempty"`
	BasicBlocks        int `json:"basic_blocks,omitempty"`
	UnresolvedCalls    int `json:"unresolved_calls,omitempty"`
	NativeValueFlow    int `json:"native_value_flow,omitempty"`
}

// Collection is one page of a dossier collection.
type Collection[T any] struct {
	Items      []T  `json:"items"`
	Returned   int  `json:"returned"`
	Total      *int `json:"total"`
	Truncated  bool `json:"truncated"`
	NextOffset *int `json:"next_offset"`
}

// DossierComment is an analyst's comment inside a dossier's procedure:
// Kind "comment" (on the line before Address) or "inline" (at the end of
// its line).
type DossierComment struct {
	Address string `json:"address"`
	Kind    string `json:"kind"`
	Text    string `json:"text"`
}

// DossierBlock is a basic block of a dossier.
type DossierBlock struct {
	Start        string        `json:"start"`
	End          string        `json:"end"`
	Instructions int           `json:"instructions"`
	Successors   []DossierEdge `json:"successors"`
	// Handler is the kind of the exception handler the block begins (CIL),
	// Catches the type a catch handler catches.
	Handler string `json:"handler,omitempty"`
	Catches string `json:"catches,omitempty"`
}

// DossierEdge is a successor of a DossierBlock; Target is nil for an
// unresolved edge.
type DossierEdge struct {
	Kind   string  `json:"kind"`
	Target *string `json:"target"`
}

// ReferencedString is a string a procedure references, with the
// referencing instructions: SourceAddress is the first of them (the lowest
// address), From all of them in the order the references were listed.
type ReferencedString struct {
	Address       string   `json:"address"`
	Value         string   `json:"value"`
	Charset       string   `json:"charset"`
	Truncated     bool     `json:"truncated"`
	SourceAddress string   `json:"source_address"`
	From          []string `json:"from"`
}

// ReferencedName is a named address a procedure references, with the
// referencing instructions as in ReferencedString.
type ReferencedName struct {
	Address       string   `json:"address"`
	Name          string   `json:"name"`
	Kinds         []string `json:"kinds"`
	SourceAddress string   `json:"source_address"`
	From          []string `json:"from"`
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

// Dossier is analyze_function's result. NativeAPI holds a NativeAPI, a
// NativeAPIUnavailable or null, and NativeValueFlow a ValueFlow or a
// ValueFlowUnavailable: unions of typed shapes, kept encoded so that a
// caller decodes the one the "available" or "status" member names.
type Dossier struct {
	Procedure          DossierProcedure                                   `json:"procedure"`
	Pseudocode         Pseudocode                                         `json:"pseudocode"`
	Assembly           Collection[ReadFunctionInstructionsResultItem]     `json:"assembly"`
	BasicBlocks        Collection[DossierBlock]                           `json:"basic_blocks"`
	Comments           Collection[DossierComment]                         `json:"comments"`
	Callers            Collection[ProcedureCallersResultItem]             `json:"callers"`
	Callees            Collection[ProcedureCalleesResultItem]             `json:"callees"`
	IncomingReferences Collection[ProcedureReferencesResultItemReference] `json:"incoming_references"`
	OutgoingReferences Collection[ProcedureReferencesResultItemReference] `json:"outgoing_references"`
	ReferencedStrings  Collection[ReferencedString]                       `json:"referenced_strings"`
	ReferencedNames    Collection[ReferencedName]                         `json:"referenced_names"`
	UnresolvedCalls    Collection[ProcedureCalleesResultUnresolvedItem]   `json:"unresolved_calls"`
	InstructionScan    InstructionScan                                    `json:"instruction_scan"`
	NativeAPI          json.RawMessage                                    `json:"native_api"`
	NativeValueFlow    json.RawMessage                                    `json:"native_value_flow"`
	Limitations        []string                                           `json:"limitations"`
}

// NativeAPI is a procedure's derived interface (native_api when available).
type NativeAPI struct {
	Available         bool              `json:"available"` // true
	CallingConvention *string           `json:"calling_convention"`
	Parameters        []NativeParameter `json:"parameters"`
	ReturnType        *string           `json:"return_type"`
	Variadic          bool              `json:"variadic"`
	JumpTables        []JumpTable       `json:"jump_tables"`
	SignatureSource   string            `json:"signature_source"`
	Provenance        []string          `json:"provenance"`
	Pseudocode        *string           `json:"pseudocode"`
	// SwitchesTotal and SwitchesTruncated are set when the provider's
	// decompiler recovers jump tables (Ghidra's HighFunction): how many it
	// recovered, and whether jump_tables carries fewer of them.
	SwitchesTotal     *int  `json:"switches_total,omitempty"`
	SwitchesTruncated *bool `json:"switches_truncated,omitempty"`
}

// NativeParameter is a parameter of a NativeAPI.
type NativeParameter struct {
	Name     *string `json:"name"`
	Type     *string `json:"type"`
	Location *string `json:"location"`
	// Constant is the value a specialized copy (name.constprop.0) has for
	// the parameter, which it takes no argument for (location "none").
	Constant *string `json:"constant,omitempty"`
}

// JumpTable is a block's jump-table targets, with the switch the
// provider's decompiler recovered there when it recovers them.
type JumpTable struct {
	Block   string   `json:"block"`
	Targets []string `json:"targets"`
	Switch  *Switch  `json:"switch,omitempty"`
}

// Switch is a computed jump and its table as a decompiler recovered them:
// the tables in memory it reads (data sources) and its cases (mappings),
// each capped by the provider with its total and whether it was cut.
type Switch struct {
	Address              string         `json:"address"`
	DataSources          []SwitchSource `json:"data_sources"`
	DataSourcesTotal     int            `json:"data_sources_total"`
	DataSourcesTruncated bool           `json:"data_sources_truncated"`
	Mappings             []SwitchCase   `json:"mappings"`
	MappingsTotal        int            `json:"mappings_total"`
	MappingsTruncated    bool           `json:"mappings_truncated"`
}

// SwitchSource is a table a Switch reads.
type SwitchSource struct {
	Address   string `json:"address"`
	EntrySize int    `json:"entry_size"`
	Entries   int    `json:"entries"`
}

// SwitchCase is one case of a Switch; Value is nil for a case without a
// label (a default).
type SwitchCase struct {
	Value  *int64 `json:"value"`
	Target string `json:"target"`
}

// NativeAPIUnavailable is native_api when nothing describes the procedure.
type NativeAPIUnavailable struct {
	Available        bool     `json:"available"` // false
	Reason           string   `json:"reason"`
	ResidualUnknowns []string `json:"residual_unknowns"`
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

// ProcedureRef names a procedure by address and name (its symbol, or
// sub_<address>).
type ProcedureRef struct {
	Address string `json:"address"`
	Name    string `json:"name"`
}

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
