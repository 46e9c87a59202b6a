package cli_test

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/matryer/is"

	"rea/adapters/cli"
	"rea/core/standard"
)

// TestToolsCompareArtifactsExampleIsAReference: rea tools compare_artifacts
// prints its call with retained references, as the other Evidence-reading
// tools do. Before, it printed two whole inline Evidence records (3 KB on
// one line).
func TestToolsCompareArtifactsExampleIsAReference(t *testing.T) {
	is := is.New(t)
	cat, err := standard.Catalog()
	is.NoErr(err)
	var out, errOut bytes.Buffer
	o := cli.Options{Catalog: cat, Stdout: &out, Stderr: &errOut}
	is.Equal(cli.Run(context.Background(), []string{"tools", "compare_artifacts"}, &o), 0)
	_, after, ok := strings.Cut(out.String(), "\nExample\n")
	is.True(ok)
	line, _, _ := strings.Cut(after, "\n")
	is.True(strings.Contains(line, `"kind":"retained-evidence"`))
	is.True(len(line) < 400) // a call's shape, not two records
}
