package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"runtime/debug"
	"strings"
	"testing"

	"github.com/matryer/is"
)

func TestReadBuild(t *testing.T) {
	is := is.New(t)
	none := func(string) string { return "" }
	info := &debug.BuildInfo{Main: debug.Module{Version: "v0.0.0-20261203-abcdef"}, Settings: []debug.BuildSetting{
		{Key: "vcs", Value: "git"}, {Key: "vcs.revision", Value: "0123456789abcdef0123456789abcdef01234567"}, {Key: "vcs.modified", Value: "false"}}}
	b := readBuild(none, info, true)
	is.Equal(b.Commit, "0123456789abcdef0123456789abcdef01234567")
	is.Equal(b.Version, version) // never the pseudo-version
	info.Settings[2].Value = "true"
	is.Equal(readBuild(none, info, true).Commit, "0123456789abcdef0123456789abcdef01234567-dirty")
	is.Equal(readBuild(func(string) string { return "feed" }, info, true).Commit, "feed")
	is.Equal(readBuild(none, nil, false).Commit, "")
}

// TestVersionNamesTheCommit: rea version reports the stamped commit (here
// through REA_BUILD_COMMIT; the VCS path is TestReadBuild's).
func TestVersionNamesTheCommit(t *testing.T) {
	is := is.New(t)
	cmd := exec.Command(reaBin, "version", "--format", "json")
	cmd.Env = append(os.Environ(), "REA_BUILD_COMMIT=0123456789abcdef0123456789abcdef01234567")
	out, err := cmd.Output()
	is.NoErr(err)
	var v struct {
		Version, Commit string
	}
	is.NoErr(json.Unmarshal(out, &v))
	is.Equal(v.Version, version)
	is.Equal(v.Commit, "0123456789abcdef0123456789abcdef01234567")
	text, _, code := runCLI(t, "version")
	is.Equal(code, 0)
	is.True(strings.HasPrefix(text, "rea "+version+" ("))
}

// A build without VCS stamping (GOFLAGS=-buildvcs=false, as this machine's
// go env has, or outside a checkout) says so and names the module version
// the go command recorded. Before, rea version said only "commit unknown".
func TestVersionSaysWhyNoCommit(t *testing.T) {
	is := is.New(t)
	info := &debug.BuildInfo{Main: debug.Module{Path: "rea", Version: "(devel)"}}
	b := readBuild(func(string) string { return "" }, info, true)
	is.Equal(b.Module, "(devel)")
	is.True(!b.VCS)
	info.Settings = []debug.BuildSetting{{Key: "vcs", Value: "git"}}
	is.True(readBuild(func(string) string { return "" }, info, true).VCS)

}
