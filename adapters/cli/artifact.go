package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"sort"
	"text/tabwriter"

	"rea/core"
)

// artifactFlags are the inputs rea inventory and rea extract-artifact share
// with the MCP tools.
type artifactFlags struct {
	Path            string `arg:"" help:"Directory, ASAR, ZIP (APK, IPA, JAR, MSIX, APPX) or any file." type:"path"`
	IntegrityPolicy string `name:"integrity-policy" enum:"fail,record-and-continue" default:"fail" help:"fail: a file contradicting its declared hash fails the command; record-and-continue: record the contradiction and continue with the verified files."`
	MaxEntries      int    `name:"max-entries" default:"100000" help:"Most entries the inventory may hold (a mid-size Electron app has tens of thousands)."`
	MaxEntryBytes   int64  `name:"max-entry-bytes" help:"Most bytes of one entry inside the input (default 256 MiB; the input file itself is not an entry)."`
	MaxTotalBytes   int64  `name:"max-total-bytes" help:"Most bytes read in total (default: 1 GiB, or three times the input file's size when that is larger, up to 16 GiB)."`
}

// cliMaxTotalBytes is the schema's maximum for max_total_bytes.
const cliMaxTotalBytes = 16 << 30

func (f *artifactFlags) args() map[string]any {
	a := map[string]any{"path": f.Path, "integrity_policy": f.IntegrityPolicy}
	if f.MaxEntries > 0 {
		a["max_entries"] = f.MaxEntries
	}
	if f.MaxEntryBytes > 0 {
		a["max_entry_bytes"] = f.MaxEntryBytes
	}
	total := f.MaxTotalBytes
	if total <= 0 {
		// The archive is read once to hash it and its entries once more:
		// a budget that scales with the input, checked before any work.
		if st, err := os.Stat(f.Path); err == nil && st.Mode().IsRegular() && 3*st.Size() > 1<<30 {
			total = min(3*st.Size(), cliMaxTotalBytes)
		}
	}
	if total > 0 {
		a["max_total_bytes"] = total
	}
	return a
}

type inventoryCmd struct {
	artifactFlags
}

func (c *inventoryCmd) Run(e *env) error {
	s := e.session()
	defer s.Close(context.WithoutCancel(e.ctx))
	res, err := e.call(s, "inventory_artifact", c.args())
	if err != nil {
		return err
	}
	if e.g.Format == "json" {
		return e.writeJSON(res.Evidence)
	}
	return writeInventory(e.opts.Stdout, c.Path, res.Evidence)
}

type extractArtifactCmd struct {
	artifactFlags
	Occurrence []string `name:"occurrence" placeholder:"OCC_ID" help:"Extract only this occurrence (repeatable; ids from rea inventory --format json). Default: every regular file."`
}

func (c *extractArtifactCmd) Run(e *env) error {
	s := e.session()
	defer s.Close(context.WithoutCancel(e.ctx))
	args := c.args()
	if len(c.Occurrence) > 0 {
		args["occurrence_ids"] = c.Occurrence
	}
	res, err := e.call(s, "extract_artifact", args)
	if err != nil {
		return err
	}
	if e.g.Format == "json" {
		return e.writeJSON(res.Evidence)
	}
	var r struct {
		Manifest struct {
			RootFormat string `json:"root_format"`
			ManifestID string `json:"manifest_id"`
		} `json:"manifest"`
		ExtractionManifest struct {
			ExtractionID string `json:"extraction_id"`
		} `json:"extraction_manifest"`
		OutputRoot string `json:"output_root"`
		Artifacts  []struct {
			BytesWritten int64 `json:"bytes_written"`
		} `json:"artifacts"`
		ContainmentVerified     bool              `json:"containment_verified"`
		IntegrityContradictions []json.RawMessage `json:"integrity_contradictions"`
	}
	if err := json.Unmarshal(res.Evidence.NormalizedResult, &r); err != nil {
		return err
	}
	var bytes int64
	for _, a := range r.Artifacts {
		bytes += a.BytesWritten
	}
	tw := tabwriter.NewWriter(e.opts.Stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintf(tw, "%s\n", c.Path)
	fmt.Fprintf(tw, "  output_root\t%s\n", r.OutputRoot)
	fmt.Fprintf(tw, "  extracted\t%d files, %d bytes from %s\n", len(r.Artifacts), bytes, r.Manifest.RootFormat)
	fmt.Fprintf(tw, "  containment\tverified=%v\n", r.ContainmentVerified)
	fmt.Fprintf(tw, "  contradictions\t%d\n", len(r.IntegrityContradictions))
	fmt.Fprintf(tw, "  extraction\t%s\n", r.ExtractionManifest.ExtractionID)
	fmt.Fprintf(tw, "  manifest\t%s\n", r.Manifest.ManifestID)
	fmt.Fprintf(tw, "  evidence\t%s\n", res.Evidence.EvidenceID)
	for _, l := range res.Evidence.Limitations {
		fmt.Fprintf(tw, "  limitation\t%s\n", l)
	}
	return tw.Flush()
}

// inventorySummary is what the text of rea inventory shows of the result.
type inventorySummary struct {
	Manifest struct {
		RootFormat      string `json:"root_format"`
		RootSHA256      string `json:"root_sha256"`
		ManifestID      string `json:"manifest_id"`
		GraphSHA256     string `json:"graph_sha256"`
		NodeCount       int    `json:"node_count"`
		OccurrenceCount int    `json:"occurrence_count"`
		EdgeCount       int    `json:"edge_count"`
	} `json:"manifest"`
	Nodes                   []inventoryNode       `json:"nodes"`
	Occurrences             []inventoryOccurrence `json:"occurrences"`
	IntegrityContradictions []struct {
		LogicalPath    string `json:"logical_path"`
		DeclaredSHA256 string `json:"declared_sha256"`
		ObservedSHA256 string `json:"observed_sha256"`
		Unpacked       bool   `json:"unpacked"`
	} `json:"integrity_contradictions"`
}

type inventoryNode struct {
	ArtifactID string `json:"artifact_id"`
	Kind       string `json:"kind"`
	Size       int64  `json:"size"`
}

type inventoryOccurrence struct {
	ArtifactID  *string `json:"artifact_id"`
	LogicalPath string  `json:"logical_path"`
	EntryKind   string  `json:"entry_kind"`
	HashStatus  string  `json:"hash_status"`
}

// decodeInventory fills r from an inventory result, reading the nodes and
// occurrences field by field and skipping the edges (jsonscan.go); it gives
// what json.Unmarshal gives.
func decodeInventory(raw []byte, r *inventorySummary) error {
	str := func(dst *string, v []byte) (err error) { *dst, err = scanString(v); return err }
	return scanList(raw, '{', func(k, v []byte) error {
		switch {
		case isKey(k, "nodes"):
			if string(v) == "null" {
				return nil
			}
			r.Nodes = []inventoryNode{}
			return scanList(v, '[', func(_, v []byte) error {
				r.Nodes = append(r.Nodes, inventoryNode{})
				n := &r.Nodes[len(r.Nodes)-1]
				return scanList(v, '{', func(k, v []byte) (err error) {
					switch {
					case isKey(k, "artifact_id"):
						return str(&n.ArtifactID, v)
					case isKey(k, "kind"):
						return str(&n.Kind, v)
					case isKey(k, "size"):
						n.Size, err = scanInt(v)
					}
					return err
				})
			})
		case isKey(k, "occurrences"):
			if string(v) == "null" {
				return nil
			}
			r.Occurrences = []inventoryOccurrence{}
			return scanList(v, '[', func(_, v []byte) error {
				r.Occurrences = append(r.Occurrences, inventoryOccurrence{})
				o := &r.Occurrences[len(r.Occurrences)-1]
				return scanList(v, '{', func(k, v []byte) error {
					switch {
					case isKey(k, "artifact_id"):
						if string(v) == "null" {
							return nil
						}
						var id string
						err := str(&id, v)
						o.ArtifactID = &id
						return err
					case isKey(k, "logical_path"):
						return str(&o.LogicalPath, v)
					case isKey(k, "entry_kind"):
						return str(&o.EntryKind, v)
					case isKey(k, "hash_status"):
						return str(&o.HashStatus, v)
					}
					return nil
				})
			})
		case isKey(k, "manifest"):
			return json.Unmarshal(v, &r.Manifest)
		case isKey(k, "integrity_contradictions"):
			return json.Unmarshal(v, &r.IntegrityContradictions)
		}
		return nil
	})
}

func writeInventory(w io.Writer, p string, ev *core.Evidence) error {
	var r inventorySummary
	if err := decodeInventory(ev.NormalizedResult, &r); err != nil {
		return err
	}
	kindOf := make(map[string]string, len(r.Nodes))
	sizeOf := make(map[string]int64, len(r.Nodes))
	for _, n := range r.Nodes {
		kindOf[n.ArtifactID], sizeOf[n.ArtifactID] = n.Kind, n.Size
	}
	kinds := map[string]int{}
	files, verified := 0, 0
	var bytes int64
	entries := len(r.Occurrences)
	for _, o := range r.Occurrences {
		// A root container is counted by what it holds, not as a file of its own.
		if o.LogicalPath == "." && len(r.Occurrences) > 1 {
			entries--
			continue
		}
		if o.EntryKind != "file" {
			continue
		}
		files++
		if o.HashStatus == "verified" {
			verified++
		}
		if o.ArtifactID != nil {
			kinds[kindOf[*o.ArtifactID]]++
			bytes += sizeOf[*o.ArtifactID]
		}
	}
	m := r.Manifest
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintf(tw, "%s\n", p)
	fmt.Fprintf(tw, "  root\t%s, %d entries (%d files, %d bytes)\n", m.RootFormat, entries, files, bytes)
	fmt.Fprintf(tw, "  sha256\t%s\n", m.RootSHA256)
	fmt.Fprintf(tw, "  graph\t%d nodes, %d edges, sha256 %s\n", m.NodeCount, m.EdgeCount, m.GraphSHA256)
	fmt.Fprintf(tw, "  manifest\t%s\n", m.ManifestID)
	fmt.Fprintf(tw, "  integrity\t%d of %d files verified, %d contradiction(s)\n", verified, files, len(r.IntegrityContradictions))
	fmt.Fprintf(tw, "  evidence\t%s\n", ev.EvidenceID)
	for _, l := range ev.Limitations {
		fmt.Fprintf(tw, "  limitation\t%s\n", l)
	}
	tw.Flush()
	if len(kinds) > 0 {
		fmt.Fprintf(w, "\nFiles by kind\n")
		names := make([]string, 0, len(kinds))
		for k := range kinds {
			names = append(names, k)
		}
		sort.Strings(names)
		tw = tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
		for _, k := range names {
			fmt.Fprintf(tw, "  %s\t%d\n", k, kinds[k])
		}
		tw.Flush()
	}
	if len(r.IntegrityContradictions) > 0 {
		fmt.Fprintf(w, "\nIntegrity contradictions (observed-untrusted)\n")
		tw = tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
		for _, c := range r.IntegrityContradictions {
			u := ""
			if c.Unpacked {
				u = "unpacked"
			}
			fmt.Fprintf(tw, "  %s\tdeclared %s\tobserved %s\t%s\n", c.LogicalPath, c.DeclaredSHA256[:12], c.ObservedSHA256[:12], u)
		}
		tw.Flush()
	}
	return nil
}
