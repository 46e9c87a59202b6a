// Command jsapp shows how a Go program runs rea's JavaScript application
// analysis: it maps an application directory or .asar archive without
// executing it and prints what the graph found, its artifact inventory, a
// trace from its first script and, given a newer version, what changed,
// through the typed functions (no tool names, no JSON).
//
//	go run ./examples/jsapp path/to/app [path/to/newer/app]
package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"

	"rea/adapters/asar"
	"rea/adapters/js"
	"rea/adapters/tar"
	"rea/adapters/zip"
	"rea/core"
	"rea/core/artifact"
	"rea/core/jsapp"
	"rea/core/standard"
	"rea/ports"
)

func main() {
	if len(os.Args) != 2 && len(os.Args) != 3 {
		fmt.Fprintln(os.Stderr, "usage: jsapp <application directory or .asar> [<newer version>]")
		os.Exit(2)
	}
	if err := analyze(context.Background(), os.Stdout, os.Args[1], os.Args[2:]...); err != nil {
		fmt.Fprintln(os.Stderr, string(core.AsError("jsapp", err).JSON()))
		os.Exit(1)
	}
}

func analyze(ctx context.Context, w io.Writer, path string, newer ...string) error {
	cat, err := standard.Catalog()
	if err != nil {
		return err
	}
	// No binary provider: the application analysis needs no open target,
	// only the container readers and the JavaScript engine.
	reg, err := core.NewRegistry(nil, &core.RegistryOptions{
		Containers: []ports.ContainerOpener{asar.Opener{}, zip.Opener{}, tar.Opener{}},
		JavaScript: js.New(),
	})
	if err != nil {
		return err
	}
	s := core.NewSession(cat, reg, &core.SessionOptions{Server: core.ServerIdentity{PackageName: "jsapp-example", Version: "0"}})
	defer s.Close(context.WithoutCancel(ctx))

	app, ev, err := jsapp.AnalyzeApplication(ctx, s, jsapp.AnalyzeApplicationInput{Path: path})
	if err != nil {
		return err
	}
	if _, err := fmt.Fprintf(w, "%s (%s), root artifact %s\n", app.InputPath, app.Format, app.RootArtifactSHA256[:12]); err != nil {
		return err
	}
	keys := make([]string, 0, len(app.Summary))
	for k := range app.Summary {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if _, err := fmt.Fprintf(w, "  %s: %d\n", k, app.Summary[k]); err != nil {
			return err
		}
	}
	if _, err := fmt.Fprintf(w, "%d limitations, %d unknowns\nevidence %s\n", len(app.Limitations), len(app.Unknowns), ev.EvidenceID); err != nil {
		return err
	}
	if err := traceFirstScript(ctx, w, s, path, ev); err != nil {
		return err
	}
	if len(newer) == 0 {
		return nil
	}
	_, next, err := jsapp.AnalyzeApplication(ctx, s, jsapp.AnalyzeApplicationInput{Path: newer[0]})
	if err != nil {
		return err
	}
	cmp, _, err := jsapp.CompareVersions(ctx, s, ev, next, jsapp.CompareApplicationVersionsInput{})
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(w, "compared with %s: %d added, %d removed, %d changed, %d unchanged\n", newer[0],
		cmp.Summary["added"], cmp.Summary["removed"], cmp.Summary["changed"], cmp.Summary["unchanged"])
	return err
}

// traceFirstScript lists the application's files through the artifact
// inventory and traces the graph from the first script it holds.
func traceFirstScript(ctx context.Context, w io.Writer, s *core.Session, path string, app *core.Evidence) error {
	inv, _, err := artifact.Inventory(ctx, s, artifact.InventoryArtifactInput{Path: path, Detail: "complete"})
	if err != nil {
		return err
	}
	if _, err := fmt.Fprintf(w, "inventory: %d contents at %d paths\n", inv.Manifest.NodeCount, inv.Manifest.OccurrenceCount); err != nil {
		return err
	}
	for _, o := range inv.Occurrences {
		if !strings.HasSuffix(o.LogicalPath, ".js") {
			continue
		}
		tr, _, err := jsapp.TraceFeature(ctx, s, app, jsapp.TraceApplicationFeatureInput{
			Seed: jsapp.TraceApplicationFeatureInputSeed{Kind: "module", Value: o.LogicalPath}})
		if err != nil {
			return err
		}
		_, err = fmt.Fprintf(w, "trace from %s: %d paths, %d nodes visited\n", o.LogicalPath, tr.Summary.Paths, tr.Summary.NodesVisited)
		return err
	}
	return nil
}
