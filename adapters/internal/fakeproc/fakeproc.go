// Package fakeproc is the process behaviour the fake engines of the Ghidra
// and Hopper tests share (adapters/ghidra/testdata/fakeghidra,
// adapters/hopper/testdata/fakehopper), configured by environment variables
// under one prefix such as FAKE_GHIDRA:
//
//   - <prefix>_CHILD=1 marks a forked child, which only sleeps;
//   - <prefix>_STARTS names a file that gets the pid of every start, and
//     "child <pid>" for every child forked;
//   - <prefix>_MODE=ignore-term ignores SIGTERM, fork leaves a child running.
//
// It imports the standard library only and is used by test programs only.
package fakeproc

import (
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"syscall"
	"time"
)

// Child makes a forked child sleep for an hour and exit; it returns at once
// in any other process. Call it first in main.
func Child(prefix string) {
	if os.Getenv(prefix+"_CHILD") == "1" {
		time.Sleep(time.Hour)
		os.Exit(0)
	}
}

// Begin records this start, applies the ignore-term and fork modes, and
// returns the mode.
func Begin(prefix string) (mode string, err error) {
	mode = os.Getenv(prefix + "_MODE")
	record(prefix, fmt.Sprint(os.Getpid()))
	if mode == "ignore-term" {
		signal.Ignore(syscall.SIGTERM)
	}
	if mode == "fork" {
		self, err := os.Executable()
		if err != nil {
			return mode, err
		}
		c := exec.Command(self)
		c.Env = append(os.Environ(), prefix+"_CHILD=1")
		if err := c.Start(); err != nil {
			return mode, fmt.Errorf("fork: %w", err)
		}
		record(prefix, fmt.Sprint("child ", c.Process.Pid))
	}
	return mode, nil
}

// record appends a line to the starts file, when there is one.
func record(prefix, line string) {
	p := os.Getenv(prefix + "_STARTS")
	if p == "" {
		return
	}
	if f, err := os.OpenFile(p, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o600); err == nil {
		fmt.Fprintln(f, line)
		f.Close()
	}
}
