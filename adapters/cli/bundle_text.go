package cli

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"rea/core"
)

// maxParamsText bounds a record's parameters in inspect-evidence-bundle's
// text, where they say which call a record is; --format json has them.
const maxParamsText = 80

// bundleText is what inspect-evidence-bundle's text reads of a canonical
// bundle: not the results, which --format json prints as the canonical
// bytes (and a newline).
type bundleText struct {
	Artifacts []struct {
		Architecture *string            `json:"architecture"`
		Digest       core.SubjectDigest `json:"digest"`
		Format       string             `json:"format"`
	} `json:"artifacts"`
	Captures     []json.RawMessage  `json:"captures"`
	Environments []json.RawMessage  `json:"environments"`
	Providers    []core.ProviderRef `json:"providers"`
	Scenarios    []json.RawMessage  `json:"scenarios"`
	Unknowns     []json.RawMessage  `json:"unknowns"`
	Records      []struct {
		EvidenceID    core.EvidenceID   `json:"evidence_id"`
		Operation     string            `json:"operation"`
		Provider      core.ProviderRef  `json:"provider"`
		Subject       *core.Subject     `json:"subject"`
		Parameters    json.RawMessage   `json:"parameters"`
		Limitations   []string          `json:"limitations"`
		EvidenceLinks []core.EvidenceID `json:"evidence_links"`
	} `json:"records"`
}

// writeBundleText prints a canonical bundle (canon, read from path) for a
// person: a summary line with its records and unknown revisions, the
// artifacts and providers it describes, the other sections' counts, a
// table of its records (ID, operation, provider, subject, parameters,
// limitations) and the links between records, each linked record named
// by its operation or as outside the bundle.
func writeBundleText(w io.Writer, path string, canon []byte) error {
	var b bundleText
	if err := json.Unmarshal(canon, &b); err != nil {
		return err
	}
	fmt.Fprintf(w, "%s: canonical bundle, %s, %s\n", path, plural(len(b.Records), "record"), plural(len(b.Unknowns), "unknown revision"))
	for _, a := range b.Artifacts {
		fmt.Fprintf(w, "  artifact %s %s sha256 %s\n", a.Format, deref(a.Architecture), a.Digest.SHA256)
	}
	for _, p := range b.Providers {
		fmt.Fprintf(w, "  provider %s\n", strings.TrimSpace(p.ID+" "+deref(p.Version)+" ("+p.Name+")"))
	}
	var more []string
	for _, s := range []struct {
		n         int
		one, many string
	}{{len(b.Captures), "capture", "captures"}, {len(b.Environments), "environment", "environments"}, {len(b.Scenarios), "scenario", "scenarios"}} {
		if s.n > 0 {
			more = append(more, counted(s.n, s.one, s.many))
		}
	}
	if len(more) > 0 {
		fmt.Fprintf(w, "  also %s\n", strings.Join(more, ", "))
	}
	op := map[core.EvidenceID]string{}
	links := 0
	for _, r := range b.Records {
		op[r.EvidenceID] = r.Operation
		links += len(r.EvidenceLinks)
	}
	if len(b.Records) > 0 {
		fmt.Fprintln(w, "records:")
		tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
		for _, r := range b.Records {
			subject := "-"
			if r.Subject != nil {
				subject = strings.TrimSpace(r.Subject.Name + " " + r.Subject.Digest.SHA256[:min(12, len(r.Subject.Digest.SHA256))])
			}
			last := ""
			if p := string(r.Parameters); p != "" && p != "null" && p != "{}" {
				last = truncate(p, maxParamsText)
			}
			if n := len(r.Limitations); n > 0 {
				last = strings.TrimPrefix(last+"; "+plural(n, "limitation"), "; ")
			}
			if last != "" { // no empty last cell: its padding would end the line
				last = "\t" + last
			}
			fmt.Fprintf(tw, "  %s\t%s\t%s\t%s%s\n", r.EvidenceID, r.Operation, r.Provider.ID, subject, last)
		}
		tw.Flush()
	}
	if links == 0 {
		fmt.Fprintln(w, "links: none")
	} else {
		fmt.Fprintf(w, "links: %d\n", links)
		for _, r := range b.Records {
			for _, l := range r.EvidenceLinks {
				to, ok := op[l]
				if !ok {
					to = "not in this bundle"
				}
				fmt.Fprintf(w, "  %s (%s) -> %s (%s)\n", r.EvidenceID, r.Operation, l, to)
			}
		}
	}
	fmt.Fprintln(w, "--format json prints the canonical bundle's bytes and a newline; --detail summary the records' identities.")
	return nil
}

// bundlePath is the path argument of inspect-evidence-bundle's arguments.
func bundlePath(args json.RawMessage) string {
	var m struct {
		Path string `json:"path"`
	}
	json.Unmarshal(args, &m)
	return m.Path
}
