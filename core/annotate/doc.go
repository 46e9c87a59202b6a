// Package annotate is rea's family for the analyst's context: a cursor per
// target (goto_address, set_current_document, current_document,
// current_address, current_procedure), the aggregate get_navigation_context
// and inspect_address_context, and annotations (set_address_name,
// set_addresses_names, set_comment, set_inline_comment, set_bookmark,
// unset_bookmark, list_bookmarks, comment, inline_comment).
//
// Every annotation change is recorded as mutation Evidence (predicate
// rea.annotation-mutation, authority analyst-inference). For an engine
// without its own annotation store (rea-native), those records are the
// store: the overlay is derived from the session's ledger, so a bundle
// carries it and importing the bundle into a fresh session restores it.
// An engine that keeps annotations itself (ports.Annotator) is used
// instead, and the change is still recorded.
//
// The family gives the catalog its analyst names (core.Family.AnalystNames),
// which other families show in place of the engine's names. It imports
// core and ports only.
package annotate
