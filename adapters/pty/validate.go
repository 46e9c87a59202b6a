//go:build linux

package pty

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"rea/ports"
	"rea/supervisor"
)

func issue(reason, msg string, path ...any) error {
	return &ports.ScenarioError{Path: path, Reason: reason, Message: msg}
}

// signalNamed is the signal an event names (a switch: a package-level map
// is built by init code every rea process runs).
func signalNamed(name string) (syscall.Signal, bool) {
	switch name {
	case "SIGINT":
		return syscall.SIGINT, true
	case "SIGTERM":
		return syscall.SIGTERM, true
	case "SIGKILL":
		return syscall.SIGKILL, true
	}
	return 0, false
}

// validate checks the scenario's shape (§1.1) without touching the
// filesystem.
func validate(s ports.CaptureScenario) error {
	hasNUL := func(v string) bool { return strings.IndexByte(v, 0) >= 0 }
	if s.Executable == "" {
		return issue(ports.IssueInvalidValue, "must not be empty", "executable")
	}
	if hasNUL(s.Executable) {
		return issue(ports.IssueInvalidValue, "contains a NUL byte", "executable")
	}
	for i, a := range s.Arguments {
		if hasNUL(a) {
			return issue(ports.IssueInvalidValue, "contains a NUL byte", "arguments", i)
		}
	}
	if hasNUL(s.WorkingDirectory) {
		return issue(ports.IssueInvalidValue, "contains a NUL byte", "working_directory")
	}
	for name, v := range s.Environment {
		switch {
		case name == "":
			return issue(ports.IssueInvalidValue, "environment names must not be empty", "environment")
		case strings.ContainsAny(name, "=\x00"):
			return issue(ports.IssueInvalidValue, fmt.Sprintf("environment name %q contains '=' or NUL", name), "environment", name)
		case name == supervisor.RunIDEnv:
			return issue(ports.IssueInvalidValue, supervisor.RunIDEnv+" is set by the capture and cannot be overridden", "environment", name)
		case hasNUL(v):
			return issue(ports.IssueInvalidValue, "value contains a NUL byte", "environment", name)
		}
	}
	for i, p := range s.FilesystemObservationPaths {
		if p == "" || hasNUL(p) {
			return issue(ports.IssueInvalidValue, "must be a non-empty path without NUL", "filesystem_observation_paths", i)
		}
	}
	rng := func(v, lo, hi int64, path ...any) error {
		if v < lo || v > hi {
			return &ports.ScenarioError{Path: path, Reason: ports.IssueOutOfRange,
				Message: fmt.Sprintf("%d is outside %d..%d", v, lo, hi)}
		}
		return nil
	}
	const maxMS = 24 * 3600 * 1000
	const big = 1 << 53
	checks := []error{
		rng(int64(s.Terminal.Columns), 1, 65535, "terminal", "columns"),
		rng(int64(s.Terminal.Rows), 1, 65535, "terminal", "rows"),
		rng(int64(s.Terminal.Scrollback), 0, 1_000_000, "terminal", "scrollback"),
		rng(s.TimeoutMS, 1, maxMS, "timeout_ms"),
		rng(s.IdleTimeoutMS, 1, maxMS, "idle_timeout_ms"),
		rng(s.SettleMS, 0, maxMS, "settle_ms"),
		rng(s.FinalizationMS, 0, maxMS, "finalization_ms"),
		rng(s.Limits.OutputBytes, 0, big, "limits", "output_bytes"),
		rng(s.Limits.Files, 0, big, "limits", "files"),
		rng(s.Limits.FileBytes, 0, big, "limits", "file_bytes"),
		rng(s.Limits.Processes, 0, big, "limits", "processes"),
		rng(s.Limits.FilesystemDepth, 0, 4096, "limits", "filesystem_depth"),
		rng(s.Normalization.TimeBucketMS, 1, maxMS, "normalization", "time_bucket_ms"),
	}
	for _, err := range checks {
		if err != nil {
			return err
		}
	}
	// The emulator holds every cell of the viewport and of each scrollback
	// line at the current width (about 200 bytes a cell): each dimension may
	// be in range while their product is not (65535x65535 is 4 billion cells
	// and ended the server out of memory).
	if err := cells(s.Terminal.Columns, s.Terminal.Rows, s.Terminal.Scrollback, "terminal"); err != nil {
		return err
	}
	for i, p := range s.Normalization.Patterns {
		if p.Pattern == "" {
			return issue(ports.IssueInvalidValue, "must not be empty", "normalization", "patterns", i, "pattern")
		}
	}
	var last int64
	for i, ev := range s.Events {
		if ev.AtMS < 0 || ev.AtMS > s.TimeoutMS {
			return issue(ports.IssueOutOfRange, fmt.Sprintf("at_ms %d is outside 0..timeout_ms (%d)", ev.AtMS, s.TimeoutMS), "events", i, "at_ms")
		}
		if ev.AtMS < last {
			return issue(ports.IssueInvalidValue, fmt.Sprintf("at_ms %d is before the previous event's %d: events must be in time order", ev.AtMS, last), "events", i, "at_ms")
		}
		last = ev.AtMS
		switch ev.Type {
		case ports.EventInput:
		case ports.EventResize:
			if err := rng(int64(ev.Columns), 1, 65535, "events", i, "columns"); err != nil {
				return err
			}
			if err := rng(int64(ev.Rows), 1, 65535, "events", i, "rows"); err != nil {
				return err
			}
			if err := cells(ev.Columns, ev.Rows, s.Terminal.Scrollback, "events", i); err != nil {
				return err
			}
		case ports.EventSignal:
			if _, ok := signalNamed(ev.Signal); !ok {
				return issue(ports.IssueInvalidValue, fmt.Sprintf("signal %q is not SIGINT, SIGTERM or SIGKILL", ev.Signal), "events", i, "signal")
			}
		default:
			return issue(ports.IssueInvalidValue, fmt.Sprintf("event type %q is not input, resize or signal", ev.Type), "events", i, "type")
		}
	}
	return nil
}

// maxTerminalCells bounds columns x (rows + scrollback), the cells the
// emulator may hold: about 200 MB. The default terminal (80x24 with 1000
// lines of scrollback) holds 81,920.
const maxTerminalCells = 1 << 20

func cells(columns, rows, scrollback int, path ...any) error {
	if n := int64(columns) * (int64(rows) + int64(scrollback)); n > maxTerminalCells {
		return issue(ports.IssueOutOfRange, fmt.Sprintf("columns x (rows + scrollback) is %d cells, over the %d the terminal emulator may hold; "+
			"lower the size or the scrollback", n, maxTerminalCells), path...)
	}
	return nil
}

// resolveDir returns the real path of the working directory, which must be a
// directory.
func resolveDir(dir string) (string, error) {
	if dir == "" {
		dir = "."
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", issue(ports.IssueInvalidValue, err.Error(), "working_directory")
	}
	real, err := filepath.EvalSymlinks(abs)
	if err != nil {
		return "", issue(ports.IssueInvalidValue, "working directory could not be resolved: "+err.Error(), "working_directory")
	}
	info, err := os.Stat(real)
	if err != nil {
		return "", issue(ports.IssueInvalidValue, "working directory could not be resolved: "+err.Error(), "working_directory")
	}
	if !info.IsDir() {
		return "", issue(ports.IssueInvalidValue, fmt.Sprintf("working directory %s is not a directory", real), "working_directory")
	}
	return real, nil
}

// resolveExecutable applies §1.2: a name with '/' or '\' resolves against
// the working directory; otherwise the first regular executable file on the
// scenario's PATH, else the host's (an empty entry means the working
// directory).
func resolveExecutable(s ports.CaptureScenario, cwd string) (string, []string, error) {
	var checked []string
	fail := func(why string) error {
		return issue(ports.IssueInvalidValue,
			"executable could not be resolved: "+why+"; checked "+strings.Join(checked, ", "), "executable")
	}
	name := s.Executable
	if strings.ContainsAny(name, `/\`) {
		p := name
		if !filepath.IsAbs(p) {
			p = filepath.Join(cwd, p)
		}
		checked = append(checked, p)
		if err := checkCandidate(p); err != nil {
			return "", checked, fail(err.Error())
		}
		return p, checked, nil
	}
	pathVar, ok := s.Environment["PATH"]
	if !ok {
		pathVar = os.Getenv("PATH")
	}
	var lastErr error
	seen := map[string]bool{}
	for _, dir := range filepath.SplitList(pathVar) {
		if dir == "" {
			dir = cwd
		} else if !filepath.IsAbs(dir) {
			dir = filepath.Join(cwd, dir)
		}
		p := filepath.Join(dir, name)
		if seen[p] { // PATH names the directory twice
			continue
		}
		seen[p] = true
		checked = append(checked, p)
		err := checkCandidate(p)
		if err == nil {
			return p, checked, nil
		}
		if !errors.Is(err, errCandidateMissing) {
			lastErr = err
		}
	}
	if lastErr != nil {
		return "", checked, fail(lastErr.Error())
	}
	why := name + " not found"
	if here := filepath.Join(cwd, name); !seen[here] && checkCandidate(here) == nil {
		// A name without a slash is looked up on PATH only, as a shell
		// does; the caller most likely meant the file beside it.
		why += " on PATH (a name without a slash is looked up there only); the working directory holds it: pass ./" + name + " to run " + here
	}
	return "", checked, fail(why)
}

var errCandidateMissing = errors.New("does not exist")

// checkCandidate: a regular file, executable by us, that the kernel can run
// directly (ELF, or a script with a #! line).
func checkCandidate(p string) error {
	info, err := os.Stat(p)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return fmt.Errorf("%s %w", p, errCandidateMissing)
		}
		return fmt.Errorf("%s: %v", p, err)
	}
	if info.IsDir() {
		return fmt.Errorf("%s is a directory", p)
	}
	if !info.Mode().IsRegular() {
		return fmt.Errorf("%s is not a regular file", p)
	}
	if err := syscall.Access(p, 0x1 /* X_OK */); err != nil {
		return fmt.Errorf("%s is not executable", p)
	}
	f, err := os.OpenFile(p, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if errors.Is(err, fs.ErrPermission) {
		// Executable but not readable by us (mode 0711): the kernel can
		// still run it, and says so at the launch if it cannot; the
		// capture then has no digest (identify).
		return nil
	}
	if err != nil {
		return fmt.Errorf("%s: %v", p, err)
	}
	defer f.Close()
	var head [4]byte
	n, _ := io.ReadFull(f, head[:])
	switch {
	case n >= 4 && string(head[:4]) == "\x7fELF":
	case n >= 2 && string(head[:2]) == "#!":
	default:
		return fmt.Errorf("%s is neither an ELF binary nor a script starting with #!", p)
	}
	return nil
}

type fileTuple struct {
	dev, ino         uint64
	mode             uint32
	size             int64
	mtimeNS, ctimeNS int64
}

func tupleOf(info os.FileInfo) (fileTuple, bool) {
	st, ok := info.Sys().(*syscall.Stat_t)
	if !ok {
		return fileTuple{}, false
	}
	return fileTuple{
		dev: uint64(st.Dev), ino: st.Ino, mode: st.Mode, size: st.Size,
		mtimeNS: int64(st.Mtim.Sec)*1e9 + int64(st.Mtim.Nsec), ctimeNS: int64(st.Ctim.Sec)*1e9 + int64(st.Ctim.Nsec),
	}, true
}

// identify opens the executable O_NONBLOCK, checks that the open file is the
// path's, hashes it and checks that it did not change while hashed (§1.2
// steps 1-2). Step 3 (re-stat after the launch) is confirmIdentity.
func identify(path string, checked []string) (ports.ExecutableIdentity, fileTuple, error) {
	id := ports.ExecutableIdentity{Path: path, Checked: checked, State: ports.IdentityUnknown}
	bad := func(why string) error {
		return issue(ports.IssueInvalidValue, "executable identity could not be established: "+why, "executable")
	}
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if errors.Is(err, fs.ErrPermission) {
		// Executable but not readable by us: it runs, and nothing names
		// it. The path's metadata is still checked after the launch.
		if info, serr := os.Stat(path); serr == nil && info.Mode().IsRegular() {
			if ft, ok := tupleOf(info); ok {
				id.Reason = "the executable could not be read, so it was not digested: " + err.Error()
				id.Size, id.Mode = ft.size, ft.mode
				id.Device, id.Inode = ft.dev, ft.ino
				id.MtimeNS, id.CtimeNS = ft.mtimeNS, ft.ctimeNS
				return id, ft, nil
			}
		}
	}
	if err != nil {
		return id, fileTuple{}, bad(err.Error())
	}
	defer f.Close()
	finfo, err := f.Stat()
	if err != nil || !finfo.Mode().IsRegular() {
		return id, fileTuple{}, bad("not a regular file")
	}
	pinfo, err := os.Stat(path)
	if err != nil {
		return id, fileTuple{}, bad(err.Error())
	}
	ft, ok1 := tupleOf(finfo)
	pt, ok2 := tupleOf(pinfo)
	if !ok1 || !ok2 || ft != pt {
		return id, fileTuple{}, bad("the opened file is not the file at the path")
	}
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return id, fileTuple{}, bad(err.Error())
	}
	again, err := f.Stat()
	if err != nil {
		return id, fileTuple{}, bad(err.Error())
	}
	if at, _ := tupleOf(again); at != ft {
		return id, fileTuple{}, bad("the file changed while it was hashed")
	}
	id.SelectedSHA256 = hex.EncodeToString(h.Sum(nil))
	id.Size, id.Mode = ft.size, ft.mode
	id.Device, id.Inode = ft.dev, ft.ino
	id.MtimeNS, id.CtimeNS = ft.mtimeNS, ft.ctimeNS
	return id, ft, nil
}

// confirmIdentity re-stats the path after the launch.
func confirmIdentity(id *ports.ExecutableIdentity, want fileTuple) {
	if id.SelectedSHA256 == "" {
		return // never read: unknown, for the reason identify gave
	}
	info, err := os.Stat(id.Path)
	if err != nil {
		id.State, id.Reason, id.SHA256 = ports.IdentityUnknown, "the executable could not be stat'ed after the launch: "+err.Error(), ""
		return
	}
	if got, ok := tupleOf(info); !ok || got != want {
		id.State, id.Reason, id.SHA256 = ports.IdentityUnknown, "the executable's metadata changed between hashing and the launch", ""
		return
	}
	id.State, id.SHA256 = ports.IdentityUnchanged, id.SelectedSHA256
}
