// Package portstest is the whole engine contract of rea/ports as tests,
// and a working fake for every interface, for engine tests and for tests of
// code that consumes rea/ports. Production code never imports it.
//
// Suites, each derived from the doc comments in rea/ports:
//
//   - [Run]: a Provider and its Analysis: identity, support, lifecycle, the
//     five listers, every code capability (Disassembler, FunctionAnalyzer,
//     CrossReferencer, ByteReader, SignatureReader, Decompiler,
//     ValueFlowAnalyzer, SourceLocator) with their cross-checks and hostile arguments,
//     concurrency, cancellation, use after Close, the declared capabilities
//     ([CheckCapabilities]) and, for a LayoutReader provider, [RunLayout].
//   - [RunLayout]: a ports.LayoutReader on a sample image and its
//     truncations and corruptions.
//   - [RunContainer]: a ports.ContainerOpener and its Containers.
//   - [RunJavaScript]: a ports.JavaScriptEngine.
//
// Fakes, each passing its suite: [Fake] (the listers, configurable),
// [CodeFake] (every capability over a small consistent x86-64 program, and
// a LayoutReader for [CodeFakeImage]), [FakeOpener] (an archive format
// built by [FakeArchive]) and [FakeJS].
//
// Engines reached over a process, pipe or socket replay recorded
// transcripts with the subpackage replay.
//
// portstest imports only the standard library, rea/ports and
// github.com/matryer/is.
package portstest
