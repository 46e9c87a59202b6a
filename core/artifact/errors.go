package artifact

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"rea/ports"

	"rea/core"
)

// Failure is an artifact operation failure before it is mapped to
// the canonical envelope (CONTRACTS.md §5, "Artifact"). reason is one of
// cancelled, format, integrity, limit, path, policy, unavailable, io.
type Failure struct {
	Reason     string
	Path       string // logical path involved
	limit      string // for reason limit
	value, max int64
	Err        error
}

func (f *Failure) Error() string {
	s := f.Reason
	if f.limit != "" {
		s += " " + f.limit
	}
	if f.Path != "" {
		s += fmt.Sprintf(" at %q", f.Path)
	}
	if f.Err != nil {
		s += ": " + f.Err.Error()
	}
	return s
}

func (f *Failure) Unwrap() error { return f.Err }

func limitFailure(limit, path string, value, max int64) error {
	return &Failure{Reason: "limit", Path: path, limit: limit, value: value, max: max}
}

// withPath classifies an error met while reading the entry at the logical
// path p: container errors keep their reason, context errors pass through,
// anything else is io.
func withPath(err error, p string) error {
	var af *Failure
	var e *core.Error
	if errors.As(err, &af) || errors.As(err, &e) || errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) ||
		errors.Is(err, ports.ErrResourceLimit) {
		return err
	}
	var ce *ports.ContainerError
	if errors.As(err, &ce) {
		f := &Failure{Reason: ce.Reason, Path: p, limit: ce.Limit, Err: err}
		switch ce.Reason {
		case ports.ContainerFormat, ports.ContainerPath, ports.ContainerLimit, ports.ContainerUnavailable, ports.ContainerIO:
		default:
			f.Reason = "format"
		}
		if ce.Path != "" {
			switch {
			case p == "" || p == ".":
				f.Path = ce.Path
			case p != ce.Path && !strings.HasSuffix(p, "/"+ce.Path):
				f.Path = p + "/" + ce.Path // a failure inside the container opened at p
			}
		}
		return f
	}
	return &Failure{Reason: "io", Path: p, Err: err}
}

// integrityMismatch is the fail-closed error for one contradicted entry.
func integrityMismatch(op string, it *Item) *core.Error {
	msg := fmt.Sprintf("%s: %s: declared sha256 %s, calculated %s", op, it.Path, it.declared, it.SHA256)
	rem := "The bytes differ from what the container declares. Treat them as untrusted; to inventory the verified siblings and record this contradiction, rerun " +
		op + " with integrity_policy=record-and-continue."
	if it.unpacked {
		msg = fmt.Sprintf("%s: unpacked entry %s does not match the hash in the archive header (declared %s, calculated %s); "+
			"packagers commonly sign or strip .asar.unpacked binaries after writing the header, and Electron does not check unpacked files at run time",
			op, it.Path, it.declared, it.SHA256)
		rem = "If the packager signs or strips unpacked binaries, rerun " + op +
			" with integrity_policy=record-and-continue to record the contradiction and continue with the verified entries."
	}
	return &core.Error{Code: core.CodeArtifactIntegrityMismatch, Category: core.CategoryIntegrityMismatch, Message: msg, Remediation: rem,
		Details: map[string]any{"logical_path": it.Path, "declared_sha256": it.declared, "calculated_sha256": it.SHA256, "unpacked": it.unpacked}}
}

// ChangedError is artifact_changed: the root changed while it was read.
func ChangedError(op, p, reason string) *core.Error {
	return &core.Error{Code: core.CodeArtifactChanged, Category: core.CategoryIntegrityMismatch,
		Message:     op + ": Root artifact changed: " + reason,
		Remediation: "Wait until nothing writes to the artifact, then call again.",
		Details:     map[string]any{"operation": op, "path": p, "reason": reason, "boundary": "stable-artifact-read"}}
}

// classify maps any failure of an artifact operation onto the canonical
// envelope.
func (b *graphBuilder) classify(ctx context.Context, err error) error {
	return artifactError(ctx, b.req.Op, err)
}

func artifactError(ctx context.Context, op string, err error) error {
	var e *core.Error
	if errors.As(err, &e) {
		return e
	}
	if ctx.Err() != nil || errors.Is(err, context.Canceled) {
		return &core.Error{Code: core.CodeCancelled, Category: core.CategoryCancelled, Message: op + ": cancelled", Err: err,
			Details: map[string]any{"operation": op, "reason": "cancelled", "cleanup": "complete"}}
	}
	if errors.Is(err, ports.ErrResourceLimit) {
		return core.AsError(op, err) // a memory budget: resource_constraint naming it
	}
	var f *Failure
	if !errors.As(err, &f) {
		f = &Failure{Reason: "io", Err: err}
	}
	detail := ""
	if f.Err != nil {
		detail = f.Err.Error()
	}
	details := map[string]any{"operation": op, "reason": f.Reason}
	if f.Path != "" {
		details["logical_path"] = f.Path
	}
	if detail != "" {
		details["detail"] = detail
	}
	switch f.Reason {
	case "limit":
		details["truncated"] = true
		details["limit"] = f.limit
		if f.max > 0 {
			details["maximum"] = f.max
			details["observed"] = f.value
		}
		msg := fmt.Sprintf("%s: %s exceeded", op, f.limit)
		if f.max > 0 {
			msg += fmt.Sprintf(" (%d > %d)", f.value, f.max)
		}
		if f.Path != "" {
			msg += " at " + f.Path
		}
		return &core.Error{Code: core.CodeTruncated, Category: core.CategoryTruncated, Message: msg, Err: err, Details: details,
			Remediation: "The artifact is larger or deeper than the limits allow (or is a compression bomb). Raise the named limit within its maximum if the input is trusted (the argument of that name; on the CLI --max-entries, --max-entry-bytes, --max-total-bytes or --max-compression-ratio), or inventory a smaller part of it."}
	case "unavailable":
		details["calculated_sha256"] = nil
		details["unpacked"] = isUnpackedMissing(err)
		why := detail
		var ce *ports.ContainerError
		if errors.As(err, &ce) && ce.Err != nil {
			why = ce.Err.Error() // the container's error restates the reason and the entry
		}
		rem := "Restore the missing file (for an ASAR, the <archive>.unpacked companion directory must sit beside the archive) and call again; " +
			"its content cannot be verified or materialized without it. "
		if errors.As(err, &ce) && ce.Format == "ar" {
			// A thin archive: no file of its own is missing, and no
			// policy reads the members' bytes from it.
			rem = "A thin ar archive names its members' files (ar t lists them) instead of holding their bytes: inventory or open those files where they are."
		} else if op == "extract_artifact" {
			// Extraction fails under either policy: the way past it is
			// to leave the file out, and under fail the inventory that
			// precedes the writing stops at it first.
			rem += "To extract the other files, call again with integrity_policy: \"record-and-continue\" and occurrence_ids that leave it out " +
				"(from inventory_artifact with that policy, where its hash_status is unavailable)."
		} else {
			rem += "To inventory the rest of an ASAR without its unpacked files, call again with integrity_policy: \"record-and-continue\"."
		}
		return &core.Error{Code: core.CodeArtifactOperationFailed, Category: core.CategoryUnavailable, Err: err, Details: details,
			Message: fmt.Sprintf("%s: the bytes of %s are unavailable: %s", op, f.Path, why), Remediation: rem}
	case "integrity":
		details["category"] = "integrity"
		return &core.Error{Code: core.CodeArtifactOperationFailed, Category: core.CategoryIntegrityMismatch, Message: op + ": " + f.Error(), Err: err, Details: details}
	}
	msg := op + ": " + f.Error()
	if m, ok := containerMessage(op, f); ok {
		msg = m
	}
	return &core.Error{Code: core.CodeArtifactOperationFailed, Category: core.CategoryExecutionFailure, Message: msg, Err: err, Details: details,
		Remediation: "The artifact is malformed or unsafe (see details.reason and details.detail); rea refuses it rather than guess."}
}

// containerMessage is the message of a container's format, path or I/O
// failure: what is wrong, the format and the entry once, then the adapter's
// own words. The adapter's error (details.detail) names its format, reason
// and entry again, so the chain of Error strings said each two or three
// times.
func containerMessage(op string, f *Failure) (string, bool) {
	var ce *ports.ContainerError
	if !errors.As(f.Err, &ce) || ce.Err == nil {
		return "", false
	}
	what, ok := map[string]string{"format": "malformed ", "path": "unsafe entry name in ", "io": "cannot read "}[f.Reason]
	if !ok {
		return "", false
	}
	s := op + ": " + what + ce.Format
	if f.Path != "" && f.Path != "." {
		s += fmt.Sprintf(" at %q", f.Path)
	}
	return s + ": " + ce.Err.Error(), true
}

func isUnpackedMissing(err error) bool {
	var ce *ports.ContainerError
	return errors.As(err, &ce) && ce.Reason == ports.ContainerUnavailable && ce.Format == "asar"
}
