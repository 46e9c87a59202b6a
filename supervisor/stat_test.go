//go:build linux

package supervisor_test

import (
	"bufio"
	"os"
	"os/exec"
	"testing"

	"github.com/matryer/is"

	"rea/supervisor"
)

const statLine = "4242 (a) b (c)) S 1 4242 4242 0 -1 4194560 100 0 0 0 1 2 0 0 20 0 1 0 123456 1000 100 18446744073709551615 1 1 0 0 0 0 0 0 0 0 0 0 17 1 0 0 0 0 0\n"

func TestParseStat(t *testing.T) {
	is := is.New(t)
	// A command name may hold spaces and parentheses: fields start after the last ')'.
	ppid, pgid, sid, start, state, comm, err := supervisor.ParseStat(4242, []byte(statLine))
	is.NoErr(err)
	is.Equal([]int{ppid, pgid, sid}, []int{1, 4242, 4242})
	is.Equal(start, uint64(123456))
	is.Equal(state, byte('S'))
	is.Equal(comm, "a) b (c)")

	for _, bad := range []string{"", "4242", "4242 (x", "4242 (x) S 1 2", "4243 (x)" + statLine[len("4242 (a) b (c))"):], "4242 (x) SS 1 4242 4242 0 -1 0 0 0 0 0 0 0 0 0 0 0 1 0 1"} {
		_, _, _, _, _, _, err := supervisor.ParseStat(4242, []byte(bad))
		is.True(err != nil) // rejected, not guessed
	}

	self, err := os.ReadFile("/proc/self/stat")
	is.NoErr(err)
	ppid, _, _, _, _, _, err = supervisor.ParseStat(os.Getpid(), self)
	is.NoErr(err)
	is.Equal(ppid, os.Getppid())
}

func FuzzParseStat(f *testing.F) {
	f.Add([]byte(statLine))
	if b, err := os.ReadFile("/proc/self/stat"); err == nil {
		f.Add(b)
	}
	f.Add([]byte("1 () R 0 0 0"))
	// Whatever the bytes, parsing returns a value or an error; it never panics.
	f.Fuzz(func(t *testing.T, b []byte) {
		_, _, _, _, state, _, err := supervisor.ParseStat(4242, b)
		if err == nil && state == 0 {
			t.Fatal("parsed without a state")
		}
	})
}

// A process's Image changes when it execs, even to the same program
// under the same name (sh running sh), and stays put while it does not.
func TestImageChangesAtExec(t *testing.T) {
	is := is.New(t)
	c := exec.Command("/bin/sh", "-c", "echo ready; read x; exec /bin/sh -c 'echo execd; read y'")
	in, err := c.StdinPipe()
	is.NoErr(err)
	out, err := c.StdoutPipe()
	is.NoErr(err)
	is.NoErr(c.Start())
	t.Cleanup(func() { in.Close(); c.Process.Kill(); c.Wait() })
	// Start returns once the exec is past its point of no return, before
	// the kernel has set up the new stack (Image reads 0 then): wait for
	// the shell to run.
	lines := bufio.NewReader(out)
	line, err := lines.ReadString('\n')
	is.NoErr(err)
	is.Equal(line, "ready\n")
	before, err := supervisor.ReadProc(c.Process.Pid)
	is.NoErr(err)
	is.True(before.Image != 0)
	again, err := supervisor.ReadProc(c.Process.Pid)
	is.NoErr(err)
	is.Equal(again.Image, before.Image)

	_, err = in.Write([]byte("go\n"))
	is.NoErr(err)
	line, err = lines.ReadString('\n')
	is.NoErr(err)
	is.Equal(line, "execd\n") // the exec happened
	after, err := supervisor.ReadProc(c.Process.Pid)
	is.NoErr(err)
	is.Equal(after.Start, before.Start)
	is.Equal(after.Comm, before.Comm)
	is.True(after.Image != 0)
	is.True(after.Image != before.Image)
}
