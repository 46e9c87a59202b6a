package core

import (
	"context"
	"encoding/json"
	"errors"
	"strings"

	"rea/core/internal/jcs"
)

// ResourceTemplate is a family of readable resources core serves, declared
// once like an Operation; front ends project it (adapters/mcp registers it
// with resources/templates/list and resources/read).
type ResourceTemplate struct {
	URITemplate string `json:"uriTemplate"`
	Name        string `json:"name"`
	Title       string `json:"title"`
	Description string `json:"description"`
	MIMEType    string `json:"mimeType"`
	// read returns the contents of uri, or ok=false when it names nothing.
	read func(ctx context.Context, s *Session, uri string) (text []byte, ok bool, err error)
}

// ErrResourceNotFound is what ReadResource returns for a URI that names no
// resource of this connection.
var ErrResourceNotFound = errors.New("resource not found")

// ResourceContents is one read resource.
type ResourceContents struct {
	URI      string
	MIMEType string
	Text     []byte
}

// EvidenceURIPrefix is the scheme and path of retained-record resources.
const EvidenceURIPrefix = "rea://evidence/"

// ResourceTemplates lists the resource templates, sorted by URI template.
func ResourceTemplates() []ResourceTemplate {
	return []ResourceTemplate{
		{
			URITemplate: "rea://evidence-bundle/{digest}",
			Name:        "evidence-bundle",
			Title:       "Evidence bundle snapshot",
			Description: "A bundle frozen by snapshot_evidence_bundle on this connection, as canonical JSON; {digest} is its bundle_digest. Released by release_evidence_bundle or close_binary.",
			MIMEType:    "application/json",
			read: func(_ context.Context, s *Session, uri string) ([]byte, bool, error) {
				d, ok := strings.CutPrefix(uri, BundleURIPrefix)
				if !ok || !isHex64(d) {
					return nil, false, nil
				}
				b, ok := s.snapshotBytes(d)
				return b, ok, nil
			},
		},
		{
			URITemplate: "rea://evidence/{evidence_id}",
			Name:        "evidence",
			Title:       "Retained Evidence record",
			Description: "One Evidence record retained by this connection's ledger, as canonical JSON; {evidence_id} is ev_ and 64 hex characters.",
			MIMEType:    "application/json",
			read: func(_ context.Context, s *Session, uri string) ([]byte, bool, error) {
				if id, ok := strings.CutPrefix(uri, EvidenceURIPrefix); ok {
					return s.retainedCanonical(id)
				}
				return nil, false, nil
			},
		},
		{
			URITemplate: "rea://evidence/{evidence_id}/{section}",
			Name:        "evidence-section",
			Title:       "Section of a retained Evidence record",
			Description: "One top-level field of an Evidence record retained by this connection, as canonical JSON: {section} is subject, provider, analysis_profile, operation, parameters, raw_result, normalized_result, limitations, locations, evidence_links or another field of the record.",
			MIMEType:    "application/json",
			read: func(_ context.Context, s *Session, uri string) ([]byte, bool, error) {
				rest, ok := strings.CutPrefix(uri, EvidenceURIPrefix)
				if !ok {
					return nil, false, nil
				}
				id, section, ok := strings.Cut(rest, "/")
				if !ok || section == "" || section == "evidence_id" {
					return nil, false, nil
				}
				b, ok, err := s.retainedCanonical(id)
				if !ok {
					return nil, false, err
				}
				var fields map[string]json.RawMessage
				if err := json.Unmarshal(b, &fields); err != nil {
					return nil, false, err
				}
				v, ok := fields[section]
				return v, ok, nil
			},
		},
	}
}

// retainedCanonical is the canonical form of the record id names, when
// this connection retains it (ok false, and no error, when it does not).
func (s *Session) retainedCanonical(id string) (b []byte, ok bool, err error) {
	if _, err := ParseEvidenceID(id); err != nil {
		return nil, false, nil
	}
	ev, ok := s.ledger.Get(EvidenceID(id))
	if !ok {
		return nil, false, nil
	}
	b, err = AppendCanonicalEvidence(nil, ev)
	return b, err == nil, err
}

// Resource is a fixed resource core serves (resources/list), declared once
// like a ResourceTemplate.
type Resource struct {
	URI         string `json:"uri"`
	Name        string `json:"name"`
	Title       string `json:"title"`
	Description string `json:"description"`
	MIMEType    string `json:"mimeType"`
	read        func(ctx context.Context, s *Session) ([]byte, error)
}

// Resources lists the fixed resources, sorted by URI.
func Resources() []Resource {
	return []Resource{
		{
			URI:         "rea://catalog",
			Name:        "catalog",
			Title:       "Catalog of this server",
			Description: "The tools (name, title, kind), prompts, resources and resource templates this server offers, with the catalog digests binary_session reports.",
			MIMEType:    "application/json",
			read: func(_ context.Context, s *Session) ([]byte, error) {
				return CanonicalJSON(s.catalogResource())
			},
		},
		{
			URI:         "rea://server/identity",
			Name:        "server-identity",
			Title:       "Server identity",
			Description: "Which rea is serving: package and version, build commit, command path, SDK, catalog digests (binary_session's server_identity, without expectations).",
			MIMEType:    "application/json",
			read: func(_ context.Context, s *Session) ([]byte, error) {
				return CanonicalJSON(s.serverIdentity(&Call{Session: s, Args: map[string]any{}}, BinarySessionInput{}))
			},
		},
	}
}

func (s *Session) catalogResource() map[string]any {
	tools := []any{}
	for _, op := range s.cat.ops {
		tools = append(tools, map[string]any{"name": op.Name, "title": op.Title, "kind": string(op.Kind)})
	}
	id := s.cat.Identity()
	res, tmpl := resourceCatalog()
	return map[string]any{"name": "rea", "version": s.opts.Server.Version, "tools": tools, "prompts": promptCatalog(),
		"resources": res, "resource_templates": tmpl,
		"digests": map[string]any{"tools_sha256": id.Tools, "prompts_sha256": id.Prompts, "resources_sha256": id.Resources, "combined_sha256": id.Combined}}
}

// ReadResource reads a resource of this connection. A URI no template
// serves, or one that names nothing retained, is ErrResourceNotFound.
func (s *Session) ReadResource(ctx context.Context, uri string) (*ResourceContents, error) {
	for _, r := range Resources() {
		if r.URI == uri {
			text, err := r.read(ctx, s)
			if err != nil {
				return nil, AsError("resources/read", err)
			}
			return &ResourceContents{URI: uri, MIMEType: r.MIMEType, Text: text}, nil
		}
	}
	for _, t := range ResourceTemplates() {
		text, ok, err := t.read(ctx, s, uri)
		if err != nil {
			return nil, AsError("resources/read", err)
		}
		if ok {
			return &ResourceContents{URI: uri, MIMEType: t.MIMEType, Text: text}, nil
		}
	}
	return nil, ErrResourceNotFound
}

// resourceCatalog is the resource part of the catalog identity.
func resourceCatalog() (resources, templates []any) {
	templates = []any{}
	for _, t := range ResourceTemplates() {
		templates = append(templates, map[string]any{"uriTemplate": t.URITemplate, "name": t.Name, "title": t.Title,
			"description": t.Description, "mimeType": t.MIMEType})
	}
	resources = []any{}
	for _, r := range Resources() {
		resources = append(resources, map[string]any{"uri": r.URI, "name": r.Name, "title": r.Title,
			"description": r.Description, "mimeType": r.MIMEType})
	}
	return resources, templates
}

// CheckResource returns nil when a resource's text fits the budget, else a
// resource_constraint naming it.
func (b ResponseBudget) CheckResource(uri string, text []byte) *Error {
	size := int64(len(`{"contents":[{"uri":"","mimeType":"application/json","text":""}]}`)) + jcs.EscapedLen([]byte(uri)) + jcs.EscapedLen(text)
	if size <= b.ResultBudget() {
		return nil
	}
	limits := b.reportedLimits(size, int64(len(text)))
	msg := "resources/read: " + uri + " does not fit the response budget; nothing was truncated"
	return &Error{Code: CodeResourceConstraint, Message: msg,
		Remediation: "Export the bundle with export_evidence_bundle, or read records one at a time through rea://evidence/{evidence_id} and inspect_analysis_view.",
		Details:     map[string]any{"operation": "resources/read", "resource": "transport", "reason": msg, "reported_limits": limits, "uri": uri}}
}
