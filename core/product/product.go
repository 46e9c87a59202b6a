// Package product writes the product catalog: the machine-readable
// description of a build (docs/public/product-catalog.json) that `rea
// catalog` prints. It reads the kernel's catalog and provider registry
// through their exported API only.
package product

import (
	"maps"
	"slices"
	"sort"

	"rea/core"
	"rea/ports"
)

// Info is what the product catalog needs from the wiring.
type Info struct {
	Version     string
	SDKServer   string
	SDKClient   string
	CLICommands []string
	CLIAliases  map[string]string
	// SetupClients are the MCP clients rea setup configures:
	// {id, display_name, scopes, configuration}.
	SetupClients []any
}

// Catalog is the machine-readable description of a build
// (docs/public/product-catalog.json). binary_session stays the authority for a
// running server.
type Catalog struct {
	CatalogSchemaVersion int               `json:"catalog_schema_version"`
	Package              productPackage    `json:"package"`
	Tools                productTools      `json:"tools"`
	Providers            []productProvider `json:"providers"`
	SetupClients         []any             `json:"setup_clients"`
	Schemas              []productSchema   `json:"schemas"`
	CLI                  productCLI        `json:"cli"`
	RuntimeCatalog       productRuntime    `json:"runtime_catalog"`
}

type productPackage struct {
	Name string            `json:"name"`
	Ver  string            `json:"version"`
	SDK  map[string]string `json:"sdk"`
}

type productTools struct {
	Total    int             `json:"total"`
	Families []productFamily `json:"families"`
}

type productFamily struct {
	ID      string   `json:"id"`
	Surface string   `json:"surface"`
	Count   int      `json:"count"`
	Tools   []string `json:"tools"`
}

type productProvider struct {
	ID           string   `json:"id"`
	Name         string   `json:"name"`
	Version      *string  `json:"version"`
	Capabilities []string `json:"capabilities"`
}

type productSchema struct {
	ID      string `json:"id"`
	Version int    `json:"version"`
}

type productCLI struct {
	PrimaryCount int               `json:"primary_count"`
	Commands     []string          `json:"commands"`
	Aliases      map[string]string `json:"aliases"`
}

type productRuntime struct {
	Profile string         `json:"input_schema_profile"`
	Counts  map[string]int `json:"counts"`
	Digests map[string]any `json:"digests"`
}

// familyOf groups tools by kind for the catalog (a switch: a
// package-level map is built by init code every rea process runs).
func familyOf(k core.Kind) string {
	switch k {
	case core.KindSession:
		return "session"
	case core.KindOfficialProxy:
		return "direct"
	case core.KindEnhanced:
		return "enhanced"
	case core.KindNativeProvider:
		return "native"
	case core.KindArtifactProvider:
		return "artifact"
	case core.KindApplication:
		return "application"
	}
	return ""
}

// New describes cat, the providers in reg and the CLI.
func New(cat *core.Catalog, reg *core.Registry, info Info) *Catalog {
	fams := map[string][]string{}
	for _, op := range cat.Operations() {
		f := familyOf(op.Kind)
		if f == "" {
			f = string(op.Kind)
		}
		fams[f] = append(fams[f], op.Name)
	}
	pc := &Catalog{
		CatalogSchemaVersion: 1,
		Package:              productPackage{Name: "rea", Ver: info.Version, SDK: map[string]string{"server": info.SDKServer, "client": info.SDKClient, "core": "rea/core"}},
		Tools:                productTools{Total: len(cat.Operations()), Families: []productFamily{}},
		Providers:            []productProvider{},
		SetupClients:         append([]any{}, info.SetupClients...),
		Schemas:              []productSchema{{"evidence", 3}, {"evidence_bundle", 3}, {"analysis_profile", 1}, {"error_envelope", 1}},
		CLI:                  productCLI{PrimaryCount: len(info.CLICommands), Commands: append([]string{}, info.CLICommands...), Aliases: info.CLIAliases},
	}
	if pc.CLI.Aliases == nil {
		pc.CLI.Aliases = map[string]string{}
	}
	sort.Strings(pc.CLI.Commands)
	for _, id := range slices.Sorted(maps.Keys(fams)) {
		tools := fams[id]
		sort.Strings(tools)
		pc.Tools.Families = append(pc.Tools.Families, productFamily{ID: id, Surface: "mcp", Count: len(tools), Tools: tools})
	}
	for _, p := range reg.Providers() {
		info := p.Info()
		pp := productProvider{ID: info.ID, Name: info.Name, Capabilities: providerCapabilities(p)}
		if info.Version != "" {
			v := info.Version
			pp.Version = &v
		}
		pc.Providers = append(pc.Providers, pp)
	}
	id := cat.Identity()
	pc.RuntimeCatalog = productRuntime{
		Profile: string(cat.InputProfile()),
		Counts:  map[string]int{"tools": len(cat.Operations()), "prompts": len(core.Prompts()), "resources": len(core.Resources()), "resource_templates": len(core.ResourceTemplates())},
		Digests: map[string]any{"tools_sha256": id.Tools, "prompts_sha256": id.Prompts,
			"resources_sha256": id.Resources,
			"combined_sha256":  id.Combined, "providers_sha256": core.MustDigest(pc.Providers)},
	}
	return pc
}

// providerCapabilities lists what a provider declares, sorted; [] when it
// declares nothing.
func providerCapabilities(p ports.Provider) []string {
	out := []string{}
	if cl, ok := p.(ports.CapabilityLister); ok {
		for _, c := range cl.Capabilities() {
			out = append(out, c.String())
		}
	}
	sort.Strings(out)
	return out
}
