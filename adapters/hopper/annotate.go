package hopper

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"unicode/utf8"

	"rea/ports"
)

var _ ports.Annotator = (*Analysis)(nil)

// maxAnnotation bounds an annotation's text in characters, as the bridge
// does.
const maxAnnotation = 4096

// AnnotationLimitation says what Annotations cannot list: Hopper's Python
// API reads and writes comments one address at a time and has no listing of
// them, so rea lists the comments it set in this session (read back from
// Hopper each time) and every name Hopper lists.
const AnnotationLimitation = "Hopper lists names but not comments: rea lists the comments and inline comments it set in this session, " +
	"read back from Hopper; comments made in Hopper itself or kept in a .hop database from an earlier session are not listed. " +
	"Bookmarks are not offered through Hopper's Python API: rea keeps them in its overlay of the session's mutation records."

type annotationJSON struct {
	Kind    string  `json:"kind"`
	Address string  `json:"address"`
	Text    *string `json:"text"`
	Removed *bool   `json:"removed"`
}

// annotationKind checks kind: names and comments are kept in Hopper's
// document; bookmarks are not offered (ErrUnsupported); anything else is
// ErrMalformed.
func annotationKind(kind ports.AnnotationKind) error {
	switch kind {
	case ports.AnnotationName, ports.AnnotationComment, ports.AnnotationInlineComment:
		return nil
	case ports.AnnotationBookmark:
		return fmt.Errorf("hopper: bookmarks: %w", ports.ErrUnsupported)
	}
	return fmt.Errorf("hopper: annotation kind %q: %w", kind, ports.ErrMalformed)
}

// Annotations lists names from Hopper's name listing, and comments or
// inline comments at the addresses rea commented in this session, read
// back from Hopper; a comment listing notes AnnotationLimitation on the
// call's result.
func (a *Analysis) Annotations(ctx context.Context, kind ports.AnnotationKind) ([]ports.Annotation, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if err := annotationKind(kind); err != nil {
		return nil, err
	}
	out := []ports.Annotation{}
	if kind == ports.AnnotationName {
		names, err := a.Names(ctx)
		if err != nil {
			return nil, err
		}
		for _, n := range names { // sorted by address; the first name of an address stands
			if len(out) == 0 || out[len(out)-1].Address != n.Address {
				out = append(out, ports.Annotation{Kind: kind, Address: n.Address, Text: n.Name})
			}
		}
		return out, nil
	}
	ports.Note(ctx, AnnotationLimitation)
	a.noteMu.Lock()
	addrs := slices.Sorted(maps.Keys(a.noted[kind]))
	a.noteMu.Unlock()
	for _, addr := range addrs {
		var r annotationJSON
		if err := a.query(ctx, "get_annotation", map[string]any{"kind": string(kind), "address": formatAddress(addr)}, &r); err != nil {
			return nil, err
		}
		if r.Text != nil && *r.Text != "" {
			out = append(out, ports.Annotation{Kind: kind, Address: addr, Text: *r.Text})
		}
	}
	return out, nil
}

// SetAnnotation sets a name or a comment in Hopper's document. Text must be
// 1 to 4096 characters of valid UTF-8 without control characters (a tab
// aside); an address no segment maps is ErrNotFound.
func (a *Analysis) SetAnnotation(ctx context.Context, x ports.Annotation) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if err := annotationKind(x.Kind); err != nil {
		return err
	}
	if err := annotationText(x.Text); err != nil {
		return err
	}
	var r annotationJSON
	if err := a.query(ctx, "set_annotation", map[string]any{"kind": string(x.Kind), "address": formatAddress(x.Address), "text": x.Text}, &r); err != nil {
		return err
	}
	if x.Kind == ports.AnnotationName {
		a.renamed()
		return nil
	}
	a.noteMu.Lock()
	if a.noted == nil {
		a.noted = map[ports.AnnotationKind]map[uint64]bool{}
	}
	if a.noted[x.Kind] == nil {
		a.noted[x.Kind] = map[uint64]bool{}
	}
	a.noted[x.Kind][x.Address] = true
	a.noteMu.Unlock()
	return nil
}

// RemoveAnnotation removes a name or a comment; ErrNotFound when there is
// none.
func (a *Analysis) RemoveAnnotation(ctx context.Context, kind ports.AnnotationKind, addr uint64) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if err := annotationKind(kind); err != nil {
		return err
	}
	var r annotationJSON
	if err := a.query(ctx, "remove_annotation", map[string]any{"kind": string(kind), "address": formatAddress(addr)}, &r); err != nil {
		return err
	}
	if kind == ports.AnnotationName {
		a.renamed()
	} else {
		a.noteMu.Lock()
		delete(a.noted[kind], addr)
		a.noteMu.Unlock()
	}
	if r.Removed == nil || !*r.Removed {
		return fmt.Errorf("hopper: no %s at %#x: %w", kind, addr, ports.ErrNotFound)
	}
	return nil
}

// renamed drops the cached procedure list, whose names a rename changed.
func (a *Analysis) renamed() {
	a.cacheMu.Lock()
	a.procs, a.ranges = nil, nil
	a.cacheMu.Unlock()
}

func annotationText(s string) error {
	if s == "" || !utf8.ValidString(s) || utf8.RuneCountInString(s) > maxAnnotation {
		return fmt.Errorf("hopper: annotation text must be 1 to %d characters of UTF-8: %w", maxAnnotation, ports.ErrMalformed)
	}
	for _, c := range s {
		if (c < 0x20 && c != '\t') || c == 0x7f {
			return fmt.Errorf("hopper: annotation text holds a control character: %w", ports.ErrMalformed)
		}
	}
	return nil
}
