package annotate

import "rea/core"

// The Go input and result type of each of this family's operations,
// registered as Family.Types. The schemas stay the contract: core/standard's
// TestEveryOperationIsTyped fails when a type and its schema differ.
// ProcedureRef and AnnotationMutation (with AnnotationChange) are the values
// the handlers return.

// AddressInput is the input of goto_address, inspect_address_context and
// unset_bookmark.
type AddressInput struct {
	Address  string `json:"address"`            // Address as 0x hex or decimal, or a name.
	Document string `json:"document,omitempty"` // Document name from list_documents; defaults to the cursor's document.
}

// DocumentInput is the input of current_address, current_procedure,
// get_navigation_context and list_bookmarks.
type DocumentInput struct {
	Document string `json:"document,omitempty"` // Document name from list_documents; defaults to the cursor's document.
}

// GotoAddressResult is the result of goto_address.
type GotoAddressResult struct {
	Document        string        `json:"document"`
	Address         *string       `json:"address"`
	Procedure       *ProcedureRef `json:"procedure"` // null outside every procedure
	PreviousAddress *string       `json:"previous_address"`
}

// SetCurrentDocumentInput is the input of set_current_document.
type SetCurrentDocumentInput struct {
	Document string `json:"document"` // Document name from list_documents.
}

// SetCurrentDocumentResult is the result of set_current_document.
type SetCurrentDocumentResult struct {
	Document         string  `json:"document"`
	PreviousDocument string  `json:"previous_document"`
	Address          *string `json:"address"`
}

// CurrentDocumentInput is the (empty) input of current_document.
type CurrentDocumentInput struct{}

// CurrentDocumentResult is the result of current_document.
type CurrentDocumentResult struct {
	Document string `json:"document"`
}

// CurrentAddressResult is the result of current_address.
type CurrentAddressResult struct {
	Document string  `json:"document"`
	Address  *string `json:"address"`
}

// CurrentProcedureResult is the result of current_procedure.
type CurrentProcedureResult struct {
	Document  string        `json:"document"`
	Address   *string       `json:"address"`
	Procedure *ProcedureRef `json:"procedure"` // null outside every procedure
}

// NavigationMode is one mode get_navigation_context lists.
type NavigationMode struct {
	Mode      string  `json:"mode"` // current_selection or explicit_document
	Available bool    `json:"available"`
	Reason    *string `json:"reason"`
}

// NavigationContextResult is the result of get_navigation_context.
type NavigationContextResult struct {
	Mode      string           `json:"mode"` // current_selection or explicit_document
	Modes     []NavigationMode `json:"modes"`
	Document  string           `json:"document"`
	Address   *string          `json:"address"`
	Procedure *ProcedureRef    `json:"procedure"`
	Store     string           `json:"store"` // rea-overlay or engine
}

// Facet is one facet of inspect_address_context: Value is set when Status
// is available (and may still be null: nothing there), Reason when it is
// unavailable.
type Facet[T any] struct {
	Status string  `json:"status"` // available or unavailable
	Value  *T      `json:"value"`
	Reason *string `json:"reason"`
}

// AddressNames is the value of inspect_address_context's name facet.
type AddressNames struct {
	Name        *string `json:"name"` // the analyst's name, else the engine's
	EngineName  *string `json:"engine_name"`
	AnalystName *string `json:"analyst_name"`
}

// BookmarkName is the value of inspect_address_context's bookmark facet.
type BookmarkName struct {
	Name string `json:"name"`
}

// SourceLine is the value of inspect_address_context's source facet: the
// source line the address was compiled from, from the target's debug
// line table.
type SourceLine struct {
	File     string         `json:"file"`     // as the line table names it, joined to its compilation directory
	Line     int            `json:"line"`     // 0 when the compiler attributes the address to no line
	Column   int            `json:"column"`   // 0 when unknown
	Function *string        `json:"function"` // the procedure holding the address, as its debug entry names it, else as its function symbol does
	Inlined  []InlinedFrame `json:"inlined"`  // the inlined calls the address lies in, innermost first
}

// InlinedFrame is one inlined call of a source facet: the function whose
// code was inlined, and where it was called (in the next frame's function,
// or in the procedure for the last).
type InlinedFrame struct {
	Function *string `json:"function"`
	CallFile *string `json:"call_file"`
	CallLine int     `json:"call_line"`
}

// AddressFacets are the facets of inspect_address_context.
type AddressFacets struct {
	Name          Facet[AddressNames] `json:"name"`
	Procedure     Facet[ProcedureRef] `json:"procedure"`
	Comment       Facet[string]       `json:"comment"`
	InlineComment Facet[string]       `json:"inline_comment"`
	Bookmark      Facet[BookmarkName] `json:"bookmark"`
	Source        Facet[SourceLine]   `json:"source"`
}

// AddressContextResult is the result of inspect_address_context.
type AddressContextResult struct {
	Document string        `json:"document"`
	Address  string        `json:"address"`
	Store    string        `json:"store"` // rea-overlay or engine
	Facets   AddressFacets `json:"facets"`
}

// SetAddressNameInput is the input of set_address_name.
type SetAddressNameInput struct {
	Address  string `json:"address"`
	Name     string `json:"name"`
	Document string `json:"document,omitempty"`
}

// SetAddressesNamesInput is the input of set_addresses_names.
type SetAddressesNamesInput struct {
	Names    map[string]string `json:"names"` // address (0x hex, decimal or a name) to its new name
	Document string            `json:"document,omitempty"`
}

// SetCommentInput is the input of set_comment and set_inline_comment.
type SetCommentInput struct {
	Address  string `json:"address"`
	Comment  string `json:"comment"`
	Document string `json:"document,omitempty"`
}

// SetBookmarkInput is the input of set_bookmark.
type SetBookmarkInput struct {
	Address  string `json:"address"`
	Name     string `json:"name,omitempty"` // empty by default
	Document string `json:"document,omitempty"`
}

// Bookmark is one item of list_bookmarks.
type Bookmark struct {
	Address   string        `json:"address"`
	Name      string        `json:"name"`
	Procedure *ProcedureRef `json:"procedure"`
}

// ListBookmarksResult is the result of list_bookmarks.
type ListBookmarksResult struct {
	Document string     `json:"document"`
	Store    string     `json:"store"` // rea-overlay or engine
	Items    []Bookmark `json:"items"`
	Total    int        `json:"total"`
}

// CommentInput is the input of comment and inline_comment.
type CommentInput struct {
	Address  string `json:"address,omitempty"` // defaults to the cursor's address
	Document string `json:"document,omitempty"`
}

// CommentResult is the result of comment and inline_comment.
type CommentResult struct {
	Document string  `json:"document"`
	Address  string  `json:"address"`
	Comment  *string `json:"comment"` // null when there is none
	Store    string  `json:"store"`   // rea-overlay or engine
}

var operationTypes = map[string]core.Types{
	"goto_address":            core.TypesOf[AddressInput, GotoAddressResult](),
	"set_current_document":    core.TypesOf[SetCurrentDocumentInput, SetCurrentDocumentResult](),
	"current_document":        core.TypesOf[CurrentDocumentInput, CurrentDocumentResult](),
	"current_address":         core.TypesOf[DocumentInput, CurrentAddressResult](),
	"current_procedure":       core.TypesOf[DocumentInput, CurrentProcedureResult](),
	"get_navigation_context":  core.TypesOf[DocumentInput, NavigationContextResult](),
	"inspect_address_context": core.TypesOf[AddressInput, AddressContextResult](),
	"set_address_name":        core.TypesOf[SetAddressNameInput, AnnotationMutation](),
	"set_addresses_names":     core.TypesOf[SetAddressesNamesInput, AnnotationMutation](),
	"set_comment":             core.TypesOf[SetCommentInput, AnnotationMutation](),
	"set_inline_comment":      core.TypesOf[SetCommentInput, AnnotationMutation](),
	"set_bookmark":            core.TypesOf[SetBookmarkInput, AnnotationMutation](),
	"unset_bookmark":          core.TypesOf[AddressInput, AnnotationMutation](),
	"list_bookmarks":          core.TypesOf[DocumentInput, ListBookmarksResult](),
	"comment":                 core.TypesOf[CommentInput, CommentResult](),
	"inline_comment":          core.TypesOf[CommentInput, CommentResult](),
}
