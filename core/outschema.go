package core

import (
	"bytes"
	"fmt"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// Advertised output schemas.
//
// Every operation declares its complete result schema once (Operation.Result).
// tools/list does not carry all of it: clients compile each output schema
// into a validator while listing tools (the official TypeScript client
// compiles all of them with Ajv inside listTools()), and the deep shape of 59
// results made that the largest and slowest part of discovery. The advertised
// output schema is therefore a projection of the complete one:
//
//   - the Evidence record's fields (or session tools' result) with their
//     types and enums;
//   - the result (normalized_result, or result for session operations) with
//     its properties, required fields and descriptions, and one level below
//     them properties and required fields; deeper values keep their type only.
//
// A projection only drops constraints, so every output that matches the
// complete schema matches the advertised one (tests check each result against
// the complete schema: REA_CHECK_OUTPUT_SCHEMAS and core's own tests). The
// complete schema is available from Operation.CompleteOutputSchema and
// `rea tools --format json` (result_schema).

// advertisedDepth is how many levels below the result keep their properties.
const advertisedDepth = 2

// advertiseOutput projects the complete output schema out, whose result
// sits at properties[resultKey].
func advertiseOutput(out map[string]any, resultKey string) map[string]any {
	adv := projectOutput(out, out, advertisedDepth-1).(map[string]any) // the record's fields: types only
	delete(adv, "description")
	adv["$schema"] = out["$schema"]
	adv["properties"].(map[string]any)[resultKey] = projectOutput(out, out["properties"].(map[string]any)[resultKey], 0)
	return adv
}

// projectOutput is the advertised form of a schema s within the complete
// output schema root: level 0 is the result.
func projectOutput(root map[string]any, s any, level int) any {
	m, ok := s.(map[string]any)
	if !ok {
		return s // true/false schemas stay as they are
	}
	m = resolveRefChain(root, m)
	out := map[string]any{}
	if level <= 1 {
		if d, ok := m["description"].(string); ok {
			out["description"] = d
		}
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
	if level >= advertisedDepth {
		return out
	}
	if props, ok := m["properties"].(map[string]any); ok {
		p := make(map[string]any, len(props))
		for k, v := range props {
			p[k] = projectOutput(root, v, level+1)
		}
		out["properties"] = p
		if r, ok := m["required"]; ok {
			out["required"] = r
		}
		if ap, ok := m["additionalProperties"].(bool); ok && !ap {
			out["additionalProperties"] = false
		}
	}
	if items, ok := m["items"]; ok {
		if it := projectOutput(root, items, level+1); !isEmptySchema(it) {
			out["items"] = it
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

func isEmptySchema(v any) bool {
	m, ok := v.(map[string]any)
	return ok && len(m) == 0
}

// completeSchema compiles the complete output schema once.
func (o *Operation) completeSchema() (*jsonschema.Schema, error) {
	o.completeOnce.Do(func() {
		if o.completeErr = o.prepareOutput(); o.completeErr == nil {
			o.completeCompiled, o.completeErr = compileSchema(o.Name+":complete-output", o.completeOutput)
		}
	})
	return o.completeCompiled, o.completeErr
}

// CheckOutput validates a success's structured content against the complete
// output schema. Sessions run it on every success when the catalog's
// SetCheckOutputs is on (REA_CHECK_OUTPUT_SCHEMAS=1), which the tests do; a
// mismatch is a defect in rea, reported as execution_failure.
func (o *Operation) CheckOutput(structured []byte) error {
	s, err := o.completeSchema()
	if err != nil {
		return err
	}
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(structured))
	if err != nil {
		return err
	}
	if err := s.Validate(v); err != nil {
		return &Error{Code: CodeExecutionFailure, Message: fmt.Sprintf("%s: result does not match its output schema: %v", o.Name, err),
			Details: map[string]any{"operation": o.Name, "reason": "output_schema_mismatch"}}
	}
	return nil
}

// CheckOutputSchemasEnv turns on Operation.CheckOutput for every success.
const CheckOutputSchemasEnv = "REA_CHECK_OUTPUT_SCHEMAS"

// ParseCheckOutputs reads REA_CHECK_OUTPUT_SCHEMAS: unset, empty, "0" or
// "false" is off; "1" or "true" is on; anything else stops start-up.
func ParseCheckOutputs(value string, set bool) (bool, error) {
	switch value {
	case "", "0", "false":
		return false, nil
	case "1", "true":
		return true, nil
	}
	return false, fmt.Errorf("%s must be 1, true, 0 or false, not %q", CheckOutputSchemasEnv, value)
}

// SetCheckOutputs makes every session of this catalog validate each success
// against the complete output schema (start-up only).
func (c *Catalog) SetCheckOutputs(on bool) { c.checkOutputs = on }
