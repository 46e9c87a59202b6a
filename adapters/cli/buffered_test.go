package cli_test

import (
	"context"
	"testing"

	"github.com/matryer/is"

	"rea/adapters/cli"
	"rea/core"
	"rea/core/standard"
)

// writeCounter counts the writes it is given.
type writeCounter struct{ writes, bytes int }

func (w *writeCounter) Write(p []byte) (int, error) {
	w.writes++
	w.bytes += len(p)
	return len(p), nil
}

// TestResultIsWrittenInFewWrites: a command that prints its result when
// its work is done writes it through one buffer. rea tools' table went to
// standard output a cell at a time: hundreds of writes, each a system
// call on a pipe or a file (rea analyze /usr/bin/ls made 466).
func TestResultIsWrittenInFewWrites(t *testing.T) {
	is := is.New(t)
	cat, err := standard.Catalog()
	is.NoErr(err)
	reg, err := core.NewRegistry(nil, nil)
	is.NoErr(err)
	var out, errOut writeCounter
	is.Equal(cli.Run(context.Background(), []string{"tools"}, &cli.Options{Catalog: cat, Registry: reg, Stdout: &out, Stderr: &errOut}), 0)
	is.True(out.bytes > 4<<10)                  // the whole table arrived
	is.True(out.writes <= 1+out.bytes/(64<<10)) // one per full buffer, then the rest
}
