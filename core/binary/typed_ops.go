package binary

import (
	"encoding/json"

	"rea/core"
)

// The Go input and result type of each of this family's operations,
// registered as Family.Types. The schemas stay the contract: core/standard's
// TestEveryOperationIsTyped fails when a type and its schema differ.

// ListDocumentsInput is the input of list_documents.
type ListDocumentsInput struct {
}

// ListDocumentsResultItem is part of the result of list_documents.
type ListDocumentsResultItem struct {
	Name         string  `json:"name"`
	Format       string  `json:"format"`
	Architecture *string `json:"architecture"`
	Entry        *string `json:"entry"`
	Current      bool    `json:"current"`
}

// ListDocumentsResult is the result of list_documents.
type ListDocumentsResult struct {
	Items []ListDocumentsResultItem `json:"items"`
	Total int                       `json:"total"`
}

// ListSegmentsInput is the input of list_segments.
type ListSegmentsInput struct {
	Document string `json:"document,omitempty"` // Document name from list_documents; defaults to the current document.
}

// ListSegmentsResultItemPermissions is part of the result of list_segments.
type ListSegmentsResultItemPermissions struct {
	Read    bool `json:"read"`
	Write   bool `json:"write"`
	Execute bool `json:"execute"`
}

// ListSegmentsResultItem is part of the result of list_segments.
type ListSegmentsResultItem struct {
	Name        string                            `json:"name"`
	Kind        string                            `json:"kind"`
	Start       string                            `json:"start"`
	End         string                            `json:"end"`
	Length      string                            `json:"length"`
	FileOffset  string                            `json:"file_offset"`
	FileSize    string                            `json:"file_size"`
	Permissions ListSegmentsResultItemPermissions `json:"permissions"`
}

// ListSegmentsResult is the result of list_segments.
type ListSegmentsResult struct {
	Items []ListSegmentsResultItem `json:"items"`
	Total int                      `json:"total"`
}

// ListProceduresInput is the input of list_procedures.
type ListProceduresInput struct {
	Document string `json:"document,omitempty"` // Document name from list_documents; defaults to the current document.
	Limit    *int   `json:"limit,omitempty"`    // Maximum number of items to return (1-500).
	Offset   *int   `json:"offset,omitempty"`   // Index of the first item to return.
}

// ListProceduresResultItemProcedure is part of the result of list_procedures.
type ListProceduresResultItemProcedure struct {
	External    bool    `json:"external"`
	Thunk       bool    `json:"thunk"`
	ThunkTarget *string `json:"thunk_target"`
	// IFuncResolver: the code is a GNU IFUNC's resolver, not the
	// implementation calls reach (chosen at load time); absent when false.
	IFuncResolver bool `json:"ifunc_resolver,omitempty"`
}

// ListProceduresResultItem is part of the result of list_procedures.
type ListProceduresResultItem = ProcedureSummary

// ListProceduresResult is the result of list_procedures: a page, and
// whether the list is complete (always "complete": it waits for discovery).
type ListProceduresResult struct {
	Items         []ListProceduresResultItem `json:"items"`
	Offset        int                        `json:"offset"`
	Limit         int                        `json:"limit"`
	Total         int                        `json:"total"`
	NextOffset    *int                       `json:"next_offset"`
	HasMore       bool                       `json:"has_more"`
	ProcedureList string                     `json:"procedure_list"`
}

// ListNamesInput is the input of list_names.
type ListNamesInput struct {
	Address  string `json:"address,omitempty"`  // Only names at this address (0x hex, decimal, or a name).
	Document string `json:"document,omitempty"` // Document name from list_documents; defaults to the current document.
	Limit    *int   `json:"limit,omitempty"`    // Maximum number of items to return (1-500).
	Offset   *int   `json:"offset,omitempty"`   // Index of the first item to return.
}

// ListNamesResultItem is part of the result of list_names.
type ListNamesResultItem struct {
	Address string `json:"address"`
	Name    string `json:"name"`
	Kind    string `json:"kind"`
	Library string `json:"library,omitempty"` // an import's DLL, dylib or shared object, when the binary names it
}

// ListNamesResult is the result of list_names.
type ListNamesResult = Page[ListNamesResultItem]

// ListStringsInput is the input of list_strings.
type ListStringsInput struct {
	Address        string `json:"address,omitempty"`          // Only the string starting at this address.
	Document       string `json:"document,omitempty"`         // Document name from list_documents; defaults to the current document.
	Limit          *int   `json:"limit,omitempty"`            // Maximum number of items to return (1-500).
	MinStringChars *int   `json:"min_string_chars,omitempty"` // Shortest string searched (default 4).
	Offset         *int   `json:"offset,omitempty"`           // Index of the first item to return.
}

// ListStringsResultItem is part of the result of list_strings.
type ListStringsResultItem = StringSummary

// ListStringsResult is the result of list_strings.
type ListStringsResult = Page[ListStringsResultItem]

// SearchProceduresInput is the input of search_procedures.
type SearchProceduresInput struct {
	Pattern       string `json:"pattern"`                  // Text to look for; a regular expression (RE2 syntax) when mode is regex.
	CaseSensitive *bool  `json:"case_sensitive,omitempty"` // Match case exactly.
	Document      string `json:"document,omitempty"`       // Document name from list_documents; defaults to the current document.
	Limit         *int   `json:"limit,omitempty"`          // Maximum number of items to return (1-500).
	Mode          string `json:"mode,omitempty"`           // How pattern matches.
	Offset        *int   `json:"offset,omitempty"`         // Index of the first item to return.
}

// SearchProceduresResult is the result of search_procedures, a page of ListProceduresResultItem.
type SearchProceduresResult = Page[ListProceduresResultItem]

// SearchStringsInput is the input of search_strings.
type SearchStringsInput struct {
	Pattern        string `json:"pattern"`                    // Text to look for; a regular expression (RE2 syntax) when mode is regex.
	CaseSensitive  *bool  `json:"case_sensitive,omitempty"`   // Match case exactly.
	Document       string `json:"document,omitempty"`         // Document name from list_documents; defaults to the current document.
	Limit          *int   `json:"limit,omitempty"`            // Maximum number of items to return (1-500).
	MinStringChars *int   `json:"min_string_chars,omitempty"` // Shortest string searched (default 4).
	Mode           string `json:"mode,omitempty"`             // How pattern matches.
	Offset         *int   `json:"offset,omitempty"`           // Index of the first item to return.
}

// SearchStringsResult is the result of search_strings, the same as ListStringsResult.
type SearchStringsResult = ListStringsResult

// ProcedureAddressInput is the input of procedure_address.
type ProcedureAddressInput struct {
	Procedure string `json:"procedure"`          // Exact procedure name, e.g.
	Document  string `json:"document,omitempty"` // Document name from list_documents; defaults to the current document.
}

// ProcedureAddressResult is the result of procedure_address.
type ProcedureAddressResult struct {
	Procedure string   `json:"procedure"`
	Address   string   `json:"address"`
	Matches   []string `json:"matches"`
	// ResolvedFrom is the synthetic name asked for (sub_113e, FUN_0000113e,
	// fcn.0000113e) when Procedure is the name of the procedure starting at
	// its address; empty when the name was a procedure's own.
	ResolvedFrom string `json:"resolved_from,omitempty"`
}

// AddressNameInput is the input of address_name, the same as XrefsInput.
type AddressNameInput = XrefsInput

// AddressNameResult is the result of address_name.
type AddressNameResult struct {
	Address string   `json:"address"`
	Name    *string  `json:"name"`
	Names   []string `json:"names"`
}

// ProcedureInfoInput is the input of procedure_info.
type ProcedureInfoInput struct {
	Procedure string `json:"procedure"`          // Procedure name (e.g.
	Document  string `json:"document,omitempty"` // Document name from list_documents; defaults to the current document.
}

// ProcedureInfoResult is the result of procedure_info.
type ProcedureInfoResult struct {
	Procedure               ListProceduresResultItem `json:"procedure"`
	Start                   string                   `json:"start"`
	End                     string                   `json:"end"`
	Length                  string                   `json:"length"`
	EndSource               string                   `json:"end_source"` // How the end was found: symbol, eh-frame, pdata, dwarf, gopclntab, plt, next-start, section-end or unknown.
	EntryPoint              bool                     `json:"entry_point"`
	Syntax                  string                   `json:"syntax"`
	InstructionCount        int                      `json:"instruction_count"`
	BasicBlockCount         int                      `json:"basic_block_count"`
	Truncated               bool                     `json:"truncated"`
	CallerCount             int                      `json:"caller_count"`
	CalleeCount             int                      `json:"callee_count"`
	UnresolvedTransferCount int                      `json:"unresolved_transfer_count"`
}

// ProcedureAssemblyInput is the input of procedure_assembly.
type ProcedureAssemblyInput struct {
	Procedure string `json:"procedure"`          // Procedure name (e.g.
	Document  string `json:"document,omitempty"` // Document name from list_documents; defaults to the current document.
	Offset    *int   `json:"offset,omitempty"`   // First instruction.
	Limit     *int   `json:"limit,omitempty"`    // Lines returned (1-5000).
}

// ReadFunctionInstructionsInput is the input of read_function_instructions.
type ReadFunctionInstructionsInput struct {
	Procedure string `json:"procedure"`          // Procedure name (e.g.
	Document  string `json:"document,omitempty"` // Document name from list_documents; defaults to the current document.
	Limit     *int   `json:"limit,omitempty"`    // Maximum number of items to return (1-500).
	Offset    *int   `json:"offset,omitempty"`   // Index of the first item to return.
}

// ReadFunctionInstructionsResultProcedure is part of the result of read_function_instructions.
type ReadFunctionInstructionsResultProcedure = ProcedureRef

// ReadFunctionInstructionsResultItem is part of the result of read_function_instructions.
type ReadFunctionInstructionsResultItem struct {
	Address  string  `json:"address"`
	Bytes    string  `json:"bytes"`
	Length   int     `json:"length"`
	Mnemonic string  `json:"mnemonic"`
	Operands string  `json:"operands"`
	Text     string  `json:"text"`
	Flow     string  `json:"flow"`
	Target   *string `json:"target"`
}

// ReadFunctionInstructionsResult is the result of read_function_instructions.
type ReadFunctionInstructionsResult struct {
	Procedure  ReadFunctionInstructionsResultProcedure `json:"procedure"`
	Syntax     string                                  `json:"syntax"`
	Items      []ReadFunctionInstructionsResultItem    `json:"items"`
	Offset     int                                     `json:"offset"`
	Limit      int                                     `json:"limit"`
	Total      int                                     `json:"total"`
	NextOffset *int                                    `json:"next_offset"`
	HasMore    bool                                    `json:"has_more"`
}

// ProcedureCallersResultItem is part of the result of procedure_callers.
type ProcedureCallersResultItem struct {
	Procedure *ReadFunctionInstructionsResultProcedure `json:"procedure"` // The calling procedure; null when the call site is in no known procedure.
	Kind      string                                   `json:"kind"`
	CallSites []string                                 `json:"call_sites"`
}

// ProcedureCallersResult is the result of procedure_callers.
type ProcedureCallersResult struct {
	Procedure  ReadFunctionInstructionsResultProcedure `json:"procedure"`
	Items      []ProcedureCallersResultItem            `json:"items"`
	Offset     int                                     `json:"offset"`
	Limit      int                                     `json:"limit"`
	Total      int                                     `json:"total"`
	NextOffset *int                                    `json:"next_offset"`
	HasMore    bool                                    `json:"has_more"`
	Truncated  bool                                    `json:"truncated"` // More pages exist (the same as has_more).
}

// ProcedureCallersInput is the input of procedure_callers.
type ProcedureCallersInput struct {
	Procedure string `json:"procedure"`          // Procedure name (e.g.
	Document  string `json:"document,omitempty"` // Document name from list_documents; defaults to the current document.
	Limit     *int   `json:"limit,omitempty"`    // Maximum number of items to return (1-500).
	Offset    *int   `json:"offset,omitempty"`   // Index of the first item to return.
}

// ProcedureCalleesResultItem is part of the result of procedure_callees.
type ProcedureCalleesResultItem struct {
	Address   string   `json:"address"`
	Name      string   `json:"name"`
	Kind      string   `json:"kind"`
	Procedure bool     `json:"procedure"` // The target is the start of a known procedure.
	External  bool     `json:"external"`
	Thunk     bool     `json:"thunk"`
	CallSites []string `json:"call_sites"`
}

// ProcedureCalleesResultUnresolvedItem is part of the result of procedure_callees.
type ProcedureCalleesResultUnresolvedItem struct {
	From     string  `json:"from"`
	Kind     string  `json:"kind"`
	Operand  string  `json:"operand"`
	Slot     *string `json:"slot"`
	SlotName *string `json:"slot_name"`
}

// ProcedureCalleesResult is the result of procedure_callees.
type ProcedureCalleesResult struct {
	Procedure       ReadFunctionInstructionsResultProcedure `json:"procedure"`
	Items           []ProcedureCalleesResultItem            `json:"items"`
	Offset          int                                     `json:"offset"`
	Limit           int                                     `json:"limit"`
	Total           int                                     `json:"total"`
	NextOffset      *int                                    `json:"next_offset"`
	HasMore         bool                                    `json:"has_more"`
	Truncated       bool                                    `json:"truncated"` // More pages exist (the same as has_more).
	Unresolved      []ProcedureCalleesResultUnresolvedItem  `json:"unresolved"`
	UnresolvedTotal int                                     `json:"unresolved_total"`
}

// ProcedureCalleesInput is the input of procedure_callees.
type ProcedureCalleesInput struct {
	Procedure string `json:"procedure"`          // Procedure name (e.g.
	Document  string `json:"document,omitempty"` // Document name from list_documents; defaults to the current document.
	Limit     *int   `json:"limit,omitempty"`    // Maximum number of items to return (1-500).
	Offset    *int   `json:"offset,omitempty"`   // Index of the first item to return.
}

// ProcedureReferencesInput is the input of procedure_references.
type ProcedureReferencesInput struct {
	Procedure       string `json:"procedure"`                  // Procedure name (e.g.
	Direction       string `json:"direction,omitempty"`        // Which references to list.
	Document        string `json:"document,omitempty"`         // Document name from list_documents; defaults to the current document.
	Limit           *int   `json:"limit,omitempty"`            // Maximum number of items to return (1-500).
	MaxInstructions int    `json:"max_instructions,omitempty"` // Scan only the first N instructions for outgoing references.
	Offset          *int   `json:"offset,omitempty"`           // Index of the first item to return.
}

// ProcedureReferencesResultInstructionScan is part of the result of procedure_references.
type ProcedureReferencesResultInstructionScan struct {
	Scanned   int  `json:"scanned"`
	Truncated bool `json:"truncated"`
}

// ProcedureReferencesResultItemReference is part of the result of procedure_references.
type ProcedureReferencesResultItemReference struct {
	From          string                                   `json:"from"`
	FromProcedure *ReadFunctionInstructionsResultProcedure `json:"from_procedure"`
	To            *string                                  `json:"to"`
	ToName        *string                                  `json:"to_name"`
	Kind          string                                   `json:"kind"`
	Unresolved    bool                                     `json:"unresolved"` // An indirect call or jump whose target is unknown; reported, never dropped.
	Operand       *string                                  `json:"operand"`
	Slot          *string                                  `json:"slot"`
	SlotName      *string                                  `json:"slot_name"`
}

// ProcedureReferencesResultItem is part of the result of procedure_references.
type ProcedureReferencesResultItem struct {
	Direction string                                 `json:"direction"`
	Reference ProcedureReferencesResultItemReference `json:"reference"`
}

// ProcedureReferencesResult is the result of procedure_references.
type ProcedureReferencesResult struct {
	Procedure       ReadFunctionInstructionsResultProcedure  `json:"procedure"`
	Direction       string                                   `json:"direction"`
	InstructionScan ProcedureReferencesResultInstructionScan `json:"instruction_scan"`
	Items           []ProcedureReferencesResultItem          `json:"items"`
	Offset          int                                      `json:"offset"`
	Limit           int                                      `json:"limit"`
	Total           int                                      `json:"total"`
	NextOffset      *int                                     `json:"next_offset"`
	HasMore         bool                                     `json:"has_more"`
}

// XrefsInput is the input of xrefs.
type XrefsInput struct {
	Address  string `json:"address,omitempty"`  // 0x hex, decimal, or a name; defaults to the cursor's.
	Document string `json:"document,omitempty"` // Document name from list_documents; defaults to the current document.
}

// ResolveContainingProcedureResult is the result of resolve_containing_procedure.
type ResolveContainingProcedureResult struct {
	Address   string                    `json:"address"`
	Segment   string                    `json:"segment"`
	Procedure *ListProceduresResultItem `json:"procedure"`
	Start     *string                   `json:"start"`
	End       *string                   `json:"end"`
	Offset    *string                   `json:"offset"`
}

// ResolveContainingProcedureInput is the input of resolve_containing_procedure.
type ResolveContainingProcedureInput struct {
	Address  string `json:"address"`            // 0x hex, decimal, or a name (locationArg).
	Document string `json:"document,omitempty"` // Document name from list_documents; defaults to the current document.
}

// ReadBytesInput is the input of read_bytes.
type ReadBytesInput struct {
	Address  string `json:"address"`            // 0x hex, decimal, or a name (locationArg).
	Document string `json:"document,omitempty"` // Document name from list_documents; defaults to the current document.
	Length   *int   `json:"length,omitempty"`   // Bytes to read (1-65536).
}

// ReadBytesResult is the result of read_bytes.
type ReadBytesResult struct {
	Address    string `json:"address"`
	Length     int    `json:"length"`
	Requested  int    `json:"requested"`
	Bytes      string `json:"bytes"`
	Segment    string `json:"segment"`
	FileOffset string `json:"file_offset"`
	Truncated  bool   `json:"truncated"`
}

// AddressToFileOffsetResult is the result of address_to_file_offset.
type AddressToFileOffsetResult struct {
	Address      string  `json:"address"`
	Segment      string  `json:"segment"`
	SegmentStart string  `json:"segment_start"`
	FileOffset   *string `json:"file_offset"`
	InFile       bool    `json:"in_file"`
}

// AddressToFileOffsetInput is the input of address_to_file_offset, the same as ResolveContainingProcedureInput.
type AddressToFileOffsetInput = ResolveContainingProcedureInput

// NextAddressResult is the result of next_address.
type NextAddressResult struct {
	Address     string  `json:"address"`
	NextAddress *string `json:"next_address"`
	Unit        string  `json:"unit"`
	Segment     string  `json:"segment"`
}

// NextAddressInput is the input of next_address, the same as XrefsInput.
type NextAddressInput = XrefsInput

// PrevAddressResult is the result of prev_address.
type PrevAddressResult struct {
	Address         string  `json:"address"`
	PreviousAddress *string `json:"previous_address"`
	Unit            string  `json:"unit"`
	Segment         string  `json:"segment"`
}

// PrevAddressInput is the input of prev_address, the same as XrefsInput.
type PrevAddressInput = XrefsInput

// ProcedurePseudoCodeInput is the input of procedure_pseudo_code, the same as ProcedureInfoInput.
type ProcedurePseudoCodeInput = ProcedureInfoInput

// FindXrefsToNameInput is the input of find_xrefs_to_name.
type FindXrefsToNameInput struct {
	Name   string `json:"name"`             // The exact name, e.g.
	Limit  *int   `json:"limit,omitempty"`  // Maximum number of items to return (1-500).
	Offset *int   `json:"offset,omitempty"` // Index of the first item to return.
}

// FindXrefsToNameResult is the result of find_xrefs_to_name.
type FindXrefsToNameResult struct {
	Name       string                                   `json:"name"`
	Matches    []ListNamesResultItem                    `json:"matches"`
	References []ProcedureReferencesResultItemReference `json:"references"`
	Offset     int                                      `json:"offset"`
	Limit      int                                      `json:"limit"`
	Total      int                                      `json:"total"`
	NextOffset *int                                     `json:"next_offset"`
	HasMore    bool                                     `json:"has_more"`
}

// FindCodeForStringInput is the input of find_code_for_string.
type FindCodeForStringInput struct {
	Query         string `json:"query"`                    // Text to look for inside string literals (substring).
	CaseSensitive *bool  `json:"case_sensitive,omitempty"` // Match case exactly.
	Limit         *int   `json:"limit,omitempty"`          // Matching strings (or seeds) followed (1-200).
	MaxOperations *int   `json:"max_operations,omitempty"` // Reference lookups and procedure expansions allowed (1-100000).
	// MinStringChars is the shortest string searched (2-16; default 4, the profile's).
	MinStringChars *int `json:"min_string_chars,omitempty"`
}

// FindCodeForStringResultStringReference is part of the result of find_code_for_string.
type FindCodeForStringResultStringReference struct {
	From      string                                   `json:"from"`
	Kind      string                                   `json:"kind"`
	Procedure *ReadFunctionInstructionsResultProcedure `json:"procedure"`
}

// FindCodeForStringResultString is part of the result of find_code_for_string.
type FindCodeForStringResultString struct {
	String     ListStringsResultItem                    `json:"string"`
	References []FindCodeForStringResultStringReference `json:"references"`
}

// FindCodeForStringResultProcedure is part of the result of find_code_for_string.
type FindCodeForStringResultProcedure struct {
	Address string   `json:"address"`
	Name    string   `json:"name"`
	Seeds   []string `json:"seeds"`
	Sites   []string `json:"sites"`
	// Reference says how directly the procedure reaches a matching string,
	// the most direct of its sites: "direct" loads the literal's address,
	// "inside" an address inside the literal (a blob the engine did not
	// split), "via-data" a data word (such as a Go string header) that
	// points at it.
	Reference string `json:"reference,omitempty"`
}

// FindCodeForStringResult is the result of find_code_for_string.
type FindCodeForStringResult struct {
	Query          string                             `json:"query"`
	CaseSensitive  bool                               `json:"case_sensitive"`
	Strings        []FindCodeForStringResultString    `json:"strings"`
	Procedures     []FindCodeForStringResultProcedure `json:"procedures"`
	MatchedStrings int                                `json:"matched_strings"`
	Truncated      bool                               `json:"truncated"`
	Operations     int                                `json:"operations"`
}

// TraceCallPathInput is the input of trace_call_path.
type TraceCallPathInput struct {
	Start         string `json:"start"`                    // The procedure to start from: a name or an address.
	Direction     string `json:"direction,omitempty"`      // forward: follow calls; backward: follow callers.
	Goal          string `json:"goal,omitempty"`           // The procedure to reach: a name or an address.
	MaxDepth      *int   `json:"max_depth,omitempty"`      // Longest path followed (1-12).
	MaxNodes      *int   `json:"max_nodes,omitempty"`      // Procedures visited at most (1-5000).
	MaxOperations *int   `json:"max_operations,omitempty"` // Procedure expansions allowed (1-100000).
	Detail        string `json:"detail,omitempty"`         // concise: the path (or without goal the 40 nearest); complete: all explored.
}

// TraceCallPathResultNode is part of the result of trace_call_path.
type TraceCallPathResultNode = CallGraphNode

// TraceCallPathResultEdge is part of the result of trace_call_path.
type TraceCallPathResultEdge = CallGraphEdge

// TraceCallPathResult is the result of trace_call_path.
type TraceCallPathResult struct {
	Start     ReadFunctionInstructionsResultProcedure   `json:"start"`
	Goal      *ReadFunctionInstructionsResultProcedure  `json:"goal"`
	Direction string                                    `json:"direction"`
	Found     *bool                                     `json:"found"`
	Path      []ReadFunctionInstructionsResultProcedure `json:"path"`
	Nodes     []TraceCallPathResultNode                 `json:"nodes"`
	Edges     []TraceCallPathResultEdge                 `json:"edges"`
	Explored  int                                       `json:"explored"`
	Truncated bool                                      `json:"truncated"`
}

// TraceFeatureResultSeeds is part of the result of trace_feature.
type TraceFeatureResultSeeds struct {
	Strings []FindCodeForStringResultString `json:"strings"`
	Names   []ListNamesResultItem           `json:"names"`
}

// TraceFeatureResult is the result of trace_feature.
type TraceFeatureResult struct {
	Query      string                             `json:"query"`
	Seeds      TraceFeatureResultSeeds            `json:"seeds"`
	Procedures []FindCodeForStringResultProcedure `json:"procedures"`
	Nodes      []TraceCallPathResultNode          `json:"nodes"`
	Edges      []TraceCallPathResultEdge          `json:"edges"`
	Truncated  bool                               `json:"truncated"`
	Operations int                                `json:"operations"`
}

// TraceFeatureInput is the input of trace_feature.
type TraceFeatureInput struct {
	Query         string `json:"query"`                    // Text to look for inside string literals (substring).
	CaseSensitive *bool  `json:"case_sensitive,omitempty"` // Match case exactly.
	Limit         *int   `json:"limit,omitempty"`          // Matching strings (or seeds) followed (1-200).
	MaxOperations *int   `json:"max_operations,omitempty"` // Reference lookups and procedure expansions allowed (1-100000).
	Detail        string `json:"detail,omitempty"`         // concise: 10 callees and 10 callers of each procedure; complete: all.
}

// InspectNativeAPIInput is the input of inspect_native_api.
type InspectNativeAPIInput struct {
	Procedure          string `json:"procedure"`                      // Procedure name (e.g.
	MaxInstructions    *int   `json:"max_instructions,omitempty"`     // Instructions scanned for jump tables (1-5000).
	MaxPseudocodeChars *int   `json:"max_pseudocode_chars,omitempty"` // Characters of pseudo-code returned when a decompiler is bound.
}

// InspectNativeAPIResult is the result of inspect_native_api.
type InspectNativeAPIResult struct {
	Procedure      ReadFunctionInstructionsResultProcedure `json:"procedure"`
	Classification string                                  `json:"classification"`
	Signature      *string                                 `json:"signature"`
	NativeAPI      json.RawMessage                         `json:"native_api"`
}

// BatchDecompileInput is the input of batch_decompile.
type BatchDecompileInput struct {
	Addresses []string `json:"addresses"` // Procedures to decompile: names or addresses (0x hex or decimal).
}

// BatchDecompileResultItem is part of the result of batch_decompile.
type BatchDecompileResultItem struct {
	Request          string                                   `json:"request"`
	Procedure        *ReadFunctionInstructionsResultProcedure `json:"procedure"`
	Status           string                                   `json:"status"`
	Pseudocode       *string                                  `json:"pseudocode"`
	Reason           *string                                  `json:"reason"`
	InstructionCount *int                                     `json:"instruction_count"`
}

// BatchDecompileResultSummary is part of the result of batch_decompile.
type BatchDecompileResultSummary struct {
	Decompiled  int `json:"decompiled"`
	Unavailable int `json:"unavailable"`
	Error       int `json:"error"`
}

// BatchDecompileResult is the result of batch_decompile.
type BatchDecompileResult struct {
	Items   []BatchDecompileResultItem  `json:"items"`
	Summary BatchDecompileResultSummary `json:"summary"`
}

// InspectBinaryLayoutInput is the input of inspect_binary_layout.
type InspectBinaryLayoutInput struct {
	Path   string `json:"path"`             // Absolute path of the ELF file.
	Detail string `json:"detail,omitempty"` // complete returns the whole layout; summary retains it and returns its summary view.
}

var operationTypes = map[string]core.Types{
	"binary_overview":              core.TypesOf[OverviewInput, Overview](),
	"analyze_function":             core.TypesOf[AnalyzeFunctionInput, Dossier](),
	"get_call_graph":               core.TypesOf[CallGraphInput, CallGraph](),
	"list_documents":               core.TypesOf[ListDocumentsInput, ListDocumentsResult](),
	"list_segments":                core.TypesOf[ListSegmentsInput, ListSegmentsResult](),
	"list_procedures":              core.TypesOf[ListProceduresInput, ListProceduresResult](),
	"list_names":                   core.TypesOf[ListNamesInput, ListNamesResult](),
	"list_strings":                 core.TypesOf[ListStringsInput, ListStringsResult](),
	"search_procedures":            core.TypesOf[SearchProceduresInput, SearchProceduresResult](),
	"search_strings":               core.TypesOf[SearchStringsInput, SearchStringsResult](),
	"procedure_address":            core.TypesOf[ProcedureAddressInput, ProcedureAddressResult](),
	"address_name":                 core.TypesOf[AddressNameInput, AddressNameResult](),
	"procedure_info":               core.TypesOf[ProcedureInfoInput, ProcedureInfoResult](),
	"procedure_assembly":           core.TypesOf[ProcedureAssemblyInput, string](),
	"read_function_instructions":   core.TypesOf[ReadFunctionInstructionsInput, ReadFunctionInstructionsResult](),
	"procedure_callers":            core.TypesOf[ProcedureCallersInput, ProcedureCallersResult](),
	"procedure_callees":            core.TypesOf[ProcedureCalleesInput, ProcedureCalleesResult](),
	"procedure_references":         core.TypesOf[ProcedureReferencesInput, ProcedureReferencesResult](),
	"xrefs":                        core.TypesOf[XrefsInput, []string](),
	"resolve_containing_procedure": core.TypesOf[ResolveContainingProcedureInput, ResolveContainingProcedureResult](),
	"read_bytes":                   core.TypesOf[ReadBytesInput, ReadBytesResult](),
	"address_to_file_offset":       core.TypesOf[AddressToFileOffsetInput, AddressToFileOffsetResult](),
	"next_address":                 core.TypesOf[NextAddressInput, NextAddressResult](),
	"prev_address":                 core.TypesOf[PrevAddressInput, PrevAddressResult](),
	"procedure_pseudo_code":        core.TypesOf[ProcedurePseudoCodeInput, *string](),
	"find_xrefs_to_name":           core.TypesOf[FindXrefsToNameInput, FindXrefsToNameResult](),
	"find_code_for_string":         core.TypesOf[FindCodeForStringInput, FindCodeForStringResult](),
	"trace_call_path":              core.TypesOf[TraceCallPathInput, TraceCallPathResult](),
	"trace_feature":                core.TypesOf[TraceFeatureInput, TraceFeatureResult](),
	"inspect_native_api":           core.TypesOf[InspectNativeAPIInput, InspectNativeAPIResult](),
	"batch_decompile":              core.TypesOf[BatchDecompileInput, BatchDecompileResult](),
	"inspect_binary_layout":        core.TypesOf[InspectBinaryLayoutInput, InspectBinaryLayoutResult](),
}
