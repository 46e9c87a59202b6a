package cli

import (
	"sort"
	"testing"

	"github.com/alecthomas/kong"
	"github.com/matryer/is"
)

// Commands (the product catalog's and the catalog identity's list) names
// exactly the grammar's top-level commands.
func TestCommandsAreTheGrammars(t *testing.T) {
	is := is.New(t)
	var g grammar
	k, err := kong.New(&g, kong.Name("rea"))
	is.NoErr(err)
	var names []string
	for _, c := range k.Model.Children {
		names = append(names, c.Name)
	}
	sort.Strings(names)
	is.Equal(names, Commands)
}

// TestEveryCommandIsClassifiedForBuffering: bufferedOutput names every
// command and no other, so a new or renamed command is a decision, not a
// silent fallback to one write per cell.
func TestEveryCommandIsClassifiedForBuffering(t *testing.T) {
	is := is.New(t)
	var names []string
	for name := range bufferedOutput {
		names = append(names, name)
	}
	sort.Strings(names)
	is.Equal(names, Commands)
}
