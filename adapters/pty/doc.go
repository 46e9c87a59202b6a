// Package pty is the process-capture engine: it runs a declared program in a
// pseudo-terminal (github.com/creack/pty) as a process group owned through
// rea/supervisor, drives it with timed input, resize and signal events,
// renders the terminal with an emulator (github.com/charmbracelet/x/vt), and
// observes the process tree, listening sockets and files under declared
// paths from /proc and the filesystem. It implements ports.ProcessCapturer
// and returns raw and normalized observations; core turns them into
// Evidence.
//
// Only Linux is supported (the observations come from /proc); elsewhere
// CaptureProcess fails with ports.ErrUnavailable.
//
// pty imports rea/ports, rea/supervisor and its PTY and emulator libraries,
// never core or another adapter.
package pty
