package core

import (
	"errors"
	"testing"

	"github.com/matryer/is"

	"rea/ports"
)

func TestMemoryBudgetRefusesPastCallAndServerLimits(t *testing.T) {
	is := is.New(t)
	b := &memoryBudget{call: 100, server: 150}
	a, c := &callMemory{b: b}, &callMemory{b: b}

	r1, err := a.Reserve("first", 80)
	is.NoErr(err)
	_, err = a.Reserve("second", 30) // 110 > the call's 100
	var le *ports.LimitError
	is.True(errors.As(err, &le))
	is.Equal(le.Limit, MaxCallMemoryEnv)
	is.Equal(le.InUse, int64(80))

	_, err = c.Reserve("other call", 80) // 160 > the server's 150
	is.True(errors.As(err, &le))
	is.Equal(le.Limit, MaxMemoryEnv)

	r1()
	r1() // a second release changes nothing
	is.Equal(b.used.Load(), int64(0))
	r2, err := c.Reserve("other call", 80) // room again
	is.NoErr(err)
	r2()

	// A refusal reaches the client as resource_constraint naming the
	// setting that raises the limit.
	e := AsError("binary_overview", &ports.LimitError{What: "a symbol string table", Limit: MaxCallMemoryEnv, Max: 100, Requested: 120})
	is.Equal(e.Code, CodeResourceConstraint)
	is.Equal(e.Details["limit"], MaxCallMemoryEnv)
	is.True(len(e.Remediation) > 0)
}
