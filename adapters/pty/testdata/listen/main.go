// Command listen listens on a loopback port, prints it, keeps listening for
// a second and then until a line on stdin (or to be killed): a line typed
// before it listened (its start can be slow on a loaded machine, or behind
// unshare) must not end it before a capture's sampler has looked at it.
// With the argument late it first waits for a line on stdin, so that it
// listens after a capture's sampler first looked at it.
package main

import (
	"bufio"
	"fmt"
	"net"
	"os"
	"time"
)

func main() {
	in := bufio.NewReader(os.Stdin)
	if len(os.Args) > 1 && os.Args[1] == "late" {
		in.ReadString('\n')
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		fmt.Println("listen:", err)
		os.Exit(1)
	}
	defer l.Close()
	fmt.Printf("listening on 127.0.0.1:%d\n", l.Addr().(*net.TCPAddr).Port)
	time.Sleep(time.Second)
	in.ReadString('\n')
	fmt.Println("bye")
}
