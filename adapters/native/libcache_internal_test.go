package native

import (
	"context"
	"crypto/sha256"
	"debug/elf"
	"encoding/hex"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"testing"
	"time"

	"rea/ports"
)

// libCacheTarget builds a stripped static hello and returns it with the
// installed x86-64 C library archives.
func libCacheTarget(t *testing.T) (string, []string) {
	t.Helper()
	for _, tool := range []string{"gcc", "strip"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s not found: apt install gcc binutils", tool)
		}
	}
	libs := InstalledLibraries(elf.EM_X86_64)
	if len(libs) == 0 {
		t.Skip("no libc.a: apt install libc6-dev")
	}
	dir := t.TempDir()
	src := filepath.Join(dir, "hello.c")
	if err := os.WriteFile(src, []byte("#include <stdio.h>\nint main(void) { puts(\"hello\"); return 0; }\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	prog := filepath.Join(dir, "hello")
	for _, c := range [][]string{{"gcc", "-static", "-O2", "-o", prog, src}, {"strip", prog}} {
		if out, err := exec.Command(c[0], c[1:]...).CombinedOutput(); err != nil {
			t.Fatalf("%v: %v\n%s", c, err, out)
		}
	}
	return prog, libs
}

// libView is what an open says about the libraries, to compare a warm
// open with a cold one.
type libView struct {
	procs   []string
	names   []string
	profile string
	notes   []string
	key     string
}

func viewLibs(t *testing.T, a *Analysis) libView {
	t.Helper()
	ctx := context.Background()
	ps, err := a.Procedures(ctx)
	if err != nil {
		t.Fatal(err)
	}
	ns, err := a.Names(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var v libView
	for _, p := range ps {
		v.procs = append(v.procs, fmt.Sprintf("%x %s %s %d", p.Address, p.Name, p.Source, p.Size))
	}
	for _, n := range ns {
		v.names = append(v.names, fmt.Sprintf("%x %s %s", n.Address, n.Name, n.Kind))
	}
	v.profile = fmt.Sprint(a.Profile())
	v.notes = a.libraryNotes()
	if k, ok := a.cacheKey(ctx); ok {
		v.key = k.Digest()
	}
	return v
}

// The second open of a target with the same libraries reads the match
// from the library cache and makes no pattern, with every list, the
// profile (each library's SHA-256 included) and the notes of the cold
// open. A library whose identity changed is read again (a new change time
// with the same bytes; new bytes, whose SHA-256 the profile then names),
// and a corrupt or foreign entry is ignored and replaced. With the cache
// off, nothing is kept.
func TestLibraryCacheWarm(t *testing.T) {
	prog, installed := libCacheTarget(t)
	root := t.TempDir()
	// A copy of libc.a, to change.
	lib := filepath.Join(t.TempDir(), "libc.a")
	b, err := os.ReadFile(installed[0])
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(lib, b, 0o644); err != nil {
		t.Fatal(err)
	}
	// Named by a GNU ld script (as Debian's libm.a names libm-2.36.a),
	// so that the cache key, which has the script's identity, stays the
	// same when the copy changes: the entry's list of files read must
	// catch it.
	script := filepath.Join(t.TempDir(), "libc-script.a")
	if err := os.WriteFile(script, []byte("/* GNU ld script */\nGROUP ( "+lib+" )\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	libs := &SignatureLibraries{Paths: []string{script}}
	open := func(cacheDir string) *Analysis {
		t.Helper()
		an, err := New(&Options{CacheDir: cacheDir, SignatureLibraries: libs}).Open(context.Background(), targetOf(prog))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { an.Close(context.Background()) })
		return an.(*Analysis)
	}
	// made reports whether the open made patterns (it keeps them for
	// discovery, which has not run).
	made := func(a *Analysis) bool {
		a.lib.mu.Lock()
		defer a.lib.mu.Unlock()
		return a.lib.ix != nil
	}
	cold := open(root)
	if !made(cold) {
		t.Fatal("the cold open made no patterns")
	}
	want := viewLibs(t, cold)
	if len(cold.lib.cands) < 100 {
		t.Fatalf("the cold open named %d procedures", len(cold.lib.cands))
	}
	warm := open(root)
	if made(warm) {
		t.Fatal("the warm open made patterns")
	}
	if got := viewLibs(t, warm); !reflect.DeepEqual(got, want) {
		t.Fatalf("warm open differs from the cold one:\n%+v\n%+v", got.notes, want.notes)
	}
	// Names given by where the named functions call them (glibc's own
	// functions call __stack_chk_fail, which the layout's static canary
	// reads) are kept, and counted apart.
	if cold.lib.byCallers == 0 || warm.lib.byCallers != cold.lib.byCallers {
		t.Fatalf("named by callers: warm %d, cold %d", warm.lib.byCallers, cold.lib.byCallers)
	}
	if !slices.ContainsFunc(warm.lib.cands, func(c candidate) bool { return c.name == "__stack_chk_fail" }) {
		t.Fatal("the warm open does not name __stack_chk_fail")
	}

	entry := func(a *Analysis) string {
		key, ok := a.libCacheKey(context.Background(), a.lib.paths)
		if !ok {
			t.Fatal("no library cache key")
		}
		sum := sha256.Sum256([]byte(libCacheEntry))
		return filepath.Join(root, key.Digest(), hex.EncodeToString(sum[:])+".entry")
	}
	for name, junk := range map[string][]byte{
		"corrupt": append(append([]byte(nil), libCacheMagic...), 0xff, 0xff, 0xff),
		"foreign": encodeProgram(&program{}),
		"cut":     mustRead(t, entry(warm))[:40],
	} {
		if err := os.WriteFile(entry(warm), junk, 0o600); err != nil {
			t.Fatal(err)
		}
		again := open(root)
		if !made(again) {
			t.Fatalf("%s entry: trusted", name)
		}
		if got := viewLibs(t, again); !reflect.DeepEqual(got, want) {
			t.Fatalf("%s entry: the open differs from the cold one", name)
		}
		if _, err := decodeLibResult(mustRead(t, entry(again))); err != nil {
			t.Fatalf("%s entry: not replaced: %v", name, err)
		}
	}

	// A new change time, same bytes: read again, same result.
	now := time.Now()
	if err := os.Chtimes(lib, now, now); err != nil {
		t.Fatal(err)
	}
	touched := open(root)
	if !made(touched) {
		t.Fatal("a library with a new change time was trusted")
	}
	if got := viewLibs(t, touched); !reflect.DeepEqual(got.procs, want.procs) || got.profile != want.profile {
		t.Fatal("same bytes, another result")
	}
	// New bytes (the first member's modification time, which names the
	// same functions): the profile names the new SHA-256.
	nb := slices.Clone(b)
	nb[len(arMagic)+16] ^= 1 // a digit of the decimal mtime
	if err := os.WriteFile(lib, nb, 0o644); err != nil {
		t.Fatal(err)
	}
	changed := open(root)
	if !made(changed) {
		t.Fatal("a changed library was trusted")
	}
	sum := sha256.Sum256(nb)
	if got := changed.lib.used[0].sha256; got != hex.EncodeToString(sum[:]) {
		t.Fatalf("profile SHA-256 %s is not the changed file's", got)
	}
	if !made(changed) || made(open(root)) {
		t.Fatal("the changed library's match was not kept")
	}

	// Off: nothing is kept.
	off := open("")
	if !made(off) || !made(open("")) {
		t.Fatal("the cache off kept a match")
	}
}

// targetOf is the target an opener passes for path, with its digest.
func targetOf(path string) ports.Target {
	b, _ := os.ReadFile(path)
	sum := sha256.Sum256(b)
	return ports.Target{Path: path, SHA256: hex.EncodeToString(sum[:])}
}

func mustRead(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// FuzzLibraryCacheEntry: no entry decodes with a panic, and one that
// decodes encodes to an entry that decodes to the same result.
func FuzzLibraryCacheEntry(f *testing.F) {
	res := &libResult{files: []libFile{{"/x/libc.a", "dev=1 ino=2"}, {"/x/gone.a", "absent: no such file or directory"}},
		used: []libUse{{path: "/x/libc.a", sha256: fmt.Sprintf("%064x", 7), matched: 2}}, ambiguous: 3, short: 4, refuted: 5, byCallers: 1,
		notes: []string{"note"}, cands: []candidate{{addr: 0x401000, name: "puts", size: 40}, {addr: 0x401100, name: "__chk_fail"}}}
	f.Add(encodeLibResult(res))
	f.Add(encodeLibResult(&libResult{}))
	f.Add(libCacheMagic)
	f.Fuzz(func(t *testing.T, b []byte) {
		got, err := decodeLibResult(b)
		if err != nil {
			return
		}
		again, err := decodeLibResult(encodeLibResult(got))
		if err != nil || !reflect.DeepEqual(again, got) {
			t.Fatalf("an entry that decodes does not survive encoding: %v", err)
		}
	})
}
