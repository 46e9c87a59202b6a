package asar

import (
	"errors"
	"fmt"
)

// Reasons carried by [FormatError].
const (
	ReasonHeaderSize = "header-size" // the prefix or header pickle is truncated or inconsistent
	ReasonJSON       = "json"        // the header is not valid JSON, or repeats a key
	ReasonNotObject  = "not-object"  // the header, "files" or an entry is not a JSON object
	ReasonEntry      = "entry"       // an entry's fields have the wrong type or mix kinds
	ReasonOffset     = "offset"      // a file offset is missing, not a decimal string, or past the end
	ReasonSize       = "size"        // a file size is missing, negative, not an integer, or past the end
	ReasonIntegrity  = "integrity"   // an integrity object is malformed
	ReasonPath       = "path"        // an entry name is unsafe (see [NameError])
	ReasonLink       = "link"        // a link is malformed, points outside the archive, or cycles
	ReasonDepth      = "depth"       // directories nest deeper than Options.MaxDepth
	ReasonLimit      = "limit"       // the header or entry count exceeds a limit in [Options]
)

// ErrUnpackedMissing reports that a file marked unpacked has no readable
// counterpart in the companion ".asar.unpacked" directory. It is returned
// wrapped in an [*fs.PathError] whose Path is the file's logical path.
var ErrUnpackedMissing = errors.New("unpacked file missing from companion directory")

// FormatError reports a malformed archive.
type FormatError struct {
	Offset int64  // byte offset in the archive where the problem was found
	Reason string // one of the Reason constants
	Path   string // logical path of the entry involved, if any
	Msg    string
	Err    error // underlying cause, such as a *NameError; may be nil
}

func (e *FormatError) Error() string {
	s := fmt.Sprintf("asar: %s: %s", e.Reason, e.Msg)
	if e.Path != "" {
		s += fmt.Sprintf(" (entry %q)", e.Path)
	}
	return s + fmt.Sprintf(" at offset %d", e.Offset)
}

func (e *FormatError) Unwrap() error { return e.Err }

// NameError reports a name that is not safe as an archive path component or
// path: empty, ".", "..", absolute, containing a backslash, a NUL byte or
// invalid UTF-8, too long, or colliding with a sibling (exactly or by case).
type NameError struct {
	Name   string
	Reason string // empty, dot, dot-dot, absolute, slash, backslash, nul, utf8, too-long, duplicate, case-collision
}

func (e *NameError) Error() string {
	return fmt.Sprintf("unsafe name %q: %s", e.Name, e.Reason)
}
