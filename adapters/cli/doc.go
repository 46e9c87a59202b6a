// Package cli is rea's command line (github.com/alecthomas/kong): a generic
// projection of core's catalog (rea call, rea tools) plus the main job (rea
// analyze), the application workflows (rea trace-feature, rea compare-apps)
// and the MCP server entry (rea serve, injected by cmd/rea so this package
// never imports another adapter). JSON and Evidence arguments read @FILE,
// - (stdin) and @BUNDLE#ev_ID (source.go).
//
// It may import the standard library, rea/core, rea/ports and kong.
//
// Exit codes (the front end's one mapping table, see exitCodes):
//
//	0   success
//	1   execution_failure, unreadable_output, cleanup_incomplete, process_capture_failed, revision_conflict
//	2   invalid_request, configuration_invalid, or a command-line usage error
//	3   target_unavailable, access_denied
//	4   unsupported_target, capability_unavailable, provider_unavailable
//	5   artifact_integrity_mismatch, evidence_integrity_mismatch, artifact_changed
//	6   resource_constraint, truncated
//	7   artifact_operation_failed
//	124 provider_timeout
//	130 cancelled (SIGINT or SIGTERM)
package cli
