package core

import (
	"fmt"
	"strconv"
	"strings"

	"rea/core/internal/jcs"
)

// Response budget defaults (CONTRACTS.md §7).
const (
	DefaultMaxResponseBytes = 10485760
	ResponseEnvelopeReserve = 1024
	MaxResponseBytesEnv     = "REA_MCP_MAX_RESPONSE_BYTES"
	maxSafeInteger          = 1<<53 - 1
	// successEnvelopeBytes is {"content":[{"type":"text","text":""}],"structuredContent":null}
	// without the 4 bytes of null.
	successEnvelopeBytes = 60
)

// ResponseBudget bounds one MCP result so it fits the client's receive
// buffer. It is read once at start-up.
type ResponseBudget struct {
	MaxResponseBytes int64
}

// ResultBudget is the room for a result: the maximum less the envelope
// reserve.
func (b ResponseBudget) ResultBudget() int64 { return b.MaxResponseBytes - ResponseEnvelopeReserve }

// ParseResponseBudget reads REA_MCP_MAX_RESPONSE_BYTES: absent is the
// default; otherwise a decimal safe integer of at least 10485760 (the
// client's receive buffer).
func ParseResponseBudget(value string, set bool) (ResponseBudget, error) {
	if !set {
		return ResponseBudget{DefaultMaxResponseBytes}, nil
	}
	n, err := decimalSetting(MaxResponseBytesEnv, value, DefaultMaxResponseBytes)
	return ResponseBudget{n}, err
}

// decimalSetting reads a setting that is a decimal integer from least to
// 2^53-1, without sign, spaces or leading zeros; anything else is
// configuration_invalid naming the setting.
func decimalSetting(env, value string, least int64) (int64, error) {
	n, err := strconv.ParseInt(value, 10, 64)
	if err != nil || value[0] < '1' || value[0] > '9' || n < least || n > maxSafeInteger {
		return 0, &Error{Code: CodeConfigurationInvalid, Message: fmt.Sprintf("%s=%q: want a decimal integer from %d to %d, without sign, spaces or leading zeros", env, value, least, int64(maxSafeInteger)),
			Remediation: "Unset " + env + " or correct it, then start rea again.",
			Details:     map[string]any{"settings": []map[string]any{{"setting": env, "constraint": fmt.Sprintf("decimal integer >= %d", least)}}}}
	}
	return n, nil
}

// SuccessBytes is the serialized size of a success result carrying j both as
// text and as structured content.
func SuccessBytes(j []byte) int64 {
	// The structured copy may have <, > and & escaped by the SDK's encoder.
	html := int64(0)
	for _, c := range j {
		if c == '<' || c == '>' || c == '&' {
			html += 5
		}
	}
	return successEnvelopeBytes + int64(len(j)) + html + jcs.EscapedLen(j)
}

// ErrorBytes is the serialized size of an error result: its text only.
func ErrorBytes(text []byte) int64 {
	return int64(len(`{"content":[{"type":"text","text":""}],"isError":true}`)) + jcs.EscapedLen(text)
}

// reportedLimits describes the transport limit for an oversized result.
func (b ResponseBudget) reportedLimits(measured int64, codeUnits int64) map[string]any {
	return map[string]any{
		"boundary":                     "mcp-response",
		"default_receive_buffer_bytes": DefaultMaxResponseBytes,
		"result_budget_bytes":          b.ResultBudget(),
		"max_string_code_units":        nil,
		"response_bytes_at_least":      measured,
		"response_code_units_at_least": codeUnits,
		"constraint":                   "receive-buffer",
	}
}

// CheckSuccess returns nil when the result fits, else the canonical
// resource_constraint naming the retained Evidence. j is the structured JSON.
func (b ResponseBudget) CheckSuccess(op string, res *Result, j []byte, retained bool) *Error {
	size := SuccessBytes(j)
	if size <= b.ResultBudget() {
		return nil
	}
	limits := b.reportedLimits(size, int64(len(j)))
	msg := fmt.Sprintf("%s completed, but its result (%d bytes) does not fit the %d-byte response budget; nothing was truncated", op, size, b.ResultBudget())
	if res.Evidence != nil {
		limits["evidence_id"] = string(res.Evidence.EvidenceID)
		if retained {
			limits["evidence_reference"] = Reference(res.Evidence.EvidenceID)
			msg += "; the complete Evidence is retained as " + string(res.Evidence.EvidenceID)
		}
	}
	rem := "Discover retained records with get_evidence_bundle {\"detail\":\"summary\"}, read them a page at a time with inspect_analysis_view, " +
		"write them to a file with export_evidence_bundle, or use the CLI's JSON output. The connection remains usable."
	if res.Evidence != nil && retained {
		rem = nextCalls(op, res.Evidence.EvidenceID) + " The connection remains usable."
	}
	return &Error{Code: CodeResourceConstraint, Message: msg, Remediation: rem,
		Details: map[string]any{"operation": op, "resource": "transport", "reason": msg, "reported_limits": limits}}
}

// Operations whose Evidence has a summary view, and those that take
// detail "summary" themselves (the seed's retained application inputs).
var (
	viewedOperations  = map[string]bool{"analyze_function": true, "inspect_binary_layout": true, "analyze_javascript_application": true}
	summaryOperations = map[string]bool{"inspect_binary_layout": true, "analyze_javascript_application": true}
)

// nextCalls names the concrete calls that read an oversized result that
// was retained as id.
func nextCalls(op string, id EvidenceID) string {
	var calls []string
	if summaryOperations[op] {
		calls = append(calls, "call "+op+` again with the same arguments and "detail":"summary" (it returns the summary view of the retained record)`)
	}
	if op == "analyze_function" {
		calls = append(calls, `call analyze_function without "detail":"complete" (the concise dossier)`)
	}
	if viewedOperations[op] {
		calls = append(calls, `call inspect_analysis_view {"source":{"kind":"retained-evidence","evidence_id":"`+string(id)+`"},"view":{"kind":"summary"}} and then one page or item at a time`)
	}
	calls = append(calls, `call export_evidence_bundle {"path":"/tmp/rea-evidence.json"} to write the complete record to a file`)
	return "Next: " + strings.Join(calls, "; or ") + "."
}

// CheckError returns nil when an error's text fits. Otherwise the complete
// envelope is retained through retain (as Evidence) and a bounded
// resource_constraint diagnostic naming it is returned; if retention fails
// the diagnostic says why.
func (b ResponseBudget) CheckError(op string, text []byte, retain func() (*Evidence, error)) *Error {
	size := ErrorBytes(text)
	if size <= b.ResultBudget() {
		return nil
	}
	limits := b.reportedLimits(size, int64(len(text)))
	msg := fmt.Sprintf("%s failed and its diagnostic (%d bytes) does not fit the %d-byte response budget", op, size, b.ResultBudget())
	details := map[string]any{"operation": op, "resource": "transport", "reported_limits": limits}
	ev, err := retain()
	if err != nil {
		msg += "; the complete diagnostic could not be retained: " + err.Error()
		details["retention"] = map[string]any{"status": "failed", "reason": err.Error()}
	} else {
		limits["evidence_id"] = string(ev.EvidenceID)
		limits["evidence_reference"] = Reference(ev.EvidenceID)
		msg += "; the complete diagnostic is retained as " + string(ev.EvidenceID)
		details["retention"] = map[string]any{"status": "retained"}
	}
	details["reason"] = msg
	return &Error{Code: CodeResourceConstraint, Message: msg,
		Remediation: "Export the retained diagnostic with export_evidence_bundle, or find it with get_evidence_bundle {\"detail\":\"summary\"}.",
		Details:     details}
}
