package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path"
	"strconv"
	"strings"
	"text/tabwriter"

	"rea/ports"
)

// rea capture and rea trace: the process family's tools with readable
// output.

type captureCmd struct {
	Scenario string   `name:"scenario" placeholder:"FILE" type:"path" help:"JSON file with capture_process_scenario arguments (events, timeouts, limits, observed paths...)."`
	Command  []string `arg:"" optional:"" passthrough:"" help:"-- PROGRAM ARGS...: the program to run (overrides the scenario's executable and arguments)."`
}

func (c *captureCmd) Run(e *env) error {
	args := map[string]any{}
	if c.Scenario != "" {
		b, err := os.ReadFile(c.Scenario)
		if err != nil {
			return usageError{fmt.Errorf("--scenario: %w", err)}
		}
		if err := json.Unmarshal(b, &args); err != nil {
			return usageError{fmt.Errorf("--scenario %s: %w", c.Scenario, err)}
		}
	}
	cmd := programArgs(c.Command)
	if len(cmd) > 0 {
		args["executable"], args["arguments"] = cmd[0], cmd[1:]
	}
	if _, ok := args["executable"]; !ok {
		return usageError{fmt.Errorf("capture: give -- PROGRAM ARGS... or a --scenario with an executable")}
	}
	s := e.session()
	defer s.Close(context.WithoutCancel(e.ctx))
	ce := e
	if e.opts.StderrIsTerminal {
		// A person is watching: the program's terminal, live, on stderr, in
		// place of the progress line (which would draw over it).
		le, o := *e, *e.opts
		o.StderrIsTerminal = false
		le.opts = &o
		le.ctx = ports.WithTerminalView(e.ctx, e.opts.Stderr)
		ce = &le
		fmt.Fprintf(e.opts.Stderr, "rea capture: live view of %s (the capture's record follows when it ends)\r\n", args["executable"])
	}
	res, err := ce.call(s, "capture_process_scenario", args)
	if e.opts.StderrIsTerminal {
		fmt.Fprint(e.opts.Stderr, "\033[0m\r\nrea capture: end of live view\r\n")
	}
	if err != nil {
		return err
	}
	if e.g.Format == "json" {
		return e.writeJSON(res.Evidence)
	}
	var r struct {
		Terminal struct {
			FinalScreen *struct {
				Lines []string `json:"lines"`
			} `json:"final_screen"` // null when no screen was observed (a launch that failed)
		} `json:"terminal"`
		Exit struct {
			Reason   string  `json:"reason"`
			ExitCode *int    `json:"exit_code"`
			Signal   *string `json:"signal"`
		} `json:"exit"`
		Settlement struct {
			State string `json:"state"`
		} `json:"settlement"`
		Processes struct {
			TreeCount *int `json:"tree_count"` // processes in the complete record, when the list is cut
			Tree      []struct {
				ID       int    `json:"id"`
				ParentID int    `json:"parent_id"`
				Command  string `json:"command"`
			} `json:"tree"`
		} `json:"processes"`
		Ports []struct {
			Protocol string `json:"protocol"`
			Port     string `json:"port"`
		} `json:"ports"`
		Filesystem struct {
			EffectCount *int `json:"effect_count"` // file effects in the complete record, when the list is cut
			Effects     []struct {
				Path   string `json:"path"`
				Effect string `json:"effect"`
			} `json:"effects"`
		} `json:"filesystem"`
	}
	if err := json.Unmarshal(res.Evidence.NormalizedResult, &r); err != nil {
		return err
	}
	w := e.opts.Stdout
	exit := r.Exit.Reason
	switch {
	case r.Exit.ExitCode != nil:
		exit += fmt.Sprintf(", code %d", *r.Exit.ExitCode)
	case r.Exit.Signal != nil:
		exit += ", signal " + *r.Exit.Signal
	}
	fmt.Fprintf(w, "evidence  %s\nexit      %s (settlement %s)\n", res.Evidence.EvidenceID, exit, r.Settlement.State)
	if r.Terminal.FinalScreen == nil {
		fmt.Fprintln(w, "final screen: not observed")
	} else {
		lines := r.Terminal.FinalScreen.Lines
		for len(lines) > 0 && lines[len(lines)-1] == "" {
			lines = lines[:len(lines)-1]
		}
		fmt.Fprintln(w, "final screen:")
		for _, l := range lines {
			fmt.Fprintln(w, "  | "+l)
		}
	}
	// more says how many items of a cut list only the complete record holds.
	more := func(count *int, listed int, what string) {
		if count != nil && *count > listed {
			fmt.Fprintf(w, "  ... and %d more %s (--scenario with \"detail\":\"complete\" lists all)\n", *count-listed, what)
		}
	}
	fmt.Fprintln(w, "processes:")
	for _, p := range r.Processes.Tree {
		parent := "outside the capture" // 0: rea, init or a subreaper
		if p.ParentID != 0 {
			parent = fmt.Sprint(p.ParentID)
		}
		fmt.Fprintf(w, "  %d (parent %s) %s\n", p.ID, parent, p.Command)
	}
	more(r.Processes.TreeCount, len(r.Processes.Tree), "processes")
	if len(r.Ports) > 0 {
		fmt.Fprintln(w, "listening:")
		for _, p := range r.Ports {
			fmt.Fprintf(w, "  %s %s\n", p.Protocol, p.Port)
		}
	}
	var changed []string
	for _, f := range r.Filesystem.Effects {
		if f.Effect != "unchanged" {
			changed = append(changed, fmt.Sprintf("  %-9s %s", f.Effect, f.Path))
		}
	}
	if len(changed) > 0 || r.Filesystem.EffectCount != nil && *r.Filesystem.EffectCount > len(r.Filesystem.Effects) {
		fmt.Fprintln(w, "files:")
		if len(changed) > 0 {
			fmt.Fprintln(w, strings.Join(changed, "\n"))
		}
		more(r.Filesystem.EffectCount, len(r.Filesystem.Effects), "file effects")
	}
	return nil
}

// programArgs drops the "--" kong may leave in a passthrough argument.
func programArgs(a []string) []string {
	if len(a) > 0 && a[0] == "--" {
		return a[1:]
	}
	return a
}

type traceCmd struct {
	Function []string `name:"function" required:"" placeholder:"NAME" help:"Procedure to trace: a name from the analysis (main, printf@plt), a function a loaded library exports (printf), or a 0x address; repeatable."`
	MaxHits  int      `name:"max-hits" help:"Hits recorded (default 10000)."`
	Command  []string `arg:"" passthrough:"" help:"-- PROGRAM ARGS...: the program, analysed first, then run under gdbserver (or qemu-user for another CPU)."`
}

func (c *traceCmd) Run(e *env) error {
	cmd := programArgs(c.Command)
	if len(cmd) == 0 {
		return usageError{fmt.Errorf("trace: give -- PROGRAM ARGS...")}
	}
	s := e.session()
	defer s.Close(context.WithoutCancel(e.ctx))
	if _, err := e.open(s, cmd[0]); err != nil {
		return err
	}
	args := map[string]any{"procedures": c.Function, "arguments": cmd[1:]}
	if c.MaxHits > 0 {
		args["max_hits"] = c.MaxHits
	}
	// The table lists every hit: the concise result is a first page of
	// them when they are many.
	if e.g.Format != "json" {
		args["detail"] = "complete"
	}
	res, err := e.call(s, "trace_native_calls", args)
	if err != nil {
		return err
	}
	if e.g.Format == "json" {
		return e.writeJSON(res.Evidence)
	}
	type proc struct {
		Name *string `json:"name"`
	}
	var r struct {
		Convention string `json:"convention"`
		Hits       []struct {
			Sequence        int        `json:"sequence"`
			Name            string     `json:"name"`
			Arguments       []traceArg `json:"arguments"`
			Caller          *string    `json:"caller"`
			CallSite        *string    `json:"call_site"`
			CallerModule    *string    `json:"caller_module"`
			CallerProcedure *proc      `json:"caller_procedure"`
			Returned        bool       `json:"returned"`
			ReturnValue     *string    `json:"return_value"`
		} `json:"hits"`
		Exit *struct {
			Code   *int    `json:"code"`
			Signal *string `json:"signal"`
		} `json:"exit"`
		Coverage struct {
			StopReason  string `json:"stop_reason"`
			HitsDropped int    `json:"hits_dropped"`
		} `json:"coverage"`
	}
	if err := json.Unmarshal(res.Evidence.NormalizedResult, &r); err != nil {
		return err
	}
	w := e.opts.Stdout
	fmt.Fprintf(w, "evidence  %s\nconvention %s, stop %s, %s", res.Evidence.EvidenceID, r.Convention, r.Coverage.StopReason, plural(len(r.Hits), "hit"))
	if r.Coverage.HitsDropped > 0 {
		fmt.Fprintf(w, " (%d more not recorded)", r.Coverage.HitsDropped)
	}
	if r.Exit != nil && r.Exit.Code != nil {
		fmt.Fprintf(w, ", exit %d", *r.Exit.Code)
	} else if r.Exit != nil && r.Exit.Signal != nil {
		fmt.Fprintf(w, ", signal %s", *r.Exit.Signal)
	}
	fmt.Fprintln(w)
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "#\tFUNCTION\tARGUMENTS\tCALLER\tRETURN")
	for _, h := range r.Hits {
		caller := "-"
		switch {
		case h.CallerProcedure != nil && h.CallerProcedure.Name != nil:
			caller = *h.CallerProcedure.Name
		case h.Caller != nil && h.CallerModule != nil && *h.CallerModule != "":
			caller = path.Base(*h.CallerModule) + "+" + *h.Caller // in a library: its link-time address
		case h.Caller != nil:
			caller = *h.Caller
		}
		if h.CallSite != nil {
			caller += " at " + *h.CallSite // the call instruction, as procedure_callers names it
		}
		ret := "-" // it did not return while traced
		switch {
		case h.ReturnValue != nil:
			ret = *h.ReturnValue
		case h.Returned:
			ret = "void"
		}
		fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%s\n", h.Sequence, h.Name, traceArgs(h.Arguments), caller, ret)
	}
	return tw.Flush()
}

// traceArg is one argument of a traced call as the result gives it.
type traceArg struct {
	Value          string     `json:"value"`
	Parameter      *string    `json:"parameter"`
	String         *traceText `json:"string"`
	StringAtReturn *traceText `json:"string_at_return"`
	ValueAtReturn  *string    `json:"value_at_return"`
	PointsTo       *struct {
		Module    *string `json:"module"`
		Address   string  `json:"address"`
		Section   string  `json:"section"`
		Name      *string `json:"name"`
		Procedure *struct {
			Address string  `json:"address"`
			Name    *string `json:"name"`
		} `json:"procedure"`
	} `json:"points_to"`
	Stack       *string `json:"stack"`
	StackThread *int    `json:"stack_thread"`
	Heap        bool    `json:"heap"`
	Mapping     *struct {
		File   *string `json:"file"`
		Offset string  `json:"offset"`
	} `json:"mapping"`
	TLS       *string `json:"tls"`
	TLSThread *int    `json:"tls_thread"`
}

// pointee is where an argument points, in parentheses: in the program's
// image its label (table), the sized object around it (scratch+0x8), a
// place in a procedure (main+0x1a), or its
// link-time address and section (0x4020 in .bss); in a library the symbol
// around it or its address and section, and the library's file name
// (_IO_2_1_stderr_ in libc.so.6); in a thread's TLS its offset from that
// thread's pointer (tls tp-0x80; thread 2's tls tp-0x80 for another
// thread's); in a thread's stack its offset from
// that thread's stack pointer at the call (stack sp+0x18; thread 2's stack
// sp-0x40 for another thread's); in the heap (heap); in a mapping the file's
// name and the offset in it (data.bin+0x1000), or anonymous+0x10; "" for
// none.
func (a traceArg) pointee() string {
	p := a.PointsTo
	if p == nil {
		switch {
		case a.TLS != nil && a.TLSThread != nil:
			return fmt.Sprintf(" (thread %d's tls %s)", *a.TLSThread, *a.TLS)
		case a.TLS != nil:
			return " (tls " + *a.TLS + ")"
		case a.Stack != nil && a.StackThread != nil:
			return fmt.Sprintf(" (thread %d's stack %s)", *a.StackThread, *a.Stack)
		case a.Stack != nil:
			return " (stack " + *a.Stack + ")"
		case a.Heap:
			return " (heap)"
		case a.Mapping != nil && a.Mapping.File != nil:
			return " (" + path.Base(*a.Mapping.File) + "+" + a.Mapping.Offset + ")"
		case a.Mapping != nil:
			return " (anonymous+" + a.Mapping.Offset + ")"
		}
		return ""
	}
	where := p.Address + " in " + p.Section
	switch {
	case p.Name != nil:
		where = *p.Name
	case p.Procedure != nil && p.Procedure.Name != nil:
		start, err1 := strconv.ParseUint(strings.TrimPrefix(p.Procedure.Address, "0x"), 16, 64)
		at, err2 := strconv.ParseUint(strings.TrimPrefix(p.Address, "0x"), 16, 64)
		if err1 == nil && err2 == nil && at >= start {
			where = fmt.Sprintf("%s+%#x", *p.Procedure.Name, at-start)
		}
	case p.Section == "":
		where = p.Address
	}
	if p.Module != nil {
		return " (" + where + " in " + path.Base(*p.Module) + ")"
	}
	return " (" + where + ")"
}

type traceText struct {
	Text      *string `json:"text"`
	Truncated bool    `json:"truncated"`
}

// quoted is the text quoted and cut at 60 characters, or "(unreadable)".
func (t *traceText) quoted() string {
	switch r := t.Text; {
	case r == nil:
		return "(unreadable)"
	case len([]rune(*r)) > 60 || t.Truncated:
		return strconv.Quote(string([]rune(*r)[:min(60, len([]rune(*r)))])) + "..."
	}
	return strconv.Quote(*t.Text)
}

// traceArgs renders a call's arguments on one line: name=value where a
// parameter is known, the text a string argument pointed at (quoted, cut
// at 60 characters) in place of its address, where another points in the
// program's image after its value, a filled buffer's text at the
// return as name@return="text" (a scanf conversion's stored text or value
// in place of its pointer: %d@return=0x1f90), and only the first three registers when
// nothing says how many arguments there are.
func traceArgs(args []traceArg) string {
	named := false
	for _, a := range args {
		named = named || a.Parameter != nil
	}
	n, more := len(args), ""
	if !named && n > 3 {
		n, more = 3, ", ..."
	}
	if n == 0 {
		return "-"
	}
	parts := make([]string, n)
	for i, a := range args[:n] {
		v := a.Value
		if a.String != nil {
			if q := a.String.quoted(); a.String.Text == nil {
				v += " " + q
			} else {
				v = q
			}
		} else {
			v += a.pointee()
		}
		if a.Parameter != nil {
			v = *a.Parameter + "=" + v
		}
		name := "arg"
		if a.Parameter != nil {
			name = *a.Parameter
		}
		var stored string
		switch {
		case a.StringAtReturn != nil:
			stored = name + "@return=" + a.StringAtReturn.quoted()
		case a.ValueAtReturn != nil:
			stored = name + "@return=" + *a.ValueAtReturn
		}
		switch {
		case stored != "" && strings.HasPrefix(name, "%"):
			v = stored // a scanf conversion's pointer: what it stored says more
		case stored != "":
			v += ", " + stored
		}
		parts[i] = v
	}
	return strings.Join(parts, ", ") + more
}
