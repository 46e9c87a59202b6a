package main

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/matryer/is"

	"rea/bench/hostile"
)

// hostileBound is the resident-set bound of the memory-limited test: 512
// MiB plus twice the bytes the input holds on disk (the bound).
const hostileBound = 512 << 20

// Hostile inputs whose headers claim gigabytes (sparse symbol tables, a
// sparse 1 GiB .rodata, a ZIP of deflated ASARs, a source map with 100k
// sources) are run through
// the built rea as children under an RSS watchdog: each must answer with a
// result or a typed error, and its peak resident set must stay under the
// bound. Before the bounds, these cost 1 to 3 GB each.
func TestHostileInputsStayUnderMemoryBound(t *testing.T) {
	if testing.Short() {
		t.Skip("writes about 1 GiB of sparse files and inflates 1 GiB")
	}
	is := is.New(t)
	cases, err := hostile.Write(t.TempDir(), hostile.Set{
		ELFDynsymMiB: []int64{512}, ELFRodataMiB: 1024, MachOSyms: 16 << 20, PESyms: 16 << 20,
		NestedASARs: 4, ASARMiB: 255, MapSources: 100_000, SelfMain: true,
	})
	is.NoErr(err)
	for _, c := range cases {
		t.Run(c.Name, func(t *testing.T) {
			is := is.New(t)
			bound := hostileBound + 2*c.Disk
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
			defer cancel()
			r, err := hostile.Measure(ctx, exec.Command(reaBin, hostile.Args(c)...), bound)
			is.NoErr(err)
			t.Logf("%s: %d bytes apparent, %d on disk: peak RSS %d MiB in %v, %s", c.Name, c.Size, c.Disk, r.PeakRSS>>20, r.Wall, hostile.Outcome(r))
			is.True(!r.Killed)                                    // killed by the watchdog: the resident set passed the bound
			is.True(r.PeakRSS < bound)                            // peak resident set over the bound
			is.True(!strings.Contains(string(r.Stderr), "panic")) // crashed
			var out struct {
				Error *struct {
					Code string `json:"code"`
				} `json:"error"`
			}
			is.NoErr(json.Unmarshal(r.Stdout, &out)) // the answer is JSON
			if r.ExitCode != 0 {
				is.True(out.Error != nil) // a failure carries the error envelope
				// A budget names its limit: truncated (an archive limit) or
				// resource_constraint, never a generic failure.
				is.True(out.Error.Code == "truncated" || out.Error.Code == "resource_constraint")
			}
			if strings.HasPrefix(c.Name, "elf-dynsym-512m") {
				is.True(strings.Contains(string(r.Stdout), "the engine reads the first")) // the cut table is reported
			}
		})
	}
}

// A call whose buffers would pass the per-call memory budget is refused
// before the work with resource_constraint naming the setting: rea's own
// symbol string table is over 1 MiB.
func TestCallMemoryBudgetRefuses(t *testing.T) {
	is := is.New(t)
	cmd := exec.Command(reaBin, "analyze", reaBin, "--format", "json")
	cmd.Env = append(os.Environ(), "REA_MAX_CALL_MEMORY_BYTES=1048576")
	out, err := cmd.Output()
	is.True(err != nil) // refused
	var got struct {
		Error struct {
			Code    string         `json:"code"`
			Details map[string]any `json:"details"`
		} `json:"error"`
	}
	is.NoErr(json.Unmarshal(out, &got))
	is.Equal(got.Error.Code, "resource_constraint")
	is.Equal(got.Error.Details["limit"], "REA_MAX_CALL_MEMORY_BYTES")
}
