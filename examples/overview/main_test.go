package main

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/matryer/is"
)

func TestOverview(t *testing.T) {
	is := is.New(t)
	var out bytes.Buffer
	is.NoErr(overview(context.Background(), &out, "/usr/bin/ls"))
	is.True(strings.Contains(out.String(), ": elf (sha256 "))
	is.True(strings.Contains(out.String(), "\nentry 0x"))
	is.True(strings.Contains(out.String(), "evidence ev_"))
	is.True(overview(context.Background(), &out, "/nonexistent") != nil)
}
