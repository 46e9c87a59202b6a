// Command listen listens on a loopback port, prints it, keeps listening for
// a second and then until a line on stdin (or to be killed): a line typed
// before it listened (its start can be slow on a loaded machine, or behind
// unshare) must not end it before a capture's sampler has looked at it.
package main

import (
	"bufio"
	"fmt"
	"net"
	"os"
	"time"
)

func main() {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		fmt.Println("listen:", err)
		os.Exit(1)
	}
	defer l.Close()
	fmt.Printf("listening on 127.0.0.1:%d\n", l.Addr().(*net.TCPAddr).Port)
	time.Sleep(time.Second)
	bufio.NewReader(os.Stdin).ReadString('\n')
	fmt.Println("bye")
}
