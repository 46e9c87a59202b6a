// Command presentgen writes core/presented.json, the cache of every tool's
// advertised schemas that rea embeds to start faster (core/advertise.go, rea/core/present).
// Run it with `go generate ./core`.
package main

import (
	"bytes"
	"flag"
	"fmt"
	"os"

	"rea/core"
	"rea/core/standard"
)

func main() {
	out := flag.String("o", "presented.json", "output file")
	flag.Parse()
	cat, err := standard.Catalog()
	if err == nil {
		var buf bytes.Buffer
		if err = core.WritePresentations(&buf, cat); err == nil {
			err = os.WriteFile(*out, buf.Bytes(), 0o644)
		}
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "presentgen:", err)
		os.Exit(1)
	}
}
