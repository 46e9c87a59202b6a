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
	`{"nodes":[{"artifact_id":"art_\u0031","kind":"binary","size":7}],"occurrences":[{"artifact_id":"art_1","logical_path":"\u002e","entry_kind":"file","hash_status":"verified"}]}`,
	`{"occurrences":[{"artifact_id":"art_\u0031","logical_path":".","entry_kind":"file","hash_status":"verified"},{"artifact_id":"art_1","logical_path":"a","entry_kind":"fil\u0065","hash_status":"verifie\u0064"},` +
		`{"artifact_id":null,"logical_path":"d","entry_kind":"directory","hash_status":"unavailable"}],"nodes":[{"artifact_id":"art_1","kind":"text","size":3}]}`,
}

// unmarshalSummary is the summary worked out from the whole result decoded
// by json.Unmarshal, counted as the text of rea inventory used to count it.
func unmarshalSummary(t *testing.T, text string) inventorySummary {
	t.Helper()
	var full struct {
		inventorySummary
		Nodes []struct {
			ArtifactID string `json:"artifact_id"`
			Kind       string `json:"kind"`
			Size       int64  `json:"size"`
		} `json:"nodes"`
		Occurrences []struct {
			ArtifactID  *string `json:"artifact_id"`
			LogicalPath string  `json:"logical_path"`
			EntryKind   string  `json:"entry_kind"`
			HashStatus  string  `json:"hash_status"`
		} `json:"occurrences"`
	}
	if err := json.Unmarshal([]byte(text), &full); err != nil {
		t.Fatal(err)
	}
	kindOf, sizeOf := map[string]string{}, map[string]int64{}
	for _, n := range full.Nodes {
		kindOf[n.ArtifactID], sizeOf[n.ArtifactID] = n.Kind, n.Size
	}
	c := inventoryCounts{Entries: len(full.Occurrences), Kinds: map[string]int{}}
	for _, o := range full.Occurrences {
		if o.LogicalPath == "." && len(full.Occurrences) > 1 {
			c.Entries--
			continue
		}
		if o.EntryKind != "file" {
			continue
		}
		c.Files++
		if o.HashStatus == "verified" {
			c.Verified++
		}
		if o.ArtifactID != nil {
			c.Kinds[kindOf[*o.ArtifactID]]++
			c.Bytes += sizeOf[*o.ArtifactID]
		}
	}
	s := full.inventorySummary
	s.Counts = c
	return s
}

// TestDecodeInventoryMatchesUnmarshal: the field-by-field reader gives
// the counts worked out from what json.Unmarshal gives, and malformed text is an error, not a panic.
func TestDecodeInventoryMatchesUnmarshal(t *testing.T) {
	for _, text := range inventoryTexts {
		var got inventorySummary
		if err := decodeInventory([]byte(text), &got); err != nil {
			t.Fatalf("%s: %v", text, err)
		}
		want := unmarshalSummary(t, text)
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
