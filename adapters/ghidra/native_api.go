package ghidra

import (
	"context"
	"errors"
	"fmt"
	"sort"

	"rea/ports"
)

// The caps the bridge applies to native_api (PROVIDERS.md §1.9); an answer
// over them is a protocol violation.
const (
	maxNativeParameters = 64
	maxJumpTables       = 4
	maxDataSources      = 4
	maxMappings         = 32
)

// ProvenanceHighFunction is NativeAPI.Provenance, and the Source of a
// Signature read from Ghidra's decompiler.
const ProvenanceHighFunction = "ghidra-high-function"

// NativeAPI is a procedure's interface as Ghidra's decompiler recovered it
// (the bridge's native_api, read from the HighFunction of one decompile):
// the prototype and the jump tables of its computed jumps, each list capped
// by the bridge and carrying its total and whether it was cut.
type NativeAPI struct {
	Available bool
	// When not available: why, and what stays unknown.
	Reason           string
	ResidualUnknowns []string

	Provenance          string // ProvenanceHighFunction
	CallingConvention   string // Ghidra's prototype model ("__stdcall", ...); "" when none
	ReturnType          string // "" when unknown
	Variadic            bool
	Parameters          []ports.Parameter // at most 64; Location as in Signature
	ParametersTotal     int
	ParametersTruncated bool
	JumpTables          []JumpTable // at most 4
	JumpTablesTotal     int
	JumpTablesTruncated bool
	// Classification of the decompiler's pseudo-code
	// ("decompiler-generated-non-source"); it is never compilable.
	PseudocodeClassification string
	Limitations              []string
}

// JumpTable is one switch the decompiler recovered.
type JumpTable struct {
	Switch               uint64            // the computed jump's address
	DataSources          []JumpTableSource // at most 4: where the table is read from
	DataSourcesTotal     int
	DataSourcesTruncated bool
	Mappings             []JumpTableMapping // at most 32: case value to target
	MappingsTotal        int
	MappingsTruncated    bool
}

// JumpTableSource is a table in memory the switch reads.
type JumpTableSource struct {
	Address   uint64
	EntrySize int
	Entries   int
}

// JumpTableMapping is one case: its label value (nil when Ghidra gave
// none, as for a default) and its target.
type JumpTableMapping struct {
	Value  *int64
	Target uint64
}

type nativeAPIJSON struct {
	Available         *bool    `json:"available"`
	Reason            string   `json:"reason"`
	ResidualUnknowns  []string `json:"residual_unknowns"`
	Provenance        string   `json:"provenance"`
	CallingConvention *string  `json:"calling_convention"`
	ReturnType        *string  `json:"return_type"`
	Variadic          bool     `json:"variadic"`
	Parameters        []struct {
		Name    *string `json:"name"`
		Type    *string `json:"type"`
		Storage *string `json:"storage"`
	} `json:"parameters"`
	ParametersTotal     int  `json:"parameters_total"`
	ParametersTruncated bool `json:"parameters_truncated"`
	JumpTables          []struct {
		SwitchAddress string `json:"switch_address"`
		DataSources   []struct {
			Address   string `json:"address"`
			EntrySize int    `json:"entry_size"`
			Entries   int    `json:"entries"`
		} `json:"data_sources"`
		DataSourcesTotal     int  `json:"data_sources_total"`
		DataSourcesTruncated bool `json:"data_sources_truncated"`
		Mappings             []struct {
			Value  *int64 `json:"value"`
			Target string `json:"target"`
		} `json:"mappings"`
		MappingsTotal     int  `json:"mappings_total"`
		MappingsTruncated bool `json:"mappings_truncated"`
	} `json:"jump_tables"`
	JumpTablesTotal     int  `json:"jump_tables_total"`
	JumpTablesTruncated bool `json:"jump_tables_truncated"`
	Pseudocode          *struct {
		Classification string `json:"classification"`
		Compilable     bool   `json:"compilable"`
	} `json:"pseudocode"`
	Limitations []string `json:"limitations"`
}

// counted checks a capped list's shape: n items of at most limit, a total
// of at least n, and truncated exactly when items were left out.
func counted(n, limit, total int, truncated bool) bool {
	return n <= limit && total >= n && truncated == (n < total)
}

// memAddr reads an address of the default space; anything else is out of
// shape here, since jump tables and their data live in memory.
func memAddr(s string) (uint64, error) {
	a, ok, err := parseAddress(s)
	if err == nil && !ok {
		err = fmt.Errorf("%w: address %q is not in the default space", errProtocol, s)
	}
	return a, err
}

// NativeAPI asks the bridge for the interface Ghidra's decompiler recovers
// for the procedure starting at addr (one decompile, bounded as
// procedure_pseudo_code is). An address where no listed procedure starts is
// ErrNotFound; a procedure with nothing to decompile (external, bodyless)
// or no HighFunction is an unavailable NativeAPI with its reason, not an
// error. Decompiler failures are RemoteErrors (decompile_timeout → ErrTimeout,
// decompile_cancelled → context.Canceled, decompile_failed). An answer out
// of shape, or over the caps, is a protocol error.
func (a *Analysis) NativeAPI(ctx context.Context, addr uint64) (NativeAPI, error) {
	if err := a.usable(ctx); err != nil {
		return NativeAPI{}, err
	}
	_, procs, err := a.known(ctx)
	if err != nil {
		return NativeAPI{}, err
	}
	i := sort.Search(len(procs), func(i int) bool { return procs[i].Address >= addr })
	if i == len(procs) || procs[i].Address != addr {
		return NativeAPI{}, fmt.Errorf("ghidra: native_api 0x%x: no procedure starts there: %w", addr, ports.ErrNotFound)
	}
	var raw nativeAPIJSON
	if err := a.query(ctx, "native_api", map[string]any{"document": nil, "procedure": formatAddress(addr)}, &raw); err != nil {
		return NativeAPI{}, err
	}
	api, what := raw.decode()
	if what != "" {
		return NativeAPI{}, fmt.Errorf("ghidra: native_api 0x%x: %w: %s", addr, errProtocol, what)
	}
	return api, nil
}

// decode checks and converts one answer; what names the first fault.
func (r *nativeAPIJSON) decode() (api NativeAPI, what string) {
	if r.Available == nil {
		return api, "no available member"
	}
	if !*r.Available {
		if r.Reason == "" {
			return api, "unavailable without a reason"
		}
		return NativeAPI{Reason: r.Reason, ResidualUnknowns: append([]string{}, r.ResidualUnknowns...)}, ""
	}
	if r.Provenance != ProvenanceHighFunction {
		return api, "provenance " + r.Provenance
	}
	if r.Pseudocode == nil || r.Pseudocode.Compilable {
		return api, "pseudocode classification"
	}
	if !counted(len(r.Parameters), maxNativeParameters, r.ParametersTotal, r.ParametersTruncated) {
		return api, "parameters over their cap or miscounted"
	}
	if !counted(len(r.JumpTables), maxJumpTables, r.JumpTablesTotal, r.JumpTablesTruncated) {
		return api, "jump tables over their cap or miscounted"
	}
	api = NativeAPI{Available: true, Provenance: r.Provenance, Variadic: r.Variadic,
		Parameters: []ports.Parameter{}, ParametersTotal: r.ParametersTotal, ParametersTruncated: r.ParametersTruncated,
		JumpTables: []JumpTable{}, JumpTablesTotal: r.JumpTablesTotal, JumpTablesTruncated: r.JumpTablesTruncated,
		PseudocodeClassification: r.Pseudocode.Classification, Limitations: append([]string{}, r.Limitations...)}
	if cc := deref(r.CallingConvention); cc != "unknown" && cc != "default" {
		api.CallingConvention = cc
	}
	api.ReturnType = deref(r.ReturnType)
	for _, p := range r.Parameters {
		api.Parameters = append(api.Parameters, ports.Parameter{Name: deref(p.Name), Type: deref(p.Type), Location: storageLocation(deref(p.Storage))})
	}
	for _, t := range r.JumpTables {
		sw, err := memAddr(t.SwitchAddress)
		if err != nil {
			return NativeAPI{}, "switch address " + t.SwitchAddress
		}
		if !counted(len(t.DataSources), maxDataSources, t.DataSourcesTotal, t.DataSourcesTruncated) {
			return NativeAPI{}, "data sources over their cap or miscounted"
		}
		if !counted(len(t.Mappings), maxMappings, t.MappingsTotal, t.MappingsTruncated) {
			return NativeAPI{}, "mappings over their cap or miscounted"
		}
		jt := JumpTable{Switch: sw, DataSourcesTotal: t.DataSourcesTotal, DataSourcesTruncated: t.DataSourcesTruncated,
			MappingsTotal: t.MappingsTotal, MappingsTruncated: t.MappingsTruncated,
			DataSources: []JumpTableSource{}, Mappings: []JumpTableMapping{}}
		for _, d := range t.DataSources {
			at, err := memAddr(d.Address)
			if err != nil || d.EntrySize < 0 || d.Entries < 0 {
				return NativeAPI{}, "data source " + d.Address
			}
			jt.DataSources = append(jt.DataSources, JumpTableSource{Address: at, EntrySize: d.EntrySize, Entries: d.Entries})
		}
		for _, m := range t.Mappings {
			to, err := memAddr(m.Target)
			if err != nil {
				return NativeAPI{}, "mapping target " + m.Target
			}
			jt.Mappings = append(jt.Mappings, JumpTableMapping{Value: m.Value, Target: to})
		}
		api.JumpTables = append(api.JumpTables, jt)
	}
	return api, ""
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// highFunctionSignature is the Signature of an available NativeAPI, with
// its jump tables as the Signature's switches.
func highFunctionSignature(api NativeAPI) ports.Signature {
	sig := ports.Signature{CallingConvention: api.CallingConvention, ReturnType: api.ReturnType,
		Parameters: api.Parameters, Variadic: api.Variadic, Source: ProvenanceHighFunction,
		Switches: make([]ports.Switch, 0, len(api.JumpTables)), SwitchesTotal: api.JumpTablesTotal}
	for _, t := range api.JumpTables {
		sw := ports.Switch{Address: t.Switch, SourcesTotal: t.DataSourcesTotal, CasesTotal: t.MappingsTotal,
			Sources: make([]ports.SwitchSource, 0, len(t.DataSources)), Cases: make([]ports.SwitchCase, 0, len(t.Mappings))}
		for _, d := range t.DataSources {
			sw.Sources = append(sw.Sources, ports.SwitchSource{Address: d.Address, EntrySize: d.EntrySize, Entries: d.Entries})
		}
		for _, m := range t.Mappings {
			sw.Cases = append(sw.Cases, ports.SwitchCase{Value: m.Value, Target: m.Target})
		}
		sig.Switches = append(sig.Switches, sw)
	}
	return sig
}

// fallsBack says whether Signature should read the function database
// instead of the HighFunction after err: only when the decompiler failed
// on this procedure (decompile_failed), never on a timeout, cancel or a
// broken engine.
func fallsBack(err error) bool {
	var re *RemoteError
	return errors.As(err, &re) && re.Code == "decompile_failed"
}
