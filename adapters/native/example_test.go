package native_test

import (
	"context"
	"fmt"
	"log"

	"rea/adapters/native"
)

// OpenFile parses a binary; each list is computed on first use.
func ExampleOpenFile() {
	ctx := context.Background()
	a, err := native.OpenFile(ctx, "/usr/bin/ls")
	if err != nil {
		log.Fatal(err)
	}
	defer a.Close(ctx)
	procs, err := a.Procedures(ctx)
	if err != nil {
		log.Fatal(err)
	}
	for _, p := range procs[:3] {
		fmt.Printf("0x%x %s (%s)\n", p.Address, p.Name, p.Source)
	}
}
