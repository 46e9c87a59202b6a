package artifact

import (
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"rea/ports"

	"rea/core"
)

func artifactOperations() []*core.Operation {
	return []*core.Operation{opInventoryArtifact(), opInspectArtifact(), opExtractArtifact(), opCompareArtifacts()}
}

func opInventoryArtifact() *core.Operation {
	return &core.Operation{
		Name: "inventory_artifact", Title: "Inventory Artifact", Kind: core.KindArtifactProvider,
		Effects: core.Effects{MutatesSession: true, Idempotent: true},
		Description: "Build the artifact graph of a directory, an ASAR, a ZIP (APK, IPA, JAR, MSIX, APPX) or any file: every entry with its content " +
			"hash, format and kind (ELF, PE, Mach-O and universal, JavaScript, source map, plist, package.json, .node add-ons). Answers with " +
			"counts and a page of entries, the complete graph (nodes, occurrences, edges) retained. Every declared integrity hash is " +
			"verified, unpacked ASAR files included. Root containers and ASARs found in a directory or a root ZIP are expanded; other " +
			"nested containers are recorded. Limits bound entries, bytes, compression ratio, depth and path length (truncated beyond them).",
		Input:  core.InputSchema(nil, artifactInputProps, artifactPageProps),
		Result: inventorySchema(),
		Examples: []json.RawMessage{json.RawMessage(`{}`), json.RawMessage(`{"path":"/opt/App/resources/app.asar"}`),
			json.RawMessage(`{"path":"build/app-release.apk","integrity_policy":"record-and-continue","max_entries":50000}`)},
		Handler: handleInventoryArtifact,
	}
}

func opInspectArtifact() *core.Operation {
	return &core.Operation{
		Name: "inspect_artifact", Title: "Inspect Artifact", Kind: core.KindArtifactProvider,
		Effects: core.Effects{MutatesSession: true, Idempotent: true},
		Description: "Inventory an artifact (recording that inventory_artifact Evidence too) and summarize it: entries with their content facts, " +
			"source-map and container relations, integrity contradictions, containers left unexplored, hypotheses and next probes " +
			"(for example extracting native add-ons). Takes the same inputs as inventory_artifact.",
		Input:    core.InputSchema(nil, artifactInputProps, artifactPageProps),
		Result:   inspectSchema(),
		Examples: []json.RawMessage{json.RawMessage(`{}`), json.RawMessage(`{"path":"/opt/App/resources","integrity_policy":"record-and-continue"}`)},
		Handler:  handleInspectArtifact,
	}
}

func opExtractArtifact() *core.Operation {
	return &core.Operation{
		Name: "extract_artifact", Title: "Extract Artifact", Kind: core.KindArtifactProvider,
		// Not idempotent: every call creates a fresh output directory.
		Effects: core.Effects{MutatesSession: true, WritesFilesystem: true},
		Description: "Inventory an artifact and write the selected regular files (occurrence_ids from inventory_artifact, or all of them) into a fresh " +
			"temporary directory rea creates for this call and reports as output_root. Nothing is written outside it: files are created " +
			"exclusively, links planted under it are refused, and containment is verified after writing. With record-and-continue the " +
			"observed bytes of contradicted entries are written and their integrity_contradictions returned. A failed or cancelled " +
			"extraction removes its directory.",
		Input: core.InputSchema(nil, artifactInputProps, `"occurrence_ids":{"type":"array","minItems":1,"maxItems":10000,"uniqueItems":true,
  "items":{"type":"string","pattern":"^occ_[0-9a-f]{64}$"},"description":"Regular-file occurrences to write, from inventory_artifact on the same bytes. Default: every readable regular file."}`),
		Result: extractSchema(),
		Examples: []json.RawMessage{json.RawMessage(`{}`), json.RawMessage(`{"path":"/opt/App/resources/app.asar","integrity_policy":"record-and-continue"}`),
			json.RawMessage(`{"path":"/opt/App/resources/app.asar","occurrence_ids":["occ_` + strings.Repeat("0", 64) + `"]}`)},
		Handler: handleExtractArtifact,
	}
}

func opCompareArtifacts() *core.Operation {
	return &core.Operation{
		Name: "compare_artifacts", Title: "Compare Artifacts", Kind: core.KindApplication,
		Effects: core.Effects{MutatesSession: true, Idempotent: true},
		Description: "Compare two artifact inventories (inventory_artifact or inspect_artifact Evidence, inline or as retained references) by stable " +
			"logical path: content (sha256), metadata (size, executable, kind, format) and relations (source maps, expanded containers). " +
			"Each path is unchanged, changed, added, removed, contradiction (an integrity contradiction on either side, never unchanged) " +
			"or unknown (unreadable bytes). An incomplete side makes the status incomplete, never equal. Reads no files.",
		Input: core.InputSchema([]string{"left", "right"}, `"left":`+evidenceInputSchema("left"), `"right":`+evidenceInputSchema("right"),
			`"max_differences":{"type":"integer","minimum":1,"maximum":10000,"default":1000,"description":"Most differences listed; counts cover all."}`),
		Result:   compareSchema(),
		Examples: compareExamples(),
		Handler:  handleCompareArtifacts,
	}
}

// artifactRequestOf resolves the path (default: the open target), the
// policy and the limits of a call from its input (the fields every
// artifact-reading operation shares).
func artifactRequestOf(c *core.Call, in InventoryArtifactInput) (Request, bool, error) {
	op := c.Op.Name
	_, _, t := c.Bound()
	p, given := in.Path, in.Path != ""
	if !given {
		if t == nil {
			return Request{}, false, &core.Error{Code: core.CodeTargetUnavailable, Message: op + ": no path was given and no target is open",
				Remediation: "Pass path (a directory or an archive), or open a target with open_binary first.",
				Details:     map[string]any{"operation": op, "reason": "no_target"}}
		}
		p = t.Path
	}
	abs, err := filepath.Abs(p)
	if err != nil {
		return Request{}, false, core.InvalidRequest(op, core.Issue{Path: []any{"path"}, Reason: core.ReasonInvalidValue, Message: err.Error()})
	}
	l := defaultArtifactLimits
	set := func(dst *int64, v *int) {
		if v != nil {
			*dst = int64(*v)
		}
	}
	if in.MaxEntries != nil {
		l.MaxEntries = *in.MaxEntries
	}
	set(&l.MaxTotalBytes, in.MaxTotalBytes)
	set(&l.MaxEntryBytes, in.MaxEntryBytes)
	set(&l.MaxCompressionRatio, in.MaxCompressionRatio)
	if in.MaxDepth != nil {
		l.MaxDepth = *in.MaxDepth
	}
	if in.MaxPathBytes != nil {
		l.MaxPathBytes = *in.MaxPathBytes
	}
	policy := in.IntegrityPolicy
	if policy == "" {
		policy = IntegrityFail
	}
	// A path other than the open target's must not be sealed with the
	// target as its subject. With no target open the subject is null anyway.
	unbound := given && t != nil && abs != t.Path
	return Request{Op: op, Path: abs, Policy: policy, Limits: l, Openers: c.Containers(), Observe: c.Observe}, unbound, nil
}

func (g *Graph) provenance() InventoryArtifactResultProvenance {
	kind := "file"
	if g.b.isDir {
		kind = "directory"
	}
	return InventoryArtifactResultProvenance{Tool: "rea", IntegrityPolicy: g.b.req.Policy, RootKind: kind,
		Method: "container headers read through rea's container adapters; every readable file hashed with SHA-256 and checked against its declared hash"}
}

func (g *Graph) inventory() *InventoryArtifactResult {
	return &InventoryArtifactResult{Manifest: g.Manifest, Nodes: g.Nodes, Occurrences: g.Occurrences, Edges: g.Edges, Limits: g.b.req.Limits,
		Provenance: g.provenance(), IntegrityContradictions: g.Contradictions, Limitations: g.Limitations, text: g.text}
}

func artifactLocations(g *Graph) []core.Location {
	var out []core.Location
	for _, c := range g.Contradictions {
		out = append(out, core.Location{Kind: "artifact-path", Path: c.LogicalPath})
	}
	return out
}

// buildGraph builds the graphs of inventory_artifact (a test counts the
// builds through it).
var buildGraph = Build

func handleInventoryArtifact(ctx context.Context, c *core.Call) (any, error) {
	in, err := core.Input[InventoryArtifactInput](c)
	if err != nil {
		return nil, err
	}
	req, unbound, err := artifactRequestOf(c, in)
	if err != nil {
		return nil, err
	}
	p, err := pageInputOf(c.Op.Name, in)
	if err != nil {
		return nil, err
	}
	req.ResultOnly = true
	if !p.complete {
		if res, locs := cachedPage(ctx, c, req, p); res != nil {
			return &core.Observation{Result: res, Limitations: res.Limitations, Locations: locs, Unbound: unbound,
				Links: []core.EvidenceID{core.EvidenceID(*res.ParentEvidenceID)}}, nil
		}
	}
	g, err := buildGraph(ctx, req)
	if err != nil {
		return nil, err
	}
	obs := &core.Observation{Result: g.inventory(), Limitations: g.Limitations, Locations: artifactLocations(g), Unbound: unbound}
	if p.complete {
		return obs, nil
	}
	// The complete graph is retained as a "detail":"complete" call
	// records it; the answer is its summary and a page of entries.
	full := obs.Result.(*InventoryArtifactResult)
	parent, note := "", ""
	ev, err := c.Seal(c.Op, completeParams(c.Args), obs)
	if err == nil {
		_, err = c.Retain(ev)
	}
	if err != nil {
		note = "The complete inventory could not be retained (" + err.Error() + "); call with \"detail\":\"complete\" for every entry, or page through them with offset."
	} else {
		parent = string(ev.EvidenceID)
		note = "Concise inventory: the summary and entries from offset; page with offset and limit, or read the complete graph (nodes, occurrences, edges) as parent_evidence_id (compare_artifacts reads it)" +
			completeAdvice(c, ev)
	}
	views := entryViews(full.Nodes, full.Occurrences, full.Edges)
	base := full.conciseBase(views, parent, g)
	base.Limitations = append([]string{note}, base.Limitations...)
	res := cutPage(base, views, p)
	if parent != "" {
		keepPages(c, req, g, ev.EvidenceID, base, views, obs.Locations)
	}
	out := *obs
	out.Result, out.Limitations = res, res.Limitations
	if parent != "" {
		out.Links = []core.EvidenceID{ev.EvidenceID}
	}
	return &out, nil
}

// completeAdvice says how to read a concise inventory's complete record
// ev: with "detail":"complete" when it fits one response, otherwise by
// writing it to a file (at 20k files it is about 52 MB, five times the
// default response budget).
func completeAdvice(c *core.Call, ev *core.Evidence) string {
	room := cmp.Or(c.ResultBytes, core.ResponseBudget{MaxResponseBytes: core.DefaultMaxResponseBytes}.ResultBudget())
	if size := core.SuccessBytes(ev.NormalizedResult); size > room {
		return fmt.Sprintf(`; at %d bytes it is too large for one response (%d), so "detail":"complete" would fail: call export_evidence_bundle {"path":"/tmp/rea-evidence.json"} to write it to a file.`, size, room)
	}
	return ` or with "detail":"complete".`
}

func handleExtractArtifact(ctx context.Context, c *core.Call) (any, error) {
	in, err := core.Input[ExtractArtifactInput](c)
	if err != nil {
		return nil, err
	}
	req, unbound, err := artifactRequestOf(c, InventoryArtifactInput{Path: in.Path, IntegrityPolicy: in.IntegrityPolicy,
		MaxEntries: in.MaxEntries, MaxTotalBytes: in.MaxTotalBytes, MaxEntryBytes: in.MaxEntryBytes,
		MaxCompressionRatio: in.MaxCompressionRatio, MaxDepth: in.MaxDepth, MaxPathBytes: in.MaxPathBytes})
	if err != nil {
		return nil, err
	}
	req.KeepOpen = true
	g, err := Build(ctx, req)
	if err != nil {
		return nil, err
	}
	defer g.Close()
	items, lims, err := g.selectExtraction(c.Op.Name, in.OccurrenceIDs)
	if err != nil {
		return nil, artifactError(ctx, c.Op.Name, err)
	}
	c.Observe(fmt.Sprintf("extracting %d files", len(items)))
	res, err := g.extract(ctx, c.Op.Name, items, c.Observe)
	if err != nil {
		return nil, err
	}
	res.Provenance = g.provenance()
	res.Limitations = append(res.Limitations, lims...)
	return conciseExtraction(c, &core.Observation{Result: res, Limitations: res.Limitations, Unbound: unbound})
}

// InspectArtifactResult is inspect_artifact's result.
type InspectArtifactResult struct {
	SchemaVersion        int                                        `json:"schema_version"`
	InspectionID         string                                     `json:"inspection_id"`
	Subject              InspectArtifactResultSubject               `json:"subject"`
	Summary              ArtifactSummary                            `json:"summary"`
	Page                 ArtifactPage                               `json:"page"` // of observations and their derived_relationships
	Substeps             []InspectArtifactResultSubstep             `json:"substeps"`
	Observations         []Entry                                    `json:"observations"`
	DerivedRelationships []InspectArtifactResultDerivedRelationship `json:"derived_relationships"`
	Hypotheses           []InspectArtifactResultHypothese           `json:"hypotheses"`
	Contradictions       []InspectArtifactResultContradiction       `json:"contradictions"`
	UnexploredBranches   []InspectArtifactResultUnexploredBranche   `json:"unexplored_branches"`
	NextProbes           []InspectArtifactResultNextProbe           `json:"next_probes"`
	Coverage             InspectArtifactResultCoverage              `json:"coverage"`
	EvidenceLinks        []string                                   `json:"evidence_links"`
	Limitations          []string                                   `json:"limitations"`
}

// InspectArtifactResultSubject is the inspected graph and the inventory Evidence it built on.
type InspectArtifactResultSubject struct {
	RootArtifactID      string `json:"root_artifact_id"`
	RootSHA256          string `json:"root_sha256"`
	RootFormat          string `json:"root_format"`
	ManifestID          string `json:"manifest_id"`
	GraphSHA256         string `json:"graph_sha256"`
	OccurrenceCount     int    `json:"occurrence_count"`
	InventoryEvidenceID string `json:"inventory_evidence_id"`
}

// InspectArtifactResultSubstep is one step of an inspection and what it counted.
type InspectArtifactResultSubstep struct {
	Name   string `json:"name"`
	Status string `json:"status"`
	Count  int    `json:"count"`
}

// InspectArtifactResultDerivedRelationship is a relation between two paths (a source map and its script).
type InspectArtifactResultDerivedRelationship struct {
	Relation string `json:"relation"`
	From     string `json:"from_logical_path"`
	To       string `json:"to_logical_path"`
	EdgeID   string `json:"edge_id"`
}

// InspectArtifactResultHypothese is an inferred statement with the paths it rests on.
type InspectArtifactResultHypothese struct {
	Statement  string   `json:"statement"`
	Confidence string   `json:"confidence"`
	Basis      []string `json:"basis"`
}

// InspectArtifactResultContradiction is an integrity contradiction as an inspection states it.
type InspectArtifactResultContradiction struct {
	ContradictionID string `json:"contradiction_id"`
	OccurrenceID    string `json:"occurrence_id"`
	DeclaredSHA256  string `json:"declared_sha256"`
	ObservedSHA256  string `json:"observed_sha256"`
	EvidenceID      string `json:"evidence_id"`
	Statement       string `json:"statement"`
}

// InspectArtifactResultUnexploredBranche is a container left unexplored, and why.
type InspectArtifactResultUnexploredBranche struct {
	OccurrenceID string `json:"occurrence_id"`
	LogicalPath  string `json:"logical_path"`
	Reason       string `json:"reason"`
}

// InspectArtifactResultNextProbe is a suggested call: an operation and its arguments (an open object: that tool's input).
type InspectArtifactResultNextProbe struct {
	Operation string         `json:"operation"`
	Arguments map[string]any `json:"arguments"`
	Reason    string         `json:"reason"`
}

// InspectArtifactResultCoverage counts what an inspection covered.
type InspectArtifactResultCoverage struct {
	Occurrences        int  `json:"occurrences"`
	Files              int  `json:"files"`
	HashedFiles        int  `json:"hashed_files"`
	UnavailableFiles   int  `json:"unavailable_files"`
	ExpandedContainers int  `json:"expanded_containers"`
	OpaqueContainers   int  `json:"opaque_containers"`
	Complete           bool `json:"complete"`
}

func handleInspectArtifact(ctx context.Context, c *core.Call) (any, error) {
	in, err := core.Input[InspectArtifactInput](c)
	if err != nil {
		return nil, err
	}
	req, unbound, err := artifactRequestOf(c, in)
	if err != nil {
		return nil, err
	}
	p, err := pageInputOf(c.Op.Name, in)
	if err != nil {
		return nil, err
	}
	g, err := Build(ctx, req)
	if err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	// The inventory is Evidence of its own, recorded first so the
	// inspection can link it.
	inv, ok := c.Lookup("inventory_artifact")
	if !ok {
		return nil, fmt.Errorf("%s: inventory_artifact is not in the catalog", c.Op.Name)
	}
	ev, err := c.Seal(inv, completeParams(c.Args), &core.Observation{Result: g.inventory(), Limitations: g.Limitations, Locations: artifactLocations(g), Unbound: unbound})
	if err != nil {
		return nil, err
	}
	if _, err := c.Retain(ev); err != nil {
		return nil, err
	}
	res := g.inspection(string(ev.EvidenceID), in.Path, p)
	return &core.Observation{Result: res, Limitations: res.Limitations, Links: []core.EvidenceID{ev.EvidenceID}, Locations: artifactLocations(g),
		Unbound: unbound, Confidence: core.ConfidenceDerived}, nil
}

// inspection summarizes a graph.
func (g *Graph) inspection(invID string, pathArg string, p pageInput) *InspectArtifactResult {
	views := entryViews(g.Nodes, g.Occurrences, g.Edges)
	if p.complete {
		p.limit = max(len(views), 1)
	}
	page, pg := pageOf(views, p)
	listed := map[string]bool{}
	for _, v := range page {
		listed[v.LogicalPath] = true
	}
	r := &InspectArtifactResult{SchemaVersion: artifactSchemaVersion, Observations: page, EvidenceLinks: []string{invID},
		Summary: summarize(views, g), Page: pg,
		Subject: InspectArtifactResultSubject{RootArtifactID: g.Manifest.RootArtifactID, RootSHA256: g.Manifest.RootSHA256, RootFormat: g.Manifest.RootFormat,
			ManifestID: g.Manifest.ManifestID, GraphSHA256: g.Manifest.GraphSHA256, OccurrenceCount: g.Manifest.OccurrenceCount, InventoryEvidenceID: invID},
		DerivedRelationships: []InspectArtifactResultDerivedRelationship{}, Hypotheses: []InspectArtifactResultHypothese{}, Contradictions: []InspectArtifactResultContradiction{},
		UnexploredBranches: []InspectArtifactResultUnexploredBranche{}, NextProbes: []InspectArtifactResultNextProbe{}, Limitations: core.NonNil(append(pastEnd(pg), leftOutNamedIn(g.Limitations, leftOutInInventory)...))}
	pathOf := map[string]string{}
	for _, o := range g.Occurrences {
		pathOf[o.OccurrenceID] = o.LogicalPath
	}
	cov := &r.Coverage
	var addons, maps, js []string
	declared := 0
	// A file of an expanded ASAR's unpacked companion directory is the
	// ASAR's own entry (CompanionTwin): the hypotheses count it once.
	shaOf := map[string]string{}
	for _, it := range g.Items {
		if it.Kind == ports.EntryFile && it.Hashed {
			shaOf[it.Path] = it.SHA256
		}
	}
	twinned := func(it *Item) bool {
		t, ok := CompanionTwin(it.Path)
		return ok && it.Hashed && shaOf[t] == it.SHA256
	}
	for _, it := range g.Items {
		cov.Occurrences++
		if it.Kind != ports.EntryFile {
			continue
		}
		cov.Files++
		if it.Hashed {
			cov.HashedFiles++
		} else {
			cov.UnavailableFiles++
		}
		if it.declared != "" {
			declared++
		}
		if it.nested != nil && it != g.b.root {
			cov.ExpandedContainers++
		}
		if it.opaque != "" {
			cov.OpaqueContainers++
			r.UnexploredBranches = append(r.UnexploredBranches, InspectArtifactResultUnexploredBranche{OccurrenceID: it.occurrenceID, LogicalPath: it.Path, Reason: it.opaque})
		}
		switch it.class.kind {
		case "native-addon":
			if twinned(it) {
				break
			}
			addons = append(addons, it.Path)
		case "source-map":
			maps = append(maps, it.Path)
		case "javascript":
			if twinned(it) {
				break
			}
			js = append(js, it.Path)
		}
	}
	cov.Complete = cov.UnavailableFiles == 0 && cov.OpaqueContainers == 0
	status := func(ok bool) string {
		if ok {
			return "completed"
		}
		return "partial"
	}
	r.Substeps = []InspectArtifactResultSubstep{
		{"traverse", "completed", cov.Occurrences},
		{"hash", status(cov.UnavailableFiles == 0), cov.HashedFiles},
		{"verify-declared-integrity", "completed", declared},
		{"expand-containers", status(cov.OpaqueContainers == 0), cov.ExpandedContainers},
		{"classify", "completed", len(g.Nodes)},
	}
	for _, e := range g.Edges {
		if e.Relation == "contains" {
			continue
		}
		from := pathOf[e.OccurrenceID]
		if !listed[from] {
			continue // concise: the relations of the page's entries
		}
		to := path.Clean(strings.TrimSuffix(from, ".map"))
		r.DerivedRelationships = append(r.DerivedRelationships, InspectArtifactResultDerivedRelationship{Relation: e.Relation, From: from, To: to, EdgeID: e.EdgeID})
	}
	for _, c := range g.Contradictions {
		state := ""
		if c.Unpacked {
			state = " (unpacked companion)"
		}
		r.Contradictions = append(r.Contradictions, InspectArtifactResultContradiction{ContradictionID: c.ContradictionID, OccurrenceID: c.OccurrenceID,
			DeclaredSHA256: c.DeclaredSHA256, ObservedSHA256: c.ObservedSHA256, EvidenceID: invID,
			Statement: fmt.Sprintf("%s%s: the container declares sha256 %s but the bytes hash to %s.", c.LogicalPath, state, c.DeclaredSHA256, c.ObservedSHA256)})
	}
	// A next probe's arguments: those of the tool it names (an open
	// object), with this call's path when it was given.
	with := func(extra map[string]any) map[string]any {
		m := map[string]any{}
		if pathArg != "" {
			m["path"] = pathArg
		}
		for k, v := range extra {
			m[k] = v
		}
		return m
	}
	if len(addons) > 0 {
		r.Hypotheses = append(r.Hypotheses, InspectArtifactResultHypothese{Confidence: core.ConfidenceInferred, Basis: firstN(addons, 20),
			Statement: fmt.Sprintf("The application ships %d native add-on(s) that run with the host process's privileges.", len(addons))})
		var ids []any
		for _, it := range g.Items {
			if it.class.kind == "native-addon" && it.Hashed && !twinned(it) && len(ids) < 50 {
				ids = append(ids, it.occurrenceID)
			}
		}
		r.NextProbes = append(r.NextProbes, InspectArtifactResultNextProbe{Operation: "extract_artifact", Arguments: with(map[string]any{"occurrence_ids": ids}),
			Reason: "Write the native add-ons to disk, then open each with open_binary to analyze it."})
	}
	if len(js) > 0 && pathArg != "" {
		// The application graph is the next step for JavaScript: its
		// processes, IPC, endpoints and source maps. It needs the path
		// and, to read past contradictions, the same policy.
		args := with(map[string]any{"detail": "summary"})
		if g.b.req.Policy == integrityRecord {
			args["integrity_policy"] = integrityRecord
		}
		r.NextProbes = append(r.NextProbes, InspectArtifactResultNextProbe{Operation: "analyze_javascript_application", Arguments: args,
			Reason: fmt.Sprintf("Map the application's %d JavaScript file(s): processes, IPC channels, endpoints, source maps.", len(js))})
	}
	if len(maps) > 0 {
		r.Hypotheses = append(r.Hypotheses, InspectArtifactResultHypothese{Confidence: core.ConfidenceInferred, Basis: firstN(maps, 20),
			Statement: fmt.Sprintf("%d source map(s) are shipped; original source names and text may be recoverable from them.", len(maps))})
	}
	if g.Manifest.RootFormat == "asar" || g.hasASAR() {
		basis := []string{}
		for _, it := range g.Items {
			if it.class.format == "asar" || it.class.kind == "package-metadata" {
				basis = append(basis, it.Path)
			}
		}
		r.Hypotheses = append(r.Hypotheses, InspectArtifactResultHypothese{Confidence: core.ConfidenceInferred, Basis: firstN(basis, 20),
			Statement: fmt.Sprintf("This is (or contains) an Electron application archive with %d JavaScript file(s).", len(js))})
	}
	if len(r.Contradictions) > 0 {
		r.NextProbes = append(r.NextProbes, InspectArtifactResultNextProbe{Operation: "extract_artifact", Arguments: with(map[string]any{"integrity_policy": integrityRecord}),
			Reason: "Materialize the observed bytes of the contradicted entries and compare them with a trusted build."})
	}
	for _, u := range r.UnexploredBranches {
		r.NextProbes = append(r.NextProbes, InspectArtifactResultNextProbe{Operation: "extract_artifact", Arguments: with(map[string]any{"occurrence_ids": []any{u.OccurrenceID}}),
			Reason: "Extract " + u.LogicalPath + ", then run inventory_artifact on the extracted file to see inside it."})
		if len(r.NextProbes) >= 20 {
			break
		}
	}
	r.InspectionID = "ai_" + core.MustDigest(map[string]any{"schema_version": artifactSchemaVersion, "manifest_id": g.Manifest.ManifestID,
		"integrity_policy": g.b.req.Policy, "inventory_evidence_id": invID})
	return r
}

func (g *Graph) hasASAR() bool {
	for _, it := range g.Items {
		if it.class.format == "asar" {
			return true
		}
	}
	return false
}

func firstN(s []string, n int) []string { return s[:min(len(s), n)] }

func handleCompareArtifacts(ctx context.Context, c *core.Call) (any, error) {
	op := c.Op.Name
	in, err := core.Input[CompareArtifactsInput](c)
	if err != nil {
		return nil, err
	}
	maxDiffs := 1000
	if in.MaxDifferences != nil {
		maxDiffs = *in.MaxDifferences
	}
	var sides [2]*compareSide
	var links []core.EvidenceID
	for i, name := range []string{"left", "right"} {
		ev, err := resolveEvidenceArg(c, name, [2]json.RawMessage{in.Left, in.Right}[i])
		if err != nil {
			return nil, err
		}
		if full, err := completeSide(c, ev); err != nil {
			return nil, err
		} else if full != ev {
			links = append(links, ev.EvidenceID)
			ev = full
		}
		if sides[i], err = compareSideOf(op, name, ev); err != nil {
			return nil, err
		}
		links = append(links, ev.EvidenceID)
	}
	c.Observe(fmt.Sprintf("comparing %d and %d entries", sides[0].Entries, sides[1].Entries))
	res, err := compareArtifacts(ctx, sides[0], sides[1], maxDiffs)
	if err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	slices.Sort(links)
	links = slices.Compact(links)
	return &core.Observation{Result: res, Limitations: res.Limitations, Links: links, Unbound: true, Confidence: core.ConfidenceDerived}, nil
}

// completeSide is the complete record behind a concise one: a concise
// inventory's parent_evidence_id, or the inventory_evidence_id of an
// inspection that lists a page of its entries. Other records are returned
// as they are.
func completeSide(c *core.Call, ev *core.Evidence) (*core.Evidence, error) {
	switch ev.Operation {
	case "inventory_artifact":
		return c.CompleteEvidence(ev) // a concise inventory: its complete graph
	case "inspect_artifact":
		var probe struct {
			Subject struct {
				InventoryEvidenceID string `json:"inventory_evidence_id"`
			} `json:"subject"`
			Page *ArtifactPage `json:"page"`
		}
		if json.Unmarshal(ev.NormalizedResult, &probe) != nil || probe.Page == nil || (probe.Page.Offset == 0 && !probe.Page.HasMore) {
			return ev, nil
		}
		inv, err := c.Resolve(core.EvidenceID(probe.Subject.InventoryEvidenceID))
		if err != nil {
			return nil, err
		}
		if inv.Operation != "inventory_artifact" {
			return nil, &core.Error{Code: core.CodeEvidenceIntegrityMismatch,
				Message:     fmt.Sprintf("%s: evidence %s: wrong operation (expected inventory_artifact, got %s)", c.Op.Name, inv.EvidenceID, inv.Operation),
				Remediation: "Pass the complete inventory, inline or as a retained reference.",
				Details:     map[string]any{"evidence_id": string(inv.EvidenceID), "reason": "wrong_operation", "expected": "inventory_artifact", "actual": inv.Operation}}
		}
		return inv, nil
	}
	return ev, nil
}

// resolveEvidenceArg returns the Evidence an argument names: a retained
// reference from this connection's ledger, or an inline record whose ID is
// verified.
func resolveEvidenceArg(c *core.Call, name string, raw json.RawMessage) (*core.Evidence, error) {
	ev, err := c.EvidenceArg(name)
	if e, ok := err.(*core.Error); ok {
		var ref struct {
			Kind string `json:"kind"`
		}
		if json.Unmarshal(raw, &ref) != nil || ref.Kind != "retained-evidence" {
			e.Message = c.Op.Name + ": " + name + ": " + e.Message // an inline record that does not parse
		}
	}
	return ev, err
}

// compareExamples are compare_artifacts' examples as buildCompareExamples
// makes them, generated into examples_generated.go: building them seals two
// Evidence records, work every rea process would do at start-up.
func compareExamples() []json.RawMessage {
	out := make([]json.RawMessage, len(generatedCompareExamples))
	for i, e := range generatedCompareExamples {
		out[i] = e
	}
	return out
}

// buildCompareExamples are two complete inventory_artifact records of a
// one-file artifact before and after an edit (the catalog advertises them as
// retained references).
func buildCompareExamples() []json.RawMessage {
	a, b := exampleInventoryEvidence("console.log('v1')\n"), exampleInventoryEvidence("console.log('v2')\n")
	ref := func(ev *core.Evidence) string {
		return `{"kind":"retained-evidence","evidence_id":"` + string(ev.EvidenceID) + `"}`
	}
	inline := func(ev *core.Evidence) string {
		raw, err := core.MarshalNoEscape(ev)
		if err != nil {
			panic("core: compare_artifacts example: " + err.Error())
		}
		return string(raw)
	}
	// The references first: rea tools prints the first example, and the
	// inline form (two whole records, 3 KB) buried the call's shape.
	return []json.RawMessage{
		json.RawMessage(`{"left":` + ref(a) + `,"right":` + ref(b) + `,"max_differences":100}`),
		json.RawMessage(`{"left":` + inline(a) + `,"right":` + inline(b) + `}`),
	}
}

func exampleInventoryEvidence(content string) *core.Evidence {
	data := []byte(content)
	sum := sha256.Sum256(data)
	size := int64(len(data))
	root := &Item{Path: ".", name: "main.js", Kind: ports.EntryFile, Hashed: true, SHA256: hex.EncodeToString(sum[:]), Size: size,
		head: data, status: hashVerified, declaredSize: &size, class: classifyArtifact("main.js", data, data, nil, nil)}
	b := &graphBuilder{req: Request{Op: "inventory_artifact", Policy: IntegrityFail, Limits: defaultArtifactLimits},
		root: root, items: []*Item{root}, byPath: map[string]*Item{".": root}}
	g, err := b.seal()
	if err != nil {
		panic("core: compare_artifacts example: " + err.Error())
	}
	params, _ := core.CanonicalJSON(map[string]any{"path": "main.js", "integrity_policy": IntegrityFail, "max_entries": 100000,
		"max_total_bytes": 1 << 30, "max_entry_bytes": 256 << 20, "max_compression_ratio": 1000, "max_depth": 20, "max_path_bytes": 4096})
	norm, _ := core.CanonicalJSON(g.inventory())
	ev := &core.Evidence{Operation: "inventory_artifact", Provider: core.ProviderRef{ID: "rea", Name: "rea"}, Parameters: params,
		NormalizedResult: norm, Limitations: []string{"No single artifact is this record's subject; its parameters and evidence links name what it covers."}}
	if err := ev.Seal(); err != nil {
		panic("core: compare_artifacts example: " + err.Error())
	}
	return ev
}
