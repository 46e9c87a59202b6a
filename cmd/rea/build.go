package main

import "runtime/debug"

// build is what the binary knows of the revision it was built from.
type build struct {
	Version string // -ldflags "-X main.version=...", else the default
	Commit  string // REA_BUILD_COMMIT, else -ldflags "-X main.commit=...", else vcs.revision (+"-dirty")
	// Module is the main module's version as the go command recorded it:
	// a pseudo-version from the checkout, or "(devel)" without VCS stamping.
	Module string
	// VCS is whether the go command stamped the checkout's settings (it
	// does not with -buildvcs=false, outside a checkout, or in go run and
	// go test).
	VCS bool
}

// commit is set at build time with -ldflags "-X main.commit=...".
var commit = ""

// readBuild stamps the identity from -ldflags, then the VCS settings the go
// command records (go build in a git checkout; not go run or go test). The
// version is never taken from the module's pseudo-version, which changes
// with every commit: the product catalog names the release, binary_session
// and rea version name the commit as well.
func readBuild(getenv func(string) string, info *debug.BuildInfo, ok bool) build {
	b := build{Version: version, Commit: commit}
	if ok && info != nil {
		b.Module = info.Main.Version
		for _, s := range info.Settings {
			b.VCS = b.VCS || s.Key == "vcs"
		}
		if b.Commit == "" {
			var rev string
			dirty := false
			for _, s := range info.Settings {
				switch s.Key {
				case "vcs.revision":
					rev = s.Value
				case "vcs.modified":
					dirty = s.Value == "true"
				}
			}
			if rev != "" && dirty {
				rev += "-dirty"
			}
			b.Commit = rev
		}
	}
	if c := getenv("REA_BUILD_COMMIT"); c != "" {
		b.Commit = c
	}
	return b
}
