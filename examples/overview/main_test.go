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
	is.True(strings.Contains(out.String(), " procedures, first "))
	is.True(strings.Contains(out.String(), "matching strings, used by "))
	is.True(strings.Contains(out.String(), "layout: elf "))
	is.True(overview(context.Background(), &out, "/nonexistent") != nil)
}
