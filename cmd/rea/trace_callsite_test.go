package main

import (
	"os/exec"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/matryer/is"
)

// callSitesC calls target directly and through a pointer (calls of
// different lengths on x86-64), puts through the GOT under -fno-plt (a
// call of a third length), and cmp from the C library's qsort.
const callSitesC = `#include <stdio.h>
#include <stdlib.h>
__attribute__((noinline)) int target(int a) { return a + 1; }
__attribute__((noinline)) int cmp(const void *a, const void *b) { return *(const int *)a - *(const int *)b; }
int (*volatile fp)(int) = target;
int main(int argc, char **argv) {
	int v[3] = {3, 1, 2};
	int s = target(argc);
	s += fp(s);
	qsort(v, 3, sizeof v[0], cmp);
	puts("done");
	return s + v[0] == 0;
}
`

// objdumpCalls maps the address of each instruction objdump decodes in
// exe to whether it is a call, and lists the addresses in order.
func objdumpCalls(t *testing.T, objdump, exe string) (map[uint64]bool, []uint64) {
	t.Helper()
	out, err := exec.Command(objdump, "-d", "--no-show-raw-insn", exe).Output()
	if err != nil {
		t.Fatalf("%s: %v", objdump, err)
	}
	line := regexp.MustCompile(`^\s*([0-9a-f]+):\s+(\S+)`)
	isCall := map[uint64]bool{}
	var addrs []uint64
	for _, l := range strings.Split(string(out), "\n") {
		m := line.FindStringSubmatch(l)
		if m == nil {
			continue
		}
		a, err := strconv.ParseUint(m[1], 16, 64)
		if err != nil {
			continue
		}
		if _, seen := isCall[a]; !seen {
			addrs = append(addrs, a)
		}
		isCall[a] = m[2] == "call" || m[2] == "callq" || m[2] == "bl" || m[2] == "blr"
	}
	slices.Sort(addrs)
	return isCall, addrs
}

// checkCallSites traces target, cmp and puts in exe over MCP: every hit
// from the program has a call_site, the call instruction objdump shows
// right before the return address; the direct call of target and the call
// of puts are the ones procedure_callers and find_xrefs_to_name list; cmp's hits, from the C
// library, have none. It returns the call sites' lengths (caller minus
// call_site), so a caller can see calls of more than one length.
func checkCallSites(t *testing.T, objdump, exe string) map[uint64]bool {
	t.Helper()
	is := is.New(t)
	isCall, addrs := objdumpCalls(t, objdump, exe)
	cs := mcpClient(t)
	if r := call(t, cs, "open_binary", map[string]any{"path": exe}); r.isError {
		t.Fatal(r.text)
	}
	r := call(t, cs, "trace_native_calls", map[string]any{"procedures": []string{"target", "cmp", "puts"}})
	if r.isError && qemuStubFault(r.text) {
		r = call(t, cs, "trace_native_calls", map[string]any{"procedures": []string{"target", "cmp", "puts"}})
	}
	_, m := evidence(t, r)
	static := map[string][]string{}
	for _, p := range []string{"target", "puts"} {
		_, cm := evidence(t, call(t, cs, "procedure_callers", map[string]any{"procedure": p}))
		for _, it := range cm["items"].([]any) {
			for _, s := range it.(map[string]any)["call_sites"].([]any) {
				static[p] = append(static[p], s.(string))
			}
		}
	}
	// find_xrefs_to_name gives the same address as a call reference's from.
	xrefs := map[string][]string{}
	for _, p := range []string{"target", "puts"} {
		_, xm := evidence(t, call(t, cs, "find_xrefs_to_name", map[string]any{"name": p}))
		for _, x := range xm["references"].([]any) {
			if x := x.(map[string]any); x["kind"] == "call" {
				xrefs[p] = append(xrefs[p], x["from"].(string))
			}
		}
	}
	lengths := map[uint64]bool{}
	seen := map[string]int{}
	for _, h := range m["hits"].([]any) {
		hm := h.(map[string]any)
		name := hm["name"].(string)
		seen[name]++
		if name == "cmp" {
			is.True(hm["caller_module"] != nil) // qsort, in the C library
			is.Equal(hm["call_site"], nil)
			continue
		}
		is.Equal(hm["caller_module"], nil)
		site, ok := hm["call_site"].(string)
		if !ok {
			t.Fatalf("hit %v has no call_site", hm)
		}
		at, err := strconv.ParseUint(strings.TrimPrefix(site, "0x"), 16, 64)
		is.NoErr(err)
		ret, err := strconv.ParseUint(strings.TrimPrefix(hm["caller"].(string), "0x"), 16, 64)
		is.NoErr(err)
		i, found := slices.BinarySearch(addrs, at)
		is.True(found && isCall[at])                   // a call instruction objdump shows
		is.True(i+1 < len(addrs) && addrs[i+1] == ret) // right before the return address
		lengths[ret-at] = true
		t.Logf("%s: caller %s, call_site %s", name, hm["caller"], site)
		if name == "puts" || seen[name] == 1 { // the direct call of target, and puts's
			is.True(slices.Contains(static[name], site)) // as procedure_callers names it
			is.True(slices.Contains(xrefs[name], site))  // and find_xrefs_to_name
		} else {
			is.True(!slices.Contains(static[name], site)) // through the pointer: not a static call of target
		}
	}
	is.Equal(seen, map[string]int{"target": 2, "cmp": seen["cmp"], "puts": 1})
	is.True(seen["cmp"] > 0)
	noDescendants(t)
	return lengths
}

// A traced call's call_site is the call instruction's address, the one
// the static tools give, whatever the call's length: five bytes for the
// direct call, two through a register, six through the GOT.
func TestMCPTraceCallSite(t *testing.T) {
	if _, err := exec.LookPath("gdbserver"); err != nil {
		t.Skip("gdbserver is not installed (Debian: apt-get install gdbserver)")
	}
	exe := buildC(t, "callsites", callSitesC, "-fno-plt")
	lengths := checkCallSites(t, "objdump", exe)
	if len(lengths) < 2 {
		t.Fatalf("calls of one length only: %v", lengths)
	}
}

// The same under qemu-aarch64: each call site is the bl or blr four bytes
// before the return address.
func TestMCPTraceCallSiteArm64UnderEmulation(t *testing.T) {
	needArm64Emulation(t)
	if _, err := exec.LookPath("aarch64-linux-gnu-objdump"); err != nil {
		t.Skip("aarch64-linux-gnu-objdump is not installed (Debian package binutils-aarch64-linux-gnu)")
	}
	exe := buildCWith(t, "aarch64-linux-gnu-gcc", "callsites", callSitesC, "-fno-plt")
	is.New(t).Equal(checkCallSites(t, "aarch64-linux-gnu-objdump", exe), map[uint64]bool{4: true})
}

// tailCallC's mid ends in a tail call of leaf (a jump at -O1 with
// -foptimize-sibling-calls).
const tailCallC = `volatile int sink;
__attribute__((noinline)) int leaf(int x) { sink = x; return 2 * x + 1; }
__attribute__((noinline)) int mid(int x) { sink = x + 100; return leaf(x + 1); }
int main(int argc, char **argv) { return mid(argc) & 0x3f; }
`

// A call a tail call entered has no call_site: main's call instruction
// before the return address calls mid, not leaf. tail_call_from names mid's
// hit, and caller and caller_procedure say where both return. Before,
// leaf's call_site was main's call of mid, which procedure_callers of leaf
// does not list.
func TestMCPTraceTailCalledHasNoCallSite(t *testing.T) {
	if _, err := exec.LookPath("gdbserver"); err != nil {
		t.Skip("gdbserver is not installed (Debian: apt-get install gdbserver)")
	}
	is := is.New(t)
	exe := buildC(t, "tailcall", tailCallC, "-O1", "-foptimize-sibling-calls")
	cs := mcpClient(t)
	if r := call(t, cs, "open_binary", map[string]any{"path": exe}); r.isError {
		t.Fatal(r.text)
	}
	_, m := evidence(t, call(t, cs, "trace_native_calls", map[string]any{"procedures": []string{"mid", "leaf"}}))
	hits := m["hits"].([]any)
	is.Equal(len(hits), 2)
	mid, leaf := hits[0].(map[string]any), hits[1].(map[string]any)
	is.Equal(mid["name"], "mid")
	is.True(mid["call_site"] != nil)
	is.Equal(mid["tail_call_from"], nil)
	is.Equal(leaf["name"], "leaf")
	is.Equal(leaf["call_site"], nil)
	is.Equal(leaf["tail_call_from"], float64(0))
	is.Equal(leaf["caller"], mid["caller"])
	is.Equal(leaf["caller_procedure"].(map[string]any)["name"], "main")
	noDescendants(t)
}
