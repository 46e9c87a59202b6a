package ports

import "reflect"

// Capability names one optional engine interface. The names are wire
// strings: they appear in operations' needs, in tool availability, in the
// product catalog and in Evidence, so they never change.
type Capability string

// Capabilities of an Analysis, one per optional interface, in the order
// [CapabilitiesOf] reports them.
const (
	CapDisassemble Capability = "disassemble"       // Disassembler
	CapFunctions   Capability = "analyze_functions" // FunctionAnalyzer
	CapReferences  Capability = "cross_references"  // CrossReferencer
	CapBytes       Capability = "read_bytes"        // ByteReader
	CapSignatures  Capability = "signatures"        // SignatureReader
	CapDecompile   Capability = "decompile"         // Decompiler
	CapValueFlow   Capability = "value_flow"        // ValueFlowAnalyzer
	CapDocuments   Capability = "list_documents"    // DocumentLister
	CapSegments    Capability = "list_segments"     // SegmentLister
	CapProcedures  Capability = "list_procedures"   // ProcedureLister
	CapNames       Capability = "list_names"        // NameLister
	CapStrings     Capability = "list_strings"      // StringLister
	CapSourceLines Capability = "source_lines"      // SourceLocator
)

// Capabilities of a Provider itself, offered without opening an analysis.
const (
	CapLayout Capability = "read_layout" // LayoutReader
)

// capability ties a name to its interface and to whether a Provider (rather
// than an Analysis) implements it.
type capability struct {
	name     Capability
	iface    reflect.Type
	provider bool
}

// capabilityTable is the one place a capability meets its interface. The
// order is the order of the lists below; analysis capabilities come in the
// order core has always reported them (code capabilities, then the
// listers), so tool availability keeps its wire order.
var capabilityTable = []capability{
	{CapDisassemble, reflect.TypeFor[Disassembler](), false},
	{CapFunctions, reflect.TypeFor[FunctionAnalyzer](), false},
	{CapReferences, reflect.TypeFor[CrossReferencer](), false},
	{CapBytes, reflect.TypeFor[ByteReader](), false},
	{CapSignatures, reflect.TypeFor[SignatureReader](), false},
	{CapDecompile, reflect.TypeFor[Decompiler](), false},
	{CapValueFlow, reflect.TypeFor[ValueFlowAnalyzer](), false},
	{CapDocuments, reflect.TypeFor[DocumentLister](), false},
	{CapSegments, reflect.TypeFor[SegmentLister](), false},
	{CapProcedures, reflect.TypeFor[ProcedureLister](), false},
	{CapNames, reflect.TypeFor[NameLister](), false},
	{CapStrings, reflect.TypeFor[StringLister](), false},
	{CapSourceLines, reflect.TypeFor[SourceLocator](), false},
	{CapLayout, reflect.TypeFor[LayoutReader](), true},
}

func lookupCapability(c Capability) (capability, bool) {
	for _, e := range capabilityTable {
		if e.name == c {
			return e, true
		}
	}
	return capability{}, false
}

// AllCapabilities lists every capability: those of an Analysis in
// [CapabilitiesOf] order, then those of a Provider in
// [ProviderCapabilitiesOf] order. The slice is the caller's.
func AllCapabilities() []Capability {
	out := make([]Capability, len(capabilityTable))
	for i, e := range capabilityTable {
		out[i] = e.name
	}
	return out
}

// ParseCapability returns the capability named s, or false when s names
// none.
func ParseCapability(s string) (Capability, bool) {
	e, ok := lookupCapability(Capability(s))
	return e.name, ok
}

// String returns the wire name.
func (c Capability) String() string { return string(c) }

// Valid reports whether c is one of the declared capabilities.
func (c Capability) Valid() bool {
	_, ok := lookupCapability(c)
	return ok
}

// Interface returns the interface type that backs c (for example
// reflect.TypeFor[Disassembler]() for CapDisassemble), or nil for an
// unknown name.
func (c Capability) Interface() reflect.Type {
	e, _ := lookupCapability(c)
	return e.iface
}

// OfProvider reports whether c is offered by a Provider (CapLayout) rather
// than by an open Analysis.
func (c Capability) OfProvider() bool {
	e, _ := lookupCapability(c)
	return e.provider
}

// ImplementedBy reports whether v (an Analysis, or a Provider for a
// provider capability) implements the interface that backs c. It is false
// for nil and for unknown names.
func (c Capability) ImplementedBy(v any) bool {
	e, ok := lookupCapability(c)
	if !ok || v == nil {
		return false
	}
	return reflect.TypeOf(v).Implements(e.iface)
}

// CapabilitiesOf lists the analysis capabilities a implements, in the fixed
// order of the Cap constants: disassemble, analyze_functions,
// cross_references, read_bytes, signatures, decompile, value_flow,
// list_documents, list_segments, list_procedures, list_names, list_strings,
// source_lines. A nil a has none.
func CapabilitiesOf(a Analysis) []Capability {
	return implemented(a, false)
}

// ProviderCapabilitiesOf lists the provider capabilities p implements
// (read_layout), in a fixed order.
func ProviderCapabilitiesOf(p Provider) []Capability {
	return implemented(p, true)
}

func implemented(v any, provider bool) []Capability {
	out := []Capability{}
	if v == nil {
		return out
	}
	t := reflect.TypeOf(v)
	for _, e := range capabilityTable {
		if e.provider == provider && t.Implements(e.iface) {
			out = append(out, e.name)
		}
	}
	return out
}
