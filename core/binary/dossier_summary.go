package binary

import (
	"encoding/json"

	"rea/core"
)

func nativeDossier(e *core.Evidence) map[string]any {
	if e.Operation != "analyze_function" || e.PredicateType != core.DefaultPredicate {
		return map[string]any{"available": false, "reason": "different-operation"}
	}
	var nr struct {
		Procedure *struct {
			Address *string `json:"address"`
			Name    *string `json:"name"`
		} `json:"procedure"`
		ValueFlow json.RawMessage `json:"native_value_flow"`
	}
	if json.Unmarshal(e.NormalizedResult, &nr) != nil || nr.Procedure == nil || nr.Procedure.Address == nil {
		return map[string]any{"available": false, "reason": "not-recorded-or-incompatible"}
	}
	return map[string]any{"available": true, "procedure_address": *nr.Procedure.Address,
		"procedure_name": nr.Procedure.Name, "value_flow": valueFlowStatus(nr.ValueFlow)}
}

// valueFlowStatus reports what a record says of its value flow without
// inventing counts: missing counts stay null.
func valueFlowStatus(raw json.RawMessage) map[string]any {
	if len(raw) == 0 || string(raw) == "null" {
		return map[string]any{"status": "not-recorded"}
	}
	var vf map[string]any
	if err := json.Unmarshal(raw, &vf); err != nil {
		return map[string]any{"status": "unknown", "reason": "value-flow record is not an object"}
	}
	reason := func() string {
		if s, ok := vf["reason"].(string); ok && s != "" {
			return s
		}
		return "unspecified"
	}
	status, _ := vf["status"].(string)
	if avail, ok := vf["available"].(bool); ok && !avail && status == "" {
		status = "unavailable"
	}
	count := func(names ...string) any {
		for _, n := range names {
			for _, m := range []map[string]any{vf, asMap(vf["omissions"]), asMap(vf["coverage"])} {
				if v, ok := m[n].(float64); ok {
					return int64(v)
				}
			}
		}
		return nil
	}
	switch status {
	case "observed", "complete", "partial", "truncated":
		truncated, _ := vf["truncated"].(bool)
		return map[string]any{"status": "observed", "truncated": truncated || status == "truncated",
			"omitted_operations_lower_bound": count("omitted_operations_lower_bound", "omitted_operations"),
			"known_omitted_inputs":           count("known_omitted_inputs", "omitted_inputs"),
			"known_omitted_edges":            count("known_omitted_edges", "omitted_edges")}
	case "unavailable":
		return map[string]any{"status": "unavailable", "reason": reason()}
	case "not-recorded":
		return map[string]any{"status": "not-recorded"}
	}
	return map[string]any{"status": "unknown", "reason": "unrecognized value-flow status " + jsonString(status)}
}

func asMap(v any) map[string]any {
	m, _ := v.(map[string]any)
	return m
}

func jsonString(s string) string { return string(core.AppendCanonicalString(nil, s)) }
