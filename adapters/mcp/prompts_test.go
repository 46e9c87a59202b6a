package mcp_test

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/matryer/is"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"rea/core"
)

func TestPromptsAreCoresPrompts(t *testing.T) {
	is := is.New(t)
	h := start(t)
	ctx := context.Background()
	caps := h.client.InitializeResult().Capabilities
	is.True(caps.Prompts != nil)
	is.True(!caps.Prompts.ListChanged)
	is.True(caps.Completions == nil)                            // no completions advertised
	is.True(caps.Resources != nil && !caps.Resources.Subscribe) // no subscriptions

	list, err := h.client.ListPrompts(ctx, nil)
	is.NoErr(err)
	want := core.Prompts()
	is.Equal(len(list.Prompts), len(want))
	names := map[string]bool{}
	for i, p := range list.Prompts {
		is.Equal(p.Name, want[i].Name)
		is.Equal(len(p.Arguments), len(want[i].Arguments))
		names[p.Name] = true
	}
	for _, n := range []string{"triage_binary", "find_code_for_string", "map_electron_ipc", "compare_versions", "export_evidence_bundle"} {
		is.True(names[n]) // n
	}

	got, err := h.client.GetPrompt(ctx, &sdk.GetPromptParams{Name: "find_code_for_string", Arguments: map[string]string{"path": "/bin/true", "text": "Save as…"}})
	is.NoErr(err)
	is.Equal(len(got.Messages), 1)
	is.Equal(got.Messages[0].Role, sdk.Role("user"))
	txt := got.Messages[0].Content.(*sdk.TextContent).Text
	is.True(strings.Contains(txt, "/bin/true"))
	is.True(strings.Contains(txt, `"Save as…"`))

	_, err = h.client.GetPrompt(ctx, &sdk.GetPromptParams{Name: "compare_versions", Arguments: map[string]string{"old_path": "/a"}})
	var rpc *jsonrpc.Error
	is.True(errors.As(err, &rpc))
	is.Equal(rpc.Code, int64(jsonrpc.CodeInvalidParams))
	is.True(strings.Contains(rpc.Message, "new_path"))
	_, err = h.client.GetPrompt(ctx, &sdk.GetPromptParams{Name: "nonesuch"})
	is.True(errors.As(err, &rpc))
	is.Equal(rpc.Code, int64(jsonrpc.CodeInvalidParams))
}

// TestPromptArgumentSuggestion: a misspelled prompt argument gets the
// "did you mean" a tool's gets, from the kernel's one matcher, and the
// remediation says what to rename. Before, only "prompt compare_versions
// has no argument new_pth". The rename comes first, in the JSON-RPC
// message and in the issues, before the missing argument it usually is:
// before, the message named only the missing new_path.
func TestPromptArgumentSuggestion(t *testing.T) {
	is := is.New(t)
	h := start(t)
	_, err := h.client.GetPrompt(context.Background(), &sdk.GetPromptParams{Name: "compare_versions", Arguments: map[string]string{"old_path": "/a", "New-Pth": "/b"}})
	var rpc *jsonrpc.Error
	is.True(errors.As(err, &rpc))
	is.Equal(rpc.Code, int64(jsonrpc.CodeInvalidParams))
	is.True(strings.Contains(rpc.Message, `did you mean "new_path"?`))
	var env struct {
		Error struct {
			Code        core.Code        `json:"code"`
			Remediation core.Remediation `json:"remediation"`
			Details     struct {
				Issues []core.Issue `json:"issues"`
			} `json:"details"`
		} `json:"error"`
	}
	is.NoErr(json.Unmarshal(rpc.Data, &env))
	is.Equal(env.Error.Code, core.CodeInvalidRequest)
	is.Equal(env.Error.Remediation.Action, "Rename input.New-Pth to new_path, correct anything else details.issues lists, and call again.")
	is.Equal(len(env.Error.Details.Issues), 2)
	is.Equal(env.Error.Details.Issues[1].Reason, core.ReasonMissingArgument)
	is.Equal(env.Error.Details.Issues[0], core.Issue{Path: []any{"New-Pth"}, Reason: core.ReasonUnknownArgument,
		Message: `prompt compare_versions has no argument New-Pth; did you mean "new_path"?`, Expected: "new_path"})
}

func TestResources(t *testing.T) {
	is := is.New(t)
	h := start(t)
	ctx := context.Background()
	list, err := h.client.ListResources(ctx, nil)
	is.NoErr(err)
	is.Equal(len(list.Resources), 2)
	is.Equal(list.Resources[0].URI, "rea://catalog")
	is.Equal(list.Resources[1].URI, "rea://server/identity")
	tmpl, err := h.client.ListResourceTemplates(ctx, nil)
	is.NoErr(err)
	is.Equal(len(tmpl.ResourceTemplates), 3)

	read := func(uri string) map[string]any {
		t.Helper()
		r, err := h.client.ReadResource(ctx, &sdk.ReadResourceParams{URI: uri})
		is.NoErr(err)
		is.Equal(len(r.Contents), 1)
		is.Equal(r.Contents[0].MIMEType, "application/json")
		var v map[string]any
		is.NoErr(json.Unmarshal([]byte(r.Contents[0].Text), &v))
		return v
	}
	id := read("rea://server/identity")
	is.Equal(id["package"].(map[string]any)["version"], "test")
	cat := read("rea://catalog")
	digests := cat["digests"].(map[string]any)
	is.Equal(digests["combined_sha256"], id["catalog"].(map[string]any)["combined_sha256"])
	is.Equal(len(cat["prompts"].([]any)), len(core.Prompts()))

	// A section of a retained record.
	dir := t.TempDir()
	is.NoErr(os.WriteFile(filepath.Join(dir, "a.txt"), []byte("hello"), 0o644))
	res := h.call(t, "inventory_artifact", map[string]any{"path": dir}, nil)
	is.True(!res.IsError)
	var ev struct {
		EvidenceID string          `json:"evidence_id"`
		Operation  string          `json:"operation"`
		Result     json.RawMessage `json:"normalized_result"`
	}
	is.NoErr(json.Unmarshal([]byte(text(t, res)), &ev))
	r, err := h.client.ReadResource(ctx, &sdk.ReadResourceParams{URI: "rea://evidence/" + ev.EvidenceID + "/operation"})
	is.NoErr(err)
	is.Equal(r.Contents[0].Text, `"inventory_artifact"`)
	r, err = h.client.ReadResource(ctx, &sdk.ReadResourceParams{URI: "rea://evidence/" + ev.EvidenceID + "/normalized_result"})
	is.NoErr(err)
	canon, err := core.Canonicalize(ev.Result)
	is.NoErr(err)
	is.Equal(r.Contents[0].Text, string(canon))
	for _, bad := range []string{"/nonesuch", "/evidence_id", "/"} {
		_, err = h.client.ReadResource(ctx, &sdk.ReadResourceParams{URI: "rea://evidence/" + ev.EvidenceID + bad})
		is.True(err != nil) // bad
	}
}
