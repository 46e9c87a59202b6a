package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
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
// to the stack its offset from the stack pointer, one to the heap (heap),
// and an integer nothing, on each architecture's lane.
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
			is.True(strings.HasSuffix(rows[4], " (heap), n=0x3 main void")) // malloc's main arena (under qemu-user: the guest's brk heap)

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

// placesC passes pointers into a worker thread's stack (from the worker,
// then from main while the worker waits), an anonymous mapping and a
// file's mapping (argv[1] from offset 4096).
const placesC = `#include <fcntl.h>
#include <pthread.h>
#include <sys/mman.h>
static pthread_barrier_t ready, done;
static char *shared;
__attribute__((noinline)) int look(const void *p, int n) { __asm__ volatile("" ::: "memory"); return ((const char *)p)[n]; }
static void *worker(void *a) { char local[64] = "w"; look(local, 1); shared = local;
  pthread_barrier_wait(&ready); pthread_barrier_wait(&done); return a; }
int main(int argc, char **argv) { pthread_t t; pthread_barrier_init(&ready, 0, 2); pthread_barrier_init(&done, 0, 2);
  pthread_create(&t, 0, worker, 0); pthread_barrier_wait(&ready); look(shared, 1); pthread_barrier_wait(&done); pthread_join(t, 0);
  char *anon = mmap(0, 8192, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0); look(anon + 16, 1);
  int fd = open(argv[1], O_RDONLY); char *f = mmap(0, 4096, PROT_READ, MAP_PRIVATE, fd, 4096);
  if (f == MAP_FAILED) return 1; look(f + 5, 1); return 0; }
`

// rea trace gives a pointer into the calling thread's stack when that is
// not the main thread (stack sp+0x..), into another thread's stack with the
// thread as raw_result numbers threads (thread 1's stack), into anonymous
// memory (anonymous+0x..) and into a file's mapping the file's name and the
// offset in the file, on each architecture's lane.
func TestCLITraceMappings(t *testing.T) {
	if runtime.GOARCH != "amd64" || runtime.GOOS != "linux" {
		t.Skip("the trace lanes are tested on x86-64 Linux hosts")
	}
	for _, lane := range cTraceLanes {
		t.Run(lane.name, func(t *testing.T) {
			is := is.New(t)
			lane.need(t)
			exe := buildCWith(t, lane.cc, "places", placesC, "-O1", "-pthread")
			if lane.name == "x86" {
				// QEMU 7.2 hangs a threaded i386 program on the host's
				// /lib32 libc, which the loader cache picks with Debian's
				// libc6-i386 installed: the sysroot's, as the adapter's
				// emulator tests pin it.
				t.Setenv("LD_LIBRARY_PATH", "/usr/i686-linux-gnu/lib")
			}
			data := filepath.Join(t.TempDir(), "data.bin")
			is.NoErr(os.WriteFile(data, []byte(strings.Repeat("d", 8192)), 0o644))
			out, stderr, code := runCLI(t, "trace", "--function", "look", "--", exe, data)
			t.Log(out, stderr)
			is.Equal(code, 0)
			rows := traceRows(out)
			is.Equal(len(rows), 4)
			is.True(strings.HasPrefix(rows[0], "look p=0x") && strings.Contains(rows[0], " (stack sp+0x"))
			is.True(strings.Contains(rows[1], " (thread 1's stack sp+0x")) // main, into the waiting worker's
			is.True(strings.Contains(rows[2], " (anonymous+0x"))
			is.True(strings.Contains(rows[3], " (data.bin+0x1005), n=0x1 main"))
			noDescendants(t)
		})
	}
}

// tlsC passes pointers into threads' thread-local storage: errno's
// address from main, a __thread variable's from a worker, and the
// worker's from main while the worker waits.
const tlsC = `#include <errno.h>
#include <pthread.h>
static pthread_barrier_t ready, done;
static int *shared;
__thread int tv = 3;
__attribute__((noinline)) int look(const void *p, int n) { __asm__ volatile("" ::: "memory"); return ((const char *)p)[n]; }
static void *worker(void *a) { look(&tv, 1); shared = &tv; pthread_barrier_wait(&ready); pthread_barrier_wait(&done); return a; }
int main(void) { pthread_t t; look(&errno, 1); pthread_barrier_init(&ready, 0, 2); pthread_barrier_init(&done, 0, 2);
  pthread_create(&t, 0, worker, 0); pthread_barrier_wait(&ready); look(shared, 1); pthread_barrier_wait(&done); pthread_join(t, 0); return 0; }
`

// rea trace gives a pointer into a thread's TLS its offset from that
// thread's pointer (tls tp-0x..; tp+0x.. on AArch64, where the blocks lie
// above it), naming another thread as raw_result numbers threads, on each
// architecture's lane.
func TestCLITraceTLS(t *testing.T) {
	if runtime.GOARCH != "amd64" || runtime.GOOS != "linux" {
		t.Skip("the trace lanes are tested on x86-64 Linux hosts")
	}
	for _, lane := range cTraceLanes {
		t.Run(lane.name, func(t *testing.T) {
			is := is.New(t)
			lane.need(t)
			exe := buildCWith(t, lane.cc, "tls", tlsC, "-O1", "-pthread")
			if lane.name == "x86" {
				t.Setenv("LD_LIBRARY_PATH", "/usr/i686-linux-gnu/lib") // as TestCLITraceMappings
			}
			out, stderr, code := runCLI(t, "trace", "--function", "look", "--", exe)
			t.Log(out, stderr)
			is.Equal(code, 0)
			rows := traceRows(out)
			is.Equal(len(rows), 3)
			sign := map[bool]string{true: "+", false: "-"}[lane.name == "arm64"]
			is.True(strings.HasPrefix(rows[0], "look p=0x") && strings.Contains(rows[0], " (tls tp"+sign+"0x")) // errno
			is.True(strings.Contains(rows[1], " (tls tp"+sign+"0x"))                                            // the worker's own
			is.True(strings.Contains(rows[2], " (thread 2's tls tp"+sign+"0x"))                                 // main, into the worker's
			noDescendants(t)
		})
	}
}

// formatPlacesC passes printf pointers to the heap, the stack and a file's
// mapping (argv[1] from offset 4096) as conversions' arguments: first in
// the argument registers (x86-64's, AArch64's; i386's stack slots), then
// past seven numbers, on the stack on every convention; sprintf the
// mapping's text past six; and vfprintf a heap and a mapping pointer in a
// va_list.
const formatPlacesC = `#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
__attribute__((noinline)) static void logf_(const char *fmt, ...) { va_list ap; va_start(ap, fmt); vfprintf(stdout, fmt, ap); va_end(ap); }
int main(int argc, char **argv) { int local = argc; char *h = malloc(32); strcpy(h, "heap");
  int fd = open(argv[1], O_RDONLY); char *f = mmap(0, 4096, PROT_READ, MAP_PRIVATE, fd, 4096);
  if (f == MAP_FAILED) return 1;
  printf("%s %p %d\n", h, (void *)&local, 7);
  printf("%d %d %d %d %d %d %d %p %p %p %s\n", 1, 2, 3, 4, 5, 6, 7, (void *)h, (void *)&local, (void *)(f + 5), f + 5);
  char out[64]; sprintf(out, "%d %d %d %d %d %d %s", 1, 2, 3, 4, 5, 6, f + 5); puts(out);
  logf_("%p %p\n", (void *)h, (void *)(f + 5));
  return local == argc ? 0 : 1; }
`

// rea trace places a printf-family call's pointer conversions' arguments
// as it places fixed ones, wherever they arrive (registers, stack slots,
// a va_list):
// %p's in the heap, the calling thread's stack and a file's mapping, and
// a %s's (its text in the row; the place in the result); a %d's nowhere.
func TestCLITraceFormatPlaces(t *testing.T) {
	if runtime.GOARCH != "amd64" || runtime.GOOS != "linux" {
		t.Skip("the trace lanes are tested on x86-64 Linux hosts")
	}
	for _, lane := range cTraceLanes {
		t.Run(lane.name, func(t *testing.T) {
			is := is.New(t)
			lane.need(t)
			exe := buildCWith(t, lane.cc, "fmtplaces", formatPlacesC, "-O1")
			data := filepath.Join(t.TempDir(), "data.bin")
			text := append([]byte(strings.Repeat("x", 4096)), "0123456789abcdef\x00"...)
			is.NoErr(os.WriteFile(data, append(text, make([]byte, 4096)...), 0o644))
			out, stderr, code := runCLI(t, "trace", "--function", "printf,sprintf,vfprintf", "--", exe, data)
			t.Log(out, stderr)
			is.Equal(code, 0)
			rows := traceRows(out)
			is.Equal(len(rows), 4)
			is.True(strings.HasPrefix(rows[0], `printf format="%s %p %d\n", %s="heap", %p=0x`))
			is.True(strings.Contains(rows[0], ` (stack sp+0x`) && strings.Contains(rows[0], `), %d=0x7 main `))
			is.True(strings.HasPrefix(rows[1], `printf format="%d %d %d %d %d %d %d %p %p %p %s\n", %d=0x1, %d=0x2, %d=0x3, %d=0x4, %d=0x5, %d=0x6, %d=0x7, %p=0x`))
			is.True(strings.Contains(rows[1], ` (heap), %p=0x`))
			is.True(strings.Contains(rows[1], ` (stack sp+0x`))
			is.True(strings.Contains(rows[1], ` (data.bin+0x1005), %s="56789abcdef" main `))
			is.True(strings.HasPrefix(rows[2], `sprintf str=0x`) && strings.Contains(rows[2], `, %d=0x6, %s="56789abcdef" main `))
			is.True(strings.HasPrefix(rows[3], `vfprintf stream=0x`) && strings.Contains(rows[3], ` (heap), %p=0x`))
			is.True(strings.Contains(rows[3], ` (data.bin+0x1005) logf_ 0x`)) // the count printed: the pointers' length

			// The result places the %s's too: sprintf's in the mapping.
			out, stderr, code = runCLI(t, "--format", "json", "trace", "--function", "sprintf", "--", exe, data)
			is.Equal(code, 0)
			var r struct {
				Result struct {
					Hits []struct {
						Arguments []map[string]any `json:"arguments"`
					} `json:"hits"`
				} `json:"normalized_result"`
			}
			is.NoErr(json.Unmarshal([]byte(out), &r))
			t.Log(out, stderr)
			is.Equal(len(r.Result.Hits), 1)
			args := r.Result.Hits[0].Arguments
			last := args[len(args)-1]
			is.Equal(last["parameter"], "%s")
			is.Equal(last["mapping"], map[string]any{"file": data, "offset": "0x1005"})
			noDescendants(t)
		})
	}
}
