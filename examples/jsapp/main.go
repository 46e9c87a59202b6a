// Command jsapp shows how a Go program runs rea's JavaScript application
// analysis: it maps an application directory or .asar archive without
// executing it and prints what the graph found, through the typed function
// jsapp.AnalyzeApplication (no tool names, no JSON).
//
//	go run ./examples/jsapp path/to/app
package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"sort"

	"rea/adapters/asar"
	"rea/adapters/js"
	"rea/adapters/zip"
	"rea/core"
	"rea/core/jsapp"
	"rea/core/standard"
	"rea/ports"
)

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: jsapp <application directory or .asar>")
		os.Exit(2)
	}
	if err := analyze(context.Background(), os.Stdout, os.Args[1]); err != nil {
		fmt.Fprintln(os.Stderr, string(core.AsError("jsapp", err).JSON()))
		os.Exit(1)
	}
}

func analyze(ctx context.Context, w io.Writer, path string) error {
	cat, err := standard.Catalog()
	if err != nil {
		return err
	}
	// No binary provider: the application analysis needs no open target,
	// only the container readers and the JavaScript engine.
	reg, err := core.NewRegistry(nil, &core.RegistryOptions{
		Containers: []ports.ContainerOpener{asar.Opener{}, zip.Opener{}},
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
	_, err = fmt.Fprintf(w, "%d limitations, %d unknowns\nevidence %s\n", len(app.Limitations), len(app.Unknowns), ev.EvidenceID)
	return err
}
