// Package ghidra is rea's Ghidra engine: a ports.Provider whose analyses run
// Ghidra's analyzeHeadless as an owned process and talk to rea's bridge (a
// Java HeadlessScript committed under bridge/) over NDJSON on a Unix socket.
//
// Discovery (Discover) reads GHIDRA_INSTALL_DIR and JAVA_HOME and never
// starts anything. Open is lazy: the first query of an Analysis creates a
// private root through rea/supervisor, copies and re-hashes the target, writes
// the session descriptor (the only carrier of the token), launches
// analyzeHeadless read-only with the bridge as a post-script in its own
// process group, connects, checks the ping handshake against the session's
// commitment and takes the process lineage. The start is bounded by the
// startup deadline (ParseStartupTimeout reads REA_GHIDRA_STARTUP_TIMEOUT_MS);
// while it is pending, a caller whose context carries progress gets a waiting
// notice every 10 s. A cancelled start is distinct from a timed-out one, and
// both clean up everything before the query returns. An engine that dies
// after it was ready is reported by every later query and never replaced.
//
// An Analysis offers list_documents, list_segments, list_procedures,
// list_names, list_strings, disassemble, analyze_functions,
// cross_references, read_bytes, signatures and decompile. Addresses outside Ghidra's default
// space (EXTERNAL:0x...) have no uint64 form and are left out. The bridge
// speaks the operations of PROVIDERS.md §1.9 that these need, plus rea
// extensions: read_bytes, disassemble (a linear sweep with the
// PseudoDisassembler), function_body (listing and BasicBlockModel over a
// body), list_references (the whole reference table, paged), body_end in
// list_procedures, a prototype in procedure_info, and native_api (the
// prototype and jump tables of the decompiler's HighFunction, capped at 64
// parameters and 4 tables of at most 4 data sources and 32 mappings, each
// list with its total and a truncated flag; Analysis.NativeAPI). Signature
// reads the HighFunction's prototype, with its jump tables as the
// Signature's Switches (which analyze_function and inspect_native_api show
// on native_api's jump_tables), and falls back to the function database's
// where the decompiler has none or fails. Its ping lists exactly the methods
// it implements.
//
// The bridge does not serve §1.9's analyze_function: rea builds the dossier
// in core/binary from the queries above, for every provider alike. So
// §1.9's dossier item fields (referenced_names' value) describe a wire rea's
// bridge does not speak; the bridge's own inventories (list_names,
// list_strings, list_procedures) carry value as §1.9 says, and rea's
// dossier keeps name (see ARCHITECTURE.md).
//
// The bridge's Java is type-checked without Ghidra: a test compiles it with
// javac against compile-only declarations of the Ghidra 12.1 API it uses
// (testdata/ghidra-api-stubs, whose README says how each was checked
// against Ghidra's sources).
//
// With Options.SnapshotRoot, results are kept in a rea/snapshot store keyed by
// target digest, Ghidra build and analysis-profile digest, and a later
// analysis answers from it without starting Ghidra (SnapshotHits, a
// progress observation and, through ports.Note, a limitation in the call's
// Evidence say so; an entry the same analysis wrote is not counted).
//
// The package imports rea/ports, rea/supervisor and rea/snapshot. Its tests
// run against a fake analyzeHeadless (testdata/fakeghidra) that answers from
// a transcript in the record/replay format; TestLive runs the conformance
// suite against a real Ghidra when GHIDRA_INSTALL_DIR is set.
package ghidra
