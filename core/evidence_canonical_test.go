package core_test

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/matryer/is"

	"rea/core"
)

// The streamed canonical forms equal the generic canonicalizer's output, so
// IDs are the digest of the projection as CONTRACTS.md §2 defines it.
func TestStreamedCanonicalFormsMatchGenericJCS(t *testing.T) {
	is := is.New(t)
	e := sample(t, "/usr/bin/ls")
	e.Limitations = []string{"<b>&\u2028"}
	e.Locations = []core.Location{{Kind: "address", Address: "0x10"}}
	is.NoErr(e.Seal())

	var streamed bytes.Buffer
	is.NoErr(e.WriteCanonical(&streamed))
	generic, err := core.CanonicalJSON(e)
	is.NoErr(err)
	is.Equal(streamed.String(), string(generic))

	var m map[string]any
	is.NoErr(json.Unmarshal(generic, &m))
	delete(m, "evidence_id")
	sub := m["subject"].(map[string]any)
	delete(sub, "name")
	delete(sub, "local_path")
	d, err := core.Digest(m)
	is.NoErr(err)
	is.Equal(string(e.EvidenceID), "ev_"+d)
}
