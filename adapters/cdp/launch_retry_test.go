package cdp_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/matryer/is"

	"rea/adapters/cdp"
	"rea/ports"
)

// fakeChromium writes a shell script standing in for Chromium: it exits at
// once while fails > 0 (counting down in a file), and otherwise writes its
// DevTools port into the profile and waits to be stopped.
func fakeChromium(t *testing.T, fails int) string {
	t.Helper()
	dir := t.TempDir()
	count := filepath.Join(dir, "fails")
	if err := os.WriteFile(count, []byte(strings.Repeat("x", fails)), 0o644); err != nil {
		t.Fatal(err)
	}
	script := `#!/bin/sh
n=$(cat ` + count + `)
if [ -n "$n" ]; then
	printf '%s' "${n#x}" > ` + count + `
	echo "fake chromium: crashed at start-up" >&2
	exit 3
fi
for a in "$@"; do
	case "$a" in --user-data-dir=*) profile="${a#--user-data-dir=}";; esac
done
printf '9222\n/devtools/browser/fake\n' > "$profile/DevToolsActivePort"
exec sleep 60
`
	exe := filepath.Join(dir, "chromium")
	if err := os.WriteFile(exe, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return exe
}

func TestLaunchRetriesAnEarlyExitOnce(t *testing.T) {
	is := is.New(t)
	privateTemp(t)
	ctx := context.Background()

	b, err := cdp.ChromiumLauncher{}.Launch(ctx, cdp.LaunchSpec{ExecutablePath: fakeChromium(t, 1)})
	is.NoErr(err) // the first start exited; the second listened
	is.Equal(b.Endpoint(), "http://127.0.0.1:9222")
	is.NoErr(b.Close(ctx))
	is.Equal(tempEntries(t), nil) // both profiles removed

	_, err = cdp.ChromiumLauncher{}.Launch(ctx, cdp.LaunchSpec{ExecutablePath: fakeChromium(t, 2)})
	var be *ports.BrowserError
	is.True(errors.As(err, &be))
	is.Equal(be.Code, ports.BrowserEndpointUnreachable)
	is.True(strings.Contains(be.Msg, "twice"))
	is.True(strings.Contains(be.Msg, "crashed at start-up"))
	is.True(strings.Contains(be.Msg, "exit status 3"))
	is.Equal(tempEntries(t), nil)
}

// A Chromium that names its port only on standard error, as it does when it
// starts listening, is found without DevToolsActivePort; a listener on
// another address is not taken for it.
func TestLaunchTakesThePortFromTheListeningLine(t *testing.T) {
	is := is.New(t)
	privateTemp(t)
	ctx := context.Background()
	dir := t.TempDir()
	exe := filepath.Join(dir, "chromium")
	script := `#!/bin/sh
echo "[0101/000000.000:ERROR:some_warning.cc(1)] noise" >&2
echo "DevTools listening on ws://0.0.0.0:9333/devtools/browser/elsewhere" >&2
echo "DevTools listening on ws://127.0.0.1:9444/devtools/browser/fake" >&2
exec sleep 60
`
	is.NoErr(os.WriteFile(exe, []byte(script), 0o755))
	b, err := cdp.ChromiumLauncher{StartTimeout: 5 * time.Second}.Launch(ctx, cdp.LaunchSpec{ExecutablePath: exe})
	is.NoErr(err) // no DevToolsActivePort: the port came from standard error
	is.Equal(b.Endpoint(), "http://127.0.0.1:9444")
	is.NoErr(b.Close(ctx))
	is.Equal(tempEntries(t), nil)
}
