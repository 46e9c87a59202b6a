// Package core is rea's domain: canonical JSON and digests, the Evidence
// record and its IDs, analysis profiles, the canonical error envelope, the
// session ledger and bundles, provider selection, progress, and the catalog of
// operations (each declared once with its schemas, effects, examples and
// handler).
//
// core imports the standard library, rea/ports and the JSON Schema validator
// (github.com/santhosh-tekuri/jsonschema/v6) and canonical-number formatter
// (github.com/gowebpki/jcs). It never imports an adapter: engines reach it
// through ports, front ends call it through Catalog and Session.
package core
