package ports

import (
	"path/filepath"
	"strings"
	"unicode/utf8"
)

// UnsafeName returns why name, a slash-separated path a container declares
// (without a directory's trailing slash), is unsafe as a relative path, as
// a RejectedEntry reason (absolute, nul, backslash, utf8, dot-dot, dot,
// empty), or "" when it is safe. The container adapters share it, so every
// format rejects the same names for the same reasons.
func UnsafeName(name string) string {
	switch {
	case name == "":
		return "empty"
	case strings.IndexByte(name, 0) >= 0:
		return "nul"
	case strings.ContainsRune(name, '\\'):
		return "backslash"
	case strings.HasPrefix(name, "/") || filepath.VolumeName(name) != "" || len(name) >= 2 && name[1] == ':':
		return "absolute"
	case !utf8.ValidString(name):
		return "utf8"
	}
	for c := range strings.SplitSeq(name, "/") {
		switch c {
		case "..":
			return "dot-dot"
		case ".":
			return "dot"
		case "":
			return "empty"
		}
	}
	return ""
}
