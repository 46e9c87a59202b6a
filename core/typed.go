package core

import (
	"context"
	"encoding/json"
	"fmt"
)

// Typed calls: families give embedders Go functions (binary.AnalyzeFunction,
// jsapp.AnalyzeApplication, ...) built on Invoke, so a Go program calls an
// operation with a struct and gets a struct back, with no tool name or JSON
// in its own code. The canonical schemas stay hand-written; rea/core/typecheck
// is the generation check that fails a test when an operation's input or
// result type and its schema differ (property names, JSON types, required).

// Invoke runs the operation op of s's catalog with in (a struct marshalled
// with its json tags) and decodes the result into Out: the Evidence's
// normalized_result for an Evidence operation (returned with its Evidence),
// the value under "result" for a session operation (Evidence nil). Errors
// are *Error, as from Session.Call.
func Invoke[Out, In any](ctx context.Context, s *Session, op string, in In) (Out, *Evidence, error) {
	var out Out
	args, err := json.Marshal(in)
	if err != nil {
		return out, nil, &Error{Code: CodeInvalidRequest, Message: op + ": " + err.Error(), Err: err,
			Details: map[string]any{"operation": op}}
	}
	res, err := s.Call(ctx, op, args, nil)
	if err != nil {
		return out, nil, err
	}
	raw := []byte(nil)
	if res.Evidence != nil {
		raw = res.Evidence.NormalizedResult
	} else if raw, err = json.Marshal(res.Value); err != nil {
		return out, nil, err
	}
	if err := json.Unmarshal(raw, &out); err != nil {
		return out, res.Evidence, &Error{Code: CodeExecutionFailure, Message: fmt.Sprintf("%s: result does not decode into %T: %v", op, out, err), Err: err,
			Details: map[string]any{"operation": op}}
	}
	return out, res.Evidence, nil
}

// Input decodes the call's validated arguments into the operation's Go
// input type T (its Types.Input), so a handler reads fields rather than map
// entries. Arguments the schema validated decode; a mismatch between T and
// the schema is invalid_request naming the operation (TestEveryOperationIsTyped
// keeps them equal). Absent top-level arguments take their schema defaults,
// as in Call.Args. Evidence arguments are best declared json.RawMessage in
// T and read with EvidenceArg, which resolves retained references.
func Input[T any](c *Call) (T, error) {
	var in T
	raw := c.raw
	if len(raw) == 0 {
		raw = json.RawMessage("{}")
	}
	err := json.Unmarshal(c.Op.inputDefaults(), &in)
	if err == nil {
		err = json.Unmarshal(raw, &in)
	}
	if err != nil {
		return in, &Error{Code: CodeInvalidRequest, Message: fmt.Sprintf("%s: arguments do not decode into %T: %v", c.Op.Name, in, err), Err: err,
			Details: map[string]any{"operation": c.Op.Name}}
	}
	return in, nil
}

// inputDefaults is a JSON object of the input schema's top-level defaults,
// built once, so Evidence parameters record the effective inputs.
func (o *Operation) inputDefaults() []byte {
	o.defaultsOnce.Do(func() {
		var s struct {
			Properties map[string]struct {
				Default json.RawMessage `json:"default"`
			} `json:"properties"`
		}
		m := map[string]json.RawMessage{}
		if json.Unmarshal(o.Input, &s) == nil {
			for name, p := range s.Properties {
				if len(p.Default) > 0 {
					m[name] = p.Default
				}
			}
		}
		o.defaults, _ = json.Marshal(m)
	})
	return o.defaults
}

// OpenBinaryInput is open_binary's input.
type OpenBinaryInput struct {
	Path string `json:"path"`
	// ProviderID is "auto" (or empty) or a provider id such as "rea-native".
	ProviderID string `json:"provider_id,omitempty"`
}

// OpenedProvider names the provider bound to a target.
type OpenedProvider struct {
	ID      string  `json:"id"`
	Name    string  `json:"name"`
	Version *string `json:"version"`
}

// OpenBinaryResult is open_binary's result.
type OpenBinaryResult struct {
	Path            string          `json:"path"`
	SHA256          string          `json:"sha256"`
	Format          string          `json:"format"`
	Kind            string          `json:"kind"`
	Architecture    *string         `json:"architecture"`
	LoaderArgs      []string        `json:"loaderArgs"`
	Provider        *OpenedProvider `json:"provider"`
	SelectionSource *string         `json:"selection_source"`
	RunID           string          `json:"run_id"`
}

// OpenBinary identifies the file at in.Path and binds an analysis provider
// to it (the selection policy of ARCHITECTURE.md).
func OpenBinary(ctx context.Context, s *Session, in OpenBinaryInput) (OpenBinaryResult, error) {
	out, _, err := Invoke[OpenBinaryResult](ctx, s, "open_binary", in)
	return out, err
}
