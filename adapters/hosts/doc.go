// Package hosts registers rea with agent hosts (MCP clients) by editing
// their configuration files: Claude Code, Claude Desktop, Codex, Cursor,
// Gemini CLI, Windsurf, VS Code and Zed. It backs `rea doctor` (the
// registration checks), `rea setup` and `rea uninstall`, and installs the
// agent skill.
//
// Everything is plan-then-apply. [Inspect] classifies rea's entry in each
// file as aligned, stale (another rea binary, another version, a missing
// field), missing or invalid (unreadable, unparseable or wrongly shaped
// file, with line and column; an entry named rea that is not rea's).
// [PlanSetup] and [PlanUninstall] read files and write nothing; [Apply] and
// [ApplyUninstall] carry a plan out. One invalid action blocks a whole
// setup plan.
//
// Edits are splices: a parser (our own for JSON and JSONC, go-toml's for
// TOML) locates the byte span of the entry, and only that span changes, so
// comments, key order and formatting elsewhere stay byte for byte. Every
// edited document is parsed again and must decode to exactly the intended
// document, or nothing is written. Writing: a flock on <file>.rea.lock,
// the file read again under the lock, a backup with exclusive create
// (<file>.rea.backup, or a numbered one when an older backup differs), a
// temporary file in the same directory fsynced and renamed over the file
// with its mode kept (0600 for new files), then read back; a mismatch puts
// the previous bytes back. Symbolic links are followed only when the link
// and its target belong to the current user; files over [MaxFileSize] are
// never edited. Uninstall restores the file byte for byte when it is
// exactly what rea's edit made of a backup, and otherwise removes only
// rea's entry.
//
// hosts is an adapter: it imports the standard library, rea/ports and
// github.com/pelletier/go-toml/v2, never rea/core or another adapter.
package hosts
