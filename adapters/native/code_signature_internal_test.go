package native

import (
	"debug/dwarf"
	"testing"
)

// Crafted debug information ends: a struct holding itself by value, and
// fifteen levels of structs of 1000 fields each of the level below (some
// 65^15 visits without a budget, though each level stops at 65 parts), are
// unknown once goParts spent its budget.
func TestGoPartsEndsOnCraftedStructs(t *testing.T) {
	self := &dwarf.StructType{StructName: "loop", Kind: "struct"}
	self.Field = []*dwarf.StructField{{Name: "f", Type: self}}
	var deep dwarf.Type = &dwarf.IntType{BasicType: dwarf.BasicType{CommonType: dwarf.CommonType{ByteSize: 8}}}
	for range 15 {
		st := &dwarf.StructType{StructName: "level", Kind: "struct"}
		for range 1000 {
			st.Field = append(st.Field, &dwarf.StructField{Name: "f", Type: deep})
		}
		deep = st
	}
	for _, typ := range []dwarf.Type{self, deep} {
		budget := 1024
		if parts, ok := goParts(typ, 0, &budget); ok {
			t.Fatalf("goParts: %q, want unknown", parts)
		}
	}
	// A struct of more parts than registers stays on the stack.
	wide := &dwarf.StructType{StructName: "wide", Kind: "struct"}
	for range 100 {
		wide.Field = append(wide.Field, &dwarf.StructField{Name: "f", Type: &dwarf.IntType{BasicType: dwarf.BasicType{CommonType: dwarf.CommonType{ByteSize: 8}}}})
	}
	budget := 1024
	if parts, ok := goParts(wide, 0, &budget); !ok || string(parts) != "s" {
		t.Fatalf("goParts: %q %v, want the stack", parts, ok)
	}
}
