package core_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/matryer/is"

	"rea/core"
	"rea/ports"
	"rea/ports/portstest"
)

// launching is an engine whose analyses own a process: they report a
// lineage snapshot and may fail to clean up.
type launching struct {
	*portstest.Fake
	lineage  ports.ProcessLineage
	closeErr error
}

type launchedAnalysis struct {
	ports.Analysis
	p *launching
}

func (a launchedAnalysis) ProcessLineage(context.Context) ports.ProcessLineage {
	return a.p.lineage
}

func (a launchedAnalysis) Close(ctx context.Context) error {
	_ = a.Analysis.Close(ctx)
	return a.p.closeErr
}

func (p *launching) Open(ctx context.Context, t ports.Target) (ports.Analysis, error) {
	a, err := p.Fake.Open(ctx, t)
	if err != nil {
		return nil, err
	}
	return launchedAnalysis{a, p}, nil
}

var observed = time.Date(2026, 12, 3, 12, 0, 0, 123456789, time.UTC)

func lineageOf(t *testing.T, s *core.Session) map[string]any {
	t.Helper()
	out, err := callJSON(t, s, "binary_session", map[string]any{})
	if err != nil {
		t.Fatal(err)
	}
	return out["result"].(map[string]any)["analysis_run"].(map[string]any)["process_lineage"].(map[string]any)
}

func TestProcessLineage(t *testing.T) {
	cat := catalog(t)
	path := elfFile(t)
	verified := ports.ProcessLineage{Status: ports.LineageVerified, ObservedAt: observed, LauncherPID: 4100, ProcessGroupID: 4100,
		LauncherParentPID: 4000, LauncherCommand: "engine", LauncherStartTime: observed.Add(-time.Minute),
		Descendants: []ports.LineageProcess{{PID: 4101, ParentPID: 4100, ProcessGroupID: 4100, Command: "worker"},
			{PID: 4107, ParentPID: 4101, ProcessGroupID: 4100, Command: "helper"}}}

	t.Run("verified", func(t *testing.T) {
		is := is.New(t)
		p := &launching{Fake: fake("engine"), lineage: verified}
		s := selectionSession(t, cat, "", p)
		_, _, e := openedWith(t, s, map[string]any{"path": path})
		is.True(e == nil)
		got, _ := json.Marshal(lineageOf(t, s))
		want := `{"snapshots":[{"observation":{"descendants":[{"parent_pid":4100,"pid":4101,"process_group_id":4100},` +
			`{"parent_pid":4101,"pid":4107,"process_group_id":4100}],"launcher_parent_pid":4000,"launcher_pid":4100,` +
			`"observed_at":"2026-12-03T12:00:00.123Z","process_group_id":4100,"schema_version":1,"status":"verified"},` +
			`"provider":{"id":"engine","name":"in-memory fake engine","version":"0.0.0"}}],"status":"snapshots"}`
		is.Equal(string(got), want)
	})

	t.Run("not observed until the engine's process is ready", func(t *testing.T) {
		is := is.New(t)
		p := &launching{Fake: fake("engine")} // a lazy engine: nothing started at open_binary
		s := selectionSession(t, cat, "", p)
		_, _, e := openedWith(t, s, map[string]any{"path": path})
		is.True(e == nil)
		got, _ := json.Marshal(lineageOf(t, s))
		is.Equal(string(got), `{"status":"not_observed"}`)
		p.lineage = verified // the first query started it; the engine observed its process once
		is.Equal(lineageOf(t, s)["status"], "snapshots")
		snap := lineageOf(t, s)["snapshots"].([]any)[0].(map[string]any)["observation"].(map[string]any)
		is.Equal(snap["status"], "verified")
		is.Equal(snap["launcher_pid"], float64(4100))
	})

	t.Run("unavailable", func(t *testing.T) {
		is := is.New(t)
		p := &launching{Fake: fake("engine"), lineage: ports.ProcessLineage{Status: ports.LineageUnavailable, ObservedAt: observed,
			LauncherPID: 4100, ProcessGroupID: 4100, Reason: ports.LineageReasonLauncherGone}}
		s := selectionSession(t, cat, "", p)
		_, _, e := openedWith(t, s, map[string]any{"path": path})
		is.True(e == nil)
		snap := lineageOf(t, s)["snapshots"].([]any)[0].(map[string]any)["observation"].(map[string]any)
		is.Equal(snap["status"], "unavailable")
		is.Equal(snap["reason"], "owned launcher is not live")
		is.Equal(snap["launcher_pid"], float64(4100))
		_, hasDesc := snap["descendants"]
		is.True(!hasDesc)
	})

	t.Run("in-process engine", func(t *testing.T) {
		is := is.New(t)
		s := selectionSession(t, cat, "", fake("engine"))
		_, _, e := openedWith(t, s, map[string]any{"path": path})
		is.True(e == nil)
		got, _ := json.Marshal(lineageOf(t, s))
		is.Equal(string(got), `{"status":"not_observed"}`)
	})

	t.Run("a new target forgets the old lineage", func(t *testing.T) {
		is := is.New(t)
		p := &launching{Fake: fake("engine"), lineage: verified}
		s := selectionSession(t, cat, "", p, fake("plain", "pe", "elf"))
		_, _, e := openedWith(t, s, map[string]any{"path": path, "provider_id": "engine"})
		is.True(e == nil)
		_, _, e = openedWith(t, s, map[string]any{"path": path, "provider_id": "plain"})
		is.True(e == nil)
		is.Equal(lineageOf(t, s)["status"], "not_observed")
	})

	t.Run("close_binary lists the owned kinds that remain", func(t *testing.T) {
		is := is.New(t)
		p := &launching{Fake: fake("engine"), lineage: verified, closeErr: &ports.CleanupError{Resources: []ports.OwnedResource{
			{Kind: ports.ResourceTemporaryRoot, ID: "/tmp/rea-x", Reason: "busy"},
			{Kind: ports.ResourceProcess, ID: "4107", Reason: "still running after SIGKILL"},
			{Kind: ports.ResourceProcess, ID: "4101", Reason: "still running after SIGKILL"}}}}
		s := selectionSession(t, cat, "", p)
		_, _, e := openedWith(t, s, map[string]any{"path": path})
		is.True(e == nil)
		_, e = callJSON(t, s, "close_binary", map[string]any{})
		is.True(e != nil)
		is.Equal(e.Code, core.CodeCleanupIncomplete)
		is.Equal(e.Details["resources"], []string{"process", "temporary-root"})
		is.Equal(e.Details["execution_failure"], nil)
	})
}

func TestCleanupAndSignalErrors(t *testing.T) {
	is := is.New(t)
	cleanup := &ports.CleanupError{Resources: []ports.OwnedResource{{Kind: ports.ResourceSocket, ID: "/tmp/s", Reason: "unlink failed"}}}

	e := core.AsError("op", fmt.Errorf("engine: %w", cleanup))
	is.Equal(e.Code, core.CodeCleanupIncomplete)
	is.Equal(e.Details["resources"], []string{"socket"})
	is.Equal(e.Details["cleanup_reason"], "socket /tmp/s: unlink failed")
	is.Equal(e.Details["execution_failure"], nil)

	// The failure a cleanup followed keeps its own code beside it.
	e = core.AsError("op", errors.Join(fmt.Errorf("engine: %w", ports.ErrTimeout), cleanup))
	is.Equal(e.Code, core.CodeCleanupIncomplete)
	is.Equal(e.Details["execution_failure"], "provider_timeout")

	// Signal attempts go under partial_observation, whatever the code.
	at := time.Date(2026, 12, 3, 12, 0, 1, 0, time.UTC)
	stop := &ports.StopError{Err: fmt.Errorf("engine: %w", ports.ErrTimeout), Attempts: []ports.SignalAttempt{
		{Target: ports.TargetProcessGroup, ID: 4100, Signal: "SIGTERM", At: at, Result: ports.SignalDelivered},
		{Target: ports.TargetProcess, ID: 4999, Signal: "SIGKILL", At: at, Result: ports.SignalRefusedNotOwned, Reason: "start time differs"}}}
	e = core.AsError("op", stop)
	is.Equal(e.Code, core.CodeProviderTimeout)
	got, _ := json.Marshal(e.Details["partial_observation"])
	is.Equal(string(got), `{"signals":[{"at":"2026-12-03T12:00:01.000Z","id":4100,"reason":null,"result":"delivered","signal":"SIGTERM","target":"process-group"},`+
		`{"at":"2026-12-03T12:00:01.000Z","id":4999,"reason":"start time differs","result":"refused-not-owned","signal":"SIGKILL","target":"process"}]}`)

	e = core.AsError("op", errors.Join(stop, cleanup))
	is.Equal(e.Code, core.CodeCleanupIncomplete)
	is.Equal(e.Details["execution_failure"], "provider_timeout")
	is.True(e.Details["partial_observation"] != nil)

	// Plain errors carry no partial observation.
	e = core.AsError("op", errors.New("boom"))
	_, has := e.Details["partial_observation"]
	is.True(!has)
}
