package present

import (
	"encoding/json"
	"fmt"
)

// Advertised output schemas.
//
// Every operation declares its complete result schema once. tools/list
// does not carry all of it: clients compile each output schema into a
// validator while listing tools (the official TypeScript client compiles
// all of them with Ajv inside listTools()), and the deep shape of the
// results made that the largest and slowest part of discovery, and most of
// tools/list's bytes. The advertised output schema is therefore a
// projection of the complete one, bound to its own content by its $id:
//
//   - of an Evidence record, evidence_id and normalized_result, required,
//     and normalized_result's shape, with the record left open (every tool's record has the same fields,
//     which cost a kilobyte per tool to repeat); a session tool's {"result"};
//   - the result with its description, JSON type and required property
//     names; the properties it may omit are listed by name; nothing below
//     the result is described (the complete schema has it all: `rea tools
//     NAME --format json` prints it as complete_output_schema).
//
// The advertised schema states no $schema: it uses only keywords that mean
// the same in every JSON Schema draft, and MCP's default dialect is 2020-12.
//
// A projection only drops constraints, so every output that matches the
// complete schema matches the advertised one (the kernel can check each
// result against the complete schema: REA_CHECK_OUTPUT_SCHEMAS).

// evidenceSchemaTemplate is the output schema of every Evidence tool; the
// operation's result schema is placed at normalized_result.
const evidenceSchemaTemplate = `{
 "$schema": "https://json-schema.org/draft/2020-12/schema",
 "type": "object",
 "description": "A complete Evidence record (see ParseEvidence for the full record rules). normalized_result holds the operation's result; evidence_id is its content-hash identity.",
 "additionalProperties": false,
 "required": ["evidence_id","subject","provider","analysis_profile","predicate_type","operation","parameters","raw_result","normalized_result","confidence","authority","environment","limitations","locations","evidence_links"],
 "properties": {
  "evidence_id": {"type":"string","pattern":"^ev_[0-9a-f]{64}$"},
  "subject": {"type":["object","null"],"required":["name","digest","format","architecture","local_path"]},
  "provider": {"type":"object","required":["id","name","version"],"properties":{"id":{"type":"string"},"name":{"type":"string"},"version":{"type":["string","null"]}}},
  "analysis_profile": {"type":["object","null"],"required":["schema_version","provider","provider_profile_schema_version","parameters","digest"]},
  "predicate_type": {"type":"string"},
  "operation": {"type":"string"},
  "parameters": {"type":"object"},
  "raw_result": {},
  "normalized_result": null,
  "confidence": {"enum":["observed","derived","inferred"]},
  "authority": {"enum":["shipped-artifact","controlled-replay","historical-reference","external-service","analyst-inference"]},
  "environment": {"type":["object","null"]},
  "limitations": {"type":"array","items":{"type":"string"}},
  "locations": {"type":"array","items":{"type":"object","required":["kind"]}},
  "evidence_links": {"type":"array","items":{"type":"string","pattern":"^ev_[0-9a-f]{64}$"}}
 }
}`

// Outputs builds an operation's complete output schema from its result
// schema (Evidence tools: the Evidence record with the result at
// normalized_result; session tools: {"result": ...}) and the advertised
// projection of it (Output). Neither has its $id yet: the kernel binds it
// to the canonical content.
func Outputs(result json.RawMessage, session bool) (complete, advertised map[string]any, err error) {
	if len(result) == 0 {
		result = json.RawMessage(`{}`)
	}
	var res any
	if err := json.Unmarshal(result, &res); err != nil {
		return nil, nil, err
	}
	var out map[string]any
	resultKey := "normalized_result"
	if session {
		resultKey = "result"
		out = map[string]any{
			"$schema":              "https://json-schema.org/draft/2020-12/schema",
			"type":                 "object",
			"additionalProperties": false,
			"required":             []any{"result"},
			"properties":           map[string]any{"result": res},
		}
	} else {
		if err := json.Unmarshal([]byte(evidenceSchemaTemplate), &out); err != nil {
			return nil, nil, fmt.Errorf("evidence schema: %w", err)
		}
		out["properties"].(map[string]any)[resultKey] = res
	}
	// Hoist the result schema's $defs to the root so local refs resolve.
	if rm, ok := res.(map[string]any); ok {
		if defs, ok := rm["$defs"].(map[string]any); ok {
			delete(rm, "$defs")
			root, _ := out["$defs"].(map[string]any)
			if root == nil {
				root = map[string]any{}
			}
			for k, v := range defs {
				root[k] = v
			}
			out["$defs"] = root
		}
	}
	return out, Output(out, resultKey), nil
}

// Output projects the complete output schema out, whose result sits at
// properties[resultKey], into the advertised one (without its $id).
func Output(out map[string]any, resultKey string) map[string]any {
	result := projectResult(out, out["properties"].(map[string]any)[resultKey])
	if resultKey == "result" { // a session tool: {"result": ...}
		return map[string]any{"type": "object", "additionalProperties": false, "required": []any{resultKey},
			"properties": map[string]any{resultKey: result}}
	}
	// An Evidence record: every tool's record has the same fields, so the
	// advertisement requires only the two an agent reads first (the identity,
	// a string, and the result) and leaves the record open; the record's
	// fields are CONTRACTS.md §2's, checked in full by the complete schema.
	return map[string]any{
		"type":       "object",
		"required":   []any{"evidence_id", resultKey},
		"properties": map[string]any{resultKey: result},
	}
}

// projectResult is the advertised form of the result schema s within the
// complete output schema root: its description, const or enum, JSON type
// and required property names, and the names of the properties it may
// omit (as unconstrained schemas).
func projectResult(root map[string]any, s any) any {
	m, ok := s.(map[string]any)
	if !ok {
		return s // true/false schemas stay as they are
	}
	m = resolveRefChain(root, m)
	out := map[string]any{}
	if d, ok := m["description"].(string); ok {
		out["description"] = d
	}
	if c, ok := m["const"]; ok {
		out["const"] = c
		return out
	}
	if e, ok := m["enum"]; ok {
		out["enum"] = e
		return out
	}
	if t := detectType(root, m, 0); t != nil {
		out["type"] = t
	}
	if props, ok := m["properties"].(map[string]any); ok {
		required := asStrings(m["required"])
		optional := map[string]any{}
		for k := range props {
			if !containsStr(required, k) {
				optional[k] = map[string]any{}
			}
		}
		if len(required) > 0 {
			out["required"] = m["required"]
		}
		if len(optional) > 0 {
			out["properties"] = optional
		}
	}
	return out
}

// resolveRefChain follows a schema's plain $ref (siblings other than
// annotations are dropped, which only loosens the projection).
func resolveRefChain(root, m map[string]any) map[string]any {
	for i := 0; i < 32; i++ {
		ref, ok := m["$ref"].(string)
		if !ok {
			return m
		}
		t, ok := resolvePointer(root, ref)
		tm, isMap := t.(map[string]any)
		if !ok || !isMap {
			return map[string]any{}
		}
		if d, ok := m["description"]; ok {
			if _, has := tm["description"]; !has {
				c := make(map[string]any, len(tm)+1)
				for k, v := range tm {
					c[k] = v
				}
				c["description"] = d
				tm = c
			}
		}
		m = tm
	}
	return map[string]any{}
}
