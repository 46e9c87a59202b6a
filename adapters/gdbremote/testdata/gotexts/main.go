// A Go program that passes strings and byte slices (Go's register ABI: a
// pointer and a length, and a capacity for the slice): a word, empty ones,
// 300 bytes, and a string whose pointer is wild (Show reads only its
// length).
package main

import (
	"os"
	"strings"
	"unsafe"
)

//go:noinline
func Show(s string, b []byte) int { return len(s) + len(b) }

func main() {
	long := strings.Repeat("a", 300)
	n := Show("hello", []byte("bytes\x00\xff"))
	n += Show("", nil)
	n += Show(long, []byte(long)[:0])
	n += Show("x", []byte(strings.Repeat("b", 300)))
	n += Show(unsafe.String((*byte)(unsafe.Pointer(uintptr(16))), 4), nil)
	if n != 5+7+300+1+300+4 {
		os.Exit(1)
	}
}
