package core_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"testing"

	"github.com/matryer/is"

	"rea/core"
	"rea/ports"
)

func TestErrorCodesAndCategories(t *testing.T) {
	is := is.New(t)
	is.Equal(len(core.Codes), 20)
	is.Equal(len(core.Categories), 10)
	retryable := map[core.Code]bool{"artifact_changed": true, "invalid_request": true, "provider_timeout": true,
		"cancelled": true, "revision_conflict": true, "provider_unavailable": true}
	cats := map[core.Category]bool{}
	for _, c := range core.Categories {
		cats[c] = true
	}
	for _, c := range core.Codes {
		env := (&core.Error{Code: c, Message: "m"}).Envelope().Error
		is.Equal(env.Retryable, retryable[c])
		is.True(cats[env.Category])
		is.True(env.Remediation.Action != "")
	}
}

func TestErrorEnvelopeShape(t *testing.T) {
	is := is.New(t)
	e := core.InvalidRequest("open_binary", core.Issue{Path: []any{"path"}, Reason: core.ReasonMissingArgument})
	var m map[string]map[string]any
	is.NoErr(json.Unmarshal(e.JSON(), &m))
	body := m["error"]
	is.Equal(body["code"], "invalid_request")
	is.Equal(body["category"], "invalid_input")
	is.Equal(body["retryable"], true)
	is.Equal(body["remediation"].(map[string]any)["action"] != "", true)
	issues := body["details"].(map[string]any)["issues"].([]any)
	is.Equal(issues[0].(map[string]any)["path"], []any{"path"})
	is.Equal(issues[0].(map[string]any)["reason"], "missing_argument")

	// Empty details are omitted.
	plain := (&core.Error{Code: core.CodeExecutionFailure, Message: "x"}).JSON()
	is.NoErr(json.Unmarshal(plain, &m))
	_, has := m["error"]["details"]
	is.True(!has)
}

func TestAsErrorClassifies(t *testing.T) {
	cases := []struct {
		err  error
		code core.Code
	}{
		{context.Canceled, core.CodeCancelled},
		{fmt.Errorf("wrapped: %w", context.Canceled), core.CodeCancelled},
		{context.DeadlineExceeded, core.CodeProviderTimeout},
		{&ports.FormatError{Format: "elf", Offset: 4, Msg: "bad"}, core.CodeUnsupportedTarget},
		{fmt.Errorf("x: %w", ports.ErrUnsupported), core.CodeCapabilityUnavailable},
		{fmt.Errorf("x: %w", ports.ErrUnavailable), core.CodeProviderUnavailable},
		{errors.New("boom"), core.CodeExecutionFailure},
	}
	for _, c := range cases {
		t.Run(c.err.Error(), func(t *testing.T) {
			is := is.New(t)
			is.Equal(core.AsError("op", c.err).Code, c.code)
		})
	}
	is := is.New(t)
	is.Equal(core.AsError("op", context.Canceled).Envelope().Error.Category, core.CategoryCancelled)
	is.Equal(core.AsError("op", context.DeadlineExceeded).Envelope().Error.Category, core.CategoryTimeout)
}
