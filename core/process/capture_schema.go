package process

import (
	"encoding/json"

	"rea/core"
)

// The scenario schema of CAPTURE-REPLAY-MANAGED.md §1.1; its defaults are
// part of the contract and the handler applies them (NewCaptureScenario).
var captureInput = core.InputSchema([]string{"executable"},
	`"executable":{"type":"string","minLength":1,"pattern":"^[^\\x00]+$","description":"Program to run: a path, or a name looked up in the scenario's PATH, then the host's."}`,
	`"arguments":{"type":"array","items":{"type":"string","pattern":"^[^\\x00]*$"},"default":[],"description":"Arguments after the program name."}`,
	`"working_directory":{"type":"string","default":".","description":"Working directory of the program."}`,
	`"environment":{"type":"object","default":{},"propertyNames":{"minLength":1,"pattern":"^[^=\\x00]+$","not":{"const":"REA_PROCESS_RUN_ID"}},"additionalProperties":{"type":"string"},"description":"Variables set on top of the host environment."}`,
	`"filesystem_observation_paths":{"type":"array","items":{"type":"string","minLength":1},"default":[],"description":"Directories or files whose state is checkpointed before the launch and after settlement."}`,
	`"terminal":{"type":"object","additionalProperties":false,"default":{"columns":80,"rows":24,"scrollback":1000},"properties":{"columns":{"type":"integer","minimum":1,"maximum":65535,"default":80},"rows":{"type":"integer","minimum":1,"maximum":65535,"default":24},"scrollback":{"type":"integer","minimum":0,"default":1000}}}`,
	`"events":{"type":"array","default":[],"description":"Timed events: input text, terminal resize or a signal to the launched process; at_ms is non-decreasing and at most timeout_ms.","items":{"oneOf":[
	 {"type":"object","additionalProperties":false,"required":["type","at_ms","data"],"properties":{"type":{"const":"input"},"at_ms":{"type":"integer","minimum":0},"data":{"type":"string"},"sensitive":{"type":"boolean","default":false}}},
	 {"type":"object","additionalProperties":false,"required":["type","at_ms","columns","rows"],"properties":{"type":{"const":"resize"},"at_ms":{"type":"integer","minimum":0},"columns":{"type":"integer","minimum":1,"maximum":65535},"rows":{"type":"integer","minimum":1,"maximum":65535}}},
	 {"type":"object","additionalProperties":false,"required":["type","at_ms","signal"],"properties":{"type":{"const":"signal"},"at_ms":{"type":"integer","minimum":0},"signal":{"enum":["SIGINT","SIGTERM","SIGKILL"]}}}]}}`,
	`"detail":{"enum":["concise","complete"],"default":"concise","description":"concise: screens as changed lines, long output cut, the complete record retained as parent_evidence_id."}`,
	`"timeout_ms":{"type":"integer","minimum":1,"default":30000,"description":"Deadline of the run."}`,
	`"idle_timeout_ms":{"type":"integer","minimum":1,"default":30000,"description":"Deadline without terminal output."}`,
	`"settle_ms":{"type":"integer","minimum":0,"default":100,"description":"How long the tree may take to empty after the exit."}`,
	`"finalization_ms":{"type":"integer","minimum":0,"default":0,"description":"Grace between SIGTERM and SIGKILL at a deadline; 0 kills at once."}`,
	`"limits":{"type":"object","additionalProperties":false,"default":{"output_bytes":1000000,"files":10000,"file_bytes":10000000,"processes":1000,"filesystem_depth":16},"properties":{"output_bytes":{"type":"integer","minimum":0,"default":1000000},"files":{"type":"integer","minimum":0,"default":10000},"file_bytes":{"type":"integer","minimum":0,"default":10000000},"processes":{"type":"integer","minimum":0,"default":1000},"filesystem_depth":{"type":"integer","minimum":0,"default":16}}}`,
	`"normalization":{"type":"object","additionalProperties":false,"default":{"paths":false,"pids":true,"ports":true,"time_bucket_ms":10,"patterns":[]},"properties":{"paths":{"type":"boolean","default":false},"pids":{"type":"boolean","default":true},"ports":{"type":"boolean","default":true},"time_bucket_ms":{"type":"integer","minimum":1,"default":10},"patterns":{"type":"array","default":[],"items":{"type":"object","additionalProperties":false,"required":["pattern","replacement"],"properties":{"pattern":{"type":"string","minLength":1},"replacement":{"type":"string"}}}}}}`,
)

var captureResult = json.RawMessage(`{"type":"object","required":["scenario","executable","terminal","interaction_events","exit","settlement","processes","ports","filesystem","event_journal","truncation","residual_unknowns","cleanup","manifest","normalization"],
 "properties":{"scenario":{"type":"object"},"executable":{"type":"object"},"terminal":{"type":"object"},"interaction_events":{"type":"array"},"exit":{"type":"object"},
 "settlement":{"type":"object"},"processes":{"type":"object"},"ports":{"type":"array"},"filesystem":{"type":"object"},"event_journal":{"type":"array"},"truncation":{"type":"object"},
 "residual_unknowns":{"type":"array"},"cleanup":{"type":"object"},"manifest":{"type":"object","required":["final_screen_sha256"],"properties":{"final_screen_sha256":{"type":["string","null"],"description":"null when terminal.final_screen is"}}},"normalization":{"type":"object"},"parent_evidence_id":{"type":"string"}}}`)

var captureExamples = []json.RawMessage{
	json.RawMessage(`{"executable":"/bin/sh","arguments":["-c","read name; echo hello $name"],"events":[{"type":"input","at_ms":100,"data":"rea\n"}],"timeout_ms":5000}`),
}
