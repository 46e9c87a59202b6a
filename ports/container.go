package ports

import (
	"context"
	"fmt"
	"io"
)

// ContainerOpener recognises and opens one container format (ASAR, ZIP, ...)
// so core can build an artifact graph without knowing the format.
// Implementations must be safe for concurrent use.
type ContainerOpener interface {
	// Recognize reports the format of a container whose first bytes are head
	// (at least 4 KiB when the container is that long) and whose base name is
	// name ("app.asar", "game.apk"), or ok false when it is not this format.
	// It must not do I/O.
	Recognize(head []byte, name string) (format string, ok bool)
	// OpenContainer parses the container's directory (header, central
	// directory) within req.Limits. The Container is owned by the caller, who
	// must Close it. Every failure is a *ContainerError, except a done ctx,
	// which fails with ctx.Err(); malformed or truncated input never panics.
	// portstest.RunContainer checks the whole contract.
	OpenContainer(ctx context.Context, req ContainerRequest) (Container, error)
}

// Container is one open container. It is safe for concurrent use.
type Container interface {
	// Entries lists every entry the container declares, each once, in any
	// order. Parents a format leaves implicit (ZIP) need not be listed.
	Entries() []ContainerEntry
	// Open returns the bytes of the regular file at a logical path as they
	// are now. A reader must not yield more bytes than Limits allow
	// (MaxEntryBytes per file, MaxTotalBytes over every Open of the
	// container) and must fail with a ContainerError (reason limit, Limit
	// naming the field) rather than trust a header. A path that is not a
	// regular file of the container (missing, a directory, an unsafe name)
	// fails with a *ContainerError; a done ctx fails with ctx.Err().
	Open(ctx context.Context, path string) (io.ReadCloser, error)
	// Close releases the container; a second Close must not panic.
	Close() error
}

// ContainerRequest is what OpenContainer reads.
type ContainerRequest struct {
	// Name is the container's base name, used for format hints and for
	// companions: an ASAR's unpacked files are "<Name>.unpacked/<path>".
	Name string
	// ReaderAt holds the container's bytes, Size of them. The caller keeps
	// it open until the Container is closed.
	ReaderAt io.ReaderAt
	Size     int64
	// Companion opens a regular file stored beside the container, by a
	// slash-separated path relative to the directory holding it; nil when the
	// container has no neighbours (for example bytes held in memory). A
	// missing file is an error wrapping fs.ErrNotExist.
	Companion func(ctx context.Context, name string) (io.ReadCloser, error)
	Limits    ContainerLimits
}

// ContainerLimits bound what a container may declare and yield. A zero field
// means no limit from the caller (the adapter's own defaults still apply).
type ContainerLimits struct {
	MaxEntries          int
	MaxEntryBytes       int64
	MaxTotalBytes       int64
	MaxCompressionRatio int64
	MaxDepth            int
	MaxPathBytes        int
}

// EntryKind is the kind of a container entry.
type EntryKind string

// Entry kinds.
const (
	EntryFile      EntryKind = "file"
	EntryDirectory EntryKind = "directory"
	EntrySymlink   EntryKind = "symlink"
)

// ContainerEntry is one entry as its container declares it.
type ContainerEntry struct {
	Path string // slash-separated logical path, relative, no "." or ".." components
	Kind EntryKind
	Link string // symlink target as declared, for symlinks

	Size           int64 // declared size of a file's bytes (uncompressed); 0 otherwise
	CompressedSize int64 // stored size when the format compresses; -1 when not applicable
	Executable     bool
	Unpacked       bool // bytes live outside the container (an ASAR's .unpacked companion)
	Encrypted      bool // bytes cannot be read without a key

	// Offset and Length locate the stored bytes in the container; Offset is
	// -1 when the bytes are not inside it.
	Offset, Length int64

	// DeclaredSHA256 is the whole-file SHA-256 the container declares for the
	// entry, lowercase hex; empty when it declares none (or another algorithm).
	DeclaredSHA256 string
}

// EntryRejecter is a Container that opened although some entries it
// declares cannot be offered by path: a name that is unsafe as a relative
// path (absolute, "..", a backslash, NUL, invalid UTF-8, an empty or "."
// component), a name two entries share, or a file's name that other
// entries use as a directory. A reverse engineer needs the rest of such an
// archive (a zip-slip sample, an APK with duplicate entries) and the names
// themselves; extracting them by name would be unsafe or ambiguous. Rejected
// entries are not in Entries and Open fails for them. Core type-asserts it.
type EntryRejecter interface {
	// Rejected lists the entries left out, in the order the container
	// declares them.
	Rejected() []RejectedEntry
}

// RejectedEntry is one entry a container left out of Entries.
type RejectedEntry struct {
	Name           string // as declared: untrusted, quote it when shown
	Index          int    // its position among the entries declared, from 0 (what tells two copies of a name apart)
	Reason         string // absolute, dot-dot, dot, empty, backslash, nul, utf8, duplicate, file-as-directory, link-utf8 (a link's target)
	Kind           EntryKind
	Size           int64 // declared uncompressed size of a file; 0 otherwise
	CompressedSize int64 // stored size when the format compresses; -1 when not applicable
}

// Container failure reasons (ContainerError.Reason).
const (
	ContainerFormat      = "format"      // the container's structure is malformed
	ContainerPath        = "path"        // an entry name is unsafe: "..", absolute, backslash, NUL, duplicate
	ContainerLimit       = "limit"       // a limit in ContainerLimits was exceeded
	ContainerUnavailable = "unavailable" // an entry's bytes cannot be read (missing unpacked companion)
	ContainerIO          = "io"          // reading failed
)

// ContainerError classifies a container failure so core can report it
// without knowing the format. Limit names the ContainerLimits field
// ("max_compression_ratio") for reason limit.
type ContainerError struct {
	Format string // asar, zip, ...
	Reason string // one of the Container* reasons
	Path   string // logical path involved, if any
	Limit  string // for reason limit: max_entries, max_entry_bytes, max_total_bytes, max_compression_ratio, max_depth, max_path_bytes
	Err    error
}

func (e *ContainerError) Error() string {
	s := fmt.Sprintf("%s: %s", e.Format, e.Reason)
	if e.Limit != "" {
		s += " " + e.Limit
	}
	if e.Path != "" {
		s += fmt.Sprintf(" (entry %q)", e.Path)
	}
	if e.Err != nil {
		s += ": " + e.Err.Error()
	}
	return s
}

func (e *ContainerError) Unwrap() error { return e.Err }
