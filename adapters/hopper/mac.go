package hopper

import (
	"bytes"
	"context"
	"os/exec"
	"runtime"
	"strings"
	"time"
)

// On macOS Hopper's launcher needs the Hopper application running
// (PROVIDERS.md §2.2): when it is not, rea opens it hidden in the
// background with open(1) and gives it 5 s. rea owns only the launcher it
// starts afterwards, never the application, which it never signals.

// macSettle is how long the application gets after open(1).
var macSettle = 5 * time.Second

// macApp is the .app bundle holding the launcher, or "" when the launcher
// is not inside one.
func macApp(launcher string) string {
	i := strings.Index(launcher, ".app/Contents/MacOS/")
	if i < 0 {
		return ""
	}
	return launcher[:i+len(".app")]
}

// openCommand starts app hidden and in the background.
func openCommand(app string) []string {
	return []string{"/usr/bin/open", "--hide", "--background", "-a", app}
}

// appRunning reports whether a process table (`ps -axo command=`) lists a
// program inside app's bundle.
func appRunning(table []byte, app string) bool {
	prefix := []byte(app + "/Contents/MacOS/")
	for line := range bytes.Lines(table) {
		if bytes.HasPrefix(bytes.TrimSpace(line), prefix) {
			return true
		}
	}
	return false
}

// ensureMacApp opens the Hopper application when the host is macOS, the
// launcher is inside an .app bundle, and no program of that bundle runs.
// Failures are left to the launcher, which reports them itself.
func ensureMacApp(ctx context.Context, launcher string) {
	app := macApp(launcher)
	if runtime.GOOS != "darwin" || app == "" {
		return
	}
	table, err := exec.CommandContext(ctx, "/bin/ps", "-axo", "command=").Output()
	if err != nil || appRunning(table, app) {
		return
	}
	argv := openCommand(app)
	octx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if exec.CommandContext(octx, argv[0], argv[1:]...).Run() != nil {
		return
	}
	select {
	case <-ctx.Done():
	case <-time.After(macSettle):
	}
}
