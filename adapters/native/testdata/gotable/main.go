// Command gotable is the native provider's fixture for functions reached
// only through a table of function pointers; the tests build it as a
// linux/arm64 PIE, with and without symbols.
package main

import "os"

//go:noinline
func alpha(n int) int { return n*3 + 1 }

//go:noinline
func beta(n int) int { return n ^ 0x55 }

//go:noinline
func gamma(n int) int { return n - 7 }

var table = []func(int) int{alpha, beta, gamma}

func main() {
	os.Exit(table[len(os.Args)%len(table)](len(os.Args)))
}
