package native_test

import (
	"context"
	"fmt"
	"os"
	"testing"

	"rea/adapters/native"
)

func TestZZRefDump(t *testing.T) {
	path := os.Getenv("ZZ_PATH")
	if path == "" {
		t.Skip()
	}
	a, err := native.OpenFile(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	refs, err := a.ReferencesFrom(context.Background(), 0, 1<<32)
	if err != nil {
		t.Fatal(err)
	}
	f, _ := os.Create(os.Getenv("ZZ_OUT"))
	for _, r := range refs {
		fmt.Fprintf(f, "%x %x %s %v %x\n", r.From, r.To, r.Kind, r.Unresolved, r.Slot)
	}
	f.Close()
}
