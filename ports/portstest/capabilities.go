package portstest

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"rea/ports"
)

// CheckCapabilities fails t when what p declares through
// ports.CapabilityLister differs from what it implements: the capabilities
// of a (an open analysis of p) plus those of p itself (read_layout). A
// provider that declares nothing, a name that is no capability, a name
// declared twice, a capability declared but not implemented and one
// implemented but not declared are each reported, by name.
//
// It takes a testing.TB so its own failure can be shown with a recorder.
func CheckCapabilities(t testing.TB, p ports.Provider, a ports.Analysis) {
	t.Helper()
	for _, problem := range capabilityMismatch(p, a) {
		t.Errorf("capabilities of %s: %s", p.Info().ID, problem)
	}
}

// capabilityMismatch lists every difference between the declaration and the
// implementation, in a fixed order.
func capabilityMismatch(p ports.Provider, a ports.Analysis) []string {
	declared, unknown, ok := ports.DeclaredCapabilities(p)
	if !ok {
		return []string{"the provider does not implement ports.CapabilityLister"}
	}
	var out []string
	for _, s := range unknown {
		out = append(out, fmt.Sprintf("declares %q, which names no ports.Capability", s))
	}
	seen := map[ports.Capability]bool{}
	for _, c := range declared {
		if seen[c] {
			out = append(out, fmt.Sprintf("declares %s twice", c))
		}
		seen[c] = true
	}
	implemented := append(ports.CapabilitiesOf(a), ports.ProviderCapabilitiesOf(p)...)
	for _, c := range declared {
		if !slices.Contains(implemented, c) && seen[c] {
			seen[c] = false // report once
			out = append(out, fmt.Sprintf("declares %s but does not implement %s", c, ifaceName(c)))
		}
	}
	for _, c := range implemented {
		if !slices.Contains(declared, c) {
			out = append(out, fmt.Sprintf("implements %s but does not declare %s", ifaceName(c), c))
		}
	}
	return out
}

func ifaceName(c ports.Capability) string {
	owner := "the analysis"
	if c.OfProvider() {
		owner = "the provider"
	}
	return fmt.Sprintf("%s (on %s)", strings.TrimPrefix(c.Interface().String(), "ports."), owner)
}
