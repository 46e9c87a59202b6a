package ports

import "context"

// SourceLocation is the source position an address was compiled from, as
// the target's debug line table and inlining records give it.
type SourceLocation struct {
	// File is the source file as the line table names it, joined to its
	// compilation directory when the name is relative.
	File string
	// Line is 1-based; 0 when the compiler attributes the address to no
	// line (code it generated, or merged from several lines).
	Line int
	// Column is 1-based; 0 when unknown.
	Column int
	// Function is the procedure whose code holds the address, as its debug
	// entry names it (the linkage name when there is one); where no debug
	// entry covers the address (assembly with line records), the function
	// symbol of the symbol table that does; "" when neither does.
	Function string
	// Inlined is the chain of inlined calls the address lies in, innermost
	// first: Inlined[0].Function is the function whose source File:Line
	// is, its call site is in Inlined[1].Function (or Function, for the
	// last), and so on. Empty when the address is in no inlined call.
	Inlined []InlinedCall
}

// InlinedCall is one call a compiler inlined: the function inlined and
// where the call was in its caller.
type InlinedCall struct {
	Function   string // "" when its entry names none
	CallFile   string // "" when unknown
	CallLine   int    // 0 when unknown
	CallColumn int    // 0 when unknown
}

// SourceLocator maps addresses to source lines (DWARF's .debug_line and
// its inlined-subroutine entries). It shares the Analysis contract of the
// code capabilities (code.go). SourceAt fails with ErrUnsupported when the
// target carries no line table at all (built without debug information, or
// stripped) and with ErrNotFound when the tables cover no code at addr.
// Line and Column are never negative.
type SourceLocator interface {
	SourceAt(ctx context.Context, addr uint64) (SourceLocation, error)
}
