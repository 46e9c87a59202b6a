package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"

	"rea/adapters/native"
	"rea/core"
	"rea/ports"
)

// disassembleNative is rea disassemble: rea-native opens the file (with
// opts: its warm cache and debug-file directories) and streams the text
// disassembly of its executable sections, or of one, to w.
func disassembleNative(ctx context.Context, opts *native.Options, path, section string, w io.Writer) error {
	if st, err := os.Stat(path); err == nil && st.IsDir() {
		e := core.TargetError("disassemble", path, "directory", nil)
		e.Details["constraint"] = "directory_requires_file"
		e.Message = "disassemble: " + path + " is a directory; rea disassemble needs a file"
		e.Remediation = "Name one ELF, PE or Mach-O file; rea inventory lists the binaries a directory holds."
		return e
	} else if err == nil && !st.Mode().IsRegular() {
		// A FIFO would block the open below until a writer came, and a
		// device is no binary: refused as open_binary refuses them.
		return core.TargetError("disassemble", path, "not_regular_file", nil)
	}
	an, err := native.New(opts).Open(ctx, ports.Target{Path: path})
	if errors.Is(err, ports.ErrUnsupported) && !errors.Is(err, ports.ErrMalformed) {
		// The file's kind, not a missing capability (this was
		// capability_unavailable, "check rea capabilities"): as open_binary
		// answers a file it does not recognise.
		return &core.Error{Code: core.CodeUnsupportedTarget, Message: "disassemble: " + path + " is not an ELF, PE or Mach-O file", Err: err,
			Remediation: "rea disassemble takes an ELF, PE or Mach-O file (a .NET assembly too); rea analyze maps archives, ASARs and JavaScript.",
			Details:     map[string]any{"operation": "disassemble", "path": path, "reason": "unrecognized_format"}}
	}
	if err != nil {
		return err
	}
	defer an.Close(context.WithoutCancel(ctx))
	a, ok := an.(*native.Analysis)
	if !ok {
		return fmt.Errorf("rea-native opened %s as %T: %w", path, an, ports.ErrUnsupported)
	}
	_, err = a.WriteDisassembly(ctx, w, section)
	if section != "" && errors.Is(err, ports.ErrNotFound) {
		// The flag's mistake, named as the flag (the issue had no path).
		return core.InvalidRequest("disassemble", core.Issue{Path: []any{"--section"}, Reason: core.ReasonInvalidValue,
			Message: fmt.Sprintf("%s has no executable section named %q with file bytes", path, section)})
	}
	return err
}
