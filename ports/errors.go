package ports

import (
	"errors"
	"fmt"
)

// Sentinel kinds that engines wrap so core can classify failures without
// knowing the engine. Wrap with fmt.Errorf("...: %w", ports.ErrX) or use
// FormatError.
var (
	// ErrUnsupported: the engine cannot do this for this target (wrong
	// architecture, format or capability).
	ErrUnsupported = errors.New("unsupported")
	// ErrUnavailable: the engine or something it needs is not usable now.
	ErrUnavailable = errors.New("unavailable")
	// ErrNotFound: an address, name or item the caller named does not exist.
	ErrNotFound = errors.New("not found")
	// ErrMalformed: the target's bytes are corrupt or truncated.
	ErrMalformed = errors.New("malformed input")
	// ErrTimeout: the engine did not answer within its deadline.
	ErrTimeout = errors.New("timeout")
)

// FormatError reports malformed input at a byte offset. It matches
// ErrMalformed with errors.Is.
type FormatError struct {
	Format string // elf, pe, mach-o, ...
	Offset int64  // -1 when unknown
	Msg    string
	// Size is the input's length in bytes; 0 when unknown.
	Size int64
	// Truncated: the input ends before a structure it declares (Msg names
	// it, Offset is where it starts): a cut-off copy or a corrupt header.
	Truncated bool
}

func (e *FormatError) Error() string {
	if e.Offset < 0 {
		return fmt.Sprintf("%s: %s", e.Format, e.Msg)
	}
	return fmt.Sprintf("%s: %s at offset 0x%x", e.Format, e.Msg, e.Offset)
}

// Is reports whether target is ErrMalformed.
func (e *FormatError) Is(target error) bool { return target == ErrMalformed }

// FormatFacts adds to details what the FormatError in err's chain, if any,
// says about the input: format, check (its message), offset and file_size
// (null when unknown) and truncated. It returns details.
func FormatFacts(err error, details map[string]any) map[string]any {
	var fe *FormatError
	if !errors.As(err, &fe) {
		return details
	}
	details["format"], details["check"], details["truncated"] = fe.Format, fe.Msg, fe.Truncated
	details["offset"], details["file_size"] = nil, nil
	if fe.Offset >= 0 {
		details["offset"] = fe.Offset
	}
	if fe.Size > 0 {
		details["file_size"] = fe.Size
	}
	return details
}

// FormatAdvice is what to do about the FormatError in err's chain: the
// binary's bytes are cut off or corrupt. It is "" (the caller's default)
// when err wraps ErrMalformed for another reason, such as an engine's
// malformed reply.
func FormatAdvice(err error) string {
	var fe *FormatError
	if !errors.As(err, &fe) {
		return ""
	}
	return "The file is not a complete, well-formed binary (details.check says what failed, details.offset and file_size where, when known). " +
		"Check that it is the whole file, not a partial copy or download, and open it again; inspect_artifact still reports its format, size and sha256."
}
