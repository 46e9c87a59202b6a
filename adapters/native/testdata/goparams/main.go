// A Go program whose functions take parameters of several registers under
// Go's register ABI: strings, slices, interfaces, structs, complex numbers,
// arrays, and more than the integer registers hold.
package main

import (
	"os"
	"unsafe"
)

type pair struct{ a, b int }

type empty struct{}

//go:noinline
func (h empty) tag(s string) int { return len(s) }

//go:noinline
func text(s string, n int, b []byte) int { return len(s) + n + len(b) }

//go:noinline
func mixed(err error, x float64, p pair, c complex128, one [1]int, two [2]int, e any, m map[string]int) int {
	return p.a + one[0] + two[1] + len(m)
}

//go:noinline
func spill(a, b, c, d, e, f, g int, s []byte, x int) int { return a + x + len(s) }

//go:noinline
func other(fn func(), ch chan int, up unsafe.Pointer, ok bool, i8 int8, f32 float32, ps *string) int {
	return int(i8)
}

func main() {
	n := text("hi", 1, nil) + mixed(nil, 1, pair{}, 0, [1]int{}, [2]int{}, nil, nil) +
		spill(1, 2, 3, 4, 5, 6, 7, nil, 9) + other(nil, nil, nil, true, 1, 1, nil) + empty{}.tag("x")
	os.Exit(n % 2)
}
