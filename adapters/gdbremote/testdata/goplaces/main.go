// Command goplaces passes Take a pointer into the Go heap and one into its
// goroutine's stack, both in the Go heap's mappings.
package main

import (
	"fmt"
	"os"
)

var sink *[64]byte

//go:noinline
func Take(p *[64]byte, n int) int { return int(p[n]) }

func main() {
	h := new([64]byte)
	sink = h // escapes: in the Go heap
	var local [64]byte
	local[2] = 1
	fmt.Fprintln(os.Stdout, Take(h, 1)+Take(&local, 2))
}
