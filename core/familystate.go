package core

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"sync"

	"rea/ports"
)

// Kernel hooks for families that keep per-connection state (the analyst's
// cursor) or change how other families name things (analyst names).
//
//   - Call.State gives a family a value kept for the session, created on
//     first use and dropped by close_binary with the ledger.
//   - Call.Records and Call.RetainedGeneration read the ledger, so state
//     derived from retained records (an annotation overlay recorded as
//     mutation Evidence) is rebuilt after an import or a close.
//   - Family.AnalystNames is the one source of analysts' names for the bound
//     target; Call.AnalystNames reads it, and Call.NoteRenamed records that
//     a result shows an analyst's name in place of the engine's, which the
//     session turns into one limitation naming the engine's original names.

// familyState is a session's per-family values.
type familyState struct {
	mu     sync.Mutex
	values map[string]any
}

func (f *familyState) clear() {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.values = nil
}

// State returns the value the session keeps under key, created by mk on
// first use (mk runs under the state lock and must not call back into
// State). The value must be safe for concurrent use by the calls of one
// session. close_binary drops every value.
func (c *Call) State(key string, mk func() any) any {
	f := &c.Session.state
	f.mu.Lock()
	defer f.mu.Unlock()
	if v, ok := f.values[key]; ok {
		return v
	}
	if f.values == nil {
		f.values = map[string]any{}
	}
	v := mk()
	f.values[key] = v
	return v
}

// Records returns the records retained by this session, sorted by
// evidence_id.
func (c *Call) Records() []*Evidence { return c.Session.ledger.Records() }

// RetainedGeneration changes whenever this session's ledger gains or loses
// records (Ledger.Generation).
func (c *Call) RetainedGeneration() uint64 { return c.Session.ledger.Generation() }

// NameOverlay returns the names analysts gave addresses of the target c is
// bound to, keyed by address; nil when there are none.
type NameOverlay func(ctx context.Context, c *Call) (map[uint64]string, error)

// AnalystNames returns the analysts' names for the bound target from the
// catalog's NameOverlay, or nil when the catalog has none, no target is
// bound, or the overlay fails (a result is then shown with the engine's
// names only, never refused).
func (c *Call) AnalystNames(ctx context.Context) map[uint64]string {
	f := c.Session.cat.analystNames
	if f == nil || c.bound.target == nil {
		return nil
	}
	m, err := f(ctx, c)
	if err != nil {
		c.Session.opts.Logger.Warn("analyst names unavailable", "operation", c.Op.Name, "error", err)
		return nil
	}
	return m
}

// AnnotationSource lists the analysts' annotations of one kind on the
// target c is bound to, sorted by address.
type AnnotationSource func(ctx context.Context, c *Call, kind ports.AnnotationKind) ([]ports.Annotation, error)

// Annotations lists the analysts' annotations of kind on the bound target
// from the catalog's AnnotationSource; nil, nil when the catalog has none
// or no target is bound.
func (c *Call) Annotations(ctx context.Context, kind ports.AnnotationKind) ([]ports.Annotation, error) {
	f := c.Session.cat.annotations
	if f == nil || c.bound.target == nil {
		return nil, nil
	}
	return f(ctx, c, kind)
}

// renamed is what one call showed under analysts' names.
type renamed struct {
	mu    sync.Mutex
	names map[uint64][2]string // address -> {analyst's name, engine's name}
}

// NoteRenamed records that this call's result shows name at addr where the
// engine says original ("" for an engine without a name there). The sealed
// Evidence gets one limitation listing them, so the original stays in the
// record.
func (c *Call) NoteRenamed(addr uint64, name, original string) {
	c.renamed.mu.Lock()
	defer c.renamed.mu.Unlock()
	if c.renamed.names == nil {
		c.renamed.names = map[uint64][2]string{}
	}
	c.renamed.names[addr] = [2]string{name, original}
}

// maxRenamedListed bounds the renamed limitation.
const maxRenamedListed = 32

// renamedLimitation is the limitation for the names this call replaced, or
// "" when it replaced none.
func (c *Call) renamedLimitation() string {
	c.renamed.mu.Lock()
	defer c.renamed.mu.Unlock()
	if len(c.renamed.names) == 0 {
		return ""
	}
	addrs := make([]uint64, 0, len(c.renamed.names))
	for a := range c.renamed.names {
		addrs = append(addrs, a)
	}
	sort.Slice(addrs, func(i, j int) bool { return addrs[i] < addrs[j] })
	parts := make([]string, 0, min(len(addrs), maxRenamedListed))
	for _, a := range addrs[:min(len(addrs), maxRenamedListed)] {
		n := c.renamed.names[a]
		orig := "no engine name"
		if n[1] != "" {
			orig = fmt.Sprintf("engine: %q", n[1])
		}
		parts = append(parts, fmt.Sprintf("%s %q (%s)", Hex(a), n[0], orig))
	}
	more := ""
	if len(addrs) > maxRenamedListed {
		more = fmt.Sprintf("; and %d more", len(addrs)-maxRenamedListed)
	}
	return "Names set by the analyst (set_address_name) replace the engine's names in this result: " + strings.Join(parts, "; ") + more + "."
}

// withRenamed returns obs with the renamed limitation appended (a copy;
// obs itself is not changed), or obs when the call replaced no name.
func (c *Call) withRenamed(obs *Observation) *Observation {
	l := c.renamedLimitation()
	if l == "" || obs == nil {
		return obs
	}
	o := *obs
	o.Limitations = append(append([]string{}, obs.Limitations...), l)
	return &o
}
