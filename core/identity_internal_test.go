package core

import "testing"

// TestIdentityCombinedDigestsTheWhole: the combined digest, which reuses
// the tools' canonical form as the last member, is the digest of the whole
// object, as when everything was canonicalized together.
func TestIdentityCombinedDigestsTheWhole(t *testing.T) {
	cat, err := Assemble(Kernel())
	if err != nil {
		t.Fatal(err)
	}
	var tools []toolEntry
	for _, op := range cat.ops {
		tools = append(tools, toolEntry{op.Name, op.Title, "mcp", op.Description, op.Effects,
			op.Effects.Annotations(), cat.AdvertisedInput(op), op.OutputSchema()})
	}
	res, tmpl := resourceCatalog()
	want := MustDigest(map[string]any{"cli": cliCommands, "tools": tools, "prompts": promptCatalog(), "resources": res, "resource_templates": tmpl})
	id := cat.Identity()
	if id.Combined != want || id.Tools != MustDigest(tools) {
		t.Fatalf("combined %s tools %s; want %s and %s", id.Combined, id.Tools, want, MustDigest(tools))
	}
}
