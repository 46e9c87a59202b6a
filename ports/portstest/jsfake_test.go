package portstest_test

import (
	"bytes"
	"context"
	"testing"

	"github.com/matryer/is"

	"rea/ports"
	"rea/ports/portstest"
)

var jsSamples = []portstest.JSSample{
	{Path: "main.js", Source: []byte("const {app} = require(\"electron\");\nconst fs = require('fs');\napp.on('ready', () => {});\n")},
	{Path: "module.mjs", Source: []byte("import x from \"./x.js\";\nimport './side.js';\nexport const y = 'why';\n")},
}

func TestFakeJSPassesRunJavaScript(t *testing.T) {
	portstest.RunJavaScript(t, portstest.FakeJS{}, jsSamples...)
}

func TestFakeJS(t *testing.T) {
	is := is.New(t)
	f, err := portstest.FakeJS{}.Facts(context.Background(), ports.JSRequest{Source: jsSamples[0].Source})
	is.NoErr(err)
	is.Equal(f.ModuleType, "commonjs")
	is.Equal(len(f.Imports), 2)
	is.Equal(f.Imports[0].Specifier, "electron")
	is.Equal(f.Imports[1].Offset, int64(bytes.Index(jsSamples[0].Source, []byte("'fs'"))))
	f, err = portstest.FakeJS{}.Facts(context.Background(), ports.JSRequest{Source: jsSamples[1].Source})
	is.NoErr(err)
	is.Equal(f.ModuleType, "esm")
	is.Equal([]string{f.Imports[0].Specifier, f.Imports[1].Specifier}, []string{"./x.js", "./side.js"})
	f, err = portstest.FakeJS{}.Facts(context.Background(), ports.JSRequest{Source: []byte(`x = "open`)})
	is.NoErr(err)
	is.True(!f.Parsed)
	is.Equal(f.Errors[0].Offset, int64(4))
}
