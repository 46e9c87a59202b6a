package annotate_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/matryer/is"

	"rea/core"
	"rea/ports"
	"rea/ports/portstest"
)

// TestBothFamiliesResolveLocationsAlike: the annotation family's address
// inputs (goto_address) and core/binary's (address_name, list_names) read
// every form to the same address and
// refuse an unknown name and an unmapped address with the same details,
// since both resolve through core/codeloc over their own view of the
// target.
func TestBothFamiliesResolveLocationsAlike(t *testing.T) {
	is := is.New(t)
	s := session(t, portstest.NewFake())
	result(t, s, "set_address_name", `{"address":"0x1030","name":"entry_logic"}`)
	tools := []string{"goto_address", "address_name"}
	for form, want := range map[string]string{
		"0x1034": "0x1034", "4148": "0x1034", "main": "0x1030", "entry_logic": "0x1030", "sub_1030": "0x1030",
		"main+4": "0x1034", "entry_logic+0x4": "0x1034", "sub_1030+0x4": "0x1034", "greeting": "0x2000",
	} {
		args := `{"address":"` + form + `"}`
		for _, tool := range tools {
			m, _ := result(t, s, tool, args)
			if m["address"] != want {
				t.Errorf("%s %s: %v, want %s", tool, form, m["address"], want)
			}
		}
	}
	tools = append(tools, "list_names")
	for _, form := range []string{"mian", "0x3000", "0x900000", "main+0x900000"} {
		var first []byte
		for _, tool := range tools {
			_, err := s.Call(context.Background(), tool, json.RawMessage(`{"address":"`+form+`"}`), nil)
			var ce *core.Error
			is.True(errors.As(err, &ce))
			is.Equal(ce.Code, core.CodeInvalidRequest)
			d := map[string]any{}
			for k, v := range ce.Details {
				if k != "operation" {
					d[k] = v
				}
			}
			b, _ := json.Marshal(d)
			if first == nil {
				first = b
			} else if string(b) != string(first) {
				t.Errorf("%s %s: %s; goto_address: %s", tool, form, b, first)
			}
		}
	}
}

// TestANameCannotEndInAnOffset: set_address_name refuses a name shaped
// like NAME+OFFSET, which every location input reads as an offset from
// NAME (before, "main+0x10" was taken, and then named two addresses).
func TestANameCannotEndInAnOffset(t *testing.T) {
	is := is.New(t)
	s := session(t, portstest.NewFake())
	for _, name := range []string{"main+0x10", "x+16"} {
		_, err := s.Call(context.Background(), "set_address_name", json.RawMessage(`{"address":"0x1000","name":"`+name+`"}`), nil)
		var ce *core.Error
		is.True(errors.As(err, &ce))
		is.Equal(ce.Code, core.CodeInvalidRequest)
	}
	result(t, s, "set_address_name", `{"address":"0x1000","name":"a+b"}`) // no number after +: a name
}

// TestAnEngineRefusingAnAddressIsRefusedAsUnmapped: an engine that keeps
// annotations itself (Hopper, a writable Ghidra program) and maps no byte
// at an address rea's view maps refuses the change with ErrNotFound; the
// caller gets codeloc's refusal of an unmapped address (issue
// out_of_range at the argument, details reason address_unmapped, address
// and nearest_segments), the shape of every other unmapped address. Before,
// it was invalid_request with only details.reason address_unmapped: no
// issue, no address, no nearest segments.
func TestAnEngineRefusingAnAddressIsRefusedAsUnmapped(t *testing.T) {
	is := is.New(t)
	store := &portstest.AnnotatorFake{Ranges: [][2]uint64{{0x1000, 0x1010}}} // maps puts@plt only
	s := session(t, &engineProvider{portstest.NewFake(), store})
	_, err := s.Call(context.Background(), "goto_address", json.RawMessage(`{"address":"0x3000"}`), nil)
	var want *core.Error
	is.True(errors.As(err, &want)) // rea's own refusal, between .text and .rodata
	for _, tc := range []struct{ tool, args, path string }{
		{"set_comment", `{"address":"main","comment":"c"}`, `["address"]`},
		{"set_bookmark", `{"address":"main+4"}`, `["address"]`},
		{"set_address_name", `{"address":"main","name":"m"}`, `["address"]`},
		{"set_addresses_names", `{"names":{"main":"m"}}`, `["names","main"]`},
	} {
		_, err := s.Call(context.Background(), tc.tool, json.RawMessage(tc.args), nil)
		var ce *core.Error
		if !errors.As(err, &ce) {
			t.Fatalf("%s: %v, want a core.Error", tc.tool, err)
		}
		is.Equal(ce.Code, want.Code)
		var keys, wantKeys []string
		for k := range ce.Details {
			keys = append(keys, k)
		}
		for k := range want.Details {
			wantKeys = append(wantKeys, k)
		}
		slices.Sort(keys)
		slices.Sort(wantKeys)
		is.Equal(keys, wantKeys) // the same details keys
		is.Equal(ce.Details["reason"], "address_unmapped")
		b, _ := json.Marshal(ce.Details)
		var d struct {
			Address string
			Issues  []core.Issue
			Nearest []struct{ Name, Start, End string } `json:"nearest_segments"`
		}
		is.NoErr(json.Unmarshal(b, &d))
		is.True(d.Address == "0x1030" || d.Address == "0x1034")
		is.Equal(len(d.Issues), 1)
		is.Equal(d.Issues[0].Reason, core.ReasonOutOfRange)
		p, _ := json.Marshal(d.Issues[0].Path)
		is.Equal(string(p), tc.path)
		is.Equal(len(d.Nearest), 1) // .rodata above; .text holds the address in rea's view
		is.Equal(d.Nearest[0].Name, ".rodata")
		is.True(strings.Contains(ce.Message, "engine"))
	}
	got, err := store.Annotations(context.Background(), "comment")
	is.NoErr(err)
	is.Equal(len(got), 0) // nothing changed
}

// racingRemover is an engine store whose annotations another client
// removes between rea's listing and its removal: RemoveAnnotation says
// ErrNotFound for an annotation the listing had.
type racingRemover struct{ *portstest.AnnotatorFake }

func (racingRemover) RemoveAnnotation(ctx context.Context, k ports.AnnotationKind, addr uint64) error {
	return fmt.Errorf("no %s at %#x: %w", k, addr, ports.ErrNotFound)
}

type racingProvider struct {
	*portstest.Fake
	store racingRemover
}

func (p *racingProvider) Open(ctx context.Context, t ports.Target) (ports.Analysis, error) {
	a, err := p.Fake.Open(ctx, t)
	if err != nil {
		return nil, err
	}
	return &struct {
		ports.Analysis
		ports.SegmentLister
		ports.ProcedureLister
		ports.NameLister
		racingRemover
	}{a, a.(ports.SegmentLister), a.(ports.ProcedureLister), a.(ports.NameLister), p.store}, nil
}

// TestAnEngineRemovalOfAnAbsentAnnotationIsAbsent: the engine's
// ErrNotFound on a removal means the annotation is gone (ports.Annotator),
// not that the address is unmapped: annotation_absent, as when rea sees it
// absent first.
func TestAnEngineRemovalOfAnAbsentAnnotationIsAbsent(t *testing.T) {
	is := is.New(t)
	store := racingRemover{&portstest.AnnotatorFake{Ranges: [][2]uint64{{0x1000, 0x1100}}}}
	s := session(t, &racingProvider{portstest.NewFake(), store})
	result(t, s, "set_bookmark", `{"address":"main"}`)
	_, err := s.Call(context.Background(), "unset_bookmark", json.RawMessage(`{"address":"main"}`), nil)
	var ce *core.Error
	is.True(errors.As(err, &ce))
	is.Equal(ce.Details["reason"], "annotation_absent")
	is.Equal(ce.Details["address"], "0x1030")
}
