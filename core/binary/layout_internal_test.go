package binary

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/matryer/is"

	"rea/ports"
)

// TestLayoutStackCanaryUnknown: a provider that cannot tell whether the
// canary is used (a stripped static binary) gets a null indicator and its
// reason among the limitations, not a guessed false.
func TestLayoutStackCanaryUnknown(t *testing.T) {
	is := is.New(t)
	indicator := func(d ports.LayoutDynamic) (string, []string) {
		r := newLayoutResult(&ports.Layout{Format: "elf", ImageType: "ET_EXEC", Dynamic: d}, "/x", strings.Repeat("0", 64), 1)
		b, err := json.Marshal(r.Mitigations.StackCanaryIndicator)
		is.NoErr(err)
		return string(b), r.Limitations
	}
	got, lims := indicator(ports.LayoutDynamic{StackCanaryUnknown: true, StackCanaryLimit: "cannot tell"})
	is.Equal(got, "null")
	is.True(slices.Contains(lims, "cannot tell"))
	got, _ = indicator(ports.LayoutDynamic{StackCanary: true})
	is.Equal(got, "true")
	got, lims = indicator(ports.LayoutDynamic{})
	is.Equal(got, "false")
	is.True(!slices.ContainsFunc(lims, func(s string) bool { return strings.HasPrefix(s, "stack_canary_indicator") }))
}

// TestLayoutFortifyUnknown: FORTIFY_SOURCE is modelled as the canary is:
// null with its reason when the provider cannot tell, else whether any
// checked function is used, and those listed.
func TestLayoutFortifyUnknown(t *testing.T) {
	is := is.New(t)
	fortify := func(d ports.LayoutDynamic) (string, []string, []string) {
		r := newLayoutResult(&ports.Layout{Format: "elf", ImageType: "ET_EXEC", Dynamic: d}, "/x", strings.Repeat("0", 64), 1)
		b, err := json.Marshal(r.Mitigations.FortifySourceIndicator)
		is.NoErr(err)
		return string(b), r.Mitigations.FortifiedFunctions, r.Limitations
	}
	got, fns, lims := fortify(ports.LayoutDynamic{FortifyUnknown: true, FortifyLimit: "cannot tell"})
	is.Equal(got, "null")
	is.Equal(fns, []string{})
	is.True(slices.Contains(lims, "cannot tell"))
	got, fns, _ = fortify(ports.LayoutDynamic{Fortified: []string{"__memcpy_chk"}})
	is.Equal(got, "true")
	is.Equal(fns, []string{"__memcpy_chk"})
	got, fns, _ = fortify(ports.LayoutDynamic{})
	is.Equal(got, "false")
	is.Equal(fns, []string{})
}
