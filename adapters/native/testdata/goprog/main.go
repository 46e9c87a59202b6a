// Command goprog is the Go fixture for the native provider's tests; the tests
// cross-compile it for linux/arm64, windows/amd64 and darwin/arm64.
package main

import "fmt"

var marker = "rea-go-fixture-marker"

func main() {
	fmt.Println(marker, add(2, 3))
}

//go:noinline
func add(a, b int) int { return a + b }
