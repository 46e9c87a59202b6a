package pty

import (
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"rea/ports"
)

// Placeholders written by normalization.
const (
	placeholderRedacted      = "<redacted>"
	placeholderTemporaryRoot = "<temporary-root>"
	placeholderWorkingDir    = "<working-directory>"
	placeholderExecutable    = "<executable>"
	placeholderPID           = "<pid>"
	placeholderPort          = "<port>"
)

// Normalizer rewrites observed text so that two runs of the same scenario
// compare equal where only incidental values (paths, pids, ports) differ. The
// passes run in the contract's order: secrets, paths, pids, ports, literal
// patterns. It is a pure function of its fields.
type Normalizer struct {
	// Secrets are the sensitive inputs' texts; every occurrence becomes
	// <redacted>. They are redacted even when nothing else is normalized.
	Secrets []string
	// Paths, when non-nil, maps absolute paths to placeholders; longer paths
	// are replaced first, so a path inside another keeps its own name.
	Paths map[string]string
	// PIDs are replaced by <pid> where they stand as a whole run of digits.
	PIDs map[string]bool
	// Ports replaces the port of an endpoint (replacePorts) by <port>.
	Ports    bool
	Patterns []ports.LiteralReplacement
}

// Normalize applies every pass to s.
func (n *Normalizer) Normalize(s string) string {
	s = n.Redact(s)
	if len(n.Paths) > 0 {
		s = replacePaths(s, n.Paths)
	}
	if len(n.PIDs) > 0 {
		s = replacePIDs(s, n.PIDs)
	}
	if n.Ports {
		s = replacePorts(s)
	}
	for _, p := range n.Patterns {
		if p.Pattern != "" {
			s = strings.ReplaceAll(s, p.Pattern, p.Replacement)
		}
	}
	return s
}

// Redact replaces the secrets only. A secret that contains the placeholder
// could reappear after one pass; the passes repeat a bounded number of times.
func (n *Normalizer) Redact(s string) string {
	for range 4 {
		changed := false
		for _, sec := range n.Secrets {
			if sec != "" && strings.Contains(s, sec) {
				s = strings.ReplaceAll(s, sec, placeholderRedacted)
				changed = true
			}
		}
		if !changed {
			break
		}
	}
	return s
}

func replacePaths(s string, paths map[string]string) string {
	keys := make([]string, 0, len(paths))
	for k := range paths {
		if k != "" && k != "/" {
			keys = append(keys, k)
		}
	}
	sort.Slice(keys, func(i, j int) bool {
		if len(keys[i]) != len(keys[j]) {
			return len(keys[i]) > len(keys[j])
		}
		return keys[i] < keys[j]
	})
	for _, k := range keys {
		s = strings.ReplaceAll(s, k, paths[k])
	}
	return s
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

func isWord(c byte) bool {
	return isDigit(c) || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || c == '_'
}

// replacePIDs replaces each maximal run of digits that is a known pid.
func replacePIDs(s string, pids map[string]bool) string {
	var b strings.Builder
	last := 0
	for i := 0; i < len(s); {
		if !isDigit(s[i]) {
			i++
			continue
		}
		j := i
		for j < len(s) && isDigit(s[j]) {
			j++
		}
		if pids[s[i:j]] {
			b.WriteString(s[last:i])
			b.WriteString(placeholderPID)
			last = j
		}
		i = j
	}
	if last == 0 {
		return s
	}
	b.WriteString(s[last:])
	return b.String()
}

// replacePorts replaces a port number where the text says it is one of an
// endpoint ("contextual-endpoints-v2"): a run of 2 to 5 digits, at most
// 65535 and ending at a non-word byte, that follows ':' after a loopback or
// IPv4 host, a bracketed IPv6 host, a URL's host, '*' or nothing (a listen
// address such as ":8080"), or follows the word port (PORT, --port=,
// listenPort:, db_port ...). Any other number stays: "area=12" against
// "area=24", "main.c:42" or "12:30" are output, and replacing them would
// make two different outputs compare equal.
func replacePorts(s string) string {
	var b strings.Builder
	last := 0
	for i := 0; i < len(s); {
		if !isDigit(s[i]) {
			i++
			continue
		}
		j := i
		for j < len(s) && isDigit(s[j]) {
			j++
		}
		if n := j - i; n >= 2 && n <= 5 && (j == len(s) || !isWord(s[j])) && (i == 0 || !isWord(s[i-1]) || s[i-1] == '_') &&
			atoiBelow(s[i:j], 65536) && (afterEndpointColon(s, i) || afterPortWord(s, i)) {
			b.WriteString(s[last:i])
			b.WriteString(placeholderPort)
			last = j
		}
		i = j
	}
	if last == 0 {
		return s
	}
	b.WriteString(s[last:])
	return b.String()
}

func atoiBelow(digits string, limit int) bool {
	v, err := strconv.Atoi(digits)
	return err == nil && v < limit
}

// afterEndpointColon reports whether s[:i] ends in ':' after a host that
// makes it an endpoint.
func afterEndpointColon(s string, i int) bool {
	if i == 0 || s[i-1] != ':' {
		return false
	}
	h := i - 1 // the colon
	if h == 0 {
		return true
	}
	switch c := s[h-1]; {
	case c == ']' || c == '*':
		return true
	case c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '(' || c == '"' || c == '\'' || c == '=' || c == ',':
		return true // ":8080", addr=":8080"
	}
	k := h
	for k > 0 && (isWord(s[k-1]) || s[k-1] == '.' || s[k-1] == '-') {
		k--
	}
	host := s[k:h]
	if strings.EqualFold(host, "localhost") || isIPv4(host) {
		return k == 0 || !isWord(s[k-1])
	}
	// A URL's authority: scheme://host:port or scheme://user@host:port.
	if k >= 1 && s[k-1] == '@' {
		k--
		for k > 0 && s[k-1] != '/' && s[k-1] != ' ' {
			k--
		}
	}
	return host != "" && k >= 3 && s[k-3:k] == "://"
}

func isIPv4(h string) bool {
	parts := strings.Split(h, ".")
	if len(parts) != 4 {
		return false
	}
	for _, p := range parts {
		if p == "" || len(p) > 3 || !atoiBelow(p, 256) {
			return false
		}
		for k := 0; k < len(p); k++ {
			if !isDigit(p[k]) {
				return false
			}
		}
	}
	return true
}

// afterPortWord reports whether s[:i] ends in the word port (any case, alone
// or as the last part of a name: db_port, --port, listenPort), then blanks,
// ':' or '=' and blanks.
func afterPortWord(s string, i int) bool {
	k := i
	for k > 0 && (s[k-1] == ' ' || s[k-1] == '\t') {
		k--
	}
	if k > 0 && (s[k-1] == ':' || s[k-1] == '=') {
		k--
		for k > 0 && (s[k-1] == ' ' || s[k-1] == '\t') {
			k--
		}
	}
	if k < 4 || !strings.EqualFold(s[k-4:k], "port") {
		return false
	}
	p := k - 4
	if p == 0 {
		return true
	}
	prev := s[p-1]
	isLetter := func(c byte) bool { return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' }
	// listenPort: a capital P after a lower-case letter starts a word.
	return !isLetter(prev) || s[p] == 'P' && 'a' <= prev && prev <= 'z'
}

// secretsOf returns what a sensitive input may be seen as in the output: the
// whole text without its line ending (a terminal echoes "\n" as "\r\n") and
// each of its non-empty lines.
func secretsOf(data string) []string {
	var out []string
	add := func(s string) {
		if s == "" {
			return
		}
		for _, o := range out {
			if o == s {
				return
			}
		}
		out = append(out, s)
	}
	add(strings.TrimRight(data, "\r\n"))
	for _, line := range strings.FieldsFunc(data, func(r rune) bool { return r == '\r' || r == '\n' }) {
		add(line)
	}
	return out
}

// streamRedactor redacts secrets in a stream cut into arbitrary chunks: a
// tail that could be the start of a secret, or an incomplete UTF-8 sequence,
// is held back until the next chunk (or Flush).
type streamRedactor struct {
	n       *Normalizer
	pending []byte
}

// Push returns the redacted text that can be released after chunk. What is
// held back is a suffix of the redacted text that could still become a
// secret, or an incomplete UTF-8 sequence; it holds raw bytes only, so it is
// redacted again with what follows.
func (r *streamRedactor) Push(chunk []byte) string {
	r.pending = append(r.pending, chunk...)
	red := r.n.Redact(string(r.pending))
	hold := incompleteUTF8(red)
	for _, sec := range r.n.Secrets {
		if k := suffixPrefix(red, sec); k > hold {
			hold = k
		}
	}
	r.pending = append(r.pending[:0], red[len(red)-hold:]...)
	return toValidUTF8(red[:len(red)-hold])
}

// suffixPrefix returns the length of the longest suffix of text that is a
// proper prefix of sec, in time linear in len(sec) (the prefix function of
// sec's head, a separator and text's tail), so long secrets and many chunks
// cannot make redaction quadratic.
func suffixPrefix(text, sec string) int {
	if len(sec) < 2 {
		return 0
	}
	head := sec[:len(sec)-1]
	tail := text[max(len(text)-len(head), 0):]
	// The separator is a position no byte matches.
	n := len(head) + 1 + len(tail)
	at := func(i int) int {
		switch {
		case i < len(head):
			return int(head[i])
		case i == len(head):
			return -1
		}
		return int(tail[i-len(head)-1])
	}
	pi := make([]int, n)
	for i := 1; i < n; i++ {
		k := pi[i-1]
		for k > 0 && at(i) != at(k) {
			k = pi[k-1]
		}
		if at(i) == at(k) {
			k++
		}
		pi[i] = k
	}
	return pi[n-1]
}

// Flush releases whatever was held back.
func (r *streamRedactor) Flush() string {
	if len(r.pending) == 0 {
		return ""
	}
	out := r.n.Redact(string(r.pending))
	r.pending = r.pending[:0]
	return toValidUTF8(out)
}

// incompleteUTF8 returns the length of a trailing incomplete UTF-8 sequence.
func incompleteUTF8(s string) int {
	for k := 1; k <= 3 && k <= len(s); k++ {
		c := s[len(s)-k]
		if c < 0x80 {
			return 0
		}
		if c >= 0xC0 { // a leading byte
			need := 2
			switch {
			case c >= 0xF0:
				need = 4
			case c >= 0xE0:
				need = 3
			}
			if need > k {
				return k
			}
			return 0
		}
	}
	return 0
}

func toValidUTF8(s string) string {
	if utf8.ValidString(s) {
		return s
	}
	return strings.ToValidUTF8(s, "\uFFFD")
}

// pidSet returns the decimal forms of pids.
func pidSet(pids []int) map[string]bool {
	m := make(map[string]bool, len(pids))
	for _, p := range pids {
		if p > 0 {
			m[strconv.Itoa(p)] = true
		}
	}
	return m
}
