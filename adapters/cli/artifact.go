package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
	"text/tabwriter"

	"rea/core"
)

// artifactFlags are the inputs rea inventory and rea extract-artifact share
// with the MCP tools.
type artifactFlags struct {
	Path            string `arg:"" help:"Directory, ASAR, ZIP (APK, IPA, JAR, MSIX, APPX), tar (.tar, .tgz, .tar.zst), ar (.a) or any file." type:"path"`
	IntegrityPolicy string `name:"integrity-policy" enum:"fail,record-and-continue" default:"fail" help:"fail: a file contradicting its declared hash fails the command; record-and-continue: record the contradiction and continue with the verified files."`
	MaxEntries      int    `name:"max-entries" help:"Most entries the inventory may hold (default 100000, as over MCP: a mid-size Electron app has tens of thousands)."`
	MaxEntryBytes   int64  `name:"max-entry-bytes" help:"Most bytes of one entry inside the input (default 256 MiB; the input file itself is not an entry)."`
	MaxTotalBytes   int64  `name:"max-total-bytes" help:"Most bytes read in total (default: 1 GiB, or three times the input file's size when that is larger, up to 16 GiB)."`
	MaxRatio        int64  `name:"max-compression-ratio" help:"Most uncompressed bytes per stored byte of a compressed entry, or of a whole .tgz/.tar.zst (default 1000; more is taken for a bomb)."`
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
	if f.MaxRatio > 0 {
		a["max_compression_ratio"] = f.MaxRatio
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
	// The whole graph: the CLI writes it to stdout, which no response
	// budget bounds (MCP answers concisely by default).
	args := c.args()
	args["detail"] = "complete"
	res, err := e.call(s, "inventory_artifact", args)
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
	fmt.Fprintf(tw, "  extracted\t%s, %s from %s\n", plural(len(r.Artifacts), "file"), plural(int(bytes), "byte"), r.Manifest.RootFormat)
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

// inventorySummary is what the text of rea inventory shows of the result:
// the manifest, the contradictions, and counts over the occurrences.
type inventorySummary struct {
	// LeftOut are the occurrence limitations naming entries a container
	// left out for unsafe or ambiguous names, each after its container's
	// logical path: those entries are in no occurrence.
	LeftOut  [][2]string
	Manifest struct {
		RootFormat      string `json:"root_format"`
		RootSHA256      string `json:"root_sha256"`
		ManifestID      string `json:"manifest_id"`
		GraphSHA256     string `json:"graph_sha256"`
		NodeCount       int    `json:"node_count"`
		OccurrenceCount int    `json:"occurrence_count"`
		EdgeCount       int    `json:"edge_count"`
	} `json:"manifest"`
	IntegrityContradictions []struct {
		LogicalPath    string `json:"logical_path"`
		DeclaredSHA256 string `json:"declared_sha256"`
		ObservedSHA256 string `json:"observed_sha256"`
		Unpacked       bool   `json:"unpacked"`
	} `json:"integrity_contradictions"`
	Counts inventoryCounts `json:"-"`
}

// inventoryCounts counts the occurrences: entries (a root container counted
// by what it holds, not as a file of its own), files, files verified, and
// the files' bytes and kinds (from their nodes).
type inventoryCounts struct {
	Entries, Files, Verified int
	Bytes                    int64
	Kinds                    map[string]int
}

// decodeInventory fills r from an inventory result, reading the nodes and
// occurrences field by field without keeping them and skipping the edges
// (jsonscan.go).
func decodeInventory(raw []byte, r *inventorySummary) error {
	type node struct {
		kind string
		size int64
	}
	kinds := map[string]string{} // interned
	intern := func(v []byte) (string, error) {
		s, err := scanString(v)
		if k, ok := kinds[s]; ok {
			return k, err
		}
		kinds[s] = s
		return s, err
	}
	var byID map[string]node
	walkNodes := func(rest []byte) (int, error) {
		if byID == nil {
			// The manifest (before the nodes in a canonical result) says
			// how many there are; a node takes more than 64 bytes of text.
			byID = make(map[string]node, max(0, min(r.Manifest.NodeCount, len(rest)/64)))
		}
		return scanNullOr(rest, '[', func(_, rest []byte) (int, error) {
			var id string
			var n node
			end, err := scanMembers(rest, '{', func(k, rest []byte) (int, error) {
				return scanField(rest, func(v []byte) (err error) {
					switch {
					case isKey(k, "artifact_id"):
						id, err = scanString(v)
					case isKey(k, "kind"):
						n.kind, err = intern(v)
					case isKey(k, "size"):
						n.size, err = scanInt(v)
					}
					return err
				})
			})
			byID[id] = n
			return end, err
		})
	}
	// Occurrences at "." count only when they are all there is (a single
	// file); a root container is counted by what it holds.
	var all, dot inventoryCounts
	all.Kinds, dot.Kinds = map[string]int{}, map[string]int{}
	total := 0
	walkOccs := func(rest []byte) (int, error) {
		return scanNullOr(rest, '[', func(_, rest []byte) (int, error) {
			var id, lp, lims []byte
			var root, file, verified bool
			end, err := scanMembers(rest, '{', func(k, rest []byte) (int, error) {
				return scanField(rest, func(v []byte) (err error) {
					switch {
					case isKey(k, "artifact_id"):
						if string(v) != "null" {
							id = v
						}
					case isKey(k, "limitations"):
						if bytes.Contains(v, leftOutMark) {
							lims = v
						}
					case isKey(k, "logical_path"):
						lp = v
						root, err = stringIs(v, ".")
					case isKey(k, "entry_kind"):
						file, err = stringIs(v, "file")
					case isKey(k, "hash_status"):
						verified, err = stringIs(v, "verified")
					}
					return err
				})
			})
			if err != nil {
				return 0, err
			}
			if lims != nil {
				var path string
				var ls []string
				if err := json.Unmarshal(lp, &path); err != nil {
					return 0, err
				}
				if err := json.Unmarshal(lims, &ls); err != nil {
					return 0, err
				}
				for _, l := range ls {
					if strings.Contains(l, string(leftOutMark)) {
						r.LeftOut = append(r.LeftOut, [2]string{path, l})
					}
				}
			}
			total++
			c := &all
			if root {
				c = &dot
			}
			c.Entries++
			if !file {
				return end, nil
			}
			c.Files++
			if verified {
				c.Verified++
			}
			if id != nil {
				var n node
				if plain(id) {
					n = byID[string(id[1:len(id)-1])] // no copy of the ID
				} else {
					s, err := scanString(id)
					if err != nil {
						return 0, err
					}
					n = byID[s]
				}
				c.Kinds[n.kind]++
				c.Bytes += n.size
			}
			return end, nil
		})
	}
	// The nodes come before the occurrences in a canonical result, and each
	// list is read once; otherwise the occurrences are read after the nodes.
	var nodesSeen bool
	var later []byte
	_, err := scanMembers(raw, '{', func(k, rest []byte) (int, error) {
		switch {
		case isKey(k, "nodes"):
			nodesSeen = true
			return walkNodes(rest)
		case isKey(k, "occurrences") && nodesSeen:
			return walkOccs(rest)
		}
		return scanField(rest, func(v []byte) error {
			switch {
			case isKey(k, "occurrences"):
				later = v
			case isKey(k, "manifest"):
				return json.Unmarshal(v, &r.Manifest)
			case isKey(k, "integrity_contradictions"):
				return json.Unmarshal(v, &r.IntegrityContradictions)
			}
			return nil
		})
	})
	if err != nil {
		return err
	}
	if later != nil {
		if _, err := walkOccs(later); err != nil {
			return err
		}
	}
	if total <= 1 {
		all.Entries += dot.Entries
		all.Files += dot.Files
		all.Verified += dot.Verified
		all.Bytes += dot.Bytes
		for k, n := range dot.Kinds {
			all.Kinds[k] += n
		}
	}
	r.Counts = all
	return nil
}

// leftOutMark is in the occurrence limitation core/artifact writes for
// each entry a container left out, and in no other.
var leftOutMark = []byte(") was left out")

func writeInventory(w io.Writer, p string, ev *core.Evidence) error {
	var r inventorySummary
	if err := decodeInventory(ev.NormalizedResult, &r); err != nil {
		return err
	}
	c := r.Counts
	kinds, entries, files, verified, bytes := c.Kinds, c.Entries, c.Files, c.Verified, c.Bytes
	m := r.Manifest
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintf(tw, "%s\n", p)
	fmt.Fprintf(tw, "  root\t%s, %s (%s, %s)\n", m.RootFormat, counted(entries, "entry", "entries"), plural(files, "file"), plural(int(bytes), "byte"))
	fmt.Fprintf(tw, "  sha256\t%s\n", m.RootSHA256)
	fmt.Fprintf(tw, "  graph\t%s, %s, sha256 %s\n", plural(m.NodeCount, "node"), plural(m.EdgeCount, "edge"), m.GraphSHA256)
	fmt.Fprintf(tw, "  manifest\t%s\n", m.ManifestID)
	fmt.Fprintf(tw, "  integrity\t%d of %s verified, %s\n", verified, plural(files, "file"), plural(len(r.IntegrityContradictions), "contradiction"))
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
	if len(r.LeftOut) > 0 {
		fmt.Fprintf(w, "\nLeft out (unsafe or ambiguous names)\n")
		tw = tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
		for _, l := range r.LeftOut {
			fmt.Fprintf(tw, "  %s\t%s\n", l[0], l[1])
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
