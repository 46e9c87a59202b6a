//go:build linux

package supervisor_test

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"

	"rea/supervisor"
)

// An engine owns its process through a Run: a private root, a launch, one
// lineage snapshot once it is ready, and a cleanup that reports what is left.
func Example() {
	ctx := context.Background()
	run, err := supervisor.New(nil) // a new run ID; core would pass analysis_run.run_id
	if err != nil {
		panic(err)
	}
	root, err := run.TempDir("engine-")
	if err != nil {
		panic(err)
	}
	err = run.Start(ctx, supervisor.Spec{
		Path: "/bin/sh",
		Args: []string{"-c", "sleep 600 & echo ready; wait"},
		Dir:  root,
	})
	if err != nil {
		panic(err)
	}
	line, _ := bufio.NewReader(run.Stdout()).ReadString('\n')
	fmt.Print(line)

	l := run.Lineage(ctx) // the launcher (sh) and its one descendant (sleep)
	fmt.Println(l.Status, len(l.Descendants))

	cctx, cancel := supervisor.CleanupContext(ctx, 0)
	defer cancel()
	if err := run.Cleanup(cctx); err != nil {
		fmt.Println(err) // a *ports.CleanupError naming what remains
	}
	_, err = os.Stat(root)
	fmt.Println(errors.Is(err, fs.ErrNotExist))
	// Output:
	// ready
	// verified 1
	// true
}
