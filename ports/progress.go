package ports

import "context"

// Progress receives status observations from long work. Observe must be cheap
// and safe for concurrent use; the receiver rate-limits delivery. phase names
// the step ("disassemble"), message the observed work ("1200 of 5400
// functions"). Never a percentage that was not measured.
type Progress interface {
	Observe(phase, message string)
}

type progressKey struct{}

// WithProgress returns a context that carries p to the engines it reaches.
func WithProgress(ctx context.Context, p Progress) context.Context {
	return context.WithValue(ctx, progressKey{}, p)
}

// Observe reports a status observation to the Progress carried by ctx, if any.
func Observe(ctx context.Context, phase, message string) {
	if p, ok := ctx.Value(progressKey{}).(Progress); ok && p != nil {
		p.Observe(phase, message)
	}
}
