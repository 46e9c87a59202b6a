// Command native measures the built-in provider's code analysis, the
// figures issue 3 asks for:
//
//   - whole-binary function discovery plus disassembly (rea-native's
//     Procedures, which decodes every function to find the ones only the
//     code reveals), in MB/s of code (the file bytes of the executable
//     sections), against objdump -d on the same file in the same run
//     (output discarded); on /usr/bin/ls and on the largest ELF under /usr;
//   - analyze_function latency (through core, as a front end calls it) on
//     the largest function of each file, cold (first call after
//     open_binary, whole-binary analysis included) and warm (median).
//
// Usage: go run ./bench/native [-runs 3] [-large /path/to/elf] [files...]
package main

import (
	"context"
	"debug/elf"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"rea/bench/internal/benchutil"
	"runtime"
	"time"

	"rea/adapters/native"
	"rea/core"
	"rea/core/standard"
	"rea/ports"
)

func main() {
	runs := flag.Int("runs", 3, "runs of each measurement (the median is reported)")
	large := flag.String("large", "", "large ELF to analyze (default: the largest ELF under /usr)")
	flag.Parse()
	files := flag.Args()
	if len(files) == 0 {
		l := *large
		if l == "" {
			l = benchutil.LargestELF("/usr")
		}
		files = []string{"/usr/bin/ls", l}
	}
	fmt.Printf("GOMAXPROCS=%d, %d runs, medians\n\n", runtime.GOMAXPROCS(0), *runs)
	fmt.Printf("%-60s %9s %12s %12s %12s %12s %7s %9s\n", "file", "code MB", "rea-native", "MB/s", "objdump -d", "MB/s", "ratio", "functions")
	for _, f := range files {
		if err := measure(f, *runs); err != nil {
			fmt.Fprintf(os.Stderr, "%s: %v\n", f, err)
			os.Exit(1)
		}
	}
	fmt.Println()
	fmt.Printf("%-60s %-40s %9s %10s %12s %12s\n", "file", "largest function", "insns", "bytes", "cold", "warm")
	for _, f := range files {
		if err := latency(f, *runs); err != nil {
			fmt.Fprintf(os.Stderr, "%s: %v\n", f, err)
			os.Exit(1)
		}
	}
}

func codeBytes(path string) (uint64, error) {
	f, err := elf.Open(path)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	var n uint64
	for _, s := range f.Sections {
		if s.Flags&elf.SHF_EXECINSTR != 0 && s.Type != elf.SHT_NOBITS {
			n += s.Size
		}
	}
	return n, nil
}

func measure(path string, runs int) error {
	code, err := codeBytes(path)
	if err != nil {
		return err
	}
	ctx := context.Background()
	var ours, theirs []time.Duration
	functions := 0
	for range runs {
		start := time.Now()
		a, err := native.OpenFile(ctx, path)
		if err != nil {
			return err
		}
		procs, err := a.Procedures(ctx)
		if err != nil {
			return err
		}
		ours = append(ours, time.Since(start))
		functions = len(procs)
		a.Close(ctx)
		runtime.GC()

		start = time.Now()
		cmd := exec.Command("objdump", "-d", path)
		cmd.Stdout = io.Discard
		if err := cmd.Run(); err != nil {
			return fmt.Errorf("objdump: %w", err)
		}
		theirs = append(theirs, time.Since(start))
	}
	mb := float64(code) / 1e6
	o, t := benchutil.Median(ours), benchutil.Median(theirs)
	fmt.Printf("%-60s %9.1f %12v %12.1f %12v %12.1f %6.1fx %9d\n", path, mb, o.Round(time.Millisecond), mb/o.Seconds(),
		t.Round(time.Millisecond), mb/t.Seconds(), t.Seconds()/o.Seconds(), functions)
	return nil
}

// latency opens the file in a core session, finds its largest function and
// times analyze_function on it.
func latency(path string, runs int) error {
	ctx := context.Background()
	cat, err := standard.Catalog()
	if err != nil {
		return err
	}
	reg, err := core.NewRegistry([]ports.Provider{native.New(nil)}, nil)
	if err != nil {
		return err
	}
	s := core.NewSession(cat, reg, nil)
	defer s.Close(ctx)
	args, _ := json.Marshal(map[string]any{"path": path})
	if _, err := s.Call(ctx, "open_binary", args, nil); err != nil {
		return err
	}
	// The largest function by extent, from a separate analysis (the
	// session's stays cold).
	a, err := native.OpenFile(ctx, path)
	if err != nil {
		return err
	}
	ranges, err := a.FunctionRanges(ctx)
	if err != nil {
		return err
	}
	var big ports.FunctionRange
	for _, r := range ranges {
		if r.End-r.Start > big.End-big.Start && r.EndSource != "next-start" && r.EndSource != "section-end" {
			big = r
		}
	}
	f, err := a.Function(ctx, ports.FunctionRequest{Address: big.Start, MaxInstructions: 1})
	if err != nil {
		return err
	}
	procs, _ := a.Procedures(ctx)
	name := fmt.Sprintf("sub_%x", big.Start)
	for _, p := range procs {
		if p.Address == big.Start && p.Name != "" {
			name = p.Name
		}
	}
	a.Close(ctx)
	if len(name) > 40 {
		name = name[:37] + "..."
	}
	call, _ := json.Marshal(map[string]any{"procedure": core.Hex(big.Start), "include_assembly": true})
	var cold time.Duration
	var warm []time.Duration
	for k := range runs*3 + 1 {
		start := time.Now()
		if _, err := s.Call(ctx, "analyze_function", call, nil); err != nil {
			return err
		}
		if k == 0 {
			cold = time.Since(start)
			continue
		}
		warm = append(warm, time.Since(start))
	}
	fmt.Printf("%-60s %-40s %9d %10d %12v %12v\n", path, name, f.InstructionCount, big.End-big.Start,
		cold.Round(time.Millisecond), benchutil.Median(warm).Round(10*time.Microsecond))
	return nil
}
