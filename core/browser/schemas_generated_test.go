package browser

import (
	"bytes"
	"flag"
	"testing"

	"rea/core/internal/gentest"
)

var updateGenerated = flag.Bool("update", false, "rewrite schemas_generated.go")

// generatedSource is schemas_generated.go as buildDefResult makes it today.
func generatedSource() []byte {
	f := gentest.New("core/browser", "TestGeneratedSchemasCurrent",
		"The result schemas defResult serves, as buildDefResult makes them from",
		"compare_web_captures' definitions: built once here rather than at every",
		"start-up.")
	f.Printf("var generatedDefResults = [...]struct {\n\tname string\n\ttext []byte\n}{\n")
	for _, name := range generatedResults {
		f.Printf("\t{%q, []byte(%s)},\n", name, gentest.Quote(buildDefResult(name)))
	}
	f.Printf("}\n")
	return f.Source()
}

// TestGeneratedSchemasCurrent fails when schemas_generated.go differs from
// what buildDefResult makes (regenerate with go generate ./core/browser).
func TestGeneratedSchemasCurrent(t *testing.T) {
	gentest.Current(t, "schemas_generated.go", generatedSource(), *updateGenerated, "go generate ./core/browser")
	if *updateGenerated {
		return
	}
	for _, name := range generatedResults {
		if !bytes.Equal(defResult(name), buildDefResult(name)) {
			t.Fatalf("defResult(%q) differs from the built schema", name)
		}
	}
}
