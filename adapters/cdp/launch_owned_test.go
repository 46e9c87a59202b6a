//go:build linux

package cdp_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/matryer/is"

	"rea/adapters/cdp"
)

// TestCloseStopsWhatItStartedAndNothingElse: a browser helper that left the
// browser's process group (setsid) is still proven ours and stopped; a
// process this launcher did not start is never signalled, even when its
// command line names the browser's private root (which the launcher once
// took as proof of ownership).
func TestCloseStopsWhatItStartedAndNothingElse(t *testing.T) {
	is := is.New(t)
	privateTemp(t)
	dir := t.TempDir()
	helperPID := filepath.Join(dir, "helper.pid")
	script := `#!/bin/sh
for a in "$@"; do
	case "$a" in --user-data-dir=*) profile="${a#--user-data-dir=}";; esac
done
setsid sh -c 'echo $$ > ` + helperPID + `; exec sleep 300' </dev/null >/dev/null 2>&1 &
while [ ! -s ` + helperPID + ` ]; do sleep 0.01; done
printf '9222\n/devtools/browser/fake\n' > "$profile/DevToolsActivePort"
exec sleep 60
`
	exe := filepath.Join(dir, "chromium")
	is.NoErr(os.WriteFile(exe, []byte(script), 0o755))

	ctx := context.Background()
	b, err := cdp.ChromiumLauncher{}.Launch(ctx, cdp.LaunchSpec{ExecutablePath: exe})
	is.NoErr(err)
	data, err := os.ReadFile(helperPID)
	is.NoErr(err)
	helper, err := strconv.Atoi(strings.TrimSpace(string(data)))
	is.NoErr(err)
	is.True(alive(helper)) // the helper runs in a session of its own

	root := filepath.Dir(b.ProfileDir())
	stranger := exec.Command("sh", "-c", "exec sleep 300", root) // names the root, but is the test's
	stranger.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	is.NoErr(stranger.Start())
	defer func() { stranger.Process.Kill(); stranger.Wait() }()

	is.NoErr(b.Close(ctx))
	is.True(!alive(b.PID()))
	for i := 0; alive(helper) && i < 100; i++ {
		time.Sleep(20 * time.Millisecond)
	}
	is.True(!alive(helper))              // proven ours by the run ID in its environment, and stopped
	is.True(alive(stranger.Process.Pid)) // not ours: never signalled
	is.Equal(tempEntries(t), nil)
}

// alive: pid names a process that is not a zombie.
func alive(pid int) bool {
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	i := strings.LastIndexByte(string(stat), ')')
	return i > 0 && len(stat) > i+2 && stat[i+2] != 'Z'
}
