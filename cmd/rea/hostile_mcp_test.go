package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/matryer/is"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"rea/bench/hostile"
	"rea/core"
)

// The hostile inputs of the CLI test, through the built `rea serve` over
// stdio, one server for all of them under the same RSS watchdog (512 MiB
// plus twice the largest case's bytes on disk; GOMEMLIMIT 320 MiB): every
// binary is opened and asked for its overview, strings and layout (the
// 512 MiB .dynsym's layout, cut at 131,072 symbols, is the peak: about
// 330 MiB), the archive is inventoried and
// the archive and the source-map app are analyzed as JavaScript
// applications. Each answer is a result (possibly truncated or with
// limitations) or a typed error, never execution_failure; the server stays
// up, answers a final valid call, and its ledger still holds the Evidence
// recorded before the hostile cases.
func TestHostileInputsOverMCPStayUnderMemoryBound(t *testing.T) {
	if testing.Short() {
		t.Skip("writes about 2 GiB of sparse files and inflates 1 GiB")
	}
	is := is.New(t)
	cases, err := hostile.Write(t.TempDir(), hostile.Set{
		ELFDynsymMiB: []int64{512}, ELFRodataMiB: 1024, MachOSyms: 16 << 20, PESyms: 16 << 20,
		NestedASARs: 4, ASARMiB: 255, MapSources: 100_000, SelfMain: true,
	})
	is.NoErr(err)
	var disk int64
	for _, c := range cases {
		disk = max(disk, c.Disk)
	}
	bound := hostileBound + 2*disk

	cmd := exec.Command(reaBin, "serve")
	// The garbage collector's soft limit below the bound, as a deployment
	// under a memory limit would set it: without it the default GOGC lets
	// the heap of the cut layout's result grow past the bound.
	cmd.Env = append(os.Environ(), "GOMEMLIMIT=320MiB")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true} // the watchdog kills only this group
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "hostile-mcp", Version: "1"}, nil).Connect(context.Background(), &sdk.CommandTransport{Command: cmd}, nil)
	is.NoErr(err)
	defer cs.Close()
	w := hostile.Watch(cmd.Process.Pid, bound)
	defer w.Stop()

	callTool := func(name string, args map[string]any) (text string, code core.Code) {
		t.Helper()
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
		defer cancel()
		res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: name, Arguments: args})
		if err != nil {
			peak, killed := w.Peak()
			t.Fatalf("%s: %v (server killed by the watchdog: %v, peak RSS %d MiB; stderr: %s)", name, err, killed, peak>>20, stderr.String())
		}
		if len(res.Content) != 1 {
			t.Fatalf("%s: %d content items", name, len(res.Content))
		}
		text = res.Content[0].(*sdk.TextContent).Text
		if res.IsError {
			var env core.Envelope
			if err := json.Unmarshal([]byte(text), &env); err != nil {
				t.Fatalf("%s: error without its envelope: %s", name, text)
			}
			code = env.Error.Code
		}
		return text, code
	}

	// Evidence recorded before the hostile inputs.
	_, code := callTool("open_binary", map[string]any{"path": "/usr/bin/ls"})
	is.Equal(code, core.Code(""))
	text, code := callTool("binary_overview", map[string]any{})
	is.Equal(code, core.Code(""))
	before, err := core.ParseEvidence([]byte(text))
	is.NoErr(err)

	for _, c := range cases {
		var calls [][2]any
		switch c.Kind {
		case "binary":
			calls = [][2]any{
				{"open_binary", map[string]any{"path": c.Path}},
				{"binary_overview", map[string]any{}},
				{"list_strings", map[string]any{"limit": 20}},
				{"inspect_binary_layout", map[string]any{"path": c.Path, "detail": "summary"}},
			}
		case "archive":
			calls = [][2]any{
				{"inventory_artifact", map[string]any{"path": c.Path}},
				{"analyze_javascript_application", map[string]any{"path": c.Path}},
			}
		case "javascript":
			calls = [][2]any{{"analyze_javascript_application", map[string]any{"path": c.Path}}}
		}
		for _, k := range calls {
			name := k[0].(string)
			start := time.Now()
			text, code := callTool(name, k[1].(map[string]any))
			peak, killed := w.Peak()
			t.Logf("%s %s: %s in %v, server peak RSS %d MiB", c.Name, name, outcomeOf(text, code), time.Since(start).Round(time.Millisecond), peak>>20)
			is.True(!killed) // the watchdog killed the server: its resident set passed the bound
			// A result, or a typed error naming what stopped it; never a
			// generic failure.
			is.True(code != core.CodeExecutionFailure)
			if code != "" && name == "open_binary" {
				break // no target: the other calls have nothing to read
			}
		}
	}

	// The server is still up: the earlier Evidence is retained and a valid
	// call is answered as before.
	text, code = callTool("get_evidence_bundle", map[string]any{"detail": "summary"})
	is.Equal(code, core.Code(""))
	is.True(strings.Contains(text, before.EvidenceID.String())) // earlier Evidence lost
	_, code = callTool("open_binary", map[string]any{"path": "/usr/bin/ls"})
	is.Equal(code, core.Code(""))
	text, code = callTool("binary_overview", map[string]any{})
	is.Equal(code, core.Code(""))
	again, err := core.ParseEvidence([]byte(text))
	is.NoErr(err)
	is.Equal(again.EvidenceID, before.EvidenceID)

	peak, killed := w.Stop()
	t.Logf("server peak RSS %d MiB, bound %d MiB", peak>>20, bound>>20)
	is.True(!killed)
	is.True(peak < bound)                                // peak resident set over the bound
	is.True(!strings.Contains(stderr.String(), "panic")) // crashed
}

// outcomeOf names how a call ended: its error code, or "result" (with
// "limitations" or "truncated" when the result says so).
func outcomeOf(text string, code core.Code) string {
	if code != "" {
		return string(code)
	}
	out := "result"
	if strings.Contains(text, `"limitations":["`) {
		out += " with limitations"
	}
	if strings.Contains(text, `"truncated":true`) {
		out += " (truncated)"
	}
	return out
}
