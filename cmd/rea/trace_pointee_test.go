package main

import (
	"os/exec"
	"runtime"
	"strings"
	"testing"

	"github.com/matryer/is"
)

// pointeeC passes addresses in the program's image (a global array and a
// callback to qsort, a place inside a static buffer) and in the C library
// (stderr's FILE).
const pointeeC = `#include <stdio.h>
#include <stdlib.h>
#include <string.h>
static int table[4] = {4,2,3,1};
static char scratch[32];
static int cmp(const void *a, const void *b) { return *(const int*)a - *(const int*)b; }
__attribute__((noinline)) void use(void *p, int n) { memset(p, 0, n); }
__attribute__((noinline)) void logto(FILE *f, int n) { fprintf(f, "%d\n", n); }
int main(int argc, char **argv) { int local[2] = {argc, 2}; qsort(table, 4, sizeof(int), cmp);
  use(scratch + 8, 4); use(local, 2); logto(stderr, table[0]); void *h = malloc(24); use(h, 3); free(h); return 0; }
`

// rea trace gives an argument that points in the program's image its
// link-time address's name (qsort's base and compar), or the sized object
// it lies inside with the offset (a place inside a buffer), and one that
// points in the C library
// the dynamic symbol around it and the library (stderr's FILE); a pointer
// to the stack its offset from the stack pointer, one to the heap (heap)
// where the program runs natively, and an integer nothing, on each
// architecture's lane.
// Stripped, the names are the other tools' (sub_<hex>) and the data's
// address and section.
func TestCLITracePointees(t *testing.T) {
	if runtime.GOARCH != "amd64" || runtime.GOOS != "linux" {
		t.Skip("the trace lanes are tested on x86-64 Linux hosts")
	}
	for _, lane := range cTraceLanes {
		t.Run(lane.name, func(t *testing.T) {
			is := is.New(t)
			lane.need(t)
			exe := buildCWith(t, lane.cc, "pointee", pointeeC, "-O1", "-g")
			out, stderr, code := runCLI(t, "trace", "--function", "qsort,use,logto", "--", exe)
			t.Log(out, stderr)
			is.Equal(code, 0)
			rows := traceRows(out)
			is.Equal(len(rows), 5)
			is.True(strings.HasPrefix(rows[0], "qsort base=0x"))
			is.True(strings.Contains(rows[0], " (table), nmemb=0x4, size=0x4, compar=0x"))
			is.True(strings.HasSuffix(rows[0], " (cmp) main void"))
			is.True(strings.HasPrefix(rows[1], "use p=0x") && strings.Contains(rows[1], " (scratch+0x8), n=0x4 main void"))
			is.True(strings.HasPrefix(rows[2], "use p=0x") && strings.HasSuffix(rows[2], ", n=0x2 main void"))
			is.True(strings.Contains(rows[2], " (stack sp+0x")) // main's local, above use's stack pointer
			is.True(strings.HasPrefix(rows[3], "logto f=0x") && strings.HasSuffix(rows[3], " (_IO_2_1_stderr_ in libc.so.6), n=0x1 main void"))
			if lane.stub == "gdbserver" {
				is.True(strings.HasSuffix(rows[4], " (heap), n=0x3 main void")) // malloc's main arena
			} else {
				is.True(!strings.Contains(rows[4], "(")) // an emulated program's heap is not known
			}

			strip := map[string]string{"gcc": "strip", "i686-linux-gnu-gcc": "i686-linux-gnu-strip", "aarch64-linux-gnu-gcc": "aarch64-linux-gnu-strip"}[lane.cc]
			if err := exec.Command(strip, exe).Run(); err != nil {
				t.Fatal(err)
			}
			out, stderr, code = runCLI(t, "trace", "--function", "qsort", "--", exe)
			t.Log(out, stderr)
			is.Equal(code, 0)
			rows = traceRows(out)
			is.Equal(len(rows), 1)
			is.True(strings.Contains(rows[0], " in .data), nmemb=0x4, size=0x4, compar=0x"))
			is.True(strings.Contains(rows[0], " (sub_"))
			noDescendants(t)
		})
	}
}
