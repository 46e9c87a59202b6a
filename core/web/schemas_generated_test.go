package web

import (
	"bytes"
	"flag"
	"testing"

	"rea/core/internal/gentest"
)

var updateGenerated = flag.Bool("update", false, "rewrite schemas_generated.go")

// generatedSource is schemas_generated.go as the builders make it today.
func generatedSource() []byte {
	f := gentest.New("core/web", "TestGeneratedSchemasCurrent",
		"compare_web_captures' input schema, result schema and examples as",
		"buildWebCompareInputSchema, buildWebCompareResultSchema and",
		"buildWebCompareExamples make them: built once here rather than at every",
		"start-up.")
	f.Bytes("generatedCompareInput", buildWebCompareInputSchema())
	f.Bytes("generatedCompareResult", buildWebCompareResultSchema())
	gentest.Slices(f, "generatedCompareExamples", buildWebCompareExamples())
	return f.Source()
}

// TestGeneratedSchemasCurrent fails when schemas_generated.go differs from
// what the builders make (regenerate with go generate ./core/web).
func TestGeneratedSchemasCurrent(t *testing.T) {
	gentest.Current(t, "schemas_generated.go", generatedSource(), *updateGenerated, "go generate ./core/web")
	if *updateGenerated {
		return
	}
	// What the operation declares is what the builders make.
	op := opCompareWebCaptures()
	if !bytes.Equal(op.Input, buildWebCompareInputSchema()) || !bytes.Equal(op.Result, buildWebCompareResultSchema()) {
		t.Fatal("compare_web_captures does not declare the built schemas")
	}
	ex := buildWebCompareExamples()
	if len(op.Examples) != len(ex) {
		t.Fatalf("%d examples declared, %d built", len(op.Examples), len(ex))
	}
	for i := range ex {
		if !bytes.Equal(op.Examples[i], ex[i]) {
			t.Fatalf("example %d differs from the built one", i)
		}
	}
}
