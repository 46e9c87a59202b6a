package binary

import (
	"context"
	"encoding/json"
	"strings"

	"rea/core"
	"rea/ports"
)

// procedure_list says whether a result's procedures are the complete list
// (whole-file discovery included) or those known from the target's tables
// without waiting for discovery (ports.EarlyProcedureLister). It is the one
// field for that concept in every tool that reports it, and a function of
// the target's bytes and the engine alone, so Evidence IDs do not depend on
// how far background discovery got.
const (
	listComplete = "complete"
	listTables   = "tables"
)

const procedureListSchema = `{"enum":["complete","tables"],"description":"complete: every procedure the engine finds, whole-file discovery included; ` +
	`tables: only those known from symbol, export, unwind and similar tables (on a target with much code the engine does not wait for whole-file discovery here; list_procedures does)."}`

// procedurePageSchema is list_procedures' result: a page of procedures and
// procedure_list.
func procedurePageSchema() json.RawMessage {
	s := strings.TrimSpace(string(pageSchema(procedureItemSchema)))
	s = strings.Replace(s, `"required":["items","offset","limit","total","next_offset","has_more"]`,
		`"required":["items","offset","limit","total","next_offset","has_more","procedure_list"]`, 1)
	return json.RawMessage(s[:len(s)-2] + `,"procedure_list":` + procedureListSchema + `}}`)
}

// earlyProcedures is the procedure list a quick answer may use: the
// engine's early list when it has one (which may be the tables' only), else
// the complete list.
func earlyProcedures(ctx context.Context, c *core.Call) ([]ports.Procedure, string, error) {
	if a, _, _ := c.Bound(); a != nil {
		if el, ok := a.(ports.EarlyProcedureLister); ok {
			e, err := el.EarlyProcedures(ctx)
			if err != nil {
				return nil, "", err
			}
			if e.Complete {
				return e.Procedures, listComplete, nil
			}
			return e.Procedures, listTables, nil
		}
	}
	procs, err := procedures(ctx, c)
	return procs, listComplete, err
}
