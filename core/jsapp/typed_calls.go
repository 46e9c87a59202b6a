package jsapp

import (
	"context"
	"encoding/json"

	"rea/core"
)

// Typed functions over application Evidence (the types are in
// typed_ops.go). The application records are passed as retained
// references, so they must be retained by s (as AnalyzeApplication's are).

// TraceFeature traces from in.Seed through the application graph of app,
// an analyze_javascript_application record; in.Application is set from app.
func TraceFeature(ctx context.Context, s *core.Session, app *core.Evidence, in TraceApplicationFeatureInput) (TraceApplicationFeatureResult, *core.Evidence, error) {
	in.Application = reference(app)
	return core.Invoke[TraceApplicationFeatureResult](ctx, s, "trace_application_feature", in)
}

// CompareVersions compares two application records, left the older;
// in.Left and in.Right are set from them.
func CompareVersions(ctx context.Context, s *core.Session, left, right *core.Evidence, in CompareApplicationVersionsInput) (CompareApplicationVersionsResult, *core.Evidence, error) {
	in.Left, in.Right = reference(left), reference(right)
	return core.Invoke[CompareApplicationVersionsResult](ctx, s, "compare_application_versions", in)
}

func reference(ev *core.Evidence) json.RawMessage {
	if ev == nil {
		return nil // the operation answers invalid_request
	}
	b, _ := json.Marshal(core.Reference(ev.EvidenceID))
	return b
}
