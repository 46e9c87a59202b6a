package cli

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"rea/core"
)

// Arguments that carry JSON or Evidence come from one of three places, so a
// workflow chains without hitting the command line's length limit:
//
//	{"json":...}      the text itself (JSON arguments only)
//	@FILE             the contents of FILE
//	-                 standard input (once per command)
//
// An Evidence argument may also name one record of an exported bundle:
//
//	@BUNDLE#ev_ID     the bundle FILE is validated and imported into the
//	                  command's session, and the argument becomes the
//	                  retained reference {"kind":"retained-evidence","evidence_id":ID}
//
// The fragment form was chosen over separate --bundle/--evidence-id flags
// because it works in every place an Evidence argument appears (a workflow's
// positional, rea call --evidence, both sides of compare-apps) with one rule.

// maxArgumentBytes bounds what one @FILE or - argument may hold: the
// session's ledger holds at most 64 MiB, so a larger Evidence could not be
// used anyway.
const maxArgumentBytes = 64 << 20

// source reads the arguments of one command; it remembers whether standard
// input was consumed, since it can be read only once.
type source struct {
	stdin     io.Reader
	usedStdin bool
}

func (e *env) source() *source {
	if e.src == nil {
		e.src = &source{stdin: e.opts.Stdin}
		if e.src.stdin == nil {
			e.src.stdin = os.Stdin
		}
	}
	return e.src
}

// isReference reports whether s names a file or standard input rather
// than being the value itself.
func isReference(s string) bool { return s == "-" || strings.HasPrefix(s, "@") }

// read returns the bytes an @FILE or - reference names.
func (src *source) read(what, ref string) ([]byte, error) {
	var r io.Reader
	name := "standard input"
	if ref == "-" {
		if src.usedStdin {
			return nil, usageError{fmt.Errorf("%s: standard input (-) can be read only once per command", what)}
		}
		src.usedStdin = true
		r = src.stdin
	} else {
		name = strings.TrimPrefix(ref, "@")
		if name == "" {
			return nil, usageError{fmt.Errorf("%s: @ must be followed by a file name", what)}
		}
		f, err := os.Open(name)
		if err != nil {
			return nil, core.TargetError(what, abs(name), "missing", err)
		}
		defer f.Close()
		r = f
	}
	b, err := io.ReadAll(io.LimitReader(r, maxArgumentBytes+1))
	if err != nil {
		return nil, usageError{fmt.Errorf("%s: read %s: %w", what, name, err)}
	}
	if len(b) > maxArgumentBytes {
		return nil, &core.Error{Code: core.CodeResourceConstraint, Message: fmt.Sprintf("%s: %s holds more than %d bytes", what, name, maxArgumentBytes),
			Remediation: "Export the Evidence to a bundle (rea evidence-export) and pass @BUNDLE#ev_ID, which is read record by record.",
			Details:     map[string]any{"limit_bytes": maxArgumentBytes}}
	}
	return b, nil
}

// jsonArg returns one JSON value: s itself, or what @FILE or - hold.
func (src *source) jsonArg(tool, what, s string) (json.RawMessage, error) {
	b := []byte(s)
	if isReference(s) {
		var err error
		if b, err = src.read(what, s); err != nil {
			return nil, err
		}
	}
	b = bytes.TrimSpace(b)
	if !json.Valid(b) {
		var v any
		err := json.Unmarshal(b, &v)
		return nil, core.InvalidRequest(tool, core.Issue{Path: []any{}, Reason: core.ReasonInvalidType,
			Message: fmt.Sprintf("%s is not one JSON value: %v", what, err), Expected: "object"})
	}
	return b, nil
}

// splitBundleRef splits @FILE#ev_ID into FILE and ev_ID; ok is false when
// ref names no bundle record.
func splitBundleRef(ref string) (file, id string, ok bool) {
	if !strings.HasPrefix(ref, "@") {
		return "", "", false
	}
	i := strings.LastIndex(ref, "#ev_")
	if i < 0 {
		return "", "", false
	}
	return ref[1:i], ref[i+1:], true
}

// evidenceArg turns an Evidence reference into the value a tool's Evidence
// argument takes: inline Evidence for @FILE and -, a retained reference for
// @BUNDLE#ev_ID (the bundle is imported into s first).
func (e *env) evidenceArg(s *core.Session, what, ref string) (any, error) {
	if file, id, ok := splitBundleRef(ref); ok {
		eid, err := core.ParseEvidenceID(id)
		if err != nil {
			return nil, usageError{fmt.Errorf("%s: %q is not an Evidence ID: %v", what, id, err)}
		}
		if _, err := e.call(s, "import_evidence_bundle", map[string]any{"path": abs(file)}); err != nil {
			return nil, err
		}
		if _, ok := s.Ledger().Get(eid); !ok {
			return nil, &core.Error{Code: core.CodeInvalidRequest, Message: fmt.Sprintf("%s: bundle %s holds no record %s", what, file, id),
				Remediation: fmt.Sprintf("List the bundle's records with rea inspect-evidence-bundle '{\"path\":%q,\"detail\":\"summary\"}' and pass one of them.", abs(file)),
				Details:     map[string]any{"path": abs(file), "evidence_id": id}}
		}
		return map[string]any{"kind": "retained-evidence", "evidence_id": id}, nil
	}
	if !isReference(ref) {
		return nil, usageError{fmt.Errorf("%s: %q is not @FILE, @BUNDLE#ev_ID or -", what, ref)}
	}
	b, err := e.source().read(what, ref)
	if err != nil {
		return nil, err
	}
	b = bytes.TrimSpace(b)
	if isBundle(b) {
		return nil, usageError{fmt.Errorf("%s: %s is an Evidence bundle; name one of its records as @FILE#ev_ID", what, strings.TrimPrefix(ref, "@"))}
	}
	if _, err := core.ParseEvidence(b); err != nil {
		var ce *core.Error
		if errors.As(err, &ce) {
			return nil, err
		}
		return nil, &core.Error{Code: core.CodeEvidenceIntegrityMismatch, Message: what + ": not one Evidence record: " + err.Error(), Err: err,
			Remediation: "Pass Evidence exactly as rea printed it (rea --format json ...), or a bundle record as @BUNDLE#ev_ID."}
	}
	return json.RawMessage(b), nil
}

// isBundle looks for the keys a bundle has and a record has not.
func isBundle(b []byte) bool {
	var probe struct {
		Records    json.RawMessage `json:"records"`
		EvidenceID json.RawMessage `json:"evidence_id"`
	}
	if json.Unmarshal(b, &probe) != nil {
		return false
	}
	return probe.Records != nil && probe.EvidenceID == nil
}
