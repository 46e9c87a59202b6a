package mcp

import (
	"context"
	"encoding/json"
	"errors"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"rea/core"
)

// addPrompts projects core's prompts (investigation recipes). prompts/get
// renders one user message; an unknown prompt or a missing or unknown
// argument is invalid params, with the canonical envelope as data.
func (s *Server) addPrompts() {
	for _, p := range core.Prompts() {
		args := make([]*sdk.PromptArgument, len(p.Arguments))
		for i, a := range p.Arguments {
			args[i] = &sdk.PromptArgument{Name: a.Name, Description: a.Description, Required: a.Required}
		}
		s.sdk.AddPrompt(&sdk.Prompt{Name: p.Name, Title: p.Title, Description: p.Description, Arguments: args}, getPrompt)
	}
}

func getPrompt(_ context.Context, req *sdk.GetPromptRequest) (*sdk.GetPromptResult, error) {
	name := req.Params.Name
	m, err := core.RenderPrompt(name, req.Params.Arguments)
	if errors.Is(err, core.ErrPromptNotFound) {
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "unknown prompt: " + name}
	}
	if err != nil {
		e := core.AsError("prompts/get", err)
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: e.Message, Data: json.RawMessage(e.JSON())}
	}
	return &sdk.GetPromptResult{Description: m.Description,
		Messages: []*sdk.PromptMessage{{Role: "user", Content: &sdk.TextContent{Text: m.Text}}}}, nil
}
