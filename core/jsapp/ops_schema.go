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
 "jag_ref":{"description":"A node: its index in graph.nodes, or its node_id when the graph does not hold it.","anyOf":[{"type":"integer","minimum":0},{"$ref":"#/$defs/jag_id"}]},
 "jag_location":{"type":"array","description":"[index in graph.paths], [index, byte offset] or [index, byte offset, line, column].","minItems":1,"maxItems":4,"items":{"type":"integer","minimum":0}},
 "jag_evidence":{"type":"object","additionalProperties":false,"required":["locations"],
  "properties":{"basis":{"description":"Left out when it is the default of the node kind or edge relation.","enum":["static-syntax","package-metadata","source-map","artifact-inventory","html-markup","derived"]},
   "confidence":{"description":"Left out when observed.","enum":["derived","inferred"]},"locations":{"type":"array","items":{"$ref":"#/$defs/jag_location"}}}},
 "jag_observation":{"type":"object","additionalProperties":false,"required":["evidence"],
  "properties":{"label":{"description":"Left out when it is the node's key (identity path, key or original_source).","type":["string","null"]},
   "properties":{"type":"object","maxProperties":64,"description":"Members that repeat or follow from the identity are left out (docs/jsapp-graph.md)."},
   "unset":{"type":"array","description":"Derived properties this observation does not have.","items":{"type":"string"}},
   "evidence":{"$ref":"#/$defs/jag_evidence"}}},
 "jag_node_group":{"type":"object","additionalProperties":false,"required":["kind","identity","rows"],
  "description":"Nodes of one kind and identity members; a row is the identity's values in member order (a number for a *_sha256 member is an index in graph.digests), then the observations. node_id is the digest of kind and identity.",
  "properties":{"kind":{"type":"string"},"identity":{"type":"array","items":{"type":"string"}},
   "rows":{"type":"array","items":{"type":"array","minItems":1}}}},
 "jag_edge":{"type":"array","minItems":4,"maxItems":7,"description":"[source, target, relation, locations, properties?, basis?, confidence?]; trailing defaults ({}, the relation's basis, observed) left out.",
  "items":{}},
 "jag_coverage":{"type":"object","additionalProperties":false,"required":["status","truncated","omitted_count","limits"],
  "properties":{"status":{"enum":["complete","partial","unknown","unavailable"]},"truncated":{"type":"boolean"},"omitted_count":{"type":["integer","null"],"minimum":0},
   "limits":{"type":"array","maxItems":32,"items":{"type":"object","additionalProperties":false,"required":["name","value","unit"],"properties":{"name":{"type":"string"},"value":{"type":"integer"},"unit":{"type":"string"}}}}}},
 "jag_graph":{"type":"object","additionalProperties":false,"description":"The application graph in its lean form (docs/jsapp-graph.md): nodes in groups of rows, references by index, derivable IDs and defaults left out.",
  "required":["schema","schema_version","graph_id","artifact_sha256","paths","digests","root_node_ids","nodes","edges","coverage","limitations"],
  "properties":{"schema":{"const":"JavaScriptApplicationGraph"},"schema_version":{"const":4},"graph_id":{"type":"string","pattern":"^jag_[0-9a-f]{64}$"},
   "artifact_sha256":{"type":"string","pattern":"^[0-9a-f]{64}$"},"paths":{"type":"array","items":{"type":"string"}},
   "digests":{"type":"array","items":{"type":"string","pattern":"^[0-9a-f]{64}$"}},
   "root_node_ids":{"type":"array","minItems":1,"maxItems":1000,"items":{"$ref":"#/$defs/jag_id"}},
   "nodes":{"type":"array","minItems":1,"items":{"$ref":"#/$defs/jag_node_group"}},
   "edges":{"type":"array","maxItems":200000,"items":{"$ref":"#/$defs/jag_edge"}},
   "coverage":{"$ref":"#/$defs/jag_coverage"},"limitations":{"type":"array","items":{"type":"string"}}}}`

func jsappResultSchema() json.RawMessage {
	return json.RawMessage(`{"anyOf":[
 {"type":"object","additionalProperties":false,"description":"The complete analysis (detail complete).",
  "required":["schema_version","input_path","format","root_artifact_sha256","inventory_manifest_id","inventory_graph_sha256","statistics","summary","electron","coverage","graph","semantic_graph","string_index","integrity_contradictions","limitations","unknowns"],
  "properties":{"schema_version":{"const":6},"input_path":{"type":"string"},"format":{"enum":["asar","directory","file","zip","apk","ipa","msix","appx","tar","tar.gz","tar.zst"]},
   "root_artifact_sha256":{"type":"string","pattern":"^[0-9a-f]{64}$"},"inventory_manifest_id":{"type":"string"},"inventory_graph_sha256":{"type":"string"},
   "statistics":{"type":"object","additionalProperties":{"type":"integer","minimum":0}},
   "summary":{"type":"object","additionalProperties":{"type":"integer","minimum":0}},
   "electron":{"type":"object","required":["detected","main","preload","renderer","utility","browser_windows","context_bridge_apis","ipc"]},
   "coverage":{"type":"object","required":["status","truncated","omitted_count","limits"]},
   "graph":{"$ref":"#/$defs/jag_graph"},
   "semantic_graph":{"type":"object","required":["graph_id","nodes","relations","fingerprints","unknown_frontiers","coverage","query_tool"],
    "properties":{"graph_id":{"type":"string","pattern":"^jsrg_[0-9a-f]{64}$"},"query_tool":{"const":"trace_javascript_semantics"},
     "nodes":{"type":"array","items":{"$ref":"#/$defs/jag_ref"}},
     "relations":{"type":"array","description":"Rows: [source, \"exports\", name, value_kind, params, kind, offset, line, column, original, original_line, original_column, rest, specifier, local] or [source, relation, specifier, target, offset, line, column, names, external, original_*], trailing defaults left out; source and target are node references.",
      "items":{"anyOf":[{"type":"array","minItems":2,"maxItems":15},{"type":"object","required":["relation","source"]}]}},
     "fingerprints":{"type":"array","items":{"type":"object","required":["node"],"properties":{"node":{"$ref":"#/$defs/jag_ref"}}}},
     "unknown_frontiers":{"type":"array","items":{"type":"object","required":["node"],"properties":{"node":{"$ref":"#/$defs/jag_ref"}}}}}},
   "string_index":{"type":"array","description":"Rows [value, node] or [value, node, offset].","items":{"type":"array","minItems":2,"maxItems":3,"prefixItems":[{"type":"string"},{"$ref":"#/$defs/jag_ref"},{"type":"integer","minimum":0}]}},
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
