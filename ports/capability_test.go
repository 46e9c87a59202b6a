package ports_test

import (
	"context"
	"reflect"
	"slices"
	"testing"

	"rea/ports"
)

// The wire names are frozen: they are in the catalog, tool availability and
// Evidence.
func TestCapabilityWireNames(t *testing.T) {
	want := []string{
		"disassemble", "analyze_functions", "cross_references", "read_bytes", "signatures", "decompile", "value_flow",
		"list_documents", "list_segments", "list_procedures", "list_names", "list_strings", "source_lines", "read_layout",
	}
	var got []string
	for _, c := range ports.AllCapabilities() {
		got = append(got, c.String())
	}
	if !slices.Equal(got, want) {
		t.Fatalf("capabilities %q, want %q", got, want)
	}
	for _, s := range want {
		c, ok := ports.ParseCapability(s)
		if !ok || string(c) != s || !c.Valid() || c.Interface() == nil {
			t.Errorf("ParseCapability(%q) = %q, %v", s, c, ok)
		}
	}
	if _, ok := ports.ParseCapability("list_everything"); ok {
		t.Error("an unknown name parsed")
	}
	if ports.Capability("x").Valid() || ports.Capability("x").Interface() != nil || ports.Capability("x").ImplementedBy(lister{}) {
		t.Error("an unknown capability is valid, has an interface or is implemented")
	}
}

func TestCapabilityInterface(t *testing.T) {
	tests := []struct {
		c        ports.Capability
		iface    reflect.Type
		provider bool
	}{
		{ports.CapDisassemble, reflect.TypeFor[ports.Disassembler](), false},
		{ports.CapFunctions, reflect.TypeFor[ports.FunctionAnalyzer](), false},
		{ports.CapReferences, reflect.TypeFor[ports.CrossReferencer](), false},
		{ports.CapBytes, reflect.TypeFor[ports.ByteReader](), false},
		{ports.CapSignatures, reflect.TypeFor[ports.SignatureReader](), false},
		{ports.CapDecompile, reflect.TypeFor[ports.Decompiler](), false},
		{ports.CapValueFlow, reflect.TypeFor[ports.ValueFlowAnalyzer](), false},
		{ports.CapDocuments, reflect.TypeFor[ports.DocumentLister](), false},
		{ports.CapSegments, reflect.TypeFor[ports.SegmentLister](), false},
		{ports.CapProcedures, reflect.TypeFor[ports.ProcedureLister](), false},
		{ports.CapNames, reflect.TypeFor[ports.NameLister](), false},
		{ports.CapStrings, reflect.TypeFor[ports.StringLister](), false},
		{ports.CapSourceLines, reflect.TypeFor[ports.SourceLocator](), false},
		{ports.CapLayout, reflect.TypeFor[ports.LayoutReader](), true},
	}
	if len(tests) != len(ports.AllCapabilities()) {
		t.Fatalf("%d cases for %d capabilities", len(tests), len(ports.AllCapabilities()))
	}
	for _, tt := range tests {
		if got := tt.c.Interface(); got != tt.iface {
			t.Errorf("%s backed by %v, want %v", tt.c, got, tt.iface)
		}
		if tt.c.OfProvider() != tt.provider {
			t.Errorf("%s: OfProvider %v", tt.c, !tt.provider)
		}
	}
}

type lister struct{}

func (lister) Version() string                                       { return "1" }
func (lister) Profile() ports.Profile                                { return ports.Profile{SchemaVersion: 1} }
func (lister) Close(context.Context) error                           { return nil }
func (lister) Strings(context.Context) ([]ports.String, error)       { return nil, nil }
func (lister) Procedures(context.Context) ([]ports.Procedure, error) { return nil, nil }
func (*lister) Decompile(context.Context, uint64) (ports.Pseudocode, error) {
	return ports.Pseudocode{}, nil
}

func TestCapabilitiesOf(t *testing.T) {
	// A value lister lacks the pointer method Decompile; *lister has it.
	got := ports.CapabilitiesOf(lister{})
	if want := []ports.Capability{ports.CapProcedures, ports.CapStrings}; !slices.Equal(got, want) {
		t.Errorf("CapabilitiesOf(lister{}) = %q, want %q", got, want)
	}
	got = ports.CapabilitiesOf(&lister{})
	if want := []ports.Capability{ports.CapDecompile, ports.CapProcedures, ports.CapStrings}; !slices.Equal(got, want) {
		t.Errorf("CapabilitiesOf(&lister{}) = %q, want %q", got, want)
	}
	if got := ports.CapabilitiesOf(nil); got == nil || len(got) != 0 {
		t.Errorf("CapabilitiesOf(nil) = %#v, want empty", got)
	}
	if !ports.CapStrings.ImplementedBy(lister{}) || ports.CapDecompile.ImplementedBy(lister{}) || ports.CapStrings.ImplementedBy(nil) {
		t.Error("ImplementedBy")
	}
}

type declaring struct {
	ports.Provider
	names []ports.Capability
}

func (d declaring) Capabilities() []ports.Capability { return d.names }

func TestDeclaredCapabilities(t *testing.T) {
	caps, unknown, ok := ports.DeclaredCapabilities(declaring{names: []ports.Capability{"list_strings", "bogus", "read_layout"}})
	if !ok || !slices.Equal(caps, []ports.Capability{ports.CapStrings, ports.CapLayout}) || !slices.Equal(unknown, []string{"bogus"}) {
		t.Errorf("DeclaredCapabilities = %q, %q, %v", caps, unknown, ok)
	}
	if _, _, ok := ports.DeclaredCapabilities(struct{ ports.Provider }{}); ok {
		t.Error("a provider without CapabilityLister declared something")
	}
	if got := ports.ProviderCapabilitiesOf(declaring{}); len(got) != 0 {
		t.Errorf("ProviderCapabilitiesOf = %q", got)
	}
}
