package binary

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"rea/core"
	"rea/ports"
)

// archLimitations names what the bound provider cannot observe on this
// target's architecture: code it does not decode (no instructions, blocks,
// references or calls, so every code result is empty for want of a
// decoder, not for want of code) and value flow it does not model. It asks
// the engine once per open analysis, by decoding one instruction of the
// first procedure and computing that procedure's value flow, and caches the
// answer; an engine error other than ErrUnsupported says nothing here. An
// engine that reports its support (ports.ArchitectureReporter) is asked
// instead, with the probe taken from its early list, so that no result
// waits here for whole-file discovery.
func archLimitations(ctx context.Context, c *core.Call) []string {
	a, b, t := c.Bound()
	if a == nil || t == nil {
		return nil
	}
	l := listsOf(a)
	l.archMu.Lock()
	defer l.archMu.Unlock()
	if l.archOK {
		return l.archLims
	}
	id := "the bound provider"
	if b != nil {
		id = b.Provider.Info().ID
	}
	arch := orUnknown(t.Architecture)
	var lims []string
	decoded := false
	reporter, reports := a.(ports.ArchitectureReporter)
	var support ports.ArchitectureSupport
	if reports {
		// An engine that decodes the architecture, and models its value
		// flow where it analyses value flow, adds no limitation whatever
		// the target's procedures are: answer without listing them (on a
		// large binary the list costs most of a cheap call such as
		// list_segments).
		var err error
		if support, err = reporter.ArchitectureSupport(ctx); err != nil {
			return nil
		}
		if _, vfa := a.(ports.ValueFlowAnalyzer); support.Decodes && (support.ValueFlow || !vfa) {
			if ctx.Err() != nil {
				return nil
			}
			l.archOK, l.archLims = true, nil
			return nil
		}
	}
	var procs []ports.Procedure
	var err error
	if reports {
		procs, _, err = earlyProcedures(ctx, c) // an engine that reports need not be probed, nor waited for
	} else {
		procs, err = l.procedures(ctx, a)
	}
	if err != nil {
		return nil
	}
	probe := uint64(0)
	for _, p := range procs {
		if !p.External && !p.Thunk {
			probe = p.Address
			break
		}
	}
	if reports && probe != 0 && !support.Decodes {
		l.archNoDecode = true
		lims = append(lims, fmt.Sprintf("Unsupported architecture: %s does not decode the %s instruction set, so no instructions, basic blocks, "+
			"references or calls are observed; code results are empty for want of a decoder, and procedures come only from symbols and metadata.", id, arch))
	} else if reports && probe != 0 {
		decoded = true
	}
	if _, ok := a.(ports.ValueFlowAnalyzer); ok && reports && decoded && !support.ValueFlow {
		lims = append(lims, fmt.Sprintf("Unsupported architecture: %s does not model value flow for %s (native_value_flow is unavailable).", id, arch))
	}
	if fa, ok := a.(ports.FunctionAnalyzer); ok && !reports && probe != 0 {
		_, err := fa.Function(ctx, ports.FunctionRequest{Address: probe, MaxInstructions: 1})
		switch {
		case errors.Is(err, ports.ErrUnsupported):
			l.archNoDecode = true
			lims = append(lims, fmt.Sprintf("Unsupported architecture: %s does not decode the %s instruction set, so no instructions, basic blocks, "+
				"references or calls are observed; code results are empty for want of a decoder, and procedures come only from symbols and metadata.", id, arch))
		case err == nil:
			decoded = true
		}
	}
	if vfa, ok := a.(ports.ValueFlowAnalyzer); ok && decoded && !reports {
		if _, err := l.valueFlow(ctx, vfa, probe); errors.Is(err, ports.ErrUnsupported) {
			lims = append(lims, fmt.Sprintf("Unsupported architecture: %s does not model value flow for %s (native_value_flow is unavailable).", id, arch))
		}
	}
	if ctx.Err() != nil {
		l.archNoDecode = false
		return lims // not cached: a cancelled probe proves nothing
	}
	l.archOK, l.archLims = true, lims
	return lims
}

// decodes reports whether the bound provider decodes the open target's code
// (false only when it said ErrUnsupported).
func decodes(ctx context.Context, c *core.Call) bool {
	a, _, _ := c.Bound()
	archLimitations(ctx, c)
	l := listsOf(a)
	l.archMu.Lock()
	defer l.archMu.Unlock()
	return !l.archNoDecode
}

// withArchLimitations makes an operation's Evidence start with the
// architecture limitations of the open target.
func withArchLimitations(op *core.Operation) *core.Operation {
	h := op.Handler
	op.Handler = func(ctx context.Context, c *core.Call) (any, error) {
		out, err := h(ctx, c)
		if err != nil {
			return out, err
		}
		obs, ok := out.(*core.Observation)
		if !ok || obs.Subject != nil {
			return out, err // results about another file than the open target
		}
		withArch(ctx, c, obs)
		return obs, nil
	}
	return op
}

// withArch puts the architecture limitations first in obs's limitations,
// unless they are already there.
func withArch(ctx context.Context, c *core.Call, obs *core.Observation) {
	var add []string
	for _, l := range append(slices.Clone(archLimitations(ctx, c)), engineLimitations(ctx, c)...) {
		if !slices.Contains(obs.Limitations, l) {
			add = append(add, l)
		}
	}
	if len(add) == 0 {
		return
	}
	obs.Limitations = append(add, obs.Limitations...)
}

// engineLimitations are the bound analysis's own cuts (tables larger than
// the engine reads), so that a truncated symbol table is never silent.
func engineLimitations(ctx context.Context, c *core.Call) []string {
	a, _, _ := c.Bound()
	lr, ok := a.(ports.LimitationReporter)
	if !ok {
		return nil
	}
	lims, err := lr.Limitations(ctx)
	if err != nil {
		return nil
	}
	return lims
}
