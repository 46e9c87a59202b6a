package core

import (
	"encoding/json"
	"strings"
)

// Helpers for declaring operations and reading their validated arguments;
// feature families use them as the kernel's own operations do.

// InputSchema is a closed JSON Schema object with the required names and
// the given property declarations ("name": {...}).
func InputSchema(required []string, props ...string) json.RawMessage {
	req, _ := json.Marshal(required)
	if required == nil {
		req = []byte("[]")
	}
	return json.RawMessage(`{"$schema":"https://json-schema.org/draft/2020-12/schema","type":"object","additionalProperties":false,"required":` +
		string(req) + `,"properties":{` + strings.Join(props, ",") + `}}`)
}

// OptString is &s, or nil for the empty string.
func OptString(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}
