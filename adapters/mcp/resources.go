package mcp

import (
	"context"
	"encoding/json"
	"errors"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"rea/core"
)

// addResources projects core's fixed resources and resource templates. The SDK matches a URI
// against the templates; core parses it itself and answers for the calling
// connection's session. A URI that names nothing is the SDK's
// resource-not-found error.
func (s *Server) addResources() {
	for _, r := range core.Resources() {
		s.sdk.AddResource(&sdk.Resource{URI: r.URI, Name: r.Name, Title: r.Title, Description: r.Description, MIMEType: r.MIMEType}, s.readResource)
	}
	for _, t := range core.ResourceTemplates() {
		s.sdk.AddResourceTemplate(&sdk.ResourceTemplate{URITemplate: t.URITemplate, Name: t.Name, Title: t.Title,
			Description: t.Description, MIMEType: t.MIMEType}, s.readResource)
	}
}

func (s *Server) readResource(ctx context.Context, req *sdk.ReadResourceRequest) (*sdk.ReadResourceResult, error) {
	uri := req.Params.URI
	cs := s.session(req.Session)
	c, err := cs.ReadResource(ctx, uri)
	if errors.Is(err, core.ErrResourceNotFound) {
		return nil, sdk.ResourceNotFoundError(uri)
	}
	if err != nil {
		return nil, rpcError(core.AsError("resources/read", err))
	}
	if berr := s.opts.Budget.CheckResource(uri, c.Text); berr != nil {
		return nil, rpcError(berr)
	}
	return &sdk.ReadResourceResult{Contents: []*sdk.ResourceContents{{URI: c.URI, MIMEType: c.MIMEType, Text: string(c.Text)}}}, nil
}

// rpcError carries a canonical envelope as JSON-RPC error data.
func rpcError(e *core.Error) error {
	return &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: e.Message, Data: json.RawMessage(e.JSON())}
}
