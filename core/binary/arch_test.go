package binary_test

import (
	"context"
	"encoding/json"
	"os"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/matryer/is"

	"rea/core"
	"rea/core/standard"
	"rea/ports"
)

// archFake is dossierFake reporting whether it decodes the architecture,
// and counting how often its procedure list is asked for.
type archFake struct {
	dossierFake
	decodes bool
	lists   *atomic.Int32
}

func (f archFake) Open(context.Context, ports.Target) (ports.Analysis, error) { return f, nil }
func (f archFake) Procedures(context.Context) ([]ports.Procedure, error) {
	f.lists.Add(1)
	return dfProcs, nil
}
func (f archFake) ArchitectureSupport(context.Context) (ports.ArchitectureSupport, error) {
	return ports.ArchitectureSupport{Decodes: f.decodes}, nil
}

// TestArchitectureCheckListsNoProceduresWhenItCannotMatter: a cheap call
// (list_segments) on an engine that decodes the target's architecture does
// not ask for the procedure list, which only decides whether an
// unsupported architecture is worth a limitation; on an engine that does
// not decode it, the list is asked for and the limitation is there.
func TestArchitectureCheckListsNoProceduresWhenItCannotMatter(t *testing.T) {
	target := "/usr/bin/ls" // any readable file: the fake ignores its bytes
	if _, err := os.Stat(target); err != nil {
		t.Skip("no /usr/bin/ls to open")
	}
	cat, err := standard.Catalog()
	if err != nil {
		t.Fatal(err)
	}
	for _, decodes := range []bool{true, false} {
		is := is.New(t)
		f := archFake{decodes: decodes, lists: new(atomic.Int32)}
		reg, err := core.NewRegistry([]ports.Provider{f}, nil)
		is.NoErr(err)
		s := core.NewSession(cat, reg, nil)
		_, err = s.Call(context.Background(), "open_binary", json.RawMessage(`{"path":"`+target+`"}`), nil)
		is.NoErr(err)
		res, err := s.Call(context.Background(), "list_segments", json.RawMessage(`{}`), nil)
		is.NoErr(err)
		limited := strings.Contains(strings.Join(res.Evidence.Limitations, "\n"), "Unsupported architecture")
		if decodes {
			is.Equal(f.lists.Load(), int32(0)) // no procedure list for a decoded architecture
			is.True(!limited)
		} else {
			is.True(f.lists.Load() > 0)
			is.True(limited) // the limitation still comes where it applies
		}
		s.Close(context.Background())
	}
}
