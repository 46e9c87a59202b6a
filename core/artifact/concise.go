package artifact

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"rea/core"
)

// inventory_artifact and inspect_artifact answer concisely by default:
// counts by entry kind, kind, format and hash status, the integrity
// verdict, what deserves a look, and one page of entries (offset, limit,
// exact total). "detail":"complete" gives every entry (the whole graph for
// an inventory). Before, a 20k-entry ASAR's inventory was 56 MB and its
// inspection 19 MB over MCP: both failed with resource_constraint and
// could only be read by exporting a bundle. A concise inventory seals and
// retains the complete graph as parent_evidence_id, which
// compare_artifacts follows; a concise inspection's
// subject.inventory_evidence_id is the complete inventory.
const (
	defaultEntryLimit = 50
	maxEntryLimit     = 5000
	detailComplete    = "complete"
)

// ArtifactSummary counts a graph's occurrences and says what deserves a
// look.
type ArtifactSummary struct {
	EntryKinds map[string]int `json:"entry_kinds"` // occurrences by entry_kind
	Kinds      map[string]int `json:"kinds"`       // readable entries by the content's kind
	Formats    map[string]int `json:"formats"`     // readable entries by the content's format
	HashStatus map[string]int `json:"hash_status"` // occurrences by hash_status
	Integrity  string         `json:"integrity"`   // contradicted, incomplete (a file unread or unhashed) or consistent
	Suspicious []string       `json:"suspicious"`  // statements worth checking, each with its first paths
}

// ArtifactPage locates a page of entries in the whole list.
type ArtifactPage struct {
	Offset     int  `json:"offset"`
	Limit      int  `json:"limit"`
	Total      int  `json:"total"`
	NextOffset *int `json:"next_offset"`
	HasMore    bool `json:"has_more"`
}

// pageInput is the detail, offset and limit of a call, checked.
type pageInput struct {
	complete      bool
	offset, limit int
}

func pageInputOf(op string, in InventoryArtifactInput) (pageInput, error) {
	p := pageInput{complete: in.Detail == detailComplete, limit: defaultEntryLimit}
	if in.Offset != nil {
		p.offset = *in.Offset
	}
	if in.Limit != nil {
		p.limit = *in.Limit
	}
	if p.complete && (in.Offset != nil || in.Limit != nil) {
		return p, core.InvalidRequest(op, core.Issue{Path: []any{"detail"}, Reason: core.ReasonInvalidValue,
			Message: `offset and limit page the concise entries; "detail":"complete" lists every entry: omit one or the other`})
	}
	return p, nil
}

// pageOf cuts views to the page p names.
func pageOf(views []Entry, p pageInput) ([]Entry, ArtifactPage) {
	start := min(p.offset, len(views))
	end := min(start+p.limit, len(views))
	pg := ArtifactPage{Offset: p.offset, Limit: p.limit, Total: len(views), HasMore: end < len(views)}
	if pg.HasMore {
		pg.NextOffset = &end
	}
	return views[start:end], pg
}

// pastEnd is the limitation of a page whose offset is past the last entry
// (its entries are empty): how many entries there are and which offset to
// pass. It is nil for any other page.
func pastEnd(pg ArtifactPage) []string {
	if pg.Offset == 0 || pg.Offset < pg.Total {
		return nil
	}
	if pg.Total == 0 {
		return []string{fmt.Sprintf("offset %d is past the end: there are no entries; pass offset 0 (or omit it).", pg.Offset)}
	}
	return []string{fmt.Sprintf("offset %d is past the end: there are %d entries (offsets 0 to %d); pass offset 0 for the first page, or offset %d for the last page of %d.",
		pg.Offset, pg.Total, pg.Total-1, max(pg.Total-pg.Limit, 0), pg.Limit)}
}

// summarize counts views (g's occurrences) and lists what deserves a
// look: contradicted, unreadable and unexpanded entries, entries left out
// for unsafe names, links leading outside the root, native add-ons (a file
// of an ASAR's unpacked companion once, under the ASAR) and native
// executables. The complete graph holds each of these in some record's
// limitations; the concise answer, without those records, has this.
func summarize(views []Entry, g *Graph) ArtifactSummary {
	occs, contradictions := g.Occurrences, g.Contradictions
	s := ArtifactSummary{EntryKinds: map[string]int{}, Kinds: map[string]int{}, Formats: map[string]int{}, HashStatus: map[string]int{}, Suspicious: []string{}}
	var addons, natives, unread []string
	shaOf := map[string]string{}
	for _, v := range views {
		if v.EntryKind == "file" && v.SHA256 != nil {
			shaOf[v.LogicalPath] = *v.SHA256
		}
	}
	for _, v := range views {
		s.EntryKinds[v.EntryKind]++
		s.HashStatus[v.HashStatus]++
		if v.Kind != nil && v.EntryKind != "directory" {
			s.Kinds[*v.Kind]++
			s.Formats[*v.Format]++
			switch *v.Kind {
			case "native-addon":
				if t, ok := CompanionTwin(v.LogicalPath); ok && shaOf[t] == *v.SHA256 {
					break // the ASAR's own entry, listed too
				}
				addons = append(addons, v.LogicalPath)
			case "executable", "dynamic-library":
				natives = append(natives, v.LogicalPath)
			}
		}
		if v.EntryKind == "file" && v.SHA256 == nil {
			unread = append(unread, v.LogicalPath)
		}
	}
	var opaque []string
	for i := range occs {
		for _, l := range occs[i].Limitations {
			if strings.HasPrefix(l, "Nested ") && strings.Contains(l, " container not expanded") {
				opaque = append(opaque, occs[i].LogicalPath)
				break
			}
		}
	}
	var contradicted []string
	for _, c := range contradictions {
		contradicted = append(contradicted, c.LogicalPath)
	}
	switch {
	case len(contradicted) > 0 || s.HashStatus[hashMismatched] > 0:
		s.Integrity = "contradicted"
	case len(unread) > 0 || s.HashStatus["not-hashed-limit"] > 0:
		s.Integrity = "incomplete"
	default:
		s.Integrity = "consistent"
	}
	// sayN states n things, naming the first three of paths (n may be
	// more than len(paths): a container lists at most maxRejectedListed).
	sayN := func(n int, paths []string, format string) {
		if n == 0 {
			return
		}
		first := strings.Join(firstN(paths, 3), ", ")
		if n > 3 {
			first += ", ..."
		}
		s.Suspicious = append(s.Suspicious, fmt.Sprintf(format, n)+": "+first)
	}
	say := func(paths []string, format string) { sayN(len(paths), paths, format) }
	say(contradicted, "%d file(s) contradict the hash their container declares")
	say(unread, "%d file(s) could not be read")
	say(opaque, "%d nested container(s) were not expanded")
	var names []string
	for _, l := range g.LeftOut[:min(len(g.LeftOut), 3)] {
		n := fmt.Sprintf("%q", l.Entry.Name) // untrusted: quoted
		if l.Container != "." {
			n += " in " + l.Container
		}
		names = append(names, n)
	}
	sayN(g.leftOutTotal, names, "%d entr(ies) were left out for unsafe or ambiguous names and never read")
	var links []string
	for _, l := range g.LinksOut {
		links = append(links, fmt.Sprintf("%s -> %q", l.Path, l.Target))
	}
	say(links, "%d symbolic link(s) lead outside the inventoried root (recorded, never followed)")
	say(addons, "%d native add-on(s) run with the host process's privileges")
	say(natives, "%d native executable(s) or librar(ies)")
	return s
}

// conciseBase is the concise form of an inventory without its page: its
// manifest, limits, provenance, contradictions and limitations, and the
// summary of views (its entries) and the retained complete graph (parent,
// "" when it could not be retained).
func (r *InventoryArtifactResult) conciseBase(views []Entry, parent string, g *Graph) *InventoryArtifactResult {
	sum := summarize(views, g)
	out := &InventoryArtifactResult{Manifest: r.Manifest, Limits: r.Limits, Provenance: r.Provenance, IntegrityContradictions: r.IntegrityContradictions,
		Limitations: leftOutNamedIn(r.Limitations, leftOutInParent), Summary: &sum}
	if parent != "" {
		out.ParentEvidenceID = &parent
	}
	return out
}

// cutPage is base with the page of views p names, and a limitation when
// its offset is past the end. Every page of an inventory, built or cut
// from the one this session keeps (pages.go), is written by it.
func cutPage(base *InventoryArtifactResult, views []Entry, p pageInput) *InventoryArtifactResult {
	out := *base
	page, pg := pageOf(views, p)
	out.Entries, out.Page = page, &pg
	out.Limitations = append(pastEnd(pg), base.Limitations...)
	return &out
}

// Where a concise answer, which lists no occurrences, says the names of
// the entries left out for unsafe names are (LeftOutNamed in the complete
// graph).
const (
	leftOutInParent     = `summary.suspicious names the first; the complete graph (parent_evidence_id, or "detail":"complete") names each in its container's occurrence limitations`
	leftOutInInventory  = `summary.suspicious names the first; the complete inventory (subject.inventory_evidence_id, or inventory_artifact with "detail":"complete") names each in its container's occurrence limitations`
	leftOutInExtraction = `inventory_artifact with "detail":"complete" names each in its container's occurrence limitations`
)

// leftOutNamedIn returns lims with the limitation that counts the entries
// left out saying where as where does.
func leftOutNamedIn(lims []string, where string) []string {
	out := slices.Clone(lims)
	for i, l := range out {
		out[i] = strings.Replace(l, LeftOutNamed, where, 1)
	}
	return out
}

// inventoryConciseJSON is the concise inventory as it is written.
type inventoryConciseJSON struct {
	Manifest                InventoryArtifactResultManifest   `json:"manifest"`
	Summary                 ArtifactSummary                   `json:"summary"`
	Entries                 []Entry                           `json:"entries"`
	Page                    ArtifactPage                      `json:"page"`
	Limits                  Limits                            `json:"limits"`
	Provenance              InventoryArtifactResultProvenance `json:"provenance"`
	IntegrityContradictions []Contradiction                   `json:"integrity_contradictions"`
	Limitations             []string                          `json:"limitations"`
	ParentEvidenceID        *string                           `json:"parent_evidence_id,omitempty"`
}

func (r *InventoryArtifactResult) appendConcise(b []byte) []byte {
	text, err := core.CanonicalJSON(inventoryConciseJSON{Manifest: r.Manifest, Summary: *r.Summary, Entries: core.NonNil(r.Entries), Page: *r.Page,
		Limits: r.Limits, Provenance: r.Provenance, IntegrityContradictions: core.NonNil(r.IntegrityContradictions), Limitations: core.NonNil(r.Limitations),
		ParentEvidenceID: r.ParentEvidenceID})
	if err != nil {
		panic("artifact: concise inventory: " + err.Error()) // plain records: cannot fail
	}
	return append(b, text...)
}

// completeParams are a call's arguments as a "detail":"complete" call
// without paging records them: the complete record a concise answer
// retains.
func completeParams(args map[string]any) map[string]any {
	params := maps.Clone(args)
	if params == nil {
		params = map[string]any{}
	}
	delete(params, "offset")
	delete(params, "limit")
	params["detail"] = detailComplete
	return params
}

// conciseExtractionItems is the most artifacts (and selected occurrence
// IDs) an extraction's answer lists. Before, extracting a 20k-file ASAR
// wrote every file and then failed with resource_constraint (12.9 MB)
// without saying where the files were.
const conciseExtractionItems = 1000

// conciseExtraction returns obs unchanged when its extraction lists at
// most conciseExtractionItems files. Otherwise the complete result is
// sealed and retained, and the answer lists the first files and selected
// IDs, names the complete record as parent_evidence_id, and says that every
// file is under output_root.
func conciseExtraction(c *core.Call, obs *core.Observation) (*core.Observation, error) {
	full := obs.Result.(*ExtractArtifactResult)
	files, selected := len(full.Artifacts), len(full.ExtractionManifest.SelectedOccurrenceIDs)
	if files <= conciseExtractionItems && selected <= conciseExtractionItems {
		return obs, nil
	}
	ev, err := c.Seal(c.Op, c.Args, obs)
	if err == nil {
		_, err = c.Retain(ev)
	}
	res := *full
	res.Artifacts = full.Artifacts[:min(files, conciseExtractionItems)]
	res.ExtractionManifest.SelectedOccurrenceIDs = full.ExtractionManifest.SelectedOccurrenceIDs[:min(selected, conciseExtractionItems)]
	note := fmt.Sprintf("All %d files were written under output_root (%s); artifacts lists the first %d and extraction_manifest.selected_occurrence_ids the first %d of %d",
		files, full.OutputRoot, len(res.Artifacts), len(res.ExtractionManifest.SelectedOccurrenceIDs), selected)
	if err != nil {
		note += "; the complete result could not be retained (" + err.Error() + ")."
	} else {
		id := string(ev.EvidenceID)
		res.ParentEvidenceID = &id
		note += "; the complete result is retained as parent_evidence_id."
	}
	res.Limitations = append([]string{note}, full.Limitations...)
	out := *obs
	out.Result, out.Limitations = &res, res.Limitations
	if err == nil {
		out.Links = append(out.Links, ev.EvidenceID)
	}
	return &out, nil
}
