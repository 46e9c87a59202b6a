// Package mcp projects core's operation catalog as an MCP server on
// github.com/modelcontextprotocol/go-sdk. It is generic: every operation in
// the catalog becomes a tool without code here, and every call goes through
// core.Session.Call, so validation, Evidence and errors are core's.
//
// It may import the standard library, rea/core, rea/ports and the go-sdk. It
// never imports another adapter; cmd/rea wires it.
//
// Error mapping (the front end's one table): every core.Error is delivered as
// a tool error result (isError true, the compact {"error": ...} JSON as the
// only text content, no structuredContent). Only failures of the protocol
// itself (an unknown tool name, malformed JSON-RPC) are JSON-RPC errors, and
// the SDK produces those.
package mcp
