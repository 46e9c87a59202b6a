// Package js is rea's JavaScript engine: it parses one source with
// github.com/tdewolff/parse/v2/js and reports syntactic facts with byte
// offsets (ESM imports and exports, require, dynamic import, workers, string
// literals, calls with name-path callees and captured literal arguments, and
// the module tables of webpack, rspack and esbuild bundles). It never runs
// the code.
//
// The parser's AST carries no positions; offsets come from the addresses of
// literal token slices, which alias the engine's copy of the source. A fact whose
// position cannot be proven that way reports offset -1.
//
// Bad input never panics and never fails the call: a syntax error, a binary
// file or a source over the size limit is reported in JSFacts.Errors or
// Limitations. Nesting is bounded by the parser (1000 nested expressions or
// statements); deeper input is a syntax error.
//
// js is an engine adapter: it imports the standard library, rea/ports and
// github.com/tdewolff/parse/v2 only.
package js
