package gdbremote_test

import (
	"context"
	"testing"
	"time"

	"github.com/matryer/is"

	"rea/adapters/gdbremote"
	"rea/ports"
)

func firstArgs(hits []ports.TraceHit, name string) []uint64 {
	var out []uint64
	for _, h := range hits {
		if h.Name == name {
			out = append(out, h.Arguments[0].Value)
		}
	}
	return out
}

func TestTraceCFixture(t *testing.T) {
	needServer(t)
	cases := []struct {
		name  string
		flags []string
		strip bool
	}{
		{"pie", []string{"-pie", "-fPIE"}, false},
		{"pie-stripped", []string{"-pie", "-fPIE"}, true},
		{"no-pie", []string{"-no-pie", "-fno-pie"}, false},
		{"no-pie-stripped", []string{"-no-pie", "-fno-pie"}, true},
		{"static", []string{"-static"}, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			is := is.New(t)
			bin := buildC(t, "calls.c", "calls", tc.flags...)
			target, fact := symbol(t, bin, "target"), symbol(t, bin, "fact")
			if tc.strip {
				bin = stripped(t, bin)
			}
			id := runID(t)
			defer noneLeft(t, id)
			tr := gdbremote.New(nil)
			debugTap(t, tr)
			res, err := tr.TraceCalls(context.Background(), ports.TraceRequest{
				Launch:      &ports.TraceLaunch{Path: bin, Args: []string{"3"}},
				Breakpoints: []ports.TraceBreakpoint{{Address: target, Name: "target"}, {Address: fact, Name: "fact"}},
				RunID:       id,
				MaxDuration: 5 * time.Second,
			})
			is.NoErr(err)
			is.Equal(res.Coverage.StopReason, ports.TraceStopExited)
			is.True(res.Exit != nil && res.Exit.Code != nil)
			is.Equal(*res.Exit.Code, 3)
			is.Equal(firstArgs(res.Hits, "target"), []uint64{1, 2, 3, 4, 5})
			is.Equal(firstArgs(res.Hits, "fact"), []uint64{5, 4, 3, 2, 1})
			for _, h := range res.Hits {
				is.True(h.Returned)
				switch h.Name {
				case "target":
					a := h.Arguments
					is.Equal(h.Arguments[1].Value, a[0].Value+1)
					is.Equal(h.ReturnValue, a[0].Value*100+a[1].Value*10+a[2].Value)
					is.Equal(h.CallerModule, bin)
				case "fact":
					want := uint64(1)
					for i := uint64(2); i <= h.Arguments[0].Value; i++ {
						want *= i
					}
					is.Equal(h.ReturnValue, want)
				}
			}
			// Recursion: the innermost call returns first.
			var facts []ports.TraceHit
			for _, h := range res.Hits {
				if h.Name == "fact" {
					facts = append(facts, h)
				}
			}
			for i := 1; i < len(facts); i++ {
				is.True(facts[i].ReturnSequence < facts[i-1].ReturnSequence)
				is.Equal(facts[i].ReturnAddress, facts[1].ReturnAddress) // the recursive call site
			}
			is.Equal(res.Coverage.ReturnsMissing, 0)
			is.Equal(len(res.Coverage.Threads), 1)
			is.Equal(res.Lineage.Status, ports.LineageVerified)
			bias := res.Modules[0].LoadBias
			if tc.name == "pie" || tc.name == "pie-stripped" {
				is.True(bias != 0)
			} else {
				is.Equal(bias, uint64(0))
			}
			is.Equal(res.Breakpoints[0].RuntimeAddress, target+bias)
		})
	}
}
