package ports_test

import (
	"testing"

	"github.com/matryer/is"

	"rea/ports"
)

// An engine's flow names read as the flows they name; "next" is
// FlowNext, as "" is; any other name is refused.
func TestParseFlow(t *testing.T) {
	is := is.New(t)
	for name, want := range map[string]ports.Flow{"": ports.FlowNext, "next": ports.FlowNext, "call": ports.FlowCall,
		"jump": ports.FlowJump, "branch": ports.FlowBranch, "return": ports.FlowReturn, "stop": ports.FlowStop} {
		f, ok := ports.ParseFlow(name)
		is.True(ok)
		is.Equal(f, want)
	}
	for _, name := range []string{"jmp", "Call", "ret", " "} {
		_, ok := ports.ParseFlow(name)
		is.True(!ok) // not a flow
	}
}
