package core_test

import (
	"bytes"
	"context"
	"errors"
	"testing"

	"rea/core"
)

// FuzzReadBundle reads arbitrary bytes as a bundle: no panic, and every
// failure is a canonical *core.Error. A bundle that is accepted is canonical:
// writing its records back gives the same bytes.
func FuzzReadBundle(f *testing.F) {
	var good bytes.Buffer
	v := "0.1.0"
	recs := []*core.Evidence{}
	for i, p := range []string{`{"a":1}`, `"é<&>\u2028"`, `[1.5,-0,1e21]`} {
		e := &core.Evidence{Provider: core.ProviderRef{ID: "rea", Name: "rea", Version: &v}, Operation: "fuzz",
			Parameters: []byte(`{"i":` + string(rune('0'+i)) + `}`), NormalizedResult: []byte(p)}
		if err := e.Seal(); err != nil {
			f.Fatal(err)
		}
		recs = append(recs, e)
	}
	if _, err := core.WriteBundle(context.Background(), &good, core.SourceOf(recs, nil), nil); err != nil {
		f.Fatal(err)
	}
	f.Add(good.Bytes())
	f.Add(good.Bytes()[:good.Len()/2])
	f.Add([]byte(`{"artifacts":[],"captures":[],"environments":[],"providers":[],"records":[],"scenarios":[],"unknowns":[]}`))
	f.Add([]byte(`[[[[[[[[`))
	f.Fuzz(func(t *testing.T, data []byte) {
		var got []*core.Evidence
		lim := core.BundleLimits{MaxBytes: 1 << 20, MaxDepth: 16, MaxStringBytes: 4096, MaxNodes: 10000}
		info, err := core.ReadBundle(context.Background(), bytes.NewReader(data), &lim, func(e *core.Evidence) error { got = append(got, e); return nil })
		if err != nil {
			var ce *core.Error
			if !errors.As(err, &ce) {
				t.Fatalf("untyped error %T: %v", err, err)
			}
			return
		}
		var again bytes.Buffer
		if _, err := core.WriteBundle(context.Background(), &again, core.SourceOf(got, info.Unknowns), nil); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(again.Bytes(), data) {
			t.Fatalf("accepted a bundle that is not its canonical rebuild:\n%s\n%s", data, again.Bytes())
		}
	})
}
