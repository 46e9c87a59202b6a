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
			return storeOf(c).list(ctx, kind)
		}}
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
