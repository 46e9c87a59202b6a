// Command parseonly is bench/jsapp's baseline: it walks a directory in path
// order and parses every JavaScript file (.js, .mjs, .cjs, .jsx, the files
// analyze_javascript_application parses) with the parser rea's engine uses
// (tdewolff/parse, the same options, through js.ParseOnly), on one thread,
// and does nothing else.
// It prints "<files> <javascript bytes> <syntax errors>".
package main

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"rea/adapters/js"
)

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: parseonly DIR")
		os.Exit(2)
	}
	var files, errs int
	var bytes int64
	err := filepath.WalkDir(os.Args[1], func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.Type().IsRegular() {
			return nil
		}
		switch strings.ToLower(filepath.Ext(p)) {
		case ".js", ".mjs", ".cjs", ".jsx":
		default:
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		files++
		bytes += int64(len(b))
		if !js.ParseOnly(b) {
			errs++
		}
		return nil
	})
	if err != nil {
		fmt.Fprintln(os.Stderr, "parseonly:", err)
		os.Exit(1)
	}
	fmt.Println(files, bytes, errs)
}
