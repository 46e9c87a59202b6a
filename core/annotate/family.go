package annotate

import (
	"context"

	"rea/core"
	"rea/ports"
)

// Family is the navigation and annotation family.
func Family() core.Family {
	return core.Family{Name: "annotate", Types: operationTypes, Operations: operations(), AnalystNames: analystNames,
		Annotations: func(ctx context.Context, c *core.Call, kind ports.AnnotationKind) ([]ports.Annotation, error) {
			if kind == cursorKind {
				return cursorAnnotation(ctx, c)
			}
			return storeOf(c).list(ctx, kind)
		}}
}

// cursorKind asks the Annotations hook for the cursor instead of an
// annotation kind: the tools of other families that default to the cursor
// (next_address, prev_address, xrefs) read it this way, as they cannot
// import this family. It is not one of ports.AnnotationKinds.
const cursorKind ports.AnnotationKind = "cursor"

// cursorAnnotation is the cursor of the bound target as one annotation
// (Address the cursor's address, Text its document), or none when the
// cursor has no address.
func cursorAnnotation(ctx context.Context, c *core.Call) ([]ports.Annotation, error) {
	v, err := viewOf(ctx, c)
	if err != nil {
		return nil, err
	}
	p := cursorsOf(c).current(c, v)
	if p.address == nil {
		return nil, nil
	}
	return []ports.Annotation{{Kind: cursorKind, Address: *p.address, Text: p.document}}, nil
}

// analystNames gives other families the names analysts set on the bound
// target through rea's overlay. An engine that keeps annotations itself
// already answers its lists with them, so it gets none from here.
func analystNames(_ context.Context, c *core.Call) (map[uint64]string, error) {
	a, _, _ := c.Bound()
	if _, engine := a.(ports.Annotator); engine {
		return nil, nil
	}
	ov := overlayOf(c)
	var out map[uint64]string
	for k, e := range ov.entries {
		if k.kind == ports.AnnotationName {
			if out == nil {
				out = map[uint64]string{}
			}
			out[k.addr] = e.value
		}
	}
	return out, nil
}
