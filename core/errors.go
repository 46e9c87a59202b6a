package core

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"rea/ports"
)

// Code is a canonical error code.
type Code string

// The 20 canonical error codes.
const (
	CodeInvalidRequest            Code = "invalid_request"
	CodeAccessDenied              Code = "access_denied"
	CodeArtifactChanged           Code = "artifact_changed"
	CodeUnreadableOutput          Code = "unreadable_output"
	CodeCapabilityUnavailable     Code = "capability_unavailable"
	CodeUnsupportedTarget         Code = "unsupported_target"
	CodeProviderUnavailable       Code = "provider_unavailable"
	CodeProviderTimeout           Code = "provider_timeout"
	CodeResourceConstraint        Code = "resource_constraint"
	CodeCancelled                 Code = "cancelled"
	CodeArtifactIntegrityMismatch Code = "artifact_integrity_mismatch"
	CodeArtifactOperationFailed   Code = "artifact_operation_failed"
	CodeEvidenceIntegrityMismatch Code = "evidence_integrity_mismatch"
	CodeTruncated                 Code = "truncated"
	CodeProcessCaptureFailed      Code = "process_capture_failed"
	CodeCleanupIncomplete         Code = "cleanup_incomplete"
	CodeRevisionConflict          Code = "revision_conflict"
	CodeConfigurationInvalid      Code = "configuration_invalid"
	CodeTargetUnavailable         Code = "target_unavailable"
	CodeExecutionFailure          Code = "execution_failure"
)

// Codes lists every canonical code.
var Codes = []Code{
	CodeInvalidRequest, CodeAccessDenied, CodeArtifactChanged, CodeUnreadableOutput,
	CodeCapabilityUnavailable, CodeUnsupportedTarget, CodeProviderUnavailable,
	CodeProviderTimeout, CodeResourceConstraint, CodeCancelled,
	CodeArtifactIntegrityMismatch, CodeArtifactOperationFailed,
	CodeEvidenceIntegrityMismatch, CodeTruncated, CodeProcessCaptureFailed,
	CodeCleanupIncomplete, CodeRevisionConflict, CodeConfigurationInvalid,
	CodeTargetUnavailable, CodeExecutionFailure,
}

// Category is a canonical error category.
type Category string

// The 10 canonical categories.
const (
	CategoryInvalidInput        Category = "invalid_input"
	CategoryUnsupportedProvider Category = "unsupported_provider"
	CategoryUnsupportedTarget   Category = "unsupported_target"
	CategoryIntegrityMismatch   Category = "integrity_mismatch"
	CategoryTruncated           Category = "truncated"
	CategoryCancelled           Category = "cancelled"
	CategoryTimeout             Category = "timeout"
	CategoryResourceConstraint  Category = "resource_constraint"
	CategoryUnavailable         Category = "unavailable"
	CategoryExecutionFailure    Category = "execution_failure"
)

// Categories lists every canonical category.
var Categories = []Category{
	CategoryInvalidInput, CategoryUnsupportedProvider, CategoryUnsupportedTarget,
	CategoryIntegrityMismatch, CategoryTruncated, CategoryCancelled, CategoryTimeout,
	CategoryResourceConstraint, CategoryUnavailable, CategoryExecutionFailure,
}

// defaultCategory is the category a code takes unless the error says otherwise.
var defaultCategory = map[Code]Category{
	CodeInvalidRequest:            CategoryInvalidInput,
	CodeAccessDenied:              CategoryUnavailable,
	CodeArtifactChanged:           CategoryIntegrityMismatch,
	CodeUnreadableOutput:          CategoryExecutionFailure,
	CodeCapabilityUnavailable:     CategoryUnsupportedProvider,
	CodeUnsupportedTarget:         CategoryUnsupportedTarget,
	CodeProviderUnavailable:       CategoryUnavailable,
	CodeProviderTimeout:           CategoryTimeout,
	CodeResourceConstraint:        CategoryResourceConstraint,
	CodeCancelled:                 CategoryCancelled,
	CodeArtifactIntegrityMismatch: CategoryIntegrityMismatch,
	CodeArtifactOperationFailed:   CategoryExecutionFailure,
	CodeEvidenceIntegrityMismatch: CategoryIntegrityMismatch,
	CodeTruncated:                 CategoryTruncated,
	CodeProcessCaptureFailed:      CategoryExecutionFailure,
	CodeCleanupIncomplete:         CategoryExecutionFailure,
	CodeRevisionConflict:          CategoryExecutionFailure,
	CodeConfigurationInvalid:      CategoryInvalidInput,
	CodeTargetUnavailable:         CategoryUnavailable,
	CodeExecutionFailure:          CategoryExecutionFailure,
}

// Retryable reports whether a caller may retry the same request unchanged
// with a chance of success.
func (c Code) Retryable() bool {
	switch c {
	case CodeArtifactChanged, CodeInvalidRequest, CodeProviderTimeout, CodeCancelled,
		CodeRevisionConflict, CodeProviderUnavailable:
		return true
	}
	return false
}

// Issue is one input validation problem.
type Issue struct {
	Path     []any  `json:"path"` // property names (string) and array indexes (int)
	Reason   string `json:"reason"`
	Message  string `json:"message,omitempty"`
	Expected any    `json:"expected,omitempty"`
	Minimum  any    `json:"minimum,omitempty"`
	Maximum  any    `json:"maximum,omitempty"`
}

// Issue reasons.
const (
	ReasonUnknownArgument = "unknown_argument"
	ReasonMissingArgument = "missing_argument"
	ReasonInvalidType     = "invalid_type"
	ReasonOutOfRange      = "out_of_range"
	ReasonInvalidValue    = "invalid_value"
	ReasonInvalidFormat   = "invalid_format"
)

// Error is the one error type every operation returns to a front end.
type Error struct {
	Code        Code
	Category    Category // empty means the code's default category
	Message     string
	Remediation string
	Details     map[string]any
	Err         error // the cause, not serialized
}

func (e *Error) Error() string { return e.Message }
func (e *Error) Unwrap() error { return e.Err }

// Envelope is the serialized {"error": ...} form.
type Envelope struct {
	Error EnvelopeBody `json:"error"`
}

// EnvelopeBody is the inside of an Envelope.
type EnvelopeBody struct {
	Code        Code           `json:"code"`
	Category    Category       `json:"category"`
	Message     string         `json:"message"`
	Retryable   bool           `json:"retryable"`
	Remediation Remediation    `json:"remediation"`
	Details     map[string]any `json:"details,omitempty"`
}

// Remediation tells the caller what to do next.
type Remediation struct {
	Action string `json:"action"`
}

// Envelope renders e canonically.
func (e *Error) Envelope() Envelope {
	cat := e.Category
	if cat == "" {
		cat = defaultCategory[e.Code]
	}
	if cat == "" {
		cat = CategoryExecutionFailure
	}
	rem := e.Remediation
	if rem == "" {
		rem = defaultRemediation(e.Code)
	}
	var details map[string]any
	if len(e.Details) > 0 {
		details = e.Details
	}
	return Envelope{Error: EnvelopeBody{
		Code: e.Code, Category: cat, Message: e.Message, Retryable: e.Code.Retryable(),
		Remediation: Remediation{Action: rem}, Details: details,
	}}
}

// JSON returns the compact envelope JSON.
func (e *Error) JSON() []byte {
	b, err := MarshalNoEscape(e.Envelope())
	if err != nil {
		// Details held a value encoding/json cannot encode: keep the envelope.
		c := *e
		c.Details = map[string]any{"details_error": err.Error()}
		b, _ = MarshalNoEscape(c.Envelope())
	}
	return b
}

func defaultRemediation(c Code) string {
	switch c {
	case CodeInvalidRequest:
		return "Correct the arguments listed in details.issues and call again."
	case CodeCancelled:
		return "The operation was cancelled before it completed; call again if the result is still needed."
	case CodeProviderTimeout:
		return "Retry with a longer deadline, or narrow the request."
	case CodeTargetUnavailable:
		return "Call open_binary with a readable file path first."
	case CodeProviderUnavailable:
		return "Check binary_session.analysis_provider_candidates and select an available provider with open_binary provider_id."
	case CodeCapabilityUnavailable:
		return "Check binary_session.tool_availability for an operation the bound provider supports."
	case CodeEvidenceIntegrityMismatch:
		return "Use Evidence exactly as rea returned it, or re-run the producing operation."
	case CodeResourceConstraint:
		return "Narrow the request (smaller pages or filters) or export the Evidence bundle to a file."
	case CodeExecutionFailure:
		return "Report this failure with the request; the server keeps serving."
	}
	return "Read the message and details, correct the cause and call again."
}

// InvalidRequest builds an invalid_request error for one issue.
func InvalidRequest(op string, issues ...Issue) *Error {
	var renames []string // unknown arguments the catalog found a near name for: first, as a misspelling is usually the missing one
	var first, rest []Issue
	for _, is := range issues {
		if near, ok := is.Expected.(string); ok && is.Reason == ReasonUnknownArgument {
			renames, first = append(renames, issuePath(is)+" to "+near), append(first, is)
		} else {
			rest = append(rest, is)
		}
	}
	msg := op + ": invalid arguments"
	if issues = append(first, rest...); len(issues) > 0 {
		msg = fmt.Sprintf("%s: invalid arguments: %s", op, issueText(issues[0]))
	}
	e := &Error{Code: CodeInvalidRequest, Message: msg, Details: map[string]any{"operation": op, "issues": issues}}
	if len(renames) > 0 {
		e.Remediation = "Rename " + strings.Join(renames, ", ") + ", correct anything else details.issues lists, and call again."
	}
	return e
}

func issuePath(is Issue) string {
	p := "input"
	for _, s := range is.Path {
		p += fmt.Sprintf(".%v", s)
	}
	return p
}

func issueText(is Issue) string {
	p := issuePath(is)
	if is.Message != "" {
		return p + ": " + is.Message
	}
	return p + ": " + is.Reason
}

// AsError turns any error reaching a front end into a canonical Error. It
// classifies context errors and the ports sentinels; anything else becomes
// execution_failure.
func AsError(op string, err error) *Error {
	if err == nil {
		return nil
	}
	var e *Error
	if errors.As(err, &e) {
		return e
	}
	e = classifyError(op, err)
	var sr ports.SignalReporter
	if errors.As(err, &sr) {
		attachSignals(e, sr.SignalAttempts())
	}
	return e
}

// classifyError maps an engine or context error to its code.
func classifyError(op string, err error) *Error {
	var ce *ports.CleanupError
	if errors.As(err, &ce) {
		return cleanupError(op, err, ce)
	}
	var le *ports.LimitError
	if errors.As(err, &le) {
		return &Error{Code: CodeResourceConstraint, Message: op + ": " + err.Error(), Err: err,
			Remediation: fmt.Sprintf("Raise %s (bytes) in rea's environment if the machine has the memory, or call on a smaller input.", le.Limit),
			Details:     map[string]any{"operation": op, "limit": le.Limit, "max_bytes": le.Max, "in_use_bytes": le.InUse, "requested_bytes": le.Requested, "what": le.What}}
	}
	code := CodeExecutionFailure
	switch {
	case errors.Is(err, context.Canceled):
		return &Error{Code: CodeCancelled, Message: op + ": cancelled", Err: err,
			Details: map[string]any{"operation": op, "cleanup": "complete"}}
	case errors.Is(err, context.DeadlineExceeded), errors.Is(err, ports.ErrTimeout):
		code = CodeProviderTimeout
	case errors.Is(err, ports.ErrMalformed): // the target's bytes are corrupt or cut off
		return &Error{Code: CodeUnsupportedTarget, Message: op + ": " + err.Error(), Err: err, Remediation: ports.FormatAdvice(err),
			Details: ports.FormatFacts(err, map[string]any{"operation": op, "reason": "malformed"})}
	case errors.Is(err, ports.ErrUnsupported):
		return &Error{Code: CodeCapabilityUnavailable, Message: op + ": " + err.Error(), Err: err,
			Details: map[string]any{"operation": op, "reason": "unsupported"}}
	case errors.Is(err, ports.ErrUnavailable):
		code = CodeProviderUnavailable
	case errors.Is(err, ports.ErrNotFound):
		return &Error{Code: CodeInvalidRequest, Message: op + ": " + err.Error(), Err: err,
			Details: map[string]any{"operation": op, "issues": []Issue{{Path: []any{}, Reason: ReasonInvalidValue, Message: err.Error()}}}}
	}
	return &Error{Code: code, Message: op + ": " + err.Error(), Err: err, Details: map[string]any{"operation": op}}
}

// cleanupError is cleanup_incomplete for owned resources that remain:
// details.resources lists their kinds (and only those), cleanup_reason
// what each says, and execution_failure the code of the failure the cleanup
// followed (errors.Join of that failure and the *ports.CleanupError), or
// null when the call itself did not fail.
func cleanupError(op string, err error, ce *ports.CleanupError) *Error {
	reasons := make([]string, len(ce.Resources))
	for i, r := range ce.Resources {
		reasons[i] = r.Kind + " " + r.ID + ": " + r.Reason
	}
	var exec any
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		for _, sub := range j.Unwrap() {
			if sub != nil && !errors.Is(sub, ports.ErrCleanupIncomplete) {
				exec = string(classifyError(op, sub).Code)
				break
			}
		}
	}
	return &Error{Code: CodeCleanupIncomplete, Message: op + ": " + err.Error(), Err: err,
		Remediation: "Owned resources remain; they are listed in details.resources. Close the target again with close_binary, or end them by hand.",
		Details: map[string]any{"operation": op, "cleanup": "incomplete", "resources": NonNil(ce.Kinds()),
			"cleanup_reason": strings.Join(reasons, "; "), "execution_failure": exec}}
}

// attachSignals places an engine's signal attempts under
// details.partial_observation.signals.
func attachSignals(e *Error, attempts []ports.SignalAttempt) {
	if len(attempts) == 0 {
		return
	}
	list := make([]map[string]any, len(attempts))
	for i, a := range attempts {
		list[i] = map[string]any{"target": a.Target, "id": a.ID, "signal": a.Signal,
			"at": a.At.UTC().Format(timestampLayout), "result": string(a.Result), "reason": OrNull(a.Reason)}
	}
	if e.Details == nil {
		e.Details = map[string]any{}
	}
	po, _ := e.Details["partial_observation"].(map[string]any)
	if po == nil {
		po = map[string]any{}
	}
	po["signals"] = list
	e.Details["partial_observation"] = po
}

// timestampLayout is the ISO 8601 form of instants rea reports
// (millisecond precision, UTC).
const timestampLayout = "2006-01-02T15:04:05.000Z07:00"
