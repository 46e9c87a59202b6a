//go:build unix

package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"runtime"
	"runtime/debug"
	"runtime/pprof"
	"sync"
	"sync/atomic"
	"time"

	"rea/adapters/native"
)

// profileRun computes in-process what rea analyze asks of rea-native
// (documents, segments, procedures, strings, names), and with disasm the
// whole-file disassembly with text, under a CPU profile and with an
// allocation profile at the end. It prints the statistics as JSON. With
// cli it computes only what rea disassemble does (the text, which waits
// for whole-file discovery), with rea's garbage collector target (cmd/rea's
// gcPercent) unless GOGC is set.
func profileRun(path string, disasm, cli bool, cpu, mem string) error {
	if _, set := os.LookupEnv("GOGC"); cli && !set {
		debug.SetGCPercent(70)
	}
	if cpu != "" {
		f, err := os.Create(cpu)
		if err != nil {
			return err
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			return err
		}
		defer pprof.StopCPUProfile()
	}
	var phase atomic.Pointer[string] // the step running, for the peak's record
	phase.Store(new(string))
	var peak struct {
		sync.Mutex
		heap  uint64
		phase string
	}
	if mem != "" {
		// The live heap at its largest, as the last GC saw it, sampled
		// every second into mem + ".peak".
		stop := make(chan struct{})
		defer close(stop)
		go func() {
			for {
				select {
				case <-stop:
					return
				case <-time.After(time.Second):
				}
				var ms runtime.MemStats
				runtime.ReadMemStats(&ms)
				peak.Lock()
				if ms.HeapAlloc > peak.heap {
					peak.heap, peak.phase = ms.HeapAlloc, *phase.Load()
					if f, err := os.Create(mem + ".peak"); err == nil {
						pprof.Lookup("heap").WriteTo(f, 0)
						f.Close()
					}
				}
				peak.Unlock()
			}
		}()
	}
	start := time.Now()
	ctx := context.Background()
	a, err := native.OpenFile(ctx, path)
	if err != nil {
		return err
	}
	defer a.Close(ctx)
	phases := map[string]float64{}
	lap := time.Now()
	step := func(name string, f func() error) error {
		phase.Store(&name)
		if err := f(); err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		phases[name] = time.Since(lap).Seconds()
		lap = time.Now()
		return nil
	}
	counts := map[string]int{}
	var st native.DiscoveryStats
	if cli {
		// What rea disassemble asks: the text, which waits for discovery,
		// and no more.
		if err := step("disassembly", func() error { return disassembleTo(ctx, a, os.DevNull, counts) }); err != nil {
			return err
		}
		// Not a.Discovery: it would compute the references too.
	} else {
		if err := step("segments", func() error { s, err := a.Segments(ctx); counts["segments"] = len(s); return err }); err != nil {
			return err
		}
		if err := step("procedures", func() error { s, err := a.Procedures(ctx); counts["procedures"] = len(s); return err }); err != nil {
			return err
		}
		if st, err = a.Discovery(ctx); err != nil { // settled by the procedure list above
			return err
		}
		if err := step("strings", func() error { s, err := a.Strings(ctx); counts["strings"] = len(s); return err }); err != nil {
			return err
		}
		if err := step("names", func() error { s, err := a.Names(ctx); counts["names"] = len(s); return err }); err != nil {
			return err
		}
		if disasm {
			if err := step("disassembly", func() error { return disassembleTo(ctx, a, os.DevNull, counts) }); err != nil {
				return err
			}
		}
	}
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	if mem != "" {
		f, err := os.Create(mem)
		if err != nil {
			return err
		}
		defer f.Close()
		if err := pprof.Lookup("allocs").WriteTo(f, 0); err != nil {
			return err
		}
	}
	peak.Lock()
	defer peak.Unlock()
	return json.NewEncoder(os.Stdout).Encode(map[string]any{"peak_heap_mb": peak.heap >> 20, "peak_phase": peak.phase, "wall_s": time.Since(start).Seconds(), "phases_s": phases, "counts": counts,
		"total_alloc_mb": ms.TotalAlloc >> 20, "total_alloc": ms.TotalAlloc, "heap_inuse_mb": ms.HeapInuse >> 20, "sys_mb": ms.Sys >> 20,
		"code_bytes": st.CodeBytes, "decoded_bytes": st.DecodedBytes})
}
