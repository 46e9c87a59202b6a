// Command overview shows how another Go program embeds rea: it builds the
// catalog and a registry with the built-in native provider, opens a binary
// and prints its overview Evidence.
//
//	go run ./examples/overview /usr/bin/ls
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"

	"rea/adapters/native"
	"rea/core"
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

	args, _ := json.Marshal(map[string]string{"path": path})
	if _, err := s.Call(ctx, "open_binary", args, nil); err != nil {
		return err
	}
	res, err := s.Call(ctx, "binary_overview", json.RawMessage(`{}`), nil)
	if err != nil {
		return err
	}
	var ov struct {
		Format         string `json:"format"`
		ProcedureCount int    `json:"procedure_count"`
		SegmentCount   int    `json:"segment_count"`
		StringCount    int    `json:"string_count"`
	}
	if err := json.Unmarshal(res.Evidence.NormalizedResult, &ov); err != nil {
		return err
	}
	_, err = fmt.Fprintf(w, "%s: %s, %d procedures, %d segments, %d strings\nevidence %s\n",
		path, ov.Format, ov.ProcedureCount, ov.SegmentCount, ov.StringCount, res.Evidence.EvidenceID)
	return err
}
