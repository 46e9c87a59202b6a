package cli_test

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/matryer/is"

	"rea/adapters/cli"
	"rea/core"
	"rea/core/standard"
)

// TestAnalyzeHelpNamesTheDetails: rea analyze --help says what each
// --detail gives; before it said only "Overview detail.", and the choices
// appeared only in the error of a wrong one.
func TestAnalyzeHelpNamesTheDetails(t *testing.T) {
	is := is.New(t)
	cat, err := standard.Catalog()
	is.NoErr(err)
	reg, err := core.NewRegistry(nil, nil)
	is.NoErr(err)
	var out, errOut bytes.Buffer
	is.Equal(cli.Run(context.Background(), []string{"analyze", "--help"}, &cli.Options{Catalog: cat, Registry: reg, Stdout: &out, Stderr: &errOut}), 0)
	help := strings.Join(strings.Fields(out.String()), " ") // kong wraps lines
	is.True(strings.Contains(help, "concise: counts and segments"))
	is.True(strings.Contains(help, "detailed (the default): also the first --limit procedures and strings"))
}
