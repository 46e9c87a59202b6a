package core

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"rea/core/internal/identify"
	"rea/ports"
)

// Identify hashes and classifies a local file. It never runs a provider. A
// directory, a missing file or an unreadable one is target_unavailable (or
// access_denied); an unrecognised format is unsupported_target.
func Identify(ctx context.Context, path string) (ports.Target, error) {
	return identifyFile(ctx, path, true)
}

// Classify is Identify without the digest (SHA256 empty): what a front end
// needs to route a path, from the file's headers rather than all its bytes.
func Classify(ctx context.Context, path string) (ports.Target, error) {
	return identifyFile(ctx, path, false)
}

func identifyFile(ctx context.Context, path string, digest bool) (ports.Target, error) {
	const op = "open_binary"
	abs, err := filepath.Abs(path)
	if err != nil {
		return ports.Target{}, TargetError(op, path, "invalid_path", err)
	}
	st, err := os.Stat(abs)
	if err != nil {
		return ports.Target{}, TargetError(op, abs, "missing", err)
	}
	if st.IsDir() {
		e := TargetError(op, abs, "directory", nil)
		e.Details["constraint"] = "directory_requires_file"
		e.Message = op + ": " + abs + " is a directory; open_binary needs a file"
		return ports.Target{}, e
	}
	if !st.Mode().IsRegular() {
		return ports.Target{}, TargetError(op, abs, "not_regular_file", nil)
	}
	f, err := os.Open(abs)
	if err != nil {
		return ports.Target{}, TargetError(op, abs, "unreadable", err)
	}
	defer f.Close()
	head := make([]byte, 4096)
	n, err := io.ReadFull(f, head)
	if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) && !errors.Is(err, io.EOF) {
		return ports.Target{}, TargetError(op, abs, "unreadable", err)
	}
	head = head[:n]
	var sum string
	if digest {
		if sum, err = identify.Digest(ctx, f); ctx.Err() != nil {
			return ports.Target{}, ctx.Err()
		} else if err != nil {
			return ports.Target{}, TargetError(op, abs, "unreadable", err)
		}
	}
	t := ports.Target{Path: abs, SHA256: sum, Size: st.Size()}
	t.Format, t.Kind, t.Architecture = identify.Classify(f, st.Size(), head, abs)
	if t.Format == "" {
		return ports.Target{}, &Error{Code: CodeUnsupportedTarget,
			Message:     op + ": " + abs + " is not a recognised binary, archive or script format",
			Remediation: "Open an ELF, PE, Mach-O, ASAR, ZIP, tar, ar, JavaScript or source-map file.",
			Details:     map[string]any{"operation": op, "path": abs, "reason": "unrecognized_format"}}
	}
	return t, nil
}

// TargetError is the error for a path argument that cannot be read:
// target_unavailable, or access_denied when the file system refused.
func TargetError(op, path, reason string, cause error) *Error {
	code := CodeTargetUnavailable
	details := map[string]any{"path": path, "reason": reason}
	msg := op + ": " + path + ": " + reason
	if cause != nil {
		msg = op + ": " + cause.Error()
		var pe *fs.PathError
		if errors.As(cause, &pe) {
			if errors.Is(cause, fs.ErrPermission) {
				code = CodeAccessDenied
				details["boundary"] = "filesystem-read"
			}
			details["system_code"] = pe.Err.Error()
		}
	}
	return &Error{Code: code, Category: CategoryUnavailable, Message: msg, Err: cause, Details: details,
		Remediation: "Pass the path of an existing, readable regular file."}
}

// describeTarget is used in messages.
func describeTarget(t ports.Target) string {
	a := t.Architecture
	if a == "" {
		a = "unknown architecture"
	}
	return fmt.Sprintf("%s %s (%s)", t.Format, t.Kind, a)
}
