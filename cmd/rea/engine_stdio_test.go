package main

import (
	"context"
	"encoding/json"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/matryer/is"

	"rea/core"
	"rea/ports"
)

// The startup, waiting-notice and cleanup tests that Ghidra and Hopper
// share over MCP stdio, each engine driven through its fake.

// engineKind is how the shared tests drive one engine's fake.
type engineKind struct {
	newHost    func(t *testing.T, env ...string) *engineHost
	name       string // as its messages spell it: Ghidra
	fake       string // the fake's environment prefix: FAKE_GHIDRA
	timeoutEnv string // the startup deadline's variable
	waiting    string // a waiting notice, before " (<n> s elapsed)"
}

// elapsedNote is a waiting notice's end: " (<n> s elapsed)".
var elapsedNote = regexp.MustCompile(` \((\d+) s elapsed\)$`)

func testWaitingNoticesOverStdio(t *testing.T, k engineKind) {
	if testing.Short() {
		t.Skip("the product's 10 s waiting interval makes this test take about 25 s")
	}
	t.Parallel() // with the other engine's: most of it is waiting
	is := is.New(t)
	// Two hosts, one call each, at once: the same slow start with and
	// without a progress token.
	delay := k.fake + "_DELAY_MS=24000"
	with, without := k.newHost(t, delay), k.newHost(t, delay)
	with.open()
	without.open()
	var wg sync.WaitGroup
	var withText, withoutText string
	var withErr, withoutErr bool
	wg.Add(2)
	go func() {
		defer wg.Done()
		withText, withErr = with.mustCall("binary_overview", map[string]any{}, "cold")
	}()
	go func() {
		defer wg.Done()
		withoutText, withoutErr = without.mustCall("binary_overview", map[string]any{}, "")
	}()
	wg.Wait()
	is.True(!withErr)    // withText
	is.True(!withoutErr) // withoutText
	p, n := overviewProvider(t, withText)
	is.Equal(p, with.engine)
	is.True(n > 0)
	// Evidence is the same whichever connection and token: the same bytes,
	// the same engine answers, the same IDs (the copies' paths differ, and
	// are not part of the ID).
	var a, b core.Evidence
	is.NoErr(json.Unmarshal([]byte(withText), &a))
	is.NoErr(json.Unmarshal([]byte(withoutText), &b))
	is.Equal(a.EvidenceID, b.EvidenceID)
	is.Equal(string(a.NormalizedResult), string(b.NormalizedResult))

	var waiting []string
	for _, m := range with.waitNotes("cold") {
		if strings.HasPrefix(m, k.waiting) {
			waiting = append(waiting, m)
		}
	}
	if len(waiting) < 2 {
		t.Fatalf("want at least two waiting notices, got %q", with.notesFor("cold"))
	}
	// Ten seconds apart, each saying how long the call has waited, by the
	// clock: a loaded machine may say 11 s (no assertion on timing).
	var secs []int
	for _, w := range waiting[:2] {
		m := elapsedNote.FindStringSubmatch(w)
		if m == nil {
			t.Fatalf("a waiting notice without its elapsed time: %q", w)
		}
		n, _ := strconv.Atoi(m[1])
		secs = append(secs, n)
	}
	is.True(secs[0] >= 10 && secs[1] > secs[0]) // secs
	all := with.notesFor("cold")
	is.Equal(all[len(all)-1], "binary_overview: completed")
	is.Equal(len(without.notesFor("")), 0)
	without.mu.Lock()
	is.Equal(len(without.notes), 0) // no token, no notifications at all
	without.mu.Unlock()

	// The engine stays up for the next query; close_binary stops it and
	// removes its root.
	text, isErr := with.mustCall("close_binary", map[string]any{}, "")
	is.True(!isErr) // text
	_ = text
	roots, live := with.settle()
	is.Equal(len(roots), 0) // roots
	is.Equal(len(live), 0)  // live
}

func testStartupOverStdio(t *testing.T, k engineKind) {
	t.Parallel() // with the other engine's
	t.Run("cancel then close and reopen", func(t *testing.T) {
		t.Parallel()
		is := is.New(t)
		h := k.newHost(t, k.fake+"_DELAY_MS=4000")
		h.open()
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan error, 1)
		go func() {
			_, err := h.call(ctx, "binary_overview", map[string]any{}, "c")
			done <- err
		}()
		// Cancel once the engine's launcher runs (it sleeps before binding).
		deadline := time.Now().Add(30 * time.Second)
		for len(h.launchers()) == 0 && time.Now().Before(deadline) {
			time.Sleep(20 * time.Millisecond)
		}
		is.Equal(len(h.launchers()), 1)
		cancel()
		is.True(<-done != nil) // the client stopped waiting
		roots, live := h.settle()
		is.Equal(len(roots), 0) // no root, socket or project left: roots
		is.Equal(len(live), 0)  // no process left: live
		// The same connection recovers: close_binary, open_binary with
		// the engine, and the first query starts a fresh engine.
		text, isErr := h.mustCall("close_binary", map[string]any{}, "")
		is.True(!isErr) // text
		h.open()
		text, isErr = h.mustCall("binary_overview", map[string]any{}, "")
		is.True(!isErr) // text
		first := text
		p, _ := overviewProvider(t, text)
		is.Equal(p, h.engine)
		is.Equal(len(h.launchers()), 2)
		text, isErr = h.mustCall("close_binary", map[string]any{}, "")
		is.True(!isErr) // text
		roots, live = h.settle()
		is.Equal(len(roots), 0)
		is.Equal(len(live), 0)
		// The next session on the same bytes and profile answers from the
		// analysis snapshot under the cache, without starting the engine.
		h.open()
		again, isErr := h.mustCall("binary_overview", map[string]any{}, "")
		is.True(!isErr) // again
		is.Equal(len(h.launchers()), 2)
		// The same result, and the Evidence says where it came from
		// (PROVIDERS.md §5.3's limitation), so the record differs.
		var e1, e2 core.Evidence
		is.NoErr(json.Unmarshal([]byte(first), &e1))
		is.NoErr(json.Unmarshal([]byte(again), &e2))
		is.Equal(string(e2.NormalizedResult), string(e1.NormalizedResult))
		is.True(!slices.Contains(e1.Limitations, ports.SnapshotLimitation)) // a cold run is not from a snapshot
		is.True(slices.Contains(e2.Limitations, ports.SnapshotLimitation))  // the warm one says so
		is.True(e1.EvidenceID != e2.EvidenceID)
		is.Equal(len(h.roots()), 0)
	})
	t.Run("timeout", func(t *testing.T) {
		t.Parallel()
		is := is.New(t)
		h := k.newHost(t, k.fake+"_MODE=hang", k.timeoutEnv+"=1500")
		h.open()
		text, isErr := h.mustCall("binary_overview", map[string]any{}, "")
		is.True(isErr)
		e := errorOf(t, text)
		is.Equal(e.Code, core.CodeProviderTimeout)
		is.True(strings.Contains(text, "1500")) // the configured deadline: text
		roots, live := h.settle()
		is.Equal(len(roots), 0)
		is.Equal(len(live), 0)
	})
	t.Run("crash", func(t *testing.T) {
		t.Parallel()
		is := is.New(t)
		h := k.newHost(t, k.fake+"_MODE=crash")
		h.open()
		text, isErr := h.mustCall("binary_overview", map[string]any{}, "")
		is.True(isErr)
		e := errorOf(t, text)
		is.Equal(e.Code, core.CodeExecutionFailure)
		is.True(strings.Contains(text, k.name+" exited before bridge startup")) // text
		// Never replaced by rea-native: the binding is still the engine.
		sess, _ := h.mustCall("binary_session", map[string]any{}, "")
		var s struct{ Result map[string]any }
		is.NoErr(json.Unmarshal([]byte(sess), &s))
		binding := s.Result["analysis_provider_binding"].(map[string]any)
		is.Equal(binding["provider"].(map[string]any)["id"], h.engine)
		roots, live := h.settle()
		is.Equal(len(roots), 0)
		is.Equal(len(live), 0)
	})
	t.Run("left behind", func(t *testing.T) {
		t.Parallel()
		testLeftBehindOverStdio(t, k)
	})
}

// testLeftBehindOverStdio: an engine that leaves a process in its group
// which the supervisor cannot prove rea's (no run ID in its environment)
// makes close_binary report cleanup_incomplete naming the group and that
// process, which is never signalled; the launcher, proven rea's, is
// stopped. Once the test has ended the process (after proving it the
// fake's), the same connection opens the target again.
func testLeftBehindOverStdio(t *testing.T, k engineKind) {
	is := is.New(t)
	h := k.newHost(t, k.fake+"_MODE=stranger")
	h.open()
	text, isErr := h.mustCall("binary_overview", map[string]any{}, "")
	is.True(!isErr) // text
	strangers, launchers := h.startsOf("stranger "), h.launchers()
	is.Equal(len(strangers), 1)
	is.Equal(len(launchers), 1)
	is.True(h.isOurStranger(strangers[0]))

	text, isErr = h.mustCall("close_binary", map[string]any{}, "")
	is.True(isErr) // close_binary reports what remains
	e := errorOf(t, text)
	is.Equal(e.Code, core.CodeCleanupIncomplete)
	is.Equal(e.Details["resources"], []any{ports.ResourceProcessGroup})
	reason, _ := e.Details["cleanup_reason"].(string)
	is.True(strings.Contains(reason, ports.ResourceProcessGroup+" "+strconv.Itoa(launchers[0]))) // the group: reason
	is.True(strings.Contains(reason, strconv.Itoa(strangers[0])))                                // the process that remains: reason
	is.True(alive(strangers[0]))                                                                 // never signalled
	is.True(!alive(launchers[0]))                                                                // the launcher was stopped

	h.endStrangers()
	roots, live := h.settle()
	is.Equal(len(roots), 0)
	is.Equal(len(live), 0)
	h.open()
	text, isErr = h.mustCall("binary_overview", map[string]any{}, "")
	is.True(!isErr) // text
	_, isErr = h.mustCall("close_binary", map[string]any{}, "")
	is.True(!isErr) // close_binary
}
