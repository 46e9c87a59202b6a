package core

import "encoding/json"

// CatalogIdentity are the digests that identify a catalog.
type CatalogIdentity struct {
	Tools     string
	Prompts   string
	Resources string
	Combined  string
}

// CLICommands are the CLI's commands as the catalog identity digests them
// (adapters/cli's Commands must equal them; cmd/rea tests it).
func CLICommands() []string { return append([]string{}, cliCommands...) }

// cliCommands are the CLI's fixed commands, part of the catalog identity.
var cliCommands = []string{"analyze", "analyze-javascript-application", "analyze-web-bundle", "annotate", "call", "capabilities", "capture", "capture-browser-scenario", "capture-electron-scenario", "capture-web-screenshot", "catalog", "compare", "compare-apps", "compare-web-screenshots", "completion", "disassemble", "discover-webmcp-tools", "doctor", "evidence-export", "evidence-import", "extract-artifact", "inspect-electron-page", "inspect-evidence-bundle", "inspect-web-page", "inventory", "list-browser-targets", "list-electron-targets", "list-javascript-runtime-targets", "mcp", "observe-javascript-runtime", "observe-web-session", "providers", "reconcile-javascript-runtime", "serve", "setup", "tools", "trace", "trace-feature", "uninstall", "version"}

type toolEntry struct {
	Name         string          `json:"name"`
	Title        string          `json:"title"`
	Surface      string          `json:"surface"`
	Description  string          `json:"description"`
	Effects      Effects         `json:"effects"`
	Annotations  Annotations     `json:"annotations"`
	InputSchema  json.RawMessage `json:"input_schema"`
	OutputSchema json.RawMessage `json:"output_schema"`
}

// Identity digests the catalog as advertised: tools sorted by name with
// their effects, annotations and schemas.
func (c *Catalog) Identity() CatalogIdentity {
	c.idOnce.Do(func() { c.id = c.computeIdentity() })
	return c.id
}

func (c *Catalog) computeIdentity() CatalogIdentity {
	tools := make([]toolEntry, 0, len(c.ops))
	for _, op := range c.ops {
		tools = append(tools, toolEntry{op.Name, op.Title, "mcp", op.Description, op.Effects,
			op.Effects.Annotations(), c.AdvertisedInput(op), op.OutputSchema()})
	}
	ct := mustCanonical(tools)
	prompts := promptCatalog()
	res, tmpl := resourceCatalog()
	// "tools" sorts last of the combined digest's keys: the tools' canonical form ends it, so they are encoded once.
	rest := mustCanonical(map[string]any{"cli": cliCommands, "prompts": prompts, "resources": res, "resource_templates": tmpl})
	return CatalogIdentity{Tools: hexSum(ct), Prompts: MustDigest(prompts), Combined: hexSum(rest[:len(rest)-1], []byte(`,"tools":`), ct, []byte("}")),
		Resources: MustDigest(map[string]any{"resourceCatalog": res, "resourceTemplateCatalog": tmpl})}
}
