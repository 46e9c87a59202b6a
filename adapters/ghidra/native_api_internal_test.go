package ghidra

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/matryer/is"

	"rea/ports"
)

// decodeNativeAPI decodes one native_api answer as NativeAPI does.
func decodeNativeAPI(t *testing.T, text string) (NativeAPI, string) {
	t.Helper()
	var raw nativeAPIJSON
	if err := json.Unmarshal([]byte(text), &raw); err != nil {
		t.Fatal(err)
	}
	return raw.decode()
}

// nativeAnswer is a well-formed native_api answer with one jump table,
// edited by the cases below.
const nativeAnswer = `{"available":true,"provenance":"ghidra-high-function","calling_convention":"__stdcall","return_type":"long",
 "variadic":true,"parameters":[{"name":"n","type":"int","storage":"EDI:4"},{"name":null,"type":null,"storage":"Stack[0x8]:8"}],
 "parameters_total":3,"parameters_truncated":true,
 "jump_tables":[{"switch_address":"0x401020","data_sources":[{"address":"0x402000","entry_size":4,"entries":40}],"data_sources_total":1,
   "data_sources_truncated":false,
   "mappings":[{"value":0,"target":"0x401030"},{"value":null,"target":"0x401040"}],"mappings_total":40,"mappings_truncated":true}],
 "jump_tables_total":1,"jump_tables_truncated":false,
 "pseudocode":{"classification":"decompiler-generated-non-source","compilable":false},"limitations":["l1","l2"]}`

func TestNativeAPIDecodesJumpTables(t *testing.T) {
	is := is.New(t)
	api, what := decodeNativeAPI(t, nativeAnswer)
	is.Equal(what, "")
	is.True(api.Available)
	is.Equal(api.CallingConvention, "__stdcall")
	is.True(api.Variadic)
	is.Equal(api.Parameters, []ports.Parameter{{Name: "n", Type: "int", Location: "edi"}, {Location: "stack"}})
	is.Equal(api.ParametersTotal, 3)
	is.True(api.ParametersTruncated)
	zero := int64(0)
	is.Equal(api.JumpTables, []JumpTable{{Switch: 0x401020,
		DataSources: []JumpTableSource{{Address: 0x402000, EntrySize: 4, Entries: 40}}, DataSourcesTotal: 1,
		Mappings: []JumpTableMapping{{Value: &zero, Target: 0x401030}, {Target: 0x401040}}, MappingsTotal: 40, MappingsTruncated: true}})
	sig := highFunctionSignature(api)
	is.Equal(sig.Source, ProvenanceHighFunction)
	is.Equal(sig.ReturnType, "long")
	// The jump tables travel with the signature as its switches.
	is.Equal(sig.SwitchesTotal, 1)
	is.Equal(sig.Switches, []ports.Switch{{Address: 0x401020,
		Sources: []ports.SwitchSource{{Address: 0x402000, EntrySize: 4, Entries: 40}}, SourcesTotal: 1,
		Cases: []ports.SwitchCase{{Value: &zero, Target: 0x401030}, {Target: 0x401040}}, CasesTotal: 40}})

	un, what := decodeNativeAPI(t, `{"available":false,"reason":"no body","residual_unknowns":["parameters","return_type"]}`)
	is.Equal(what, "")
	is.True(!un.Available)
	is.Equal(un.Reason, "no body")
}

// TestNativeAPIRefusesWhatBreaksTheCaps: an answer over the bridge's caps,
// miscounted, or out of shape is a protocol violation.
func TestNativeAPIRefusesWhatBreaksTheCaps(t *testing.T) {
	many := func(item string, n int) string { return strings.TrimSuffix(strings.Repeat(item+",", n), ",") }
	for name, edit := range map[string][2]string{
		"65 parameters": {`"parameters":[{"name":"n","type":"int","storage":"EDI:4"},{"name":null,"type":null,"storage":"Stack[0x8]:8"}],
 "parameters_total":3`, `"parameters":[` + many(`{"name":"p","type":"int","storage":"EDI:4"}`, 65) + `],"parameters_total":65`},
		"truncated with all kept": {`"parameters_total":3`, `"parameters_total":2`},
		"33 mappings":             {`"mappings":[{"value":0,"target":"0x401030"},{"value":null,"target":"0x401040"}]`, `"mappings":[` + many(`{"value":1,"target":"0x401030"}`, 33) + `]`},
		"5 data sources":          {`"data_sources":[{"address":"0x402000","entry_size":4,"entries":40}],"data_sources_total":1`, `"data_sources":[` + many(`{"address":"0x402000","entry_size":4,"entries":40}`, 5) + `],"data_sources_total":5`},
		"total below the count":   {`"mappings_total":40`, `"mappings_total":1`},
		"external target":         {`"target":"0x401040"`, `"target":"EXTERNAL:0x10"`},
		"bad switch address":      {`"switch_address":"0x401020"`, `"switch_address":"401020"`},
		"other provenance":        {`"provenance":"ghidra-high-function"`, `"provenance":"dwarf"`},
		"compilable":              {`"compilable":false`, `"compilable":true`},
		"no available":            {`"available":true,`, ``},
		"unavailable, no reason":  {`"available":true`, `"available":false`},
	} {
		t.Run(name, func(t *testing.T) {
			text := strings.Replace(nativeAnswer, edit[0], edit[1], 1)
			if text == nativeAnswer {
				t.Fatal("the edit did not apply")
			}
			if _, what := decodeNativeAPI(t, text); what == "" {
				t.Fatal("accepted")
			}
		})
	}
}

func TestSignatureFallsBackOnlyWhenTheDecompilerFailed(t *testing.T) {
	is := is.New(t)
	is.True(fallsBack(&RemoteError{Code: "decompile_failed", Message: "m"}))
	is.True(!fallsBack(&RemoteError{Code: "decompile_timeout", Message: "m"}))
	is.True(!fallsBack(errors.New("broken wire")))
}
