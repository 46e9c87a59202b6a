// Command listen listens on a loopback port, prints it and waits for a line
// on stdin (or to be killed).
package main

import (
	"bufio"
	"fmt"
	"net"
	"os"
)

func main() {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		fmt.Println("listen:", err)
		os.Exit(1)
	}
	defer l.Close()
	fmt.Printf("listening on 127.0.0.1:%d\n", l.Addr().(*net.TCPAddr).Port)
	bufio.NewReader(os.Stdin).ReadString('\n')
	fmt.Println("bye")
}
