package annotate_test

import (
	"context"
	"encoding/json"
	"errors"
	"testing"

	"github.com/matryer/is"

	"rea/core"
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
