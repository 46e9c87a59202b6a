// Package snapshot keeps the results of a completed engine analysis on disk so
// that the next session on the same bytes answers without starting the
// engine (PROVIDERS.md §5).
//
// A Store is a cache root. It is partitioned by Key: the target's SHA-256,
// the engine and its build, and the digest of the analysis profile that
// shaped the results. Inside a partition each entry is named by the caller
// (an operation and its parameters) and holds opaque bytes. Nothing is
// keyed by path, and nothing expires by age: a partition is invalidated by
// its key (a different build or profile is simply a different partition) or
// removed explicitly with Invalidate.
//
// Files are written atomically (a private temporary file, fsync, rename)
// with mode 0600 in directories of mode 0700; a reader never sees a partial
// entry. Entries are bounded (MaxEntryBytes) and names are hashed, so no
// name can escape the root.
//
// The store is engine-agnostic: the Ghidra adapter and the native warm
// cache share it. It imports only the standard library.
package snapshot
