package cli

import (
	"encoding/json"
	"reflect"
	"testing"
)

var inventoryTexts = []string{
	`{"edges":[{"edge_id":"e\"}]","x":[1,{"y":"]"}]}],"integrity_contradictions":[{"logical_path":"a\\b","declared_sha256":"d","observed_sha256":"o","unpacked":true}],` +
		`"limitations":[],"manifest":{"edge_count":1,"graph_sha256":"g","manifest_id":"agm_1","node_count":2,"occurrence_count":3,"root_artifact_id":"r","root_format":"asar","root_sha256":"s","schema_version":1},` +
		`"nodes":[{"artifact_id":"art_1","kind":"resource","size":12,"limitations":["x"]},{"artifact_id":"art_2","kind":"java\u0073cript","size":0},{"artifact_id":"art_3","kind":"k\\","size":1}],` +
		`"occurrences":[{"artifact_id":null,"logical_path":".","entry_kind":"file","hash_status":"verified"},` +
		`{"artifact_id":"art_1","logical_path":"dir/é \"q\"\n","entry_kind":"file","hash_status":"mismatched","source_location":{"length":1,"offset":2}}],"provenance":{}}`,
	" { \"nodes\" : [ ] , \"occurrences\" : null , \"manifest\" : { } } ",
	`{}`,
}

// TestDecodeInventoryMatchesUnmarshal: the field-by-field reader gives
// what json.Unmarshal gives, and malformed text is an error, not a panic.
func TestDecodeInventoryMatchesUnmarshal(t *testing.T) {
	for _, text := range inventoryTexts {
		var got, want inventorySummary
		if err := decodeInventory([]byte(text), &got); err != nil {
			t.Fatalf("%s: %v", text, err)
		}
		if err := json.Unmarshal([]byte(text), &want); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("%s:\n got %+v\nwant %+v", text, got, want)
		}
	}
	for _, bad := range []string{``, `[`, `{"nodes":[{"size":x}]}`, `{"nodes":[{"kind":"a}]}`, `{"nodes":`, `{"a" 1}`, `{"a":1,}x`, `{"nodes":[{]}`} {
		var r inventorySummary
		if err := decodeInventory([]byte(bad), &r); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
	text := inventoryTexts[0]
	for i := range text {
		var r inventorySummary
		_ = decodeInventory([]byte(text[:i]), &r) // every prefix: no panic
	}
}
