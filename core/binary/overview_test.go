package binary_test

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"testing"
	"time"

	"github.com/matryer/is"

	"rea/core"
	"rea/core/standard"
	"rea/ports"
)

// pagingFake is dossierFake paging its strings and listing its procedures
// early; its early list waits until the strings are being listed.
type pagingFake struct {
	dossierFake
	paging chan struct{} // closed when StringsPage is called
}

func (f pagingFake) Open(context.Context, ports.Target) (ports.Analysis, error) { return f, nil }

func (f pagingFake) StringsPage(ctx context.Context, offset, limit int) ([]ports.String, int, error) {
	close(f.paging)
	all, err := f.Strings(ctx)
	if err != nil {
		return nil, 0, err
	}
	lo := min(offset, len(all))
	return all[lo:min(lo+limit, len(all))], len(all), nil
}

func (f pagingFake) EarlyProcedures(ctx context.Context) (ports.EarlyProcedures, error) {
	select {
	case <-f.paging:
		return ports.EarlyProcedures{Procedures: dfProcs}, nil
	case <-time.After(time.Minute): // a guard against a hang, not a timing check
		return ports.EarlyProcedures{}, errors.New("the strings were not being listed while the procedures were")
	}
}

// TestOverviewListsStringsAlongsideProcedures: binary_overview asks a
// provider that pages strings for them while it lists the procedures (the
// string scan is the longest part of an overview on a big binary), and the
// overview holds both.
func TestOverviewListsStringsAlongsideProcedures(t *testing.T) {
	is := is.New(t)
	target := "/usr/bin/ls" // any readable file: the fake ignores its bytes
	if _, err := os.Stat(target); err != nil {
		t.Skip("no /usr/bin/ls to open")
	}
	cat, err := standard.Catalog()
	is.NoErr(err)
	f := pagingFake{paging: make(chan struct{})}
	reg, err := core.NewRegistry([]ports.Provider{f}, nil)
	is.NoErr(err)
	s := core.NewSession(cat, reg, nil)
	defer s.Close(context.Background())
	_, err = s.Call(context.Background(), "open_binary", json.RawMessage(`{"path":"`+target+`"}`), nil)
	is.NoErr(err)
	res, err := s.Call(context.Background(), "binary_overview", json.RawMessage(`{"detail":"detailed"}`), nil)
	is.NoErr(err)
	var ov struct {
		ProcedureCount int    `json:"procedure_count"`
		ProcedureList  string `json:"procedure_list"`
		StringCount    int    `json:"string_count"`
	}
	is.NoErr(json.Unmarshal(res.Evidence.NormalizedResult, &ov))
	all, _ := f.Strings(context.Background())
	is.Equal(ov.ProcedureCount, len(dfProcs))
	is.Equal(ov.ProcedureList, "tables")
	is.Equal(ov.StringCount, len(all))
}
