package asar_test

import (
	"bytes"
	"context"
	"fmt"
	"io/fs"

	"rea/adapters/asar"
)

func Example() {
	var buf bytes.Buffer
	err := asar.Write(&buf, []asar.WriteEntry{
		{Path: "package.json", Type: asar.TypeFile, Data: []byte(`{"main":"main.js"}`)},
		{Path: "main.js", Type: asar.TypeFile, Data: []byte("console.log('hi')\n")},
		{Path: "index.js", Type: asar.TypeLink, Link: "main.js"},
	}, nil)
	if err != nil {
		panic(err)
	}
	r, err := asar.NewReader(bytes.NewReader(buf.Bytes()), int64(buf.Len()), nil)
	if err != nil {
		panic(err)
	}
	for _, e := range r.Entries() {
		fmt.Println(e.Type, e.Path, e.Size)
	}
	src, _ := fs.ReadFile(r.FS(), "index.js")
	fmt.Printf("%q\n", src)
	res, _ := r.Verify(context.Background(), "main.js")
	fmt.Println(res.Status)
	// Output:
	// link index.js 0
	// file main.js 18
	// file package.json 18
	// "console.log('hi')\n"
	// verified
}
