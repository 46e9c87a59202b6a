package ports

import "context"

// AnnotationKind names one kind of analyst annotation.
type AnnotationKind string

// The annotation kinds rea knows.
const (
	AnnotationName          AnnotationKind = "name"           // a label the analyst gave an address
	AnnotationComment       AnnotationKind = "comment"        // a comment on the line before an address
	AnnotationInlineComment AnnotationKind = "inline_comment" // a comment at the end of an address's line
	AnnotationBookmark      AnnotationKind = "bookmark"       // a bookmark, Text its (possibly empty) name
)

// AnnotationKinds lists every kind, in the order results report them.
func AnnotationKinds() []AnnotationKind {
	return []AnnotationKind{AnnotationName, AnnotationComment, AnnotationInlineComment, AnnotationBookmark}
}

// Annotation is one analyst annotation at an address.
type Annotation struct {
	Kind    AnnotationKind
	Address uint64
	Text    string
}

// Annotator is an Analysis whose engine keeps analysts' annotations in its
// own database (Hopper's document, a Ghidra program opened for writing).
// rea uses it instead of its own overlay when the bound analysis offers
// it; rea still records every change as mutation Evidence. It is found by
// type assertion on the Analysis (it is not a listed capability: rea
// offers annotations with or without it).
//
// Contract, which portstest.RunAnnotator checks:
//   - Annotations(kind) lists the annotations of that kind sorted by
//     address, one per address; a kind the engine does not keep is
//     ErrUnsupported (rea reports that facet unavailable), an unknown kind
//     ErrMalformed.
//   - SetAnnotation replaces the annotation of a.Kind at a.Address. An
//     address the engine does not map is ErrNotFound; empty Text for a
//     name or a comment, or Text the engine cannot store (too long,
//     control characters), is ErrMalformed, and nothing changes.
//   - RemoveAnnotation removes it; removing what is not there is
//     ErrNotFound, so a bookmark removed twice fails the second time.
//   - A cancelled context returns the context's error without changing
//     anything; every method is safe for concurrent use, and a list is the
//     caller's (changing it does not change the engine's).
type Annotator interface {
	Annotations(ctx context.Context, kind AnnotationKind) ([]Annotation, error)
	SetAnnotation(ctx context.Context, a Annotation) error
	RemoveAnnotation(ctx context.Context, kind AnnotationKind, addr uint64) error
}
