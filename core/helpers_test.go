package core_test

import "strings"

func stringsReader(s string) *strings.Reader { return strings.NewReader(s) }
