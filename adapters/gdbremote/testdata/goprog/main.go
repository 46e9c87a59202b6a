// A Go program that calls Target with known arguments (Go's register ABI).
package main

import "os"

//go:noinline
func Target(a, b, c int) int {
	return a*100 + b*10 + c
}

func main() {
	sum := 0
	for i := 1; i <= 3; i++ {
		sum += Target(i, i+1, i+2)
	}
	if sum != 123+234+345 {
		os.Exit(1)
	}
}
