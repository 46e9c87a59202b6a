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
	// The bytes column is padded to objdump's seven bytes (21 characters).
	line := regexp.MustCompile(`^ *[0-9a-f]+:\t([0-9a-f]{2}( [0-9a-f]{2})* *)\t\S(.*\S)?$`)
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")[2:]
	if len(lines) < 1000 {
		t.Fatalf("%d instruction lines", len(lines))
	}
	for _, l := range lines {
		m := line.FindStringSubmatch(l)
		if m == nil {
			t.Fatalf("line %q is not address, bytes and text", l)
		}
		if len(m[1]) < 21 {
			t.Fatalf("line %q: the bytes column is not padded", l)
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
	// A file of another kind is an unsupported target, as open_binary
	// says, not a missing capability (it was capability_unavailable with
	// "check rea capabilities").
	if _, errOut, code := runCLI(t, "disassemble", "main.go"); code != 4 || !strings.Contains(errOut, "(unsupported_target)") ||
		!strings.Contains(errOut, "main.go is not an ELF, PE or Mach-O file") || !strings.Contains(errOut, "rea analyze") {
		t.Errorf("a Go source file: exit %d, %s", code, errOut)
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

// rea disassemble pads the bytes column as objdump -d does, so that the
// texts line up, and ends no line in a space. Before, the bytes were
// followed by a tab only (texts started wherever the bytes ended), and an
// AArch64 nop read "nop " with a trailing space.
func TestDisassembleColumns(t *testing.T) {
	cc, err := exec.LookPath("aarch64-linux-gnu-gcc")
	if err != nil {
		t.Skip("aarch64-linux-gnu-gcc is not installed")
	}
	dir := t.TempDir()
	src := filepath.Join(dir, "n.c")
	if err := os.WriteFile(src, []byte("int main(void) { __asm__(\"nop\"); return 0; }\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(dir, "n")
	if out, err := exec.Command(cc, "-O1", "-o", bin, src).CombinedOutput(); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	out, errOut, code := runCLI(t, "disassemble", bin, "--section", ".text")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	nop := false
	for _, l := range strings.Split(out, "\n") {
		if strings.TrimRight(l, " ") != l {
			t.Errorf("line %q ends in a space", l)
		}
		if f := strings.Split(l, "\t"); len(f) == 3 {
			if len(f[1]) != 12 { // four bytes, padded as "xx xx xx xx "
				t.Errorf("line %q: bytes column %q", l, f[1])
			}
			nop = nop || f[1] == "1f 20 03 d5 " && f[2] == "nop"
		}
	}
	if !nop {
		t.Errorf("no nop line:\n%.600s", out)
	}
}
