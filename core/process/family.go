// Package process is rea's process family: capture_process_scenario runs a
// declared program in a pseudo-terminal through a ports.ProcessCapturer and
// seals what it observed as Evidence; compare_process_captures compares two
// such captures dimension by dimension; trace_native_calls traces calls of
// the open binary through a ports.CallTracer.
package process

import "rea/core"

// Family returns the process family.
func Family() core.Family {
	return core.Family{Name: "process", Types: operationTypes, Operations: []*core.Operation{opCaptureProcessScenario(), opCompareProcessCaptures(), opTraceNativeCalls()}}
}
