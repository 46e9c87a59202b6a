package artifact

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"path"
	"slices"
	"strings"

	"rea/core"
)

// Entry is one occurrence joined with its node and relations: what
// inspect_artifact reports per entry and what compare_artifacts compares.
type Entry struct {
	OccurrenceID string   `json:"occurrence_id"`
	LogicalPath  string   `json:"logical_path"`
	EntryKind    string   `json:"entry_kind"`
	ArtifactID   *string  `json:"artifact_id"`
	SHA256       *string  `json:"sha256"`
	Size         *int64   `json:"size"`
	Kind         *string  `json:"kind"`
	Format       *string  `json:"format"`
	Executable   bool     `json:"executable"`
	HashStatus   string   `json:"hash_status"`
	Relations    []string `json:"relations"`
	LinkTarget   *string  `json:"link_target,omitempty"` // a symbolic link's, as recorded
}

// entryViews joins occurrences with nodes and edges. Relations are the
// edges an entry is the parent of, as "contains:<n>" (a container's
// expanded children) and "maps-source:<path>" (a source map's source), so
// they compare by path rather than by content ID.
func entryViews(nodes []Node, occs []Occurrence, edges []Edge) []Entry {
	nodeOf := make(map[string]*Node, len(nodes))
	for i := range nodes {
		nodeOf[nodes[i].ArtifactID] = &nodes[i]
	}
	occOf := make(map[string]*Occurrence, len(occs))
	for i := range occs {
		occOf[occs[i].OccurrenceID] = &occs[i]
	}
	contains := map[string]int{}
	rel := map[string][]string{}
	for _, e := range edges {
		o := occOf[e.OccurrenceID]
		if o == nil {
			continue
		}
		switch e.Relation {
		case "contains":
			if o.ParentOccurrenceID != nil {
				contains[*o.ParentOccurrenceID]++
			}
		case "maps-source":
			target := strings.TrimSuffix(o.LogicalPath, ".map")
			rel[o.OccurrenceID] = append(rel[o.OccurrenceID], "maps-source:"+path.Clean(target))
		default:
			rel[o.OccurrenceID] = append(rel[o.OccurrenceID], e.Relation)
		}
	}
	out := make([]Entry, 0, len(occs))
	for _, o := range occs {
		v := Entry{OccurrenceID: o.OccurrenceID, LogicalPath: o.LogicalPath, EntryKind: o.EntryKind, ArtifactID: o.ArtifactID,
			Executable: o.Executable, HashStatus: o.HashStatus, Relations: []string{}}
		if o.ArtifactID != nil {
			if n := nodeOf[*o.ArtifactID]; n != nil {
				sha, size, kind, format := n.SHA256, n.Size, n.Kind, n.Format
				v.SHA256, v.Size, v.Kind, v.Format = &sha, &size, &kind, &format
				if target, ok := linkTarget(n); ok && o.EntryKind == "symlink" {
					v.LinkTarget = &target
				}
			}
		}
		// Directories contain their entries by construction; a container
		// file's children are a relation worth comparing.
		if n := contains[o.OccurrenceID]; n > 0 && o.EntryKind == "file" {
			v.Relations = append(v.Relations, fmt.Sprintf("contains:%d", n))
		}
		v.Relations = append(v.Relations, rel[o.OccurrenceID]...)
		slices.Sort(v.Relations)
		out = append(out, v)
	}
	return out
}

// InventoryArtifactResult is inventory_artifact's result.
type InventoryArtifactResult struct {
	Manifest                InventoryArtifactResultManifest   `json:"manifest"`
	Nodes                   []Node                            `json:"nodes,omitempty"`       // complete form (always written there, [] when empty)
	Occurrences             []Occurrence                      `json:"occurrences,omitempty"` // complete form
	Edges                   []Edge                            `json:"edges,omitempty"`       // complete form
	Limits                  Limits                            `json:"limits"`
	Provenance              InventoryArtifactResultProvenance `json:"provenance"`
	IntegrityContradictions []Contradiction                   `json:"integrity_contradictions"`
	Limitations             []string                          `json:"limitations"`

	// The concise form (the default, concise.go): the summary, a page of
	// entries and the retained complete record, in place of the graph's
	// lists.
	Summary          *ArtifactSummary `json:"summary,omitempty"`
	Entries          []Entry          `json:"entries,omitempty"` // always written in the concise form, [] when the page is empty
	Page             *ArtifactPage    `json:"page,omitempty"`
	ParentEvidenceID *string          `json:"parent_evidence_id,omitempty"`

	text []byte // the canonical form the graph was sealed with, when it was
}

// InventoryArtifactResultProvenance says how the graph was built.
type InventoryArtifactResultProvenance struct {
	Tool            string `json:"tool"`
	IntegrityPolicy string `json:"integrity_policy"`
	RootKind        string `json:"root_kind"` // directory or file
	Method          string `json:"method"`
}

// CompareArtifactsResultLeft is one input of compare_artifacts (left or
// right) as the result describes it.
type CompareArtifactsResultLeft struct {
	EvidenceID     string `json:"evidence_id"`
	Operation      string `json:"operation"`
	RootArtifactID string `json:"root_artifact_id"`
	RootFormat     string `json:"root_format"`
	ManifestID     string `json:"manifest_id"`
	GraphSHA256    string `json:"graph_sha256"`
	Entries        int    `json:"entries"`
	Contradictions int    `json:"contradiction_count"`
	Complete       bool   `json:"complete"`
}

// compareSide is one input of compare_artifacts reduced to what is
// compared: its summary and its entries by logical path.
type compareSide struct {
	CompareArtifactsResultLeft
	views map[string]Entry
}

// compareSideOf decodes an inventory_artifact or inspect_artifact Evidence.
func compareSideOf(op, name string, ev *core.Evidence) (*compareSide, error) {
	wrong := func(why string) error {
		return &core.Error{Code: core.CodeEvidenceIntegrityMismatch, Category: core.CategoryIntegrityMismatch,
			Message:     fmt.Sprintf("%s: %s: %s", op, name, why),
			Remediation: "Pass Evidence produced by inventory_artifact or inspect_artifact (inline, or as a retained reference on this connection).",
			Details:     map[string]any{"evidence_id": string(ev.EvidenceID), "reason": "wrong_operation", "expected": "inventory_artifact|inspect_artifact", "actual": ev.Operation}}
	}
	s := &compareSide{CompareArtifactsResultLeft: CompareArtifactsResultLeft{EvidenceID: string(ev.EvidenceID), Operation: ev.Operation}, views: map[string]Entry{}}
	var views []Entry
	var declared int
	switch ev.Operation {
	case "inventory_artifact":
		var r InventoryArtifactResult
		if err := strictDecode(ev.NormalizedResult, &r); err != nil {
			return nil, wrong("its result is not an inventory_artifact result: " + err.Error())
		}
		s.RootArtifactID, s.RootFormat, s.ManifestID, s.GraphSHA256 = r.Manifest.RootArtifactID, r.Manifest.RootFormat, r.Manifest.ManifestID, r.Manifest.GraphSHA256
		views, declared, s.Contradictions = entryViews(r.Nodes, r.Occurrences, r.Edges), r.Manifest.OccurrenceCount, len(r.IntegrityContradictions)
	case "inspect_artifact":
		var r InspectArtifactResult
		if err := strictDecode(ev.NormalizedResult, &r); err != nil {
			return nil, wrong("its result is not an inspect_artifact result: " + err.Error())
		}
		s.RootArtifactID, s.RootFormat, s.ManifestID, s.GraphSHA256 = r.Subject.RootArtifactID, r.Subject.RootFormat, r.Subject.ManifestID, r.Subject.GraphSHA256
		views, declared, s.Contradictions = r.Observations, r.Subject.OccurrenceCount, len(r.Contradictions)
	default:
		return nil, wrong("it was produced by " + ev.Operation)
	}
	s.Complete = len(views) == declared
	for _, v := range views {
		if v.EntryKind == "file" && v.SHA256 == nil {
			s.Complete = false
		}
		s.views[v.LogicalPath] = v
	}
	s.Entries = len(views)
	return s, nil
}

// entryAspects lists what differs between two readable entries of the same
// kind that are not directories.
func entryAspects(l, r Entry) []string {
	aspects := []string{}
	if *l.SHA256 != *r.SHA256 {
		aspects = append(aspects, "content")
	}
	if *l.Size != *r.Size || l.Executable != r.Executable || *l.Kind != *r.Kind || *l.Format != *r.Format {
		aspects = append(aspects, "metadata")
	}
	if !slices.Equal(l.Relations, r.Relations) {
		aspects = append(aspects, "relations")
	}
	return aspects
}

func strictDecode(raw json.RawMessage, v any) error {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	return dec.Decode(v)
}

// CompareArtifactsResultDifference is one logical path that differs, with both sides' entries.
type CompareArtifactsResultDifference struct {
	LogicalPath    string   `json:"logical_path"`
	Classification string   `json:"classification"`
	Aspects        []string `json:"aspects"`
	Left           *Entry   `json:"left"`
	Right          *Entry   `json:"right"`
}

// CompareArtifactsResultCounts counts the paths by classification.
type CompareArtifactsResultCounts struct {
	Unchanged     int `json:"unchanged"`
	Changed       int `json:"changed"`
	Added         int `json:"added"`
	Removed       int `json:"removed"`
	Contradiction int `json:"contradiction"`
	Unknown       int `json:"unknown"`
}

// CompareArtifactsResult is compare_artifacts' result.
type CompareArtifactsResult struct {
	Status               string                             `json:"status"`
	Complete             bool                               `json:"complete"`
	Left                 CompareArtifactsResultLeft         `json:"left"`
	Right                CompareArtifactsResultLeft         `json:"right"`
	Counts               CompareArtifactsResultCounts       `json:"counts"`
	Differences          []CompareArtifactsResultDifference `json:"differences"`
	DifferencesTotal     int                                `json:"differences_total"`
	DifferencesTruncated bool                               `json:"differences_truncated"`
	Limitations          []string                           `json:"limitations"`
}

// compareArtifacts classifies every logical path of either side.
// A directory on both sides is changed (aspect content) when anything
// beneath it differs, and unchanged otherwise: its content ID changes with
// anything beneath it, and counting it unchanged then would read as if
// nothing under it had.
// A contradiction on either side is never "unchanged"; an unreadable entry
// is "unknown"; an incomplete side makes the status "incomplete", never
// "equal".
func compareArtifacts(ctx context.Context, left, right *compareSide, maxDiffs int) (*CompareArtifactsResult, error) {
	paths := make([]string, 0, len(left.views)+len(right.views))
	for p := range left.views {
		paths = append(paths, p)
	}
	for p := range right.views {
		if _, ok := left.views[p]; !ok {
			paths = append(paths, p)
		}
	}
	slices.Sort(paths)
	// What lies beneath each directory: every ancestor of a path that
	// differs by itself (a directory does only in presence or kind) holds a
	// change, and every ancestor of an entry whose bytes could not be
	// compared holds an unknown.
	changedBelow, unknownBelow := map[string]bool{}, map[string]bool{}
	for _, p := range paths {
		l, lok := left.views[p]
		r, rok := right.views[p]
		below := changedBelow
		switch {
		case lok && rok && l.HashStatus != hashMismatched && r.HashStatus != hashMismatched && l.EntryKind == r.EntryKind:
			if l.EntryKind == "directory" {
				continue
			}
			if l.SHA256 == nil || r.SHA256 == nil {
				below = unknownBelow
			} else if len(entryAspects(l, r)) == 0 {
				continue
			}
		}
		for a := path.Dir(p); p != "." && !below[a]; a = path.Dir(a) {
			below[a] = true
			if a == "." {
				break
			}
		}
	}
	res := &CompareArtifactsResult{Left: left.CompareArtifactsResultLeft, Right: right.CompareArtifactsResultLeft, Differences: []CompareArtifactsResultDifference{}, Limitations: []string{}}
	for i, p := range paths {
		if i%1000 == 0 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		l, lok := left.views[p]
		r, rok := right.views[p]
		d := CompareArtifactsResultDifference{LogicalPath: p, Aspects: []string{}}
		if lok {
			d.Left = &l
		}
		if rok {
			d.Right = &r
		}
		switch {
		case lok && l.HashStatus == hashMismatched || rok && r.HashStatus == hashMismatched:
			d.Classification, d.Aspects = "contradiction", []string{"integrity"}
			switch {
			case !lok || !rok:
				d.Aspects = append(d.Aspects, "presence")
			case l.EntryKind != r.EntryKind:
				d.Aspects = append(d.Aspects, "entry_kind")
			case l.SHA256 != nil && r.SHA256 != nil:
				// Whether the observed bytes (and what follows from
				// them) differ between the sides: untrusted, still told.
				d.Aspects = append(d.Aspects, entryAspects(l, r)...)
			}
			res.Counts.Contradiction++
		case !rok:
			d.Classification, d.Aspects = "removed", []string{"presence"}
			res.Counts.Removed++
		case !lok:
			d.Classification, d.Aspects = "added", []string{"presence"}
			res.Counts.Added++
		case l.EntryKind != r.EntryKind:
			d.Classification, d.Aspects = "changed", []string{"entry_kind"}
			res.Counts.Changed++
		case l.EntryKind == "directory" && changedBelow[p]:
			d.Classification, d.Aspects = "changed", []string{"content"}
			res.Counts.Changed++
		case l.EntryKind == "directory" && unknownBelow[p]:
			d.Classification, d.Aspects = "unknown", []string{"content"}
			res.Counts.Unknown++
		case l.EntryKind == "directory":
			res.Counts.Unchanged++
			continue
		case l.SHA256 == nil || r.SHA256 == nil:
			d.Classification, d.Aspects = "unknown", []string{"content"}
			res.Counts.Unknown++
		default:
			d.Aspects = entryAspects(l, r)
			if len(d.Aspects) == 0 {
				res.Counts.Unchanged++
				continue
			}
			d.Classification = "changed"
			res.Counts.Changed++
		}
		res.DifferencesTotal++
		if len(res.Differences) < maxDiffs {
			res.Differences = append(res.Differences, d)
		}
	}
	res.DifferencesTruncated = res.DifferencesTotal > len(res.Differences)
	res.Complete = left.Complete && right.Complete
	switch {
	case !res.Complete:
		res.Status = "incomplete"
		res.Limitations = append(res.Limitations, "At least one side is incomplete (entries whose bytes could not be read, or fewer entries than its manifest declares); absence of a difference there proves nothing.")
	case res.Counts.Contradiction > 0:
		res.Status = "contradiction"
	case res.DifferencesTotal > 0:
		res.Status = "different"
	default:
		res.Status = "equal"
	}
	if res.Counts.Contradiction > 0 {
		res.Limitations = append(res.Limitations, fmt.Sprintf("%d entr(ies) carry integrity contradictions; their content is observed-untrusted and is never reported as unchanged.", res.Counts.Contradiction))
	}
	if res.DifferencesTruncated {
		res.Limitations = append(res.Limitations, fmt.Sprintf("Only the first %d of %d differences are listed; raise max_differences to see more.", len(res.Differences), res.DifferencesTotal))
	}
	return res, nil
}
