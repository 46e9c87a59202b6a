package cdp_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/matryer/is"

	"rea/adapters/cdp"
	"rea/adapters/cdp/cdptest"
	"rea/ports"
)

func TestScenarioValidation(t *testing.T) {
	step := ports.BrowserScenarioStep{StepID: "a", Action: "wait"}
	cases := []struct {
		name string
		req  ports.BrowserScenarioRequest
	}{
		{"no steps", ports.BrowserScenarioRequest{StartURL: "http://a.test/"}},
		{"bad start", ports.BrowserScenarioRequest{StartURL: "file:///etc/passwd", Steps: []ports.BrowserScenarioStep{step}}},
		{"userinfo", ports.BrowserScenarioRequest{StartURL: "http://u:p@a.test/", Steps: []ports.BrowserScenarioStep{step}}},
		{"start outside origins", ports.BrowserScenarioRequest{StartURL: "http://a.test/", AllowedOrigins: []string{"http://b.test"}, Steps: []ports.BrowserScenarioStep{step}}},
		{"duplicate step", ports.BrowserScenarioRequest{StartURL: "http://a.test/", Steps: []ports.BrowserScenarioStep{step, step}}},
		{"bad step id", ports.BrowserScenarioRequest{StartURL: "http://a.test/", Steps: []ports.BrowserScenarioStep{{StepID: "1x", Action: "wait"}}}},
		{"navigate away", ports.BrowserScenarioRequest{StartURL: "http://a.test/", Steps: []ports.BrowserScenarioStep{{StepID: "n", Action: "navigate", URL: "http://b.test/"}}}},
		{"click without selector", ports.BrowserScenarioRequest{StartURL: "http://a.test/", Steps: []ports.BrowserScenarioStep{{StepID: "c", Action: "click"}}}},
		{"unknown action", ports.BrowserScenarioRequest{StartURL: "http://a.test/", Steps: []ports.BrowserScenarioStep{{StepID: "c", Action: "evaluate"}}}},
		{"undeclared secret", ports.BrowserScenarioRequest{StartURL: "http://a.test/", Steps: []ports.BrowserScenarioStep{{StepID: "t", Action: "type", Selector: "#x", SecretID: "pw"}}}},
		{"secret on click", ports.BrowserScenarioRequest{StartURL: "http://a.test/", Secrets: []ports.BrowserScenarioSecret{{SecretID: "pw", EnvironmentVariable: "X"}},
			Steps: []ports.BrowserScenarioStep{{StepID: "t", Action: "click", Selector: "#x", SecretID: "pw"}}}},
		{"duplicate secret env", ports.BrowserScenarioRequest{StartURL: "http://a.test/", Steps: []ports.BrowserScenarioStep{step},
			Secrets: []ports.BrowserScenarioSecret{{SecretID: "a", EnvironmentVariable: "X"}, {SecretID: "b", EnvironmentVariable: "X"}}}},
		{"unknown artifact", ports.BrowserScenarioRequest{StartURL: "http://a.test/", Steps: []ports.BrowserScenarioStep{step}, CaptureAtEnd: []string{"cookies"}}},
	}
	launches := 0
	e := cdp.New(&cdp.Options{Launcher: launcherFunc(func(context.Context, cdp.LaunchSpec) (cdp.OwnedBrowser, error) {
		launches++
		return nil, errors.New("must not launch")
	})})
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := e.RunScenario(context.Background(), c.req)
			is.New(t).Equal(code(t, err), ports.BrowserInvalidRequest)
		})
	}
	is.New(t).Equal(launches, 0)
}

type launcherFunc func(context.Context, cdp.LaunchSpec) (cdp.OwnedBrowser, error)

func (f launcherFunc) Launch(ctx context.Context, s cdp.LaunchSpec) (cdp.OwnedBrowser, error) {
	return f(ctx, s)
}

// fakeOwned is an "owned browser" that is really the fake endpoint and
// whose cleanup fails.
type fakeOwned struct{ f *cdptest.Server }

func (b fakeOwned) Endpoint() string   { return b.f.URL }
func (b fakeOwned) ProfileDir() string { return "" }
func (b fakeOwned) PID() int           { return 0 }
func (b fakeOwned) Close(context.Context) error {
	return &ports.BrowserError{Code: ports.BrowserCleanupFailed, Cleanup: "incomplete", Resources: []string{"process"}}
}

func TestScenarioCleanupFailureWins(t *testing.T) {
	is := is.New(t)
	f := cdptest.New(nil)
	defer f.Close()
	e := cdp.New(&cdp.Options{Launcher: launcherFunc(func(context.Context, cdp.LaunchSpec) (cdp.OwnedBrowser, error) {
		return fakeOwned{f}, nil
	})})
	_, err := e.RunScenario(context.Background(), ports.BrowserScenarioRequest{StartURL: "http://app.test/", Steps: []ports.BrowserScenarioStep{{StepID: "w", Action: "wait"}}})
	is.Equal(code(t, err), ports.BrowserCleanupFailed)
	be, _ := ports.AsBrowserError(err)
	is.Equal(be.Cleanup, "incomplete")
}

func TestLaunchWithoutProfileDirectory(t *testing.T) {
	is := is.New(t)
	t.Setenv("TMPDIR", "/nonexistent/rea-test")
	_, err := cdp.ChromiumLauncher{}.Launch(context.Background(), cdp.LaunchSpec{ExecutablePath: "/bin/true"})
	is.Equal(code(t, err), ports.BrowserProcessOwnership)
}

func TestLaunchExitsEarly(t *testing.T) {
	is := is.New(t)
	before := tempEntries(t)
	_, err := cdp.ChromiumLauncher{}.Launch(context.Background(), cdp.LaunchSpec{ExecutablePath: "/bin/false"})
	is.Equal(code(t, err), ports.BrowserEndpointUnreachable)
	is.Equal(tempEntries(t), before) // the profile directory was removed
}

func TestFetchSourceMap(t *testing.T) {
	mux := http.NewServeMux()
	mux.HandleFunc("/app.js.map", func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Cookie") != "" || r.Header.Get("Referer") != "" {
			http.Error(w, "credentials sent", 400)
			return
		}
		fmt.Fprint(w, `{"version":3,"sources":[],"names":[],"mappings":""}`)
	})
	mux.HandleFunc("/hop", func(w http.ResponseWriter, r *http.Request) { http.Redirect(w, r, "/app.js.map", 302) })
	mux.HandleFunc("/away", func(w http.ResponseWriter, r *http.Request) { http.Redirect(w, r, "http://127.0.0.2:1/x.map", 302) })
	mux.HandleFunc("/loop", func(w http.ResponseWriter, r *http.Request) { http.Redirect(w, r, "/loop", 302) })
	mux.HandleFunc("/big", func(w http.ResponseWriter, r *http.Request) { w.Write(make([]byte, 2000)) })
	srv := httptest.NewServer(mux)
	defer srv.Close()
	e := cdp.New(nil)
	for _, c := range []struct {
		path, status string
	}{
		{"/app.js.map", "included"}, {"/hop", "included"}, {"/away", "policy_filtered"}, {"/loop", "fetch_failed"},
		{"/missing", "fetch_failed"}, {"/big", "truncated"},
	} {
		t.Run(c.path, func(t *testing.T) {
			is := is.New(t)
			out, err := e.FetchSourceMap(context.Background(), ports.SourceMapRequest{URL: srv.URL + c.path, AllowedOrigins: []string{srv.URL}, MaxBytes: 1000})
			is.NoErr(err)
			is.Equal(out.Status, c.status)
			is.Equal(out.Body != nil, c.status == "included")
		})
	}
	out, err := e.FetchSourceMap(context.Background(), ports.SourceMapRequest{URL: "http://127.0.0.2:1/x.map", AllowedOrigins: []string{srv.URL}})
	is.New(t).NoErr(err)
	is.New(t).Equal(out.Status, "policy_filtered")
}

func TestScenarioAvailability(t *testing.T) {
	is := is.New(t)
	e := cdp.New(nil)
	is.Equal(e.ScenarioAvailability().Available, cdp.FindChromium() != "")
	t.Setenv("PATH", t.TempDir())
	a := e.ScenarioAvailability()
	is.True(!a.Available)
	is.Equal(a.Code, "executable_missing")
}

func TestScenarioSecretUnavailable(t *testing.T) {
	is := is.New(t)
	launched := false
	e := cdp.New(&cdp.Options{Launcher: launcherFunc(func(context.Context, cdp.LaunchSpec) (cdp.OwnedBrowser, error) {
		launched = true
		return nil, errors.New("must not launch")
	})})
	_, err := e.RunScenario(context.Background(), ports.BrowserScenarioRequest{StartURL: "http://a.test/",
		Secrets: []ports.BrowserScenarioSecret{{SecretID: "pw", EnvironmentVariable: "REA_TEST_UNSET_SECRET_VARIABLE"}},
		Steps:   []ports.BrowserScenarioStep{{StepID: "t", Action: "type", Selector: "#x", SecretID: "pw"}}})
	is.Equal(code(t, err), ports.BrowserSecretUnavailable)
	is.True(strings.Contains(err.Error(), "environment variable REA_TEST_UNSET_SECRET_VARIABLE is not set")) // what to set
	is.True(!launched)
}

// A step that would leave the scope is refused naming the origins it may
// go to, so the caller can correct it.
func TestScenarioNavigateOutNamesTheOrigins(t *testing.T) {
	is := is.New(t)
	_, err := cdp.New(nil).RunScenario(context.Background(), ports.BrowserScenarioRequest{StartURL: "http://a.test/",
		Steps: []ports.BrowserScenarioStep{{StepID: "n", Action: "navigate", URL: "http://b.test/"}}})
	be, ok := ports.AsBrowserError(err)
	is.True(ok)
	is.Equal(be.Field, "actions/0/url")
	is.Equal(be.Msg, "navigate needs an http(s) URL within allowed_origins (http://a.test)")
}
