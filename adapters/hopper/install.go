package hopper

import (
	"os"
	"path/filepath"
	"runtime"
)

// DefaultLauncher is where Hopper's launcher usually is on this platform
// ("" where Hopper does not run).
func DefaultLauncher() string {
	switch runtime.GOOS {
	case "darwin":
		return "/Applications/Hopper Disassembler.app/Contents/MacOS/hopper"
	case "linux":
		return "/opt/hopper/bin/Hopper"
	}
	return ""
}

// Installation is what discovery found. It never runs the launcher.
type Installation struct {
	Launcher   string
	Configured bool // HOPPER_LAUNCHER_PATH was set
	Code       string
	Reason     string
}

// Discover checks launcher (HOPPER_LAUNCHER_PATH, "" for the default).
func Discover(launcher string) Installation {
	in := Installation{Launcher: launcher, Configured: launcher != ""}
	if runtime.GOOS != "linux" && runtime.GOOS != "darwin" {
		in.Code, in.Reason = "unsupported_host", "the Hopper provider runs on linux and darwin"
		return in
	}
	if launcher == "" {
		in.Launcher = DefaultLauncher()
	}
	if !filepath.IsAbs(in.Launcher) {
		in.Code, in.Reason = "not_configured", EnvLauncher+" must be an absolute path"
		return in
	}
	st, err := os.Stat(in.Launcher)
	if err != nil || st.IsDir() || st.Mode().Perm()&0o111 == 0 {
		in.Code = "executable_missing"
		if !in.Configured {
			in.Code = "not_configured"
		}
		in.Reason = "Hopper launcher is missing or not executable: " + in.Launcher
		return in
	}
	return in
}

// Available reports whether discovery passed.
func (in Installation) Available() bool { return in.Code == "" }
