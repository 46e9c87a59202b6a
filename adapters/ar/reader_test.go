package ar_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"testing"

	"rea/adapters/ar"
	"rea/ports"
)

func openBytes(t testing.TB, b []byte, lim ports.ContainerLimits) (ports.Container, error) {
	t.Helper()
	return ar.Opener{}.OpenContainer(context.Background(), ports.ContainerRequest{Name: "lib.a", ReaderAt: bytes.NewReader(b), Size: int64(len(b)), Limits: lim})
}

func readAll(t testing.TB, c ports.Container, name string) []byte {
	t.Helper()
	rc, err := c.Open(context.Background(), name)
	if err != nil {
		t.Fatalf("open %s: %v", name, err)
	}
	defer rc.Close()
	b, err := io.ReadAll(rc)
	if err != nil {
		t.Fatalf("read %s: %v", name, err)
	}
	return b
}

// Every member of an archive ar builds is listed under its name (long
// names from the long-name table), in place, with the bytes "ar p" gives;
// the symbol index and the long-name table are not entries.
func TestGNUMembers(t *testing.T) {
	path, data := gnu(t, objects)
	c, err := openBytes(t, data, ports.ContainerLimits{})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	var names []string
	for _, e := range c.Entries() {
		names = append(names, e.Path)
		want, err := exec.Command("ar", "p", path, e.Path).Output()
		if err != nil {
			t.Fatalf("ar p %s: %v", e.Path, err)
		}
		if got := readAll(t, c, e.Path); !bytes.Equal(got, want) || e.Size != int64(len(want)) || !bytes.Equal(data[e.Offset:e.Offset+e.Length], want) {
			t.Errorf("%s: %d bytes (declared %d), not the %d bytes ar p gives", e.Path, len(got), e.Size, len(want))
		}
	}
	slices.Sort(names)
	var want []string
	for n := range objects {
		want = append(want, n)
	}
	slices.Sort(want)
	if !slices.Equal(names, want) {
		t.Fatalf("members %q, want %q", names, want)
	}
}

// A BSD archive's names lead the member's data, which starts after them;
// __.SYMDEF is not an entry.
func TestBSDMembers(t *testing.T) {
	data := bsd([2]string{"x.o", "one"}, [2]string{"a_long_bsd_member_name.o", "second"})
	c, err := openBytes(t, data, ports.ContainerLimits{})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	es := c.Entries()
	if len(es) != 2 || es[0].Path != "x.o" || es[1].Path != "a_long_bsd_member_name.o" {
		t.Fatalf("entries %+v", es)
	}
	if got := readAll(t, c, "a_long_bsd_member_name.o"); string(got) != "second" || es[1].Size != 6 {
		t.Fatalf("data %q, size %d", got, es[1].Size)
	}
}

// Duplicate names are normal in ar ("ar q" appends two foo.o): the first
// keeps its name, the k-th is listed as "foo.o~k" (what "ar xN k" gives),
// unless a member is declared under that name, when that copy is left out
// as a duplicate. Unsafe names are left out with their reason.
func TestDuplicatesAndUnsafeNames(t *testing.T) {
	members := []struct{ name, data string }{
		{"foo.o/", "first"}, {"foo.o/", "second"}, {"foo.o/", "third"}, {"foo.o~3/", "declared"},
		{"../up.o/", "x"}, {"/", "index"},
	}
	var b strings.Builder
	b.WriteString("!<arch>\n")
	for _, m := range members {
		b.WriteString(hdr(m.name, len(m.data)) + m.data + pad(len(m.data)))
	}
	c, err := openBytes(t, []byte(b.String()), ports.ContainerLimits{})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	got := map[string]string{}
	for _, e := range c.Entries() {
		got[e.Path] = string(readAll(t, c, e.Path))
	}
	want := map[string]string{"foo.o": "first", "foo.o~2": "second", "foo.o~3": "declared"}
	if len(got) != len(want) {
		t.Fatalf("entries %q, want %q", got, want)
	}
	for k, v := range want {
		if got[k] != v {
			t.Fatalf("entries %q, want %q", got, want)
		}
	}
	rej := c.(ports.EntryRejecter).Rejected()
	if len(rej) != 2 || rej[0].Name != "foo.o" || rej[0].Index != 2 || rej[0].Reason != "duplicate" || rej[1].Name != "../up.o" || rej[1].Reason != "dot-dot" {
		t.Fatalf("rejected %+v", rej)
	}
}

// A thin archive fails with a typed error that says its members are
// separate files.
func TestThinArchive(t *testing.T) {
	thin := []byte("!<thin>\n" + hdr("a.o/", 10))
	if f, ok := (ar.Opener{}).Recognize(thin, "libt.a"); !ok || f != ar.Format {
		t.Fatalf("Recognize: %q %v", f, ok)
	}
	_, err := openBytes(t, thin, ports.ContainerLimits{})
	var ce *ports.ContainerError
	if !errors.As(err, &ce) || ce.Reason != ports.ContainerUnavailable || !strings.Contains(err.Error(), "separate files") {
		t.Fatalf("thin archive: %v", err)
	}
}

// manyMembers is an archive of n empty members, "m/", synthesised as it is
// read rather than held in memory.
type manyMembers struct{ n int64 }

func (m manyMembers) size() int64 { return 8 + m.n*60 }

func (m manyMembers) ReadAt(p []byte, off int64) (int, error) {
	h := []byte(hdr("m.o/", 0))
	for i := range p {
		o := off + int64(i)
		switch {
		case o >= m.size():
			return i, io.EOF
		case o < 8:
			p[i] = "!<arch>\n"[o]
		default:
			p[i] = h[(o-8)%60]
		}
	}
	return len(p), nil
}

// Hostile archives fail with a typed error (reason format, or limit naming
// the field) and never panic.
func TestHostile(t *testing.T) {
	long := strings.Repeat("n", 40) + "/\n"
	for _, tc := range []struct {
		name, data string
		lim        ports.ContainerLimits
		reason     string
		limit      string
	}{
		{"truncated header", "!<arch>\n" + hdr("a.o/", 2)[:30], ports.ContainerLimits{}, ports.ContainerFormat, ""},
		{"no terminator", "!<arch>\n" + hdr("a.o/", 2)[:58] + "xx" + "ab", ports.ContainerLimits{}, ports.ContainerFormat, ""},
		{"size past the file", "!<arch>\n" + hdr("a.o/", 1000) + "ab", ports.ContainerLimits{}, ports.ContainerFormat, ""},
		{"negative size", "!<arch>\n" + hdr("a.o/", -5) + "ab", ports.ContainerLimits{}, ports.ContainerFormat, ""},
		{"name past the table", "!<arch>\n" + hdr("//", len(long)) + long + hdr("/400", 2) + "ab", ports.ContainerLimits{}, ports.ContainerFormat, ""},
		{"name without a table", "!<arch>\n" + hdr("/0", 2) + "ab", ports.ContainerLimits{}, ports.ContainerFormat, ""},
		{"huge long-name table", "!<arch>\n" + hdr("//", 17<<20) + strings.Repeat("x", 17<<20), ports.ContainerLimits{}, ports.ContainerFormat, ""},
		{"BSD name past the member", "!<arch>\n" + hdr("#1/50", 4) + "abcd", ports.ContainerLimits{}, ports.ContainerFormat, ""},
		{"BSD name over max_path_bytes", "!<arch>\n" + hdr("#1/20", 24) + strings.Repeat("n", 20) + "abcd", ports.ContainerLimits{MaxPathBytes: 10}, ports.ContainerLimit, "max_path_bytes"},
		{"not an archive", "!<arcx>\n", ports.ContainerLimits{}, ports.ContainerFormat, ""},
		{"empty", "", ports.ContainerLimits{}, ports.ContainerFormat, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := openBytes(t, []byte(tc.data), tc.lim)
			var ce *ports.ContainerError
			if !errors.As(err, &ce) || ce.Reason != tc.reason || ce.Limit != tc.limit {
				t.Fatalf("got %v, want reason %s %s", err, tc.reason, tc.limit)
			}
		})
	}
	t.Run("a million members", func(t *testing.T) {
		m := manyMembers{n: 1_000_000}
		_, err := ar.Opener{}.OpenContainer(context.Background(), ports.ContainerRequest{Name: "lib.a", ReaderAt: m, Size: m.size()})
		var ce *ports.ContainerError
		if !errors.As(err, &ce) || ce.Reason != ports.ContainerLimit || ce.Limit != "max_entries" {
			t.Fatalf("got %v, want max_entries", err)
		}
	})
}

// A real static library: every member "ar t" lists is an entry, in order
// (duplicates under "name~k").
func TestRealLibrary(t *testing.T) {
	const path = "/usr/lib/x86_64-linux-gnu/libc.a"
	data, err := os.ReadFile(path)
	if err != nil {
		t.Skipf("no %s: %v", path, err)
	}
	out, err := exec.Command("ar", "t", path).Output()
	if err != nil {
		t.Skipf("ar t: %v", err)
	}
	c, err := openBytes(t, data, ports.ContainerLimits{})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	var want []string
	seen := map[string]int{}
	for _, n := range strings.Split(strings.TrimSuffix(string(out), "\n"), "\n") {
		if seen[n]++; seen[n] > 1 {
			n += "~" + strconv.Itoa(seen[n])
		}
		want = append(want, n)
	}
	var got []string
	for _, e := range c.Entries() {
		got = append(got, e.Path)
	}
	if !slices.Equal(got, want) {
		t.Fatalf("%d entries, ar t lists %d", len(got), len(want))
	}
	if r := c.(ports.EntryRejecter).Rejected(); len(r) != 0 {
		t.Fatalf("rejected %+v", r)
	}
}
