package process_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/matryer/is"

	"rea/core"
	"rea/core/standard"
	"rea/ports"
)

// retitleCapturer is buildCapturer's capture in which the first process
// rewrote its argv in place (setproctitle) at 2,000 ms.
type retitleCapturer struct{}

func (retitleCapturer) CaptureProcess(ctx context.Context, req ports.CaptureRequest) (*ports.ProcessCapture, error) {
	c, err := buildCapturer{}.CaptureProcess(ctx, req)
	if err != nil {
		return nil, err
	}
	p, n := &c.Processes[0], &c.NormalizedProcesses[0]
	p.FirstReadArgv, p.Argv, p.ArgvRewrittenMS = p.Argv, []string{"cc: worker"}, 2000
	n.FirstReadCommand, n.Command, n.CommandRewrittenMS = n.Command, "cc: worker", 2000
	return c, nil
}

// A process that rewrote its argv in place shows its last command in the
// tree, with the command first read and when the new one was first read;
// the raw record keeps both argvs. A process that did not has neither.
func TestCaptureTreeSaysWhenACommandWasRewritten(t *testing.T) {
	is := is.New(t)
	call := caller(t, standard.Families(), &core.RegistryOptions{Capturer: retitleCapturer{}})
	res := call("capture_process_scenario", map[string]any{"executable": "make", "detail": "complete"})
	var norm struct {
		Processes struct {
			Tree []map[string]any `json:"tree"`
		} `json:"processes"`
	}
	is.NoErr(json.Unmarshal(res.Evidence.NormalizedResult, &norm))
	tree := norm.Processes.Tree
	is.Equal(tree[0]["command"], "cc: worker")
	is.Equal(tree[0]["first_read_command"], "cc -c f00.c")
	is.Equal(tree[0]["command_rewritten_ms"], float64(2000))
	_, has := tree[1]["first_read_command"]
	is.True(!has)
	var raw struct {
		Processes []map[string]any `json:"processes"`
	}
	is.NoErr(json.Unmarshal(res.Evidence.RawResult, &raw))
	is.Equal(raw.Processes[0]["first_read_argv"], []any{"cc", "-c", "f00.c"})
	is.Equal(raw.Processes[0]["argv_rewritten_ms"], float64(2000))
	_, has = raw.Processes[1]["first_read_argv"]
	is.True(!has)
}
