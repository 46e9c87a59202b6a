// Command gen writes the winapi table (go generate in its package): it
// reads mingw-w64's i686 import libraries (Debian's mingw-w64-i686-dev)
// and writes their exports' stack bytes, gzip-compressed.
package main

import (
	"bytes"
	"compress/gzip"
	"flag"
	"fmt"
	"log"
	"os"
)

func main() {
	dir := flag.String("dir", "/usr/i686-w64-mingw32/lib", "the i686 import libraries (lib*.a)")
	out := flag.String("o", "table.gz", "the table to write")
	flag.Parse()
	text, st, err := generate(*dir)
	if err != nil {
		log.Fatal(err)
	}
	var buf bytes.Buffer
	zw, err := gzip.NewWriterLevel(&buf, gzip.BestCompression)
	if err != nil {
		log.Fatal(err)
	}
	if _, err := zw.Write(text); err != nil {
		log.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		log.Fatal(err)
	}
	if err := os.WriteFile(*out, buf.Bytes(), 0o644); err != nil {
		log.Fatal(err)
	}
	fmt.Fprintf(os.Stderr, "winapi: %d DLLs, %d exports (%d left out: their import libraries disagree), %d bytes (%d compressed)\n",
		st.DLLs, st.Entries, len(st.Conflicts), len(text), buf.Len())
}
