// Package replay records and replays the conversation between rea and an
// engine it reaches over a process's pipes or a socket, so tests of engines
// that cannot run on every machine (Ghidra, Hopper, a browser) replay a
// committed transcript by default and re-record it against a live engine
// with -record (or REA_RECORD=1).
//
// A transcript is JSON lines: a [Header] (engine name and version, when it
// was recorded, how data was framed), then one [Entry] per request (bytes
// rea sent), response (bytes the engine sent), end of stream, or process
// event (start, exit, signal), each with its time relative to the start of
// the recording. A [Recorder] wraps a live connection and writes the
// transcript; a [Player] serves one as a fake endpoint (a Unix socket or a
// socket pair) and fails the test on the first request that differs from
// the transcript, showing expected and got.
//
// replay is for tests only: it imports the standard library (and testing),
// never rea/ports or an engine, and production code never imports it.
package replay
