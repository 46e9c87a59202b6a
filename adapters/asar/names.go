package asar

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// checkName validates one path component.
func checkName(name string) *NameError {
	reason := ""
	switch {
	case name == "":
		reason = "empty"
	case name == ".":
		reason = "dot"
	case name == "..":
		reason = "dot-dot"
	case strings.ContainsRune(name, '/'):
		reason = "slash"
	case strings.ContainsRune(name, '\\'):
		reason = "backslash"
	case strings.IndexByte(name, 0) >= 0:
		reason = "nul"
	case !utf8.ValidString(name):
		reason = "utf8"
	}
	if reason == "" {
		return nil
	}
	return &NameError{Name: name, Reason: reason}
}

// checkPath validates a slash-separated relative path component by component.
func checkPath(p string, maxBytes int) *NameError {
	if len(p) > maxBytes {
		return &NameError{Name: p, Reason: "too-long"}
	}
	if strings.HasPrefix(p, "/") {
		return &NameError{Name: p, Reason: "absolute"}
	}
	for c := range strings.SplitSeq(p, "/") {
		if err := checkName(c); err != nil {
			err.Name = p
			return err
		}
	}
	return nil
}

// foldKey maps a name to a key shared by every name that strings.EqualFold
// considers equal, so case-only collisions can be found with a map.
func foldKey(name string) string {
	// ASCII: a letter's smallest fold is its upper case ('k' folds with
	// 'K' and U+212A, 's' with 'S' and U+017F); other bytes fold to
	// themselves.
	ascii, lower := true, false
	for i := 0; i < len(name); i++ {
		c := name[i]
		if c >= utf8.RuneSelf {
			ascii = false
			break
		}
		lower = lower || c >= 'a' && c <= 'z'
	}
	if ascii {
		if !lower {
			return name
		}
		return strings.ToUpper(name)
	}
	return strings.Map(func(r rune) rune {
		min := r
		for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
			if f < min {
				min = f
			}
		}
		return min
	}, name)
}
