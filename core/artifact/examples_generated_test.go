package artifact

import (
	"bytes"
	"flag"
	"testing"

	"rea/core/internal/gentest"
)

var updateGenerated = flag.Bool("update", false, "rewrite examples_generated.go")

// generatedSource is examples_generated.go as buildCompareExamples makes it
// today.
func generatedSource() []byte {
	f := gentest.New("core/artifact", "TestGeneratedCompareExamplesCurrent",
		"compare_artifacts' examples as buildCompareExamples makes them: built",
		"once here rather than at every start-up.")
	gentest.Slices(f, "generatedCompareExamples", buildCompareExamples())
	return f.Source()
}

// TestGeneratedCompareExamplesCurrent fails when examples_generated.go
// differs from what buildCompareExamples makes (regenerate with go generate
// ./core/artifact), or when compare_artifacts declares examples built at
// start-up rather than the generated text.
func TestGeneratedCompareExamplesCurrent(t *testing.T) {
	gentest.Current(t, "examples_generated.go", generatedSource(), *updateGenerated, "go generate ./core/artifact")
	if *updateGenerated {
		return
	}
	op := opCompareArtifacts()
	built := buildCompareExamples()
	if len(op.Examples) != len(built) {
		t.Fatalf("%d examples declared, %d built", len(op.Examples), len(built))
	}
	for i := range built {
		if !bytes.Equal(op.Examples[i], built[i]) {
			t.Fatalf("example %d differs from the built one", i)
		}
		// The declared example is the generated text itself, not a copy
		// made (or an Evidence record sealed) when the catalog is built.
		if &op.Examples[i][0] != &generatedCompareExamples[i][0] {
			t.Fatalf("example %d is not the generated text: compare_artifacts builds its examples at start-up", i)
		}
	}
}
