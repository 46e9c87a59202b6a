package main

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"
)

// rea disassemble streams one line per instruction of the sections asked
// for, and fails with the CLI's exit codes for a section that is not there
// and a file that is not a native binary.
func TestDisassembleCommand(t *testing.T) {
	const target = "/usr/bin/ls"
	if _, err := os.Stat(target); err != nil {
		t.Skip("no /usr/bin/ls")
	}
	out, errOut, code := runCLI(t, "disassemble", target, "--section", ".text")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if !strings.HasPrefix(out, "\nDisassembly of section .text:\n") || strings.Count(out, "Disassembly of section") != 1 {
		t.Fatalf("not one .text section:\n%.300s", out)
	}
	line := regexp.MustCompile(`^ *[0-9a-f]+:\t[0-9a-f]{2}( [0-9a-f]{2})*\t\S.*$`)
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")[2:]
	if len(lines) < 1000 {
		t.Fatalf("%d instruction lines", len(lines))
	}
	for _, l := range lines {
		if !line.MatchString(l) {
			t.Fatalf("line %q is not address, bytes and text", l)
		}
	}
	all, _, code := runCLI(t, "disassemble", target)
	if code != 0 || !strings.Contains(all, out) || strings.Count(all, "Disassembly of section") < 2 {
		t.Errorf("exit %d; the whole file's text does not hold .text's (%d bytes)", code, len(all))
	}
	if _, errOut, code := runCLI(t, "disassemble", target, "--section", ".data"); code == 0 || !strings.Contains(errOut, ".data") {
		t.Errorf("a section that is not code: exit %d, %s", code, errOut)
	}
	// A directory is a target error that says so, once prefixed.
	if _, errOut, code := runCLI(t, "disassemble", t.TempDir()); code == 0 || !strings.Contains(errOut, "is a directory") ||
		strings.Contains(errOut, "rea: rea:") || !strings.Contains(errOut, "target_unavailable") {
		t.Errorf("a directory: exit %d, %s", code, errOut)
	}
	if _, _, code := runCLI(t, "disassemble", "main.go"); code == 0 {
		t.Error("a Go source file disassembled")
	}
	if _, _, code := runCLI(t, "--format", "json", "disassemble", target); code == 0 {
		t.Error("--format json accepted")
	}
}

// A FIFO or a device where rea disassemble expects a file is a target
// error at once, as open_binary answers: before, rea opened the FIFO and
// waited for a writer forever (and /dev/zero was "unrecognised file
// format", capability_unavailable).
func TestDisassembleRefusesNonRegularFiles(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "pipe")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	for _, p := range []string{fifo, "/dev/zero"} {
		// A hang guard, not a timing assertion: the FIFO has no writer.
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		cmd := exec.CommandContext(ctx, reaBin, "disassemble", p)
		dieWithTests(cmd)
		var errOut bytes.Buffer
		cmd.Stderr = &errOut
		err := cmd.Run()
		hung := ctx.Err() != nil
		cancel()
		if hung {
			t.Fatalf("rea disassemble %s hung", p)
		}
		var ee *exec.ExitError
		if !errors.As(err, &ee) || ee.ExitCode() != 3 || !strings.Contains(errOut.String(), "not_regular_file") ||
			!strings.Contains(errOut.String(), "target_unavailable") {
			t.Errorf("%s: %v, %s", p, err, errOut.String())
		}
	}
}
