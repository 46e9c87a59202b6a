package core

import "rea/ports"

// Progress receives status observations for one call. Front ends implement
// it: the MCP server turns observations into rate-limited notifications when
// the request carried a progress token; the CLI draws an indicator. Finish is
// the terminal observation and is always delivered.
type Progress interface {
	ports.Progress
	Finish(phase, message string)
}

type nopProgress struct{}

func (nopProgress) Observe(string, string) {}
func (nopProgress) Finish(string, string)  {}
