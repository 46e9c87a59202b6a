package artifact

import "encoding/json"

// Schemas of the artifact operations (CONTRACTS.md §15). Shared record
// shapes live in artifactDefs and are referenced through #/$defs, which
// buildOutputSchema hoists to the output schema's root.

const (
	artKinds = `["container","executable","dynamic-library","object","framework","native-addon","javascript","source-map","plist","entitlements",` +
		`"resource","universal-slice","package-metadata","unknown"]`
	artFormats = `["dmg","zip","pkg","asar","javascript-bundle","source-map","mach-o-universal","mach-o","elf","pe","hopper",` +
		`"analysis-database","ipa","apk","msix","appx","tar","tar.gz","tar.zst","ar","plist","entitlements","directory","file","unknown"]`
)

// artifactFormats is artFormats as a set: a container opener naming a format
// outside it is recorded as "unknown".
var artifactFormats = func() map[string]bool {
	var l []string
	_ = json.Unmarshal([]byte(artFormats), &l)
	m := map[string]bool{}
	for _, f := range l {
		m[f] = true
	}
	return m
}()

const artifactDefs = `"$defs":{
 "sha256":{"type":"string","pattern":"^[0-9a-f]{64}$"},
 "artifact_id":{"type":"string","pattern":"^art_[0-9a-f]{64}$","description":"art_ + Digest({schema_version:1, sha256}): the content's identity."},
 "occurrence_id":{"type":"string","pattern":"^occ_[0-9a-f]{64}$","description":"occ_ + Digest({root_artifact_id, logical_path, entry_kind}); the root's is Digest({root: artifact_id})."},
 "strings":{"type":"array","items":{"type":"string"}},
 "counts":{"type":"object","additionalProperties":{"type":"integer","minimum":0}},
 "manifest":{"type":"object","additionalProperties":false,
  "required":["schema_version","manifest_id","root_artifact_id","root_sha256","root_format","graph_sha256","node_count","occurrence_count","edge_count"],
  "properties":{"schema_version":{"const":1},"manifest_id":{"type":"string","pattern":"^agm_[0-9a-f]{64}$","description":"agm_ + Digest({schema_version:1, root_artifact_id, graph_sha256})."},
   "root_artifact_id":{"$ref":"#/$defs/artifact_id"},"root_sha256":{"$ref":"#/$defs/sha256"},"root_format":{"enum":` + artFormats + `},
   "graph_sha256":{"$ref":"#/$defs/sha256","description":"Digest({nodes, occurrences, edges, integrity_contradictions})."},
   "node_count":{"type":"integer","minimum":0},"occurrence_count":{"type":"integer","minimum":1},"edge_count":{"type":"integer","minimum":0}}},
 "node":{"type":"object","additionalProperties":false,
  "required":["artifact_id","kind","format","sha256","size","media_type","architecture","executable","content_state","limitations"],
  "properties":{"artifact_id":{"$ref":"#/$defs/artifact_id"},"kind":{"enum":` + artKinds + `},"format":{"enum":` + artFormats + `},
   "sha256":{"$ref":"#/$defs/sha256","description":"SHA-256 of the bytes; for a directory Digest({kind:\"directory\", children:[{name, artifact_id, entry_kind}]}), for a directory root Digest({kind:\"directory-root\", children:[{logical_path, artifact_id}]}), for a symbolic link Digest({kind:\"symlink\", target})."},
   "size":{"type":"integer","minimum":0,"description":"Bytes of a file; total file bytes beneath a directory; length of a link target."},
   "media_type":{"type":["string","null"]},"architecture":{"enum":["x86","x86_64","arm","arm64",null]},
   "executable":{"type":"boolean","description":"The bytes are a runnable image or script (whatever the file mode; the mode is on the occurrence)."},
   "content_state":{"enum":["materialized","embedded","virtual"],"description":"materialized: a file on disk; embedded: inside a container; virtual: a directory or link."},
   "limitations":{"$ref":"#/$defs/strings"}}},
 "occurrence":{"type":"object","additionalProperties":false,
  "required":["occurrence_id","artifact_id","parent_occurrence_id","logical_path","entry_kind","declared_size","compressed_size","executable","encrypted","hash_status","source_location","limitations"],
  "properties":{"occurrence_id":{"$ref":"#/$defs/occurrence_id"},"artifact_id":{"anyOf":[{"$ref":"#/$defs/artifact_id"},{"type":"null"}]},
   "parent_occurrence_id":{"anyOf":[{"$ref":"#/$defs/occurrence_id"},{"type":"null"}]},
   "logical_path":{"type":"string","minLength":1,"maxLength":4096,"description":"Relative POSIX path; \".\" for the root. Entries of a nested container are under its path."},
   "entry_kind":{"enum":["file","directory","symlink","slice"]},"declared_size":{"type":["integer","null"]},"compressed_size":{"type":["integer","null"]},
   "executable":{"type":"boolean"},"encrypted":{"type":"boolean"},"hash_status":{"enum":["verified","mismatched","not-hashed-limit","unavailable"]},
   "source_location":{"anyOf":[{"type":"null"},{"type":"object","additionalProperties":false,"required":["offset","length"],
     "properties":{"offset":{"type":"integer","minimum":0},"length":{"type":"integer","minimum":0}}}]},
   "limitations":{"$ref":"#/$defs/strings"}}},
 "edge":{"type":"object","additionalProperties":false,
  "required":["edge_id","ordinal","parent_artifact_id","child_artifact_id","relation","occurrence_id","logical_path","producer"],
  "properties":{"edge_id":{"type":"string","pattern":"^edge_[0-9a-f]{64}$"},"ordinal":{"type":"integer","minimum":0},
   "parent_artifact_id":{"$ref":"#/$defs/artifact_id"},"child_artifact_id":{"$ref":"#/$defs/artifact_id"},
   "relation":{"enum":["contains","extracts","slice-of","embeds","loads","maps-source","derived-from"]},
   "occurrence_id":{"$ref":"#/$defs/occurrence_id"},"logical_path":{"type":["string","null"]},"producer":{"type":["object","null"]}}},
 "contradiction":{"type":"object","additionalProperties":false,
  "required":["contradiction_id","occurrence_id","parent_artifact_id","logical_path","declared_sha256","observed_sha256","entry_kind","unpacked","trust","provenance","limitations"],
  "properties":{"contradiction_id":{"type":"string","pattern":"^ic_[0-9a-f]{64}$"},"occurrence_id":{"$ref":"#/$defs/occurrence_id"},
   "parent_artifact_id":{"$ref":"#/$defs/artifact_id"},"logical_path":{"type":"string"},"declared_sha256":{"$ref":"#/$defs/sha256"},
   "observed_sha256":{"$ref":"#/$defs/sha256"},"entry_kind":{"enum":["file","slice"]},"unpacked":{"type":"boolean"},
   "trust":{"const":"observed-untrusted"},"provenance":{"const":"container-integrity-metadata-versus-observed-bytes"},
   "limitations":{"type":"array","minItems":1,"items":{"type":"string"}}}},
 "contradictions":{"type":"array","maxItems":100,"items":{"$ref":"#/$defs/contradiction"}},
 "provenance":{"type":"object","additionalProperties":false,"required":["tool","integrity_policy","root_kind","method"],
  "properties":{"tool":{"const":"rea"},"integrity_policy":{"enum":["fail","record-and-continue"]},"root_kind":{"enum":["directory","file"]},"method":{"type":"string"}}},
 "limits":{"type":"object","additionalProperties":false,
  "required":["max_entries","max_total_bytes","max_entry_bytes","max_compression_ratio","max_depth","max_path_bytes"],
  "properties":{"max_entries":{"type":"integer"},"max_total_bytes":{"type":"integer"},"max_entry_bytes":{"type":"integer"},
   "max_compression_ratio":{"type":"integer"},"max_depth":{"type":"integer"},"max_path_bytes":{"type":"integer"}}},
 "entry":{"type":"object","additionalProperties":false,
  "required":["occurrence_id","logical_path","entry_kind","artifact_id","sha256","size","kind","format","executable","hash_status","relations"],
  "properties":{"occurrence_id":{"$ref":"#/$defs/occurrence_id"},"logical_path":{"type":"string"},"entry_kind":{"enum":["file","directory","symlink","slice"]},
   "artifact_id":{"anyOf":[{"$ref":"#/$defs/artifact_id"},{"type":"null"}]},"sha256":{"anyOf":[{"$ref":"#/$defs/sha256"},{"type":"null"}]},
   "size":{"type":["integer","null"]},"kind":{"anyOf":[{"enum":` + artKinds + `},{"type":"null"}]},"format":{"anyOf":[{"enum":` + artFormats + `},{"type":"null"}]},
   "executable":{"type":"boolean","description":"The occurrence's file mode (or container flag) marks it executable."},
   "hash_status":{"enum":["verified","mismatched","not-hashed-limit","unavailable"]},
   "relations":{"type":"array","items":{"type":"string"},"description":"Edges the entry is the parent of: contains:<n> for an expanded container, maps-source:<path> for a source map."},
   "link_target":{"type":"string","description":"A symbolic link's target as recorded (untrusted; never followed)."}}}
}`

// artifactInputProps are the inputs every artifact-reading operation takes.
const artifactInputProps = `"path":{"type":"string","minLength":1,"maxLength":4096,"description":"The artifact to read: a directory, an ASAR (with its .asar.unpacked companion beside it), a ZIP, APK, IPA, JAR, MSIX or APPX, a tar (.tar, .tgz, .tar.zst), an ar (.a), or any file; absolute or relative to the server's working directory. Default: the open target."},
 "integrity_policy":{"enum":["fail","record-and-continue"],"default":"fail","description":"fail (default): a file contradicting the hash its container declares fails the call. record-and-continue: the contradiction is recorded in integrity_contradictions and the bytes quarantined (a contradicted nested ASAR is not expanded); verified siblings continue."},
 "max_entries":{"type":"integer","minimum":1,"maximum":1000000,"default":100000,"description":"Most occurrences the graph may hold, else truncated."},
 "max_total_bytes":{"type":"integer","minimum":1,"maximum":17179869184,"default":1073741824,"description":"Most bytes read in total (after decompression), else truncated."},
 "max_entry_bytes":{"type":"integer","minimum":1,"maximum":4294967296,"default":268435456,"description":"Most bytes of one entry, else truncated."},
 "max_compression_ratio":{"type":"integer","minimum":1,"maximum":100000,"default":1000,"description":"Most uncompressed bytes per stored byte of a compressed entry (ZIP bombs), else truncated."},
 "max_depth":{"type":"integer","minimum":1,"maximum":256,"default":20,"description":"Most components of a logical path, else truncated."},
 "max_path_bytes":{"type":"integer","minimum":1,"maximum":4096,"default":4096,"description":"Longest logical path in bytes, else truncated."}`

// artifactPageProps are the inputs of the operations that answer concisely
// by default (concise.go).
const artifactPageProps = `"detail":{"enum":["concise","complete"],"default":"concise","description":"concise: counts, integrity verdict, a page of entries; complete: every entry."},
 "offset":{"type":"integer","minimum":0,"description":"First entry listed (default 0)."},
 "limit":{"type":"integer","minimum":1,"maximum":5000,"description":"Entries listed (default 50)."}`

// conciseProps are the summary and page of a concise result.
const conciseProps = `"summary":{"type":"object","additionalProperties":false,"required":["entry_kinds","kinds","formats","hash_status","integrity","suspicious"],
   "properties":{"entry_kinds":{"$ref":"#/$defs/counts"},"kinds":{"$ref":"#/$defs/counts"},"formats":{"$ref":"#/$defs/counts"},"hash_status":{"$ref":"#/$defs/counts"},
    "integrity":{"enum":["contradicted","incomplete","consistent"],"description":"consistent: every file was hashed and none contradicts a hash its container declares."},
    "suspicious":{"$ref":"#/$defs/strings"}}},
  "page":{"type":"object","additionalProperties":false,"required":["offset","limit","total","next_offset","has_more"],
   "properties":{"offset":{"type":"integer","minimum":0},"limit":{"type":"integer","minimum":1},"total":{"type":"integer","minimum":0},
    "next_offset":{"type":["integer","null"]},"has_more":{"type":"boolean"}}}`

func inventorySchema() json.RawMessage {
	return json.RawMessage(`{"type":"object","additionalProperties":false,
 "required":["manifest","limits","provenance","integrity_contradictions","limitations"],
 "properties":{"manifest":{"$ref":"#/$defs/manifest"},` + conciseProps + `,
  "entries":{"type":"array","items":{"$ref":"#/$defs/entry"},"description":"Concise form: the page's entries, in occurrence order."},
  "parent_evidence_id":{"type":"string","pattern":"^ev_[0-9a-f]{64}$","description":"Concise form: the retained complete inventory (compare_artifacts reads it)."},
  "nodes":{"type":"array","items":{"$ref":"#/$defs/node"},"description":"Complete form: distinct contents, sorted by artifact_id."},
  "occurrences":{"type":"array","items":{"$ref":"#/$defs/occurrence"},"description":"Where each content was found: the root first, then by logical_path in code-point order."},
  "edges":{"type":"array","items":{"$ref":"#/$defs/edge"},"description":"contains (parent to child) and maps-source (x.map to x), sorted by edge_id."},
  "limits":{"$ref":"#/$defs/limits"},"provenance":{"$ref":"#/$defs/provenance"},
  "integrity_contradictions":{"$ref":"#/$defs/contradictions"},"limitations":{"$ref":"#/$defs/strings"}},
 ` + artifactDefs + `}`)
}

func inspectSchema() json.RawMessage {
	return json.RawMessage(`{"type":"object","additionalProperties":false,
 "required":["schema_version","inspection_id","subject","summary","page","substeps","observations","derived_relationships","hypotheses","contradictions","unexplored_branches","next_probes","coverage","evidence_links","limitations"],
 "properties":{"schema_version":{"const":1},"inspection_id":{"type":"string","pattern":"^ai_[0-9a-f]{64}$"},
  "subject":{"type":"object","additionalProperties":false,"required":["root_artifact_id","root_sha256","root_format","manifest_id","graph_sha256","occurrence_count","inventory_evidence_id"],
   "properties":{"root_artifact_id":{"$ref":"#/$defs/artifact_id"},"root_sha256":{"$ref":"#/$defs/sha256"},"root_format":{"enum":` + artFormats + `},
    "manifest_id":{"type":"string","pattern":"^agm_[0-9a-f]{64}$"},"graph_sha256":{"$ref":"#/$defs/sha256"},"occurrence_count":{"type":"integer","minimum":1},
    "inventory_evidence_id":{"type":"string","pattern":"^ev_[0-9a-f]{64}$","description":"The inventory_artifact Evidence this inspection recorded and built on."}}},
  "substeps":{"type":"array","items":{"type":"object","additionalProperties":false,"required":["name","status","count"],
   "properties":{"name":{"type":"string"},"status":{"enum":["completed","partial"]},"count":{"type":"integer","minimum":0}}}},
  "observations":{"type":"array","items":{"$ref":"#/$defs/entry"},"description":"The page's occurrences (every one with detail complete) with their content facts, in occurrence order."},
  ` + conciseProps + `,
  "derived_relationships":{"type":"array","items":{"type":"object","additionalProperties":false,"required":["relation","from_logical_path","to_logical_path","edge_id"],
   "properties":{"relation":{"type":"string"},"from_logical_path":{"type":"string"},"to_logical_path":{"type":"string"},"edge_id":{"type":"string"}}}},
  "hypotheses":{"type":"array","items":{"type":"object","additionalProperties":false,"required":["statement","confidence","basis"],
   "properties":{"statement":{"type":"string"},"confidence":{"const":"inferred"},"basis":{"$ref":"#/$defs/strings"}}}},
  "contradictions":{"type":"array","items":{"type":"object","additionalProperties":false,
   "required":["contradiction_id","occurrence_id","declared_sha256","observed_sha256","evidence_id","statement"],
   "properties":{"contradiction_id":{"type":"string","pattern":"^ic_[0-9a-f]{64}$"},"occurrence_id":{"$ref":"#/$defs/occurrence_id"},
    "declared_sha256":{"$ref":"#/$defs/sha256"},"observed_sha256":{"$ref":"#/$defs/sha256"},"evidence_id":{"type":"string","pattern":"^ev_[0-9a-f]{64}$"},"statement":{"type":"string"}}}},
  "unexplored_branches":{"type":"array","items":{"type":"object","additionalProperties":false,"required":["occurrence_id","logical_path","reason"],
   "properties":{"occurrence_id":{"$ref":"#/$defs/occurrence_id"},"logical_path":{"type":"string"},"reason":{"type":"string"}}}},
  "next_probes":{"type":"array","items":{"type":"object","additionalProperties":false,"required":["operation","arguments","reason"],
   "properties":{"operation":{"type":"string"},"arguments":{"type":"object"},"reason":{"type":"string"}}}},
  "coverage":{"type":"object","additionalProperties":false,"required":["occurrences","files","hashed_files","unavailable_files","expanded_containers","opaque_containers","complete"],
   "properties":{"occurrences":{"type":"integer"},"files":{"type":"integer"},"hashed_files":{"type":"integer"},"unavailable_files":{"type":"integer"},
    "expanded_containers":{"type":"integer"},"opaque_containers":{"type":"integer"},"complete":{"type":"boolean"}}},
  "evidence_links":{"type":"array","items":{"type":"string","pattern":"^ev_[0-9a-f]{64}$"}},
  "limitations":{"$ref":"#/$defs/strings"}},
 ` + artifactDefs + `}`)
}

func extractSchema() json.RawMessage {
	return json.RawMessage(`{"type":"object","additionalProperties":false,
 "required":["manifest","extraction_manifest","output_root","artifacts","containment_verified","cleanup","provenance","limitations","integrity_contradictions"],
 "properties":{"manifest":{"$ref":"#/$defs/manifest"},
  "extraction_manifest":{"type":"object","additionalProperties":false,"required":["extraction_id","source_manifest_id","selected_occurrence_ids","files_sha256","output_root_alias"],
   "properties":{"extraction_id":{"type":"string","pattern":"^aex_[0-9a-f]{64}$","description":"aex_ + Digest({source_manifest_id, selected_occurrence_ids, files_sha256})."},
    "source_manifest_id":{"type":"string","pattern":"^agm_[0-9a-f]{64}$"},"selected_occurrence_ids":{"type":"array","items":{"$ref":"#/$defs/occurrence_id"}},
    "files_sha256":{"$ref":"#/$defs/sha256","description":"Digest of the artifacts list."},"output_root_alias":{"const":"$OUTPUT_ROOT"}}},
  "output_root":{"type":"string","description":"The fresh directory rea created for this call; every file was written under it."},
  "artifacts":{"type":"array","items":{"type":"object","additionalProperties":false,"required":["artifact_id","relative_path","sha256","bytes_written","created"],
   "properties":{"artifact_id":{"$ref":"#/$defs/artifact_id"},"relative_path":{"type":"string","description":"Under output_root: the logical path; entries of a nested container go under <container path>.contents/."},
    "sha256":{"$ref":"#/$defs/sha256"},"bytes_written":{"type":"integer","minimum":0},"created":{"type":"boolean"}}}},
  "containment_verified":{"type":"boolean","description":"After writing, the output was walked without following links: only the written files and their directories exist."},
  "cleanup":{"type":"object","additionalProperties":false,"required":["attempted","verified","residual_paths"],
   "properties":{"attempted":{"type":"boolean"},"verified":{"type":"boolean"},"residual_paths":{"$ref":"#/$defs/strings"}}},
  "provenance":{"$ref":"#/$defs/provenance"},"limitations":{"$ref":"#/$defs/strings"},
  "integrity_contradictions":{"$ref":"#/$defs/contradictions","description":"Contradictions of the extracted files; their observed bytes were written."},
  "parent_evidence_id":{"type":"string","pattern":"^ev_[0-9a-f]{64}$","description":"When more than 1000 files were written: the retained complete result (artifacts and selected_occurrence_ids list the first 1000)."}},
 ` + artifactDefs + `}`)
}

func compareSchema() json.RawMessage {
	side := `{"type":"object","additionalProperties":false,"required":["evidence_id","operation","root_artifact_id","root_format","manifest_id","graph_sha256","entries","contradiction_count","complete"],
   "properties":{"evidence_id":{"type":"string","pattern":"^ev_[0-9a-f]{64}$"},"operation":{"enum":["inventory_artifact","inspect_artifact"]},
    "root_artifact_id":{"$ref":"#/$defs/artifact_id"},"root_format":{"type":"string"},"manifest_id":{"type":"string"},"graph_sha256":{"$ref":"#/$defs/sha256"},
    "entries":{"type":"integer"},"contradiction_count":{"type":"integer"},"complete":{"type":"boolean"}}}`
	entry := `{"anyOf":[{"type":"null"},{"$ref":"#/$defs/entry"}]}`
	return json.RawMessage(`{"type":"object","additionalProperties":false,
 "required":["status","complete","left","right","counts","differences","differences_total","differences_truncated","limitations"],
 "properties":{"status":{"enum":["equal","different","contradiction","incomplete"],"description":"incomplete when either side is; contradiction when any entry carries one; never equal unless both sides are complete and every entry is unchanged."},
  "complete":{"type":"boolean"},"left":` + side + `,"right":` + side + `,
  "counts":{"type":"object","additionalProperties":false,"required":["unchanged","changed","added","removed","contradiction","unknown"],
   "properties":{"unchanged":{"type":"integer"},"changed":{"type":"integer"},"added":{"type":"integer"},"removed":{"type":"integer"},"contradiction":{"type":"integer"},"unknown":{"type":"integer"}}},
  "differences":{"type":"array","items":{"type":"object","additionalProperties":false,"required":["logical_path","classification","aspects","left","right"],
   "properties":{"logical_path":{"type":"string"},"classification":{"enum":["changed","added","removed","contradiction","unknown"]},
    "aspects":{"type":"array","items":{"enum":["presence","integrity","entry_kind","content","metadata","relations"]}},"left":` + entry + `,"right":` + entry + `}}},
  "differences_total":{"type":"integer"},"differences_truncated":{"type":"boolean"},"limitations":{"$ref":"#/$defs/strings"}},
 ` + artifactDefs + `}`)
}

// evidenceInputSchema is one side of compare_artifacts: a retained reference
// or a complete inline Evidence record (verified by ParseEvidence).
func evidenceInputSchema(side string) string {
	return `{"description":"The ` + side + ` side: a retained reference {\"kind\":\"retained-evidence\",\"evidence_id\":\"ev_...\"} to an inventory_artifact or inspect_artifact record on this connection, or that complete Evidence record inline.",
  "oneOf":[{"type":"object","additionalProperties":false,"required":["kind","evidence_id"],
    "properties":{"kind":{"const":"retained-evidence"},"evidence_id":{"type":"string","pattern":"^ev_[0-9a-f]{64}$"}}},
   {"type":"object","required":["evidence_id","operation","normalized_result"],
    "properties":{"evidence_id":{"type":"string","pattern":"^ev_[0-9a-f]{64}$"},"operation":{"enum":["inventory_artifact","inspect_artifact"]},"normalized_result":{"type":"object"}}}]}`
}
