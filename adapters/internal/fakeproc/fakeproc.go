// Package fakeproc is the process behaviour the fake engines of the Ghidra
// and Hopper tests share (adapters/ghidra/testdata/fakeghidra,
// adapters/hopper/testdata/fakehopper), configured by environment variables
// under one prefix such as FAKE_GHIDRA:
//
//   - <prefix>_CHILD=1 marks a forked child, which only sleeps;
//   - <prefix>_STARTS names a file that gets the pid of every start, and
//     "child <pid>" for every child forked;
//   - <prefix>_MODE=ignore-term ignores SIGTERM, fork leaves a child running,
//     stranger leaves a process running in the launcher's process group that
//     the supervisor cannot prove it owns: started through a parent that
//     exits at once (so it is no owned process's child) and without the
//     supervisor's run ID (REA_PROCESS_RUN_ID), so the supervisor must
//     neither signal it nor call the group gone. The starts file gets
//     "stranger <pid>", and the process carries <prefix>_STRANGER=1 for the
//     test that ends it.
//
// It imports the standard library only and is used by test programs only.
package fakeproc

import (
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"strings"
	"syscall"
	"time"
)

// Child makes a forked child sleep for an hour and exit, and a stranger's
// short-lived parent start the stranger and exit; it returns at once in any
// other process. Call it first in main.
func Child(prefix string) {
	switch os.Getenv(prefix + "_CHILD") {
	case "1":
		time.Sleep(time.Hour)
		os.Exit(0)
	case "stranger-parent":
		pid, err := spawn(append(os.Environ(), prefix+"_CHILD=1", prefix+"_STRANGER=1"))
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		record(prefix, fmt.Sprint("stranger ", pid))
		os.Exit(0)
	}
}

// spawn starts this program with env and returns its pid.
func spawn(env []string) (int, error) {
	self, err := os.Executable()
	if err != nil {
		return 0, err
	}
	c := exec.Command(self)
	c.Env = env
	if err := c.Start(); err != nil {
		return 0, fmt.Errorf("fork: %w", err)
	}
	return c.Process.Pid, nil
}

// Begin records this start, applies the ignore-term and fork modes, and
// returns the mode.
func Begin(prefix string) (mode string, err error) {
	mode = os.Getenv(prefix + "_MODE")
	record(prefix, fmt.Sprint(os.Getpid()))
	if mode == "ignore-term" {
		signal.Ignore(syscall.SIGTERM)
	}
	switch mode {
	case "fork":
		pid, err := spawn(append(os.Environ(), prefix+"_CHILD=1"))
		if err != nil {
			return mode, err
		}
		record(prefix, fmt.Sprint("child ", pid))
	case "stranger":
		self, err := os.Executable()
		if err != nil {
			return mode, err
		}
		c := exec.Command(self)
		c.Env = append(withoutRunID(os.Environ()), prefix+"_CHILD=stranger-parent")
		// Once its parent is gone the stranger is no child of ours.
		if err := c.Run(); err != nil {
			return mode, fmt.Errorf("stranger: %w", err)
		}
	}
	return mode, nil
}

// withoutRunID drops the supervisor's run ID from env.
func withoutRunID(env []string) []string {
	var out []string
	for _, kv := range env {
		if !strings.HasPrefix(kv, "REA_PROCESS_RUN_ID=") {
			out = append(out, kv)
		}
	}
	return out
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
