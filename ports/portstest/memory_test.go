package portstest_test

import (
	"errors"
	"testing"

	"github.com/matryer/is"

	"rea/ports"
	"rea/ports/portstest"
)

func TestMemoryAccount(t *testing.T) {
	is := is.New(t)
	a := &portstest.MemoryAccount{Max: 100}
	r1, err := a.Reserve("x", 60)
	is.NoErr(err)
	_, err = a.Reserve("y", 50) // over the bound: refused, nothing charged
	is.True(errors.Is(err, ports.ErrResourceLimit))
	var le *ports.LimitError
	is.True(errors.As(err, &le))
	is.Equal(le.Limit, "TEST_MEMORY")
	r2, err := a.Reserve("x", 40)
	is.NoErr(err)
	is.Equal(a.InUse(), int64(100))
	r1()
	r1() // a release counts once
	r2()
	is.Equal(a.InUse(), int64(0))
	is.Equal(a.Peak(), int64(100))
	is.Equal(a.Charged("x"), int64(100))
	is.Equal(a.Charged("y"), int64(0))
}
