package core_test

import (
	"encoding/json"
	"testing"

	"github.com/matryer/is"

	"rea/core"
)

func TestParseResponseBudget(t *testing.T) {
	is := is.New(t)
	b, err := core.ParseResponseBudget("", false)
	is.NoErr(err)
	is.Equal(b.MaxResponseBytes, int64(core.DefaultMaxResponseBytes))
	is.Equal(b.ResultBudget(), int64(core.DefaultMaxResponseBytes-1024))
	b, err = core.ParseResponseBudget("20971520", true)
	is.NoErr(err)
	is.Equal(b.MaxResponseBytes, int64(20971520))
	for _, bad := range []string{"", "0", "1024", "1.5", "1e8", " 10485760", "10485760 ", "+10485760", "010485760", "9007199254740992", "10485759"} {
		_, err := core.ParseResponseBudget(bad, true)
		ce := core.AsError("start", err)
		is.Equal(ce.Code, core.CodeConfigurationInvalid)
		is.Equal(ce.Details["settings"].([]map[string]any)[0]["setting"], core.MaxResponseBytesEnv)
	}
}

// SuccessBytes must never under-count what an encoder writes.
func TestSuccessBytesIsAnUpperBound(t *testing.T) {
	is := is.New(t)
	for _, s := range []string{`{}`, `{"a":"<tag> & \"quote\" \\ é \u2028 \n\t\u0001"}`} {
		j := []byte(s)
		text, _ := json.Marshal(string(j))
		full, _ := json.Marshal(map[string]any{"content": []any{map[string]any{"type": "text", "text": string(j)}}, "structuredContent": json.RawMessage(j)})
		is.True(core.SuccessBytes(j) >= int64(len(full)))
		is.True(core.SuccessBytes(j) >= int64(len(text)+len(j)))
	}
}
