package binary

import (
	"context"

	"rea/core"
)

// Typed functions for the main native workflows (the types are in
// typed_ops.go). Each runs on a session with an open target (core.OpenBinary)
// except InspectBinaryLayout, which reads the file at its path.

// ListProcedures returns one page of the open target's procedures.
func ListProcedures(ctx context.Context, s *core.Session, in ListProceduresInput) (ListProceduresResult, *core.Evidence, error) {
	return core.Invoke[ListProceduresResult](ctx, s, "list_procedures", in)
}

// ListStrings returns one page of the open target's strings.
func ListStrings(ctx context.Context, s *core.Session, in ListStringsInput) (ListStringsResult, *core.Evidence, error) {
	return core.Invoke[ListStringsResult](ctx, s, "list_strings", in)
}

// FindCodeForString finds the strings containing in.Query and the code
// that references them.
func FindCodeForString(ctx context.Context, s *core.Session, in FindCodeForStringInput) (FindCodeForStringResult, *core.Evidence, error) {
	return core.Invoke[FindCodeForStringResult](ctx, s, "find_code_for_string", in)
}

// InspectBinaryLayout returns the complete layout of the ELF file at
// in.Path (in.Detail is ignored: the summary view has another shape).
func InspectBinaryLayout(ctx context.Context, s *core.Session, in InspectBinaryLayoutInput) (InspectBinaryLayoutResult, *core.Evidence, error) {
	in.Detail = "complete"
	return core.Invoke[InspectBinaryLayoutResult](ctx, s, "inspect_binary_layout", in)
}
