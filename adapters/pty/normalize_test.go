package pty

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/matryer/is"

	"rea/ports"
)

func TestNormalize(t *testing.T) {
	n := &Normalizer{
		Secrets: []string{"s3cret"},
		Paths: map[string]string{
			"/tmp/rea-capture-1":     placeholderTemporaryRoot,
			"/home/u/work":           placeholderWorkingDir,
			"/home/u/work/bin/prog":  placeholderExecutable,
			"/home/u/work/observed":  "<filesystem-root-0>",
			"/":                      "<never>",
			"":                       "<never>",
			"/home/u/work/observed2": "<filesystem-root-1>",
		},
		PIDs:     pidSet([]int{123, 4567}),
		Ports:    true,
		Patterns: []ports.LiteralReplacement{{Pattern: "Tuesday", Replacement: "<day>"}},
	}
	cases := []struct{ in, want string }{
		{"", ""},
		{"pw=s3cret!", "pw=<redacted>!"},
		{"s3cret", "<redacted>"},
		{"/home/u/work/bin/prog ran in /home/u/work", "<executable> ran in <working-directory>"},
		{"/home/u/work/observed2/x and /home/u/work/observed/y", "<filesystem-root-1>/x and <filesystem-root-0>/y"},
		{"tmp /tmp/rea-capture-1/f", "tmp <temporary-root>/f"},
		{"pid 123 ppid 4567", "pid <pid> ppid <pid>"},
		{"1234 12 0123 4567890 123", "1234 12 0123 4567890 <pid>"}, // whole digit runs only
		// Ports only where the text says they are endpoints: after a loopback
		// or IPv4 host, a bracketed IPv6 host, a URL's host, a bare ':' (a
		// listen address) or the word port.
		{"on 127.0.0.1:8080, http://localhost:3000/x, https://api.example.com:8443/ and [::1]:9000", "on 127.0.0.1:<port>, http://localhost:<port>/x, https://api.example.com:<port>/ and [::1]:<port>"},
		{"listen :8080 or *:80; port 5432, PORT=6379, --port=9229, listenPort: 4000, db_port 27017", "listen :<port> or *:<port>; port <port>, PORT=<port>, --port=<port>, listenPort: <port>, db_port <port>"},
		// Values that only look like ports are output, and a change in
		// them is a change: a=12 against a=24 must not compare equal.
		{"area=12 count=100 x:10 main.c:42: at 12:30:45 host:8080", "area=12 count=100 x:10 main.c:42: at 12:30:45 host:8080"},
		{"export=12 report: 42 support 10 import 80", "export=12 report: 42 support 10 import 80"},
		{"127.0.0.1:123456 localhost:80x localhost:1 port 70000 e:65535/", "127.0.0.1:123456 localhost:80x localhost:1 port 70000 e:65535/"},
		{"pid=123", "pid=<pid>"},                    // pids before ports
		{"at 127.0.0.1:4567", "at 127.0.0.1:<pid>"}, // a known pid wins over the port pass
		{"on Tuesday", "on <day>"},
		{"é:80é localhost:80é", "é:80é localhost:<port>é"},
	}
	for _, tc := range cases {
		t.Run(tc.in, func(t *testing.T) {
			is := is.New(t)
			is.Equal(n.Normalize(tc.in), tc.want)
		})
	}
}

func TestNormalizeOff(t *testing.T) {
	is := is.New(t)
	n := &Normalizer{Secrets: []string{"pw"}}
	is.Equal(n.Normalize("pid 123 host:8080 /tmp pw"), "pid 123 host:8080 /tmp <redacted>")
}

func TestSecretsOf(t *testing.T) {
	is := is.New(t)
	is.Equal(secretsOf("hunter2\n"), []string{"hunter2"})
	is.Equal(secretsOf("a\r\nbb\n"), []string{"a\r\nbb", "a", "bb"})
	is.Equal(len(secretsOf("\n")), 0)
}

// A secret cut across chunks is still redacted, and no byte is lost.
func TestStreamRedactor(t *testing.T) {
	is := is.New(t)
	r := &streamRedactor{n: &Normalizer{Secrets: []string{"hunter2"}}}
	var out strings.Builder
	for _, c := range []string{"the secret is hun", "te", "r2\r\nbye h", "unt", "\xe2\x82", "\xac end h"} {
		out.WriteString(r.Push([]byte(c)))
	}
	out.WriteString(r.Flush())
	is.Equal(out.String(), "the secret is <redacted>\r\nbye hunt€ end h")
}

func TestIncompleteUTF8(t *testing.T) {
	is := is.New(t)
	is.Equal(incompleteUTF8("a"), 0)
	is.Equal(incompleteUTF8("a\xe2"), 1)
	is.Equal(incompleteUTF8("a\xe2\x82"), 2)
	is.Equal(incompleteUTF8("a\xe2\x82\xac"), 0)
	is.Equal(incompleteUTF8("\xf0\x9f\x98"), 3)
	is.Equal(incompleteUTF8("\x80\x80\x80\x80"), 0)
}

func FuzzNormalize(f *testing.F) {
	f.Add("pid 123 at host:8080 pw=hunter2", "hunter2", "123", "/tmp/x", "abc")
	f.Add("/tmp/x/y 4567:80", "", "4567", "/tmp/x", "")
	f.Add("\xff\xfe:12345", "\xfe", "1", "", "x")
	f.Fuzz(func(t *testing.T, in, secret, pid, path, pattern string) {
		if !utf8.ValidString(secret) {
			return // secrets come from JSON strings
		}
		n := &Normalizer{Ports: true, PIDs: map[string]bool{pid: true}}
		if secret != "" {
			n.Secrets = []string{secret}
		}
		if strings.HasPrefix(path, "/") {
			// Paths are absolute (Normalizer.Paths): a key with no '/'
			// could match inside a placeholder ("a" in "<redacted>").
			n.Paths = map[string]string{path: placeholderWorkingDir}
		}
		out := n.Normalize(in)
		if pattern != "" {
			// Literal patterns run last and may rewrite anything, placeholders
			// included: they only have to be safe.
			withPatterns := *n
			withPatterns.Patterns = []ports.LiteralReplacement{{Pattern: pattern, Replacement: "<p>"}}
			withPatterns.Normalize(in)
		}
		// A secret without placeholder characters never survives, whatever
		// the other passes do (they only insert placeholders).
		plain := out
		for _, p := range []string{placeholderRedacted, placeholderWorkingDir, placeholderPID, placeholderPort, "<p>"} {
			plain = strings.ReplaceAll(plain, p, "\x00")
		}
		if secret != "" && !strings.ContainsAny(secret, "<>\x00") && strings.Contains(plain, secret) {
			t.Fatalf("secret %q survives in %q", secret, out)
		}
		if utf8.ValidString(in) && utf8.ValidString(secret) && utf8.ValidString(pattern) && utf8.ValidString(path) && !utf8.ValidString(out) {
			t.Fatalf("valid input became invalid UTF-8: %q", out)
		}
		// The stream redactor agrees with the one-shot redaction, however
		// the input is cut.
		r := &streamRedactor{n: &Normalizer{Secrets: n.Secrets}}
		var got strings.Builder
		for i := 0; i < len(in); i += 3 {
			got.WriteString(r.Push([]byte(in[i:min(i+3, len(in))])))
		}
		got.WriteString(r.Flush())
		streamed := strings.ReplaceAll(got.String(), placeholderRedacted, "\x00")
		if secret != "" && !strings.ContainsAny(secret, "<>\x00") && strings.Contains(streamed, secret) {
			t.Fatalf("secret %q survives streaming in %q", secret, got.String())
		}
		if utf8.ValidString(in) && utf8.ValidString(secret) && got.String() != n.Redact(in) {
			t.Fatalf("streamed %q, one shot %q", got.String(), n.Redact(in))
		}
	})
}

func TestSuffixPrefix(t *testing.T) {
	is := is.New(t)
	is.Equal(suffixPrefix("the secret is hun", "hunter2"), 3)
	is.Equal(suffixPrefix("aaaa", "aab"), 2)
	is.Equal(suffixPrefix("hunter2", "hunter2"), 0) // a whole secret is not a proper prefix
	is.Equal(suffixPrefix("xhunter", "hunter2"), 6)
	is.Equal(suffixPrefix("", "ab"), 0)
	is.Equal(suffixPrefix("a", "a"), 0)
	is.Equal(suffixPrefix("abab", "ababc"), 4)
	// Against the quadratic definition.
	for _, text := range []string{"abcabcab", "zzzzab", "aaaaaaaa", "abaabaab"} {
		for _, sec := range []string{"abcabcd", "ab", "aaaab", "abaabaac"} {
			want := 0
			for k := min(len(sec)-1, len(text)); k > 0; k-- {
				if strings.HasSuffix(text, sec[:k]) {
					want = k
					break
				}
			}
			is.Equal(suffixPrefix(text, sec), want)
		}
	}
}
