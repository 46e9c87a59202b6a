package jsapp

import (
	"encoding/json"

	"rea/core"
)

// Schemas of the JavaScript application operations. Nested records that
// carry open property bags (graph properties) stay objects; every ID and
// enum is exact. None is recursive.

const jagDefs = `
 "jag_id":{"type":"string","pattern":"^jag_node_[0-9a-f]{64}$"},
 "jag_location":{"type":"object","additionalProperties":false,"required":["path","offset"],"properties":{"path":{"type":"string"},"offset":{"type":["integer","null"],"minimum":0}}},
 "jag_evidence":{"type":"object","additionalProperties":false,"required":["basis","confidence","locations"],
  "properties":{"basis":{"enum":["static-syntax","package-metadata","source-map","artifact-inventory","html-markup","derived"]},
   "confidence":{"enum":["observed","derived","inferred"]},"locations":{"type":"array","items":{"$ref":"#/$defs/jag_location"}}}},
 "jag_node":{"type":"object","additionalProperties":false,"required":["node_id","kind","identity","observations"],
  "properties":{"node_id":{"$ref":"#/$defs/jag_id"},"kind":{"type":"string"},
   "identity":{"type":"object","required":["strategy","stability"],"properties":{"strategy":{"enum":["content-digest","source-map-original","canonical-path","structural-fingerprint","artifact-local-key","runtime-instance","observation-fingerprint"]},"stability":{"type":"string"}}},
   "observations":{"type":"array","minItems":1,"maxItems":64,"items":{"type":"object","additionalProperties":false,
    "required":["observation_id","label","properties","evidence","identifier_strategy"],
    "properties":{"observation_id":{"type":"string","pattern":"^jag_observation_[0-9a-f]{64}$"},"label":{"type":["string","null"]},
     "properties":{"type":"object","maxProperties":64},"evidence":{"$ref":"#/$defs/jag_evidence"},
     "identifier_strategy":{"type":"object","required":["strategy","stability"]}}}}}},
 "jag_edge":{"type":"object","additionalProperties":false,"required":["edge_id","source_node_id","target_node_id","relation","properties","evidence","identifier_strategy"],
  "properties":{"edge_id":{"type":"string","pattern":"^jag_edge_[0-9a-f]{64}$"},"source_node_id":{"$ref":"#/$defs/jag_id"},"target_node_id":{"$ref":"#/$defs/jag_id"},
   "relation":{"enum":["contains","loads","imports","maps_to","exposes","sends","invokes","handles","calls","persists_to","observed_as","changed_from"]},
   "properties":{"type":"object","maxProperties":64},"evidence":{"$ref":"#/$defs/jag_evidence"},"identifier_strategy":{"type":"object"}}},
 "jag_coverage":{"type":"object","additionalProperties":false,"required":["status","truncated","omitted_count","limits"],
  "properties":{"status":{"enum":["complete","partial","unknown","unavailable"]},"truncated":{"type":"boolean"},"omitted_count":{"type":["integer","null"],"minimum":0},
   "limits":{"type":"array","maxItems":32,"items":{"type":"object","additionalProperties":false,"required":["name","value","unit"],"properties":{"name":{"type":"string"},"value":{"type":"integer"},"unit":{"type":"string"}}}}}},
 "jag_graph":{"type":"object","additionalProperties":false,"required":["schema","schema_version","graph_id","root_node_ids","nodes","edges","coverage","limitations"],
  "properties":{"schema":{"const":"JavaScriptApplicationGraph"},"schema_version":{"const":1},"graph_id":{"type":"string","pattern":"^jag_[0-9a-f]{64}$"},
   "root_node_ids":{"type":"array","minItems":1,"maxItems":1000,"items":{"$ref":"#/$defs/jag_id"}},
   "nodes":{"type":"array","minItems":1,"maxItems":100000,"items":{"$ref":"#/$defs/jag_node"}},
   "edges":{"type":"array","maxItems":200000,"items":{"$ref":"#/$defs/jag_edge"}},
   "coverage":{"$ref":"#/$defs/jag_coverage"},"limitations":{"type":"array","items":{"type":"string"}}}}`

func jsappResultSchema() json.RawMessage {
	return json.RawMessage(`{"anyOf":[
 {"type":"object","additionalProperties":false,"description":"The complete analysis (detail complete).",
  "required":["schema_version","input_path","format","root_artifact_sha256","inventory_manifest_id","inventory_graph_sha256","statistics","summary","electron","coverage","graph","semantic_graph","string_index","integrity_contradictions","limitations","unknowns"],
  "properties":{"schema_version":{"const":1},"input_path":{"type":"string"},"format":{"enum":["asar","directory","file"]},
   "root_artifact_sha256":{"type":"string","pattern":"^[0-9a-f]{64}$"},"inventory_manifest_id":{"type":"string"},"inventory_graph_sha256":{"type":"string"},
   "statistics":{"type":"object","additionalProperties":{"type":"integer","minimum":0}},
   "summary":{"type":"object","additionalProperties":{"type":"integer","minimum":0}},
   "electron":{"type":"object","required":["detected","main","preload","renderer","utility","browser_windows","context_bridge_apis","ipc"]},
   "coverage":{"type":"object","required":["status","truncated","omitted_count","limits"]},
   "graph":{"$ref":"#/$defs/jag_graph"},
   "semantic_graph":{"type":"object","required":["graph_id","nodes","relations","fingerprints","unknown_frontiers","coverage","query_tool"],
    "properties":{"graph_id":{"type":"string","pattern":"^jsrg_[0-9a-f]{64}$"},"query_tool":{"const":"trace_javascript_semantics"}}},
   "string_index":{"type":"array","items":{"type":"object","required":["value","node_id","offset"]}},
   "integrity_contradictions":{"type":"array","maxItems":100,"items":{"type":"object","required":["contradiction_id","logical_path","declared_sha256","observed_sha256"]}},
   "limitations":{"type":"array","items":{"type":"string"}},
   "unknowns":{"type":"array","items":{"type":"object","required":["kind","node_id","path","offset","detail"]}}}},
 ` + core.ViewResultSchema + `],
 "$defs":{` + jagDefs + `}}`)
}

// evidenceInputSchema is the union an application input accepts: complete
// inline Evidence or a retained reference.
const jsappEvidenceInput = `{"anyOf":[
  {"type":"object","description":"A retained reference to Evidence recorded on this connection.","additionalProperties":false,"required":["kind","evidence_id"],
   "properties":{"kind":{"const":"retained-evidence"},"evidence_id":{"type":"string","pattern":"^ev_[0-9a-f]{64}$"}}},
  {"type":"object","description":"Complete inline analyze_javascript_application Evidence.","required":["evidence_id","operation","normalized_result"],
   "properties":{"evidence_id":{"type":"string","pattern":"^ev_[0-9a-f]{64}$"},"operation":{"type":"string"},"normalized_result":{"type":"object"}}}]}`

// genericResult is an object result with required keys.
func genericResult(required ...string) json.RawMessage {
	req, _ := json.Marshal(required)
	return json.RawMessage(`{"type":"object","required":` + string(req) + `}`)
}
