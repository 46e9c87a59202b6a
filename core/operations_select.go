package core

import (
	"context"

	"rea/ports"
)

// SelectProvider applies the registry's selection policy (the configured
// default, else the single usable candidate) to a target other than the
// session's open one, for operations that open targets of their own, such
// as compare_binaries. requested is a provider id or "" for the default. A
// nil binding with a nil error means no provider can analyze t. The caller
// opens and closes the analysis; the session's open target is untouched.
func (c *Call) SelectProvider(ctx context.Context, requested string, t ports.Target) (*Binding, error) {
	if c.Session.reg == nil {
		return nil, nil
	}
	return c.Session.reg.selectProvider(ctx, requested, t)
}
