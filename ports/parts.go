package ports

import "context"

// PartLister is an optional extension of a FunctionAnalyzer for an engine
// that finds procedures whose body lies in more than one range: gcc's
// cold parts (f.cold in .text.unlikely, reached from f by jumps only),
// which IDA calls function chunks. A part starts no procedure and lies in
// no procedure's FunctionRange; Function of its procedure may have blocks
// in it, and jumps into it are intra-procedural edges.
type PartLister interface {
	// ProcedureParts lists every part, sorted by Start, none overlapping
	// another. The slice is shared; callers must not modify it.
	ProcedureParts(ctx context.Context) ([]ProcedurePart, error)
}

// ProcedurePart is one range of a procedure's body outside its
// FunctionRange.
type ProcedurePart struct {
	FunctionRange
	Procedure uint64 // the start of the procedure it belongs to
	Name      string // its own symbol (f.cold), "" when it has none
}
