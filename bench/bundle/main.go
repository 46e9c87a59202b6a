// Command bundlebench measures Evidence bundle export and import for
// bench/bundle/run.sh. Each mode runs in its own process so its peak
// resident memory (VmHWM) is its own, and prints one line:
//
//	<mode> bytes=<n> records=<n> seconds=<s> rss_before_kib=<n> peak_rss_kib=<n> heap_alloc_bytes=<n>
//
// Modes:
//
//	export -records N -out PATH   build N records in memory (as a ledger holds them), then
//	                              time core.ExportBundleFile: streamed, staged, fsynced, renamed;
//	                              run.sh uses it to write the bundle it times the CLI on
//	validate -in PATH             core.ReadBundleFile with the default limits (the CLI's):
//	                              every ID re-derived, canonical check; with -cpuprofile, a
//	                              profile of the validation alone
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"runtime"
	"runtime/pprof"
	"strconv"
	"strings"
	"time"

	"rea/core"
)

func main() {
	mode := flag.String("mode", "export", "export or validate")
	n := flag.Int("records", 100000, "records to export")
	out := flag.String("out", "", "bundle to write")
	in := flag.String("in", "", "bundle to read")
	cpuprofile := flag.String("cpuprofile", "", "write a CPU profile of the run to this file")
	flag.Parse()
	if *cpuprofile != "" {
		f, err := os.Create(*cpuprofile)
		if err == nil {
			err = pprof.StartCPUProfile(f)
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, "bundlebench:", err)
			os.Exit(1)
		}
		defer pprof.StopCPUProfile()
	}
	if err := run(*mode, *n, *out, *in); err != nil {
		fmt.Fprintln(os.Stderr, "bundlebench:", err)
		pprof.StopCPUProfile()
		os.Exit(1)
	}
}

// record builds the i-th record: a list_names page about one of ten
// targets, with an analysis profile, about 1 KB of canonical JSON.
func record(i int, prof *core.Profile) *core.Evidence {
	v := "0.1.0"
	items := make([]map[string]any, 4)
	for j := range items {
		items[j] = map[string]any{"address": core.Hex(uint64(0x401000 + i*64 + j*16)), "name": fmt.Sprintf("function_%d_%d", i, j), "kind": "function"}
	}
	norm, _ := json.Marshal(map[string]any{"items": items, "offset": i * 4, "limit": 4, "total": 400000, "next_offset": i*4 + 4, "has_more": true})
	sha := fmt.Sprintf("%064x", i%10+1)
	e := &core.Evidence{Subject: core.NewSubject(fmt.Sprintf("/opt/app/bin%d", i%10), sha, "elf", "x86_64"),
		Provider: core.ProviderRef{ID: "rea-native", Name: "rea built-in native analyzer", Version: &v}, AnalysisProfile: prof,
		Operation: "list_names", Parameters: json.RawMessage(fmt.Sprintf(`{"offset":%d,"limit":4}`, i*4)), NormalizedResult: norm}
	if err := e.Seal(); err != nil {
		panic(err)
	}
	return e
}

func profile() *core.Profile {
	p, err := core.NewProfile(core.ProfileProvider{ID: "rea-native", Name: "rea built-in native analyzer", Version: "0.1.0"}, 1,
		map[string]any{"max_string_bytes": 4096, "min_string_chars": 4})
	if err != nil {
		panic(err)
	}
	return p
}

// procStatus reads a VmHWM-style field of /proc/self/status in KiB.
func procStatus(field string) int64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return -1
	}
	for _, l := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(l, field+":") {
			n, _ := strconv.ParseInt(strings.Fields(l)[1], 10, 64)
			return n
		}
	}
	return -1
}

// resetPeak makes VmHWM start again from the current RSS (Linux).
func resetPeak() { _ = os.WriteFile("/proc/self/clear_refs", []byte("5"), 0) }

func run(mode string, n int, out, in string) error {
	ctx := context.Background()
	var ms runtime.MemStats
	report := func(bytes int64, records int, start time.Time, rssBefore int64, allocBefore uint64) {
		secs := time.Since(start).Seconds()
		runtime.ReadMemStats(&ms)
		fmt.Printf("%s bytes=%d records=%d seconds=%.3f rss_before_kib=%d peak_rss_kib=%d heap_alloc_bytes=%d\n",
			mode, bytes, records, secs, rssBefore, procStatus("VmHWM"), ms.TotalAlloc-allocBefore)
	}
	begin := func() (time.Time, int64, uint64) {
		runtime.GC()
		resetPeak()
		runtime.ReadMemStats(&ms)
		return time.Now(), procStatus("VmRSS"), ms.TotalAlloc
	}
	switch mode {
	case "export":
		prof := profile()
		recs := make([]*core.Evidence, n)
		for i := range recs {
			recs[i] = record(i, prof)
		}
		src := core.SourceOf(recs, nil)
		start, rss, alloc := begin()
		res, err := core.ExportBundleFile(ctx, out, src, &core.ExportOptions{Overwrite: true})
		if err != nil {
			return err
		}
		report(res.Bytes, res.Records, start, rss, alloc)
	case "validate":
		start, rss, alloc := begin()
		info, err := core.ReadBundleFile(ctx, in, nil, nil)
		if err != nil {
			return err
		}
		report(info.Bytes, info.Records, start, rss, alloc)
	default:
		return fmt.Errorf("unknown mode %q", mode)
	}
	return nil
}
