// Command compare shows how a Go program compares two builds of a binary
// with rea: it matches their functions and prints what changed, through the
// typed function diff.CompareBinaries (no tool names, no JSON).
//
//	go run ./examples/compare old/bin new/bin
package main

import (
	"context"
	"fmt"
	"io"
	"os"

	"rea/adapters/native"
	"rea/core"
	"rea/core/diff"
	"rea/core/standard"
	"rea/ports"
)

func main() {
	if len(os.Args) != 3 {
		fmt.Fprintln(os.Stderr, "usage: compare <older binary> <newer binary>")
		os.Exit(2)
	}
	if err := compare(context.Background(), os.Stdout, os.Args[1], os.Args[2]); err != nil {
		fmt.Fprintln(os.Stderr, string(core.AsError("compare", err).JSON()))
		os.Exit(1)
	}
}

func compare(ctx context.Context, w io.Writer, older, newer string) error {
	cat, err := standard.Catalog()
	if err != nil {
		return err
	}
	reg, err := core.NewRegistry([]ports.Provider{native.New(nil)}, nil)
	if err != nil {
		return err
	}
	s := core.NewSession(cat, reg, &core.SessionOptions{Server: core.ServerIdentity{PackageName: "compare-example", Version: "0"}})
	defer s.Close(context.WithoutCancel(ctx))

	res, ev, err := diff.CompareBinaries(ctx, s, diff.CompareBinariesInput{LeftPath: older, RightPath: newer})
	if err != nil {
		return err
	}
	sum := res.Summary
	if _, err := fmt.Fprintf(w, "%d and %d functions, %d matched: %d unchanged, %d changed, %d added, %d removed\n",
		sum.LeftFunctions, sum.RightFunctions, sum.Matched, sum.Unchanged, sum.Changed, sum.Added, sum.Removed); err != nil {
		return err
	}
	for i, c := range res.Changed {
		if i == 5 {
			break
		}
		if _, err := fmt.Fprintf(w, "  changed: %s\n", c.Left.Name); err != nil {
			return err
		}
	}
	_, err = fmt.Fprintf(w, "evidence %s\n", ev.EvidenceID)
	return err
}
