// Command overview shows how another Go program embeds rea: it builds the
// catalog and a registry with the built-in native provider, opens a binary
// and prints its overview, a page of procedures and strings, the code behind
// the first string, its layout and the dossier of its entry procedure,
// through the typed functions (no tool names, no JSON).
//
//	go run ./examples/overview /usr/bin/ls
package main

import (
	"context"
	"fmt"
	"io"
	"os"

	"rea/adapters/native"
	"rea/core"
	"rea/core/binary"
	"rea/core/standard"
	"rea/ports"
)

func main() {
	path := "/usr/bin/ls"
	if len(os.Args) > 1 {
		path = os.Args[1]
	}
	if err := overview(context.Background(), os.Stdout, path); err != nil {
		fmt.Fprintln(os.Stderr, string(core.AsError("overview", err).JSON()))
		os.Exit(1)
	}
}

func overview(ctx context.Context, w io.Writer, path string) error {
	cat, err := standard.Catalog()
	if err != nil {
		return err
	}
	reg, err := core.NewRegistry([]ports.Provider{native.New(nil)}, nil)
	if err != nil {
		return err
	}
	s := core.NewSession(cat, reg, &core.SessionOptions{Server: core.ServerIdentity{PackageName: "overview-example", Version: "0"}})
	defer s.Close(context.WithoutCancel(ctx))

	opened, err := core.OpenBinary(ctx, s, core.OpenBinaryInput{Path: path})
	if err != nil {
		return err
	}
	ov, ev, err := binary.BinaryOverview(ctx, s, binary.OverviewInput{Detail: "detailed", Limit: 5})
	if err != nil {
		return err
	}
	if _, err := fmt.Fprintf(w, "%s: %s (sha256 %s), %d procedures, %d segments, %d strings\nevidence %s\n",
		path, ov.Format, opened.SHA256[:12], ov.ProcedureCount, ov.SegmentCount, ov.StringCount, ev.EvidenceID); err != nil {
		return err
	}
	if err := lists(ctx, w, s, path); err != nil {
		return err
	}
	if ov.Entry == nil {
		return nil
	}
	d, ev, err := binary.AnalyzeFunction(ctx, s, binary.AnalyzeFunctionInput{Procedure: *ov.Entry, Limit: 10})
	if err != nil {
		return err
	}
	g, _, err := binary.GetCallGraph(ctx, s, binary.CallGraphInput{Address: d.Procedure.Address, Depth: 1})
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(w, "entry %s %s: %d instructions scanned, %d callees, %d call-graph nodes\nevidence %s\n",
		d.Procedure.Address, d.Procedure.Name, d.InstructionScan.Scanned, d.Callees.Returned, len(g.Nodes), ev.EvidenceID)
	return err
}

// lists pages through procedures and strings, follows the first string to
// the code that uses it, and reads the file's layout.
func lists(ctx context.Context, w io.Writer, s *core.Session, path string) error {
	limit := 3
	procs, _, err := binary.ListProcedures(ctx, s, binary.ListProceduresInput{Limit: &limit})
	if err != nil {
		return err
	}
	strs, _, err := binary.ListStrings(ctx, s, binary.ListStringsInput{Limit: &limit})
	if err != nil {
		return err
	}
	if _, err := fmt.Fprintf(w, "%d procedures, first %s; %d strings\n", procs.Total, procs.Items[0].Value, strs.Total); err != nil {
		return err
	}
	if len(strs.Items) > 0 {
		found, _, err := binary.FindCodeForString(ctx, s, binary.FindCodeForStringInput{Query: strs.Items[0].Value})
		if err != nil {
			return err
		}
		if _, err := fmt.Fprintf(w, "%q: %d matching strings, used by %d procedures\n", strs.Items[0].Value, found.MatchedStrings, len(found.Procedures)); err != nil {
			return err
		}
	}
	layout, _, err := binary.InspectBinaryLayout(ctx, s, binary.InspectBinaryLayoutInput{Path: path})
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(w, "layout: %s %s, %d sections, %d segments, %d symbols\n", layout.Format, layout.ImageType,
		len(layout.Sections), len(layout.Segments), len(layout.Symbols))
	return err
}
