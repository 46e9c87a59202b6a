// Package hopper is rea's Hopper Disassembler engine: a ports.Provider whose
// analyses run Hopper's launcher as an owned process with rea's Python
// bridge (bridge/hopper_bridge.py, committed here) inside it, reached over
// NDJSON on a Unix socket (PROVIDERS.md §2).
//
// Discovery (Discover) checks the launcher (HOPPER_LAUNCHER_PATH, else the
// platform's usual place) without running it. Open is lazy: the first query
// of an Analysis creates a private root through rea/supervisor, writes the
// bootstrap (the only carrier of the token besides the bridge's environment
// inside Hopper), runs the launcher with the loader arguments, "--analysis",
// "--python <bootstrap>" and "--executable <target>" in its own process
// group, connects, and checks the health handshake against the run ID. The
// start is bounded by REA_HOPPER_STARTUP_TIMEOUT_MS (ParseStartupTimeout,
// default 120 s); while it is pending a caller observing progress gets a
// waiting notice every 10 s. Cancellation is distinct from timeout, and
// both clean up everything before the query returns; an engine that dies
// after it was ready is reported, never replaced.
//
// An Analysis offers list_documents, list_segments, list_procedures,
// list_names, list_strings, read_bytes, analyze_functions (procedure
// extents from Hopper's basic blocks; instructions from the bridge's
// procedure_body, their bytes through read_bytes, blocks built here from
// the flows) and decompile. It is a ports.Annotator for names, comments and
// inline comments, kept in Hopper's document through the bridge's
// get/set/remove_annotation: Hopper's Python API reads and writes them one
// address at a time and lists only names, so Annotations lists Hopper's
// names and the comments rea set in this session (read back from Hopper),
// and notes AnnotationLimitation on the result; bookmarks are not offered.
// A .hop database is opened with --database from a verified copy in the
// session root, reusing the analysis it holds. On macOS the Hopper
// application is opened hidden with open(1) when none of its bundle runs
// (rea never owns or signals it). The Hopper 6.4.2 Linux demo (recognised by
// its launcher's digest) runs only under the X11 helper named by
// Options.DemoHelper (REA_HOPPER_DEMO_HELPER in cmd/rea, checked at
// start-up by ParseDemoHelper): probed with the direct strategy, then a user and
// mount namespace when the X11 socket directory is unusable, and launched
// as the owned process with Hopper behind "--"; its exit codes become
// HelperError failure codes with its REA_X11_DIAGNOSTIC_V1 diagnostics. The
// helper is scripts/hopper-demo-x11.py (standard-library Python and Xvfb);
// its tests run it on a real Xvfb display with a fake demo that shows the
// dialog, and the adapter through it with the fake launcher. None of this
// has run against a real Hopper or macOS here.
//
// With Options.SnapshotRoot, answers are kept in a rea/snapshot store keyed
// by target digest, launcher digest (Hopper's build) and profile digest, and
// a later session on the same key answers from it without starting Hopper
// (SnapshotHits; the observation and the result's notes say so). A session
// that sets or removes a comment or name stops using the snapshot, since its
// answers are no longer the analysis of the bytes alone.
//
// The package imports rea/ports, rea/supervisor, rea/snapshot and
// adapters/internal (ndjson, lazyengine). Its tests run a fake
// launcher (testdata/fakehopper) that answers from a transcript in the
// record/replay format, and the bridge's protocol layer under python3 with
// a stub document; TestLive runs the conformance suite against a real
// Hopper when its launcher exists.
package hopper
