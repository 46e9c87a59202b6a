// Package core is rea's kernel: canonical JSON and digests, the Evidence
// record and its IDs, analysis profiles, the canonical error envelope, the
// session ledger and bundles, provider selection, progress, the response
// budget, target identification, and the catalog of operations (each
// declared once with its schemas, effects, examples and handler) with its
// presentation.
//
// Feature families (rea/core/binary, rea/core/artifact, rea/core/jsapp,
// rea/core/web) declare their operations, viewers and bundle summarizers as
// a Family; Assemble builds a Catalog from families, and rea/core/standard
// assembles the default one. Handlers reach their session only through the
// methods of Call.
//
// core imports the standard library, rea/ports, its RFC 8785 canonicalizer
// (rea/core/internal/jcs) and the JSON Schema validator
// (github.com/santhosh-tekuri/jsonschema/v6). It never imports an adapter or
// a family: engines reach it through ports, front ends call it through
// Catalog and Session.
package core
