package cli_test

import (
	"bytes"
	"context"
	"regexp"
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
	is.True(strings.Contains(help, "concise: counts and the first 64 segments"))
	is.True(strings.Contains(help, "detailed (the default): also the first --limit procedures and strings"))
}

// TestToolsObjectArgumentHasNoScalarDefault: rea tools analyze_function
// showed collection_offset, an object, with "default 0", read from its
// description ("First item of each collection's page (default 0)"); its
// fields' rows carry their defaults.
func TestToolsObjectArgumentHasNoScalarDefault(t *testing.T) {
	is := is.New(t)
	cat, err := standard.Catalog()
	is.NoErr(err)
	reg, err := core.NewRegistry(nil, nil)
	is.NoErr(err)
	var out, errOut bytes.Buffer
	is.Equal(cli.Run(context.Background(), []string{"tools", "analyze_function"}, &cli.Options{Catalog: cat, Registry: reg, Stdout: &out, Stderr: &errOut}), 0)
	var obj, field string
	for _, l := range strings.Split(out.String(), "\n") {
		switch f := strings.Fields(l); {
		case len(f) > 1 && f[0] == "collection_offset":
			obj = l
		case len(f) > 1 && f[0] == "collection_offset.callers":
			field = l
		}
	}
	is.True(obj != "" && !regexp.MustCompile(`\bobject\s+default `).MatchString(obj)) // the object's default column is empty
	is.True(regexp.MustCompile(`\binteger\s.*default 0`).MatchString(field))          // its field's is not
}
