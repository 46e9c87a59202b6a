package binary_test

import (
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"

	"github.com/matryer/is"

	"rea/core"
	"rea/core/standard"
	"rea/ports"
)

// sessionLayoutFake is a provider that reads layouts and opens analyses
// that read their own target's layout (ports.TargetLayoutReader),
// counting each read.
type sessionLayoutFake struct{ provider, target *atomic.Int32 }

func (sessionLayoutFake) Info() ports.ProviderInfo {
	return ports.ProviderInfo{ID: "session-layout-fake", Name: "session layout fake", Version: "1"}
}
func (sessionLayoutFake) Availability(context.Context) ports.Availability {
	return ports.Availability{Available: true}
}
func (sessionLayoutFake) Support(context.Context, ports.Target) ports.Support {
	return ports.Support{Supported: true}
}
func (f sessionLayoutFake) Open(context.Context, ports.Target) (ports.Analysis, error) {
	return sessionLayoutAnalysis(f), nil
}
func (f sessionLayoutFake) ReadLayout(_ context.Context, _ io.ReaderAt, size int64) (*ports.Layout, error) {
	f.provider.Add(1)
	return fakeFortifiedLayout(size), nil
}

type sessionLayoutAnalysis sessionLayoutFake

func (sessionLayoutAnalysis) Version() string             { return "1" }
func (sessionLayoutAnalysis) Profile() ports.Profile      { return ports.Profile{SchemaVersion: 1} }
func (sessionLayoutAnalysis) Close(context.Context) error { return nil }
func (a sessionLayoutAnalysis) ReadTargetLayout(_ context.Context, _ io.ReaderAt, size int64) (*ports.Layout, error) {
	a.target.Add(1)
	return fakeFortifiedLayout(size), nil
}

func fakeFortifiedLayout(size int64) *ports.Layout {
	return &ports.Layout{Format: "elf", Machine: "EM_X86_64", Bits: 64, ByteOrder: "little", ImageType: "ET_DYN", Entry: uint64(size),
		Dynamic: ports.LayoutDynamic{Fortified: []string{"__printf_chk", "__read_chk"}}}
}

// TestLayoutReadsThroughTheOpenTarget: inspect_binary_layout of the open
// target's bytes asks the session's analysis (ports.TargetLayoutReader),
// so that the provider need not analyse the file again; of any other file
// it asks the provider. The Evidence is the same either way, and carries
// the FORTIFY_SOURCE fields.
func TestLayoutReadsThroughTheOpenTarget(t *testing.T) {
	is := is.New(t)
	exe, err := os.Executable() // an ELF file: the fake ignores its bytes
	is.NoErr(err)
	data, err := os.ReadFile(exe)
	is.NoErr(err)
	other := filepath.Join(t.TempDir(), "other")
	is.NoErr(os.WriteFile(other, append(data, 0), 0o644)) // other bytes
	cat, err := standard.Catalog()
	is.NoErr(err)
	cat.SetCheckOutputs(true)
	f := sessionLayoutFake{provider: new(atomic.Int32), target: new(atomic.Int32)}
	reg, err := core.NewRegistry([]ports.Provider{f}, nil)
	is.NoErr(err)
	s := core.NewSession(cat, reg, nil)
	defer s.Close(context.Background())
	layout := func(path string) *core.Result {
		res, err := s.Call(context.Background(), "inspect_binary_layout", json.RawMessage(`{"path":"`+path+`"}`), nil)
		is.NoErr(err)
		return res
	}

	before := layout(exe) // nothing open: the provider reads it
	is.Equal([2]int32{f.provider.Load(), f.target.Load()}, [2]int32{1, 0})
	_, err = s.Call(context.Background(), "open_binary", json.RawMessage(`{"path":"`+exe+`"}`), nil)
	is.NoErr(err)
	after := layout(exe) // the open target: its analysis reads it
	is.Equal([2]int32{f.provider.Load(), f.target.Load()}, [2]int32{1, 1})
	is.Equal(after.Evidence.EvidenceID, before.Evidence.EvidenceID)
	layout(other) // not the open target: the provider
	is.Equal([2]int32{f.provider.Load(), f.target.Load()}, [2]int32{2, 1})

	var r struct {
		Mitigations struct {
			Fortify   *bool    `json:"fortify_source_indicator"`
			Functions []string `json:"fortified_functions"`
		} `json:"mitigations"`
	}
	is.NoErr(json.Unmarshal(after.Evidence.NormalizedResult, &r))
	is.True(r.Mitigations.Fortify != nil && *r.Mitigations.Fortify)
	is.Equal(r.Mitigations.Functions, []string{"__printf_chk", "__read_chk"})
}
