package main

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/matryer/is"
)

func TestCompare(t *testing.T) {
	is := is.New(t)
	var out bytes.Buffer
	is.NoErr(compare(context.Background(), &out, "/usr/bin/ls", "/usr/bin/ls"))
	is.True(strings.Contains(out.String(), " unchanged, 0 changed, ")) // a build against itself: nothing changed
	is.True(strings.Contains(out.String(), "evidence ev_"))

	out.Reset()
	is.NoErr(compare(context.Background(), &out, "/usr/bin/ls", "/usr/bin/cat"))
	is.True(!strings.Contains(out.String(), " 0 added, 0 removed\n")) // two different programs
	is.True(compare(context.Background(), &out, "/usr/bin/ls", "/nonexistent") != nil)
}
