package core

import "rea/ports"

// Runtime is the registered running-JavaScript observer, or nil.
func (c *Call) Runtime() ports.JavaScriptRuntimeObserver { return c.Session.reg.Runtime() }

// Runtime is the registered running-JavaScript observer, or nil (also on a
// nil Registry).
func (r *Registry) Runtime() ports.JavaScriptRuntimeObserver {
	if r == nil {
		return nil
	}
	return r.runtime
}
