// Command prof runs compare_binaries in process on two binaries with
// rea-native, optionally writing a CPU profile, to find where whole-binary
// matching spends its time (bench/diff/run.sh measures the CLI).
//
//	go run ./bench/diff/prof -cpuprofile /tmp/cpu.out OLD NEW
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"runtime/pprof"
	"time"

	"rea/adapters/native"
	"rea/core"
	"rea/core/standard"
	"rea/ports"
)

func main() {
	cpu := flag.String("cpuprofile", "", "write a CPU profile here")
	flag.Parse()
	if flag.NArg() != 2 {
		fmt.Fprintln(os.Stderr, "usage: prof [-cpuprofile FILE] OLD NEW")
		os.Exit(2)
	}
	cat, err := standard.Catalog()
	if err != nil {
		panic(err)
	}
	reg, err := core.NewRegistry([]ports.Provider{native.New(nil)}, nil)
	if err != nil {
		panic(err)
	}
	s := core.NewSession(cat, reg, nil)
	defer s.Close(context.Background())
	if *cpu != "" {
		f, err := os.Create(*cpu)
		if err != nil {
			panic(err)
		}
		if err := pprof.StartCPUProfile(f); err != nil {
			panic(err)
		}
		defer pprof.StopCPUProfile()
	}
	args, _ := json.Marshal(map[string]any{"left_path": flag.Arg(0), "right_path": flag.Arg(1)})
	start := time.Now()
	res, err := s.Call(context.Background(), "compare_binaries", args, nil)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	var r struct{ Summary map[string]any }
	json.Unmarshal(res.Evidence.NormalizedResult, &r)
	fmt.Printf("%.1f s: %v\n", time.Since(start).Seconds(), r.Summary)
}
