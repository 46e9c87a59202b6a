package process

import (
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	"rea/core"
	"rea/ports"
)

func opTraceNativeCalls() *core.Operation {
	return &core.Operation{
		Name:  "trace_native_calls",
		Title: "Trace Native Calls",
		Description: "Run the open binary (or attach to a process running it) under gdbserver (qemu-user for another CPU) and record each call of the named " +
			"procedures: arguments typed by debug information or a libc prototype (floats as numbers, printf and scanf arguments, " +
			"what scanf stored), texts of char pointers and Go strings (up to 256 bytes), caller and return value, at the analysis's " +
			"link-time addresses. Pids, thread ids, load biases and stack pointers stay in raw_result.",
		Kind:        core.KindApplication,
		Effects:     core.Effects{MutatesSession: true, LaunchesProcess: true, ExecutesForeignCode: true},
		NeedsTarget: true,
		Input: core.InputSchema([]string{"procedures"},
			`"procedures":{"type":"array","minItems":1,"maxItems":1000,"items":{"type":"string","minLength":1},"description":"Procedures to trace: names from the open analysis (main, printf@plt), functions its libraries export (printf, or printf@plt without a PLT entry), or 0x link-time addresses."}`,
			`"program":{"type":"string","minLength":1,"description":"The executable to launch; defaults to the open target, whose SHA-256 it must have."}`,
			`"arguments":{"type":"array","items":{"type":"string"},"default":[],"description":"Arguments after the program name; its standard input is empty (/dev/null)."}`,
			`"working_directory":{"type":"string","description":"Working directory of the program."}`,
			`"environment":{"type":"object","propertyNames":{"minLength":1,"pattern":"^[^=]+$"},"additionalProperties":{"type":"string"},"description":"Variables set on top of rea's environment."}`,
			`"attach_pid":{"type":"integer","minimum":1,"description":"Attach to this running process instead of launching one; its executable must be the open target."}`,
			`"convention":{"enum":["sysv-amd64","aapcs64","cdecl","go-abiinternal"],"description":"Calling convention as analyze_function names it; default go-abiinternal for Go, else the platform's C one."}`,
			`"max_hits":{"type":"integer","minimum":1,"maximum":1000000,"default":10000,"description":"Hits recorded; the next stops tracing."}`,
			`"from_main":{"type":"boolean","default":false,"description":"Record from main's entry on (a launched C program), not C start-up's calls."}`,
			`"timeout_ms":{"type":"integer","minimum":1,"maximum":3600000,"default":30000,"description":"Time limit of the trace."}`,
			`"detail":{"enum":["concise","complete"],"description":"complete: every hit, not a first page."}`),
		Result: json.RawMessage(`{"type":"object","required":["program","architecture","convention","breakpoints","hits","coverage","exit"],"properties":{
 "program":{"type":"object"},"architecture":{"type":"string"},"convention":{"type":"string"},"breakpoints":{"type":"array"},
 "hits":{"type":"array","description":"Each recorded call. caller is its return address, caller_procedure the procedure holding it, call_site the call instruction ending there. A call a tail call entered (tail_call_from: the hit that jumped to it, its frame popped) returns where that hit would: caller and caller_procedure are that hit's, and call_site is null, as no call instruction entered it."},
 "coverage":{"type":"object"},"exit":{"type":["object","null"]}}}`),
		Examples: []json.RawMessage{json.RawMessage(`{"procedures":["main"],"arguments":["--help"],"max_hits":100}`)},
		Handler:  handleTraceNativeCalls,
	}
}

// traceTexts maps each text the tracer read to its register.
func traceTexts(read []ports.TraceString) map[string]*TraceString {
	out := map[string]*TraceString{}
	for _, t := range read {
		ts := &TraceString{Truncated: t.Truncated}
		if !t.Unreadable {
			ts.Text = core.OptString(traceText(t.Text))
			if ts.Text == nil {
				ts.Text = new(string) // an empty string is text too
			}
		}
		out[t.Register] = ts
	}
	return out
}

func fileSHA256(p string) (string, error) {
	f, err := os.Open(p)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// procIndex finds procedures by name and address.
type procIndex struct {
	procs   []ports.Procedure // sorted by address
	byName  map[string]ports.Procedure
	analyst map[uint64]string // analysts' names, shown in place of the engine's
	// entry is the ELF program's entry point when hasEntry: the loader
	// jumps there, so a hit of it has no caller (the word the tracer reads
	// as a return address is argc).
	entry    uint64
	hasEntry bool
}

func (x *procIndex) containing(addr uint64) (ports.Procedure, bool) {
	i := sort.Search(len(x.procs), func(i int) bool { return x.procs[i].Address > addr }) - 1
	if i < 0 {
		return ports.Procedure{}, false
	}
	p := x.procs[i]
	if p.Size != 0 && addr >= p.Address+p.Size {
		return ports.Procedure{}, false
	}
	return p, true
}

// starts reports whether a procedure starts at addr.
func (x *procIndex) starts(addr uint64) bool {
	p, ok := x.containing(addr)
	return ok && p.Address == addr
}

// name is how the other tools name procedure p: an analyst's name, the
// engine's, or sub_<hex>.
func (x *procIndex) name(p ports.Procedure) string {
	if n := x.analyst[p.Address]; n != "" {
		return n
	}
	if p.Name != "" {
		return p.Name
	}
	return subName(p.Address)
}

// subName is the name the tools give a procedure without one.
func subName(addr uint64) string { return fmt.Sprintf("sub_%x", addr) }

func (x *procIndex) procName(p ports.Procedure, ok bool) *TraceProcedure {
	if !ok {
		return nil
	}
	return &TraceProcedure{Address: core.Hex(p.Address), Name: core.OptString(x.name(p))}
}

func handleTraceNativeCalls(ctx context.Context, c *core.Call) (any, error) {
	op := c.Op.Name
	tr := c.Tracer()
	if tr == nil {
		return nil, &core.Error{Code: core.CodeCapabilityUnavailable, Message: op + ": no call tracer is wired into this build",
			Details: map[string]any{"operation": op, "reason": "engine_missing"}}
	}
	if av, ok := tr.(interface{ Available() error }); ok {
		if err := av.Available(); err != nil {
			return nil, &core.Error{Code: core.CodeProviderUnavailable, Message: op + ": " + err.Error(),
				Remediation: "install gdbserver (Debian: apt-get install gdbserver)",
				Details:     map[string]any{"operation": op, "reason": "debugger_missing"}}
		}
	}
	a, _, target := c.Bound()
	if a == nil || target == nil {
		return nil, &core.Error{Code: core.CodeTargetUnavailable, Message: op + ": no target is open", Remediation: "Open the binary to trace with open_binary first."}
	}
	args, err := core.Input[TraceNativeCallsInput](c)
	if err != nil {
		return nil, err
	}
	maxHits, timeoutMS := ports.DefaultTraceMaxHits, int64(30000)
	if args.MaxHits != nil {
		maxHits = *args.MaxHits
	}
	if args.TimeoutMS != nil {
		timeoutMS = int64(*args.TimeoutMS)
	}
	lister, ok := a.(ports.ProcedureLister)
	if !ok {
		return nil, &core.Error{Code: core.CodeCapabilityUnavailable, Message: op + ": the bound provider does not list procedures",
			Details: map[string]any{"operation": op, "reason": "capability_missing", "capability": "list_procedures"}}
	}
	procs, err := lister.Procedures(ctx)
	if err != nil {
		return nil, err
	}
	idx := &procIndex{procs: procs, byName: map[string]ports.Procedure{}} // shared: sorted into a copy only when out of order
	if !slices.IsSortedFunc(procs, func(a, b ports.Procedure) int { return cmp.Compare(a.Address, b.Address) }) {
		idx.procs = slices.Clone(procs)
		sort.SliceStable(idx.procs, func(i, j int) bool { return idx.procs[i].Address < idx.procs[j].Address })
	}
	goBinary := false
	for _, p := range idx.procs {
		if p.Name != "" {
			if _, dup := idx.byName[p.Name]; !dup {
				idx.byName[p.Name] = p
			}
		}
		goBinary = goBinary || p.Name == "runtime.main"
	}
	if nl, ok := a.(ports.NameLister); ok {
		if names, err := nl.Names(ctx); err == nil {
			for _, n := range names {
				// An import's label marks its stub, a breakpoint, or its
				// slot (an IAT or GOT entry), which is data: the function
				// is then the library's, which the tracer finds by symbol.
				if _, dup := idx.byName[n.Name]; !dup && (n.Kind == "function" || n.Kind == "import" && idx.starts(n.Address)) {
					idx.byName[n.Name] = ports.Procedure{Address: n.Address, Name: n.Name}
				}
			}
		}
	}
	// The names the other tools give: an analyst's (set_address_name),
	// first, and sub_<hex> for a procedure without one.
	idx.analyst = c.AnalystNames(ctx)
	if target.Format == "elf" {
		for _, p := range idx.procs {
			if p.Source == "entry" {
				idx.entry, idx.hasEntry = p.Address, true
				break
			}
		}
	}
	for addr, n := range idx.analyst {
		if p, ok := idx.containing(addr); ok && p.Address == addr {
			idx.byName[n] = p
		}
	}
	for _, p := range idx.procs {
		if p.Name == "" {
			idx.byName[subName(p.Address)] = p
		}
	}
	var bps []ports.TraceBreakpoint
	for i, want := range args.Procedures {
		if strings.HasPrefix(want, "0x") {
			addr, perr := core.ParseHex(want)
			if perr != nil {
				return nil, core.InvalidRequest(op, core.Issue{Path: []any{"procedures", i}, Reason: core.ReasonInvalidFormat, Message: perr.Error()})
			}
			name := want
			if p, ok := idx.containing(addr); ok && p.Address == addr {
				name = idx.name(p)
			}
			bps = append(bps, ports.TraceBreakpoint{Address: addr, Name: name})
			continue
		}
		p, ok := idx.byName[want]
		base, plt := strings.CutSuffix(want, "@plt")
		if !ok && plt {
			// No PLT entry (-fno-plt, or a static build): the function itself.
			p, ok = idx.byName[base]
		}
		if !ok {
			if base == "" || strings.ContainsAny(base, "@ \x00") {
				return nil, core.InvalidRequest(op, core.Issue{Path: []any{"procedures", i}, Reason: core.ReasonInvalidValue,
					Message: "no procedure or function named " + want + " in the open analysis"})
			}
			// Not in the program: a function of a library it loads, found by
			// the tracer once the loader has mapped them.
			bps = append(bps, ports.TraceBreakpoint{Symbol: base, Name: want})
			continue
		}
		bps = append(bps, ports.TraceBreakpoint{Address: p.Address, Name: want})
	}
	conv := ports.CallingConvention(args.Convention)
	if conv == "" && goBinary {
		conv = ports.ConventionGo
	}
	// A convention the architecture does not have is the caller's mistake,
	// found before anything runs.
	switch c := effectiveConvention("", target.Architecture); {
	case c == ports.ConventionCdecl && conv == ports.ConventionGo:
		return nil, &core.Error{Code: core.CodeUnsupportedTarget,
			Message:     op + ": a Go program for 32-bit x86 cannot be traced: Go's 386 ABI returns results on the stack and keeps no goroutine register to pair returns by",
			Remediation: "Trace a build for x86-64 or AArch64 (GOARCH=amd64 or arm64), or pass convention cdecl to read its arguments as stack words without return values you can trust.",
			Details:     map[string]any{"operation": op, "architecture": target.Architecture}}
	case args.Convention != "" && c != "" && conv != c && conv != ports.ConventionGo:
		return nil, core.InvalidRequest(op, core.Issue{Path: []any{"convention"}, Reason: core.ReasonInvalidValue,
			Message: fmt.Sprintf("%s is no convention of %s, whose C convention is %s (go-abiinternal for a Go program); omit convention for the default", conv, target.Architecture, c)})
	}
	// What each breakpoint's parameters are, so the tracer reads the text
	// its string arguments point at when the call begins.
	econv := effectiveConvention(conv, target.Architecture)
	// A program that defines __libc_start_main holds its C library (a
	// static build): a function its symbol table names, without debug
	// information, is then the library's, as a signature library's match
	// is.
	libcInside := slices.ContainsFunc(idx.procs, func(p ports.Procedure) bool {
		return p.Name == "__libc_start_main" && !p.External && !p.Thunk && p.Source != "plt"
	})
	sigs := make([]*traceSig, len(bps))
	for i := range bps {
		b := &bps[i]
		if b.Symbol == "" {
			sigs[i] = dwarfSig(ctx, a, b.Address)
		}
		// A procedure the engine named after a C library archive's function
		// (a stripped static program's printf, Source "library"), or a
		// static program's symbol without debug information, is that
		// function: its prototype applies as an import's does.
		p, ok := idx.containing(b.Address)
		fromLibrary := b.Symbol == "" && ok && p.Address == b.Address &&
			(p.Source == "library" || libcInside && (p.Source == "symbol" || p.Source == "dynamic-symbol"))
		if sigs[i] == nil && (b.Symbol != "" || strings.HasSuffix(b.Name, "@plt") || fromLibrary) {
			sigs[i] = prototypeSig(b.Name, econv)
		}
		b.Strings, b.Spans, b.ReturnStrings = sigs[i].strings(), sigs[i].spans(), sigs[i].returnStrings()
		b.Registers, b.Return = sigs[i].registers(), sigs[i].returnRegisters(econv, target.Architecture)
		if sigs[i] != nil {
			b.Format, b.Scan, b.VaList, b.WideFormat = sigs[i].format, sigs[i].scan, sigs[i].valist, sigs[i].wide
		}
	}
	req := ports.TraceRequest{Breakpoints: bps, Convention: conv, MaxHits: maxHits,
		MaxDuration: time.Duration(timeoutMS) * time.Millisecond, RunID: c.RunID()}
	// main's entry: the tracer counts the hits before it (the C library's
	// start-up, constructors), or with from_main places the breakpoints
	// there. Not for a Go program, whose main.main comes after its runtime
	// and package initialization.
	if m, ok := idx.byName["main"]; ok && !goBinary && args.AttachPID == 0 {
		req.Main = m.Address
	}
	if args.FromMain {
		var why string
		switch {
		case args.AttachPID > 0:
			why = "from_main needs a launched program: an attached process entered main long ago"
		case goBinary:
			why = "from_main is for C programs: a Go program starts main.main after its own runtime start-up"
		case req.Main == 0:
			why = "from_main needs main: the open analysis names no procedure main"
		}
		if why != "" {
			return nil, core.InvalidRequest(op, core.Issue{Path: []any{"from_main"}, Reason: core.ReasonInvalidValue, Message: why})
		}
		req.FromMain = true
	}
	program := args.Program
	if args.AttachPID > 0 {
		program = "/proc/" + itoaInt(args.AttachPID) + "/exe"
		req.Attach = &ports.TraceAttach{PID: args.AttachPID}
	} else {
		if program == "" {
			program = target.Path
		}
		var env []string
		if len(args.Environment) > 0 {
			env = os.Environ()
			for k, v := range args.Environment {
				env = append(env, k+"="+v)
			}
		}
		req.Launch = &ports.TraceLaunch{Path: program, Args: core.NonNil(args.Arguments), Dir: args.WorkingDirectory, Env: env}
	}
	sum, err := fileSHA256(program)
	if err != nil {
		// The target is open: what cannot be read is the process or the
		// program the arguments name.
		advice := "Pass a program path that exists and is readable (program), or omit program to launch the open target."
		if req.Attach != nil {
			advice = "Pass the pid of a running process of the open target whose executable rea may read (attach_pid), or omit attach_pid to launch the program."
		}
		return nil, &core.Error{Code: core.CodeTargetUnavailable, Message: op + ": " + err.Error(), Remediation: advice,
			Details: map[string]any{"path": program}}
	}
	if sum != target.SHA256 {
		e := &core.Error{Code: core.CodeArtifactChanged, Message: op + ": the program is not the analysed binary",
			Remediation: "Trace the open target, or open the program first.",
			Details:     map[string]any{"path": program, "expected_sha256": target.SHA256, "actual_sha256": sum}}
		if exe, err := os.Readlink(program); err == nil && req.Attach != nil && strings.HasPrefix(filepath.Base(exe), "qemu-") {
			// The process is an emulator running the program: tracing
			// it means launching the program under the emulator.
			e.Message += " (process " + itoaInt(args.AttachPID) + " is " + filepath.Base(exe) + ", an emulator)"
			e.Remediation = "Launch the program instead (omit attach_pid): a program for another CPU is traced under QEMU's user-mode emulator, which rea starts itself."
		}
		return nil, e
	}
	project := func(r *ports.TraceResult) (*TraceNativeCallsResult, map[string]any) {
		cs := newCallSites(a, idx)
		cs.resolve(ctx, r)
		return traceProjection(idx, r, program, sum, sigs, newPointees(ctx, a, idx), cs)
	}
	res, err := tr.TraceCalls(ctx, req)
	if err != nil {
		return nil, traceError(op, err, project)
	}
	result, rawResult := project(res)
	var lim []string
	lim = append(lim, res.Coverage.Notes...)
	if l := unsignedLimitation(bps, sigs, econv); l != "" {
		lim = append(lim, l)
	}
	for i, sig := range sigs {
		if sig != nil && sig.of != "" {
			lim = append(lim, fmt.Sprintf("%s is an IFUNC implementation of %s: its parameters are %s's C library prototype", bps[i].Name, sig.of, sig.of))
		}
	}
	var locs []core.Location
	for _, b := range res.Breakpoints {
		locs = append(locs, core.Location{Kind: "address", Address: core.Hex(b.Address)})
	}
	obs := &core.Observation{Result: result, Raw: rawResult, Limitations: lim, Locations: locs, Confidence: core.ConfidenceObserved,
		Authority: "controlled-replay"}
	if args.Detail == "complete" {
		return obs, nil
	}
	return tracePage(c, obs, result, rawResult)
}

// A trace of more than tracePageHits hits whose result would exceed
// tracePageBytes is, unless detail is complete, a page: the first hits (at
// most tracePageHits, halved while the page exceeds tracePageBytes, down to
// tracePageMinHits), each breakpoint's hit count and coverage.hits_recorded,
// with the complete trace sealed as a "detail":"complete" call records it,
// retained and linked as evidence_links[0] (correlate_static_and_runtime
// counts the hits through the page).
const (
	tracePageBytes   = 16 << 10
	tracePageHits    = 64
	tracePageMinHits = 8
)

func tracePage(c *core.Call, obs *core.Observation, result *TraceNativeCallsResult, raw map[string]any) (*core.Observation, error) {
	page, pageRaw := pageOfTrace(result, raw)
	if page == nil {
		return obs, nil
	}
	parent, err := c.RetainComplete(obs)
	if err != nil {
		return nil, err
	}
	note := fmt.Sprintf(`Concise trace: hits lists the first %d of %d recorded hits (breakpoints[].hits counts each procedure's); `+
		`the complete trace is retained as evidence_links[0], and a call with "detail":"complete" returns every hit.`, len(page.Hits), len(result.Hits))
	lim := append([]string{note}, obs.Limitations...)
	return &core.Observation{Result: page, Raw: pageRaw, Limitations: lim, Locations: obs.Locations, Confidence: obs.Confidence,
		Authority: obs.Authority, Links: []core.EvidenceID{parent}}, nil
}

// pageOfTrace is the page tracePage lists and its raw result, or nil when
// the trace stays whole. It measures the result as json.Marshal would
// encode it without encoding every hit: a large trace is encoded once,
// when the complete record is sealed, not a second time to learn that it
// is large (10,000 hits encoded 18 MB here before).
func pageOfTrace(result *TraceNativeCallsResult, raw map[string]any) (*TraceNativeCallsResult, map[string]any) {
	// Few hits stay whole: the size is then the breakpoints the caller
	// asked for, which a page of hits would not shrink.
	if len(result.Hits) <= tracePageHits {
		return nil, nil
	}
	sizes := hitSizes(result.Hits, tracePageBytes)
	if fits(bareSize(result), sizes, len(result.Hits)) {
		return nil, nil
	}
	page := *result
	total := len(result.Hits)
	page.Coverage.HitsRecorded = &total
	page.Breakpoints = slices.Clone(result.Breakpoints)
	counts := make([]int, len(page.Breakpoints))
	for _, h := range result.Hits {
		if h.Breakpoint >= 0 && h.Breakpoint < len(counts) {
			counts[h.Breakpoint]++
		}
	}
	for i := range page.Breakpoints {
		page.Breakpoints[i].Hits = &counts[i]
	}
	n, bare := min(total, tracePageHits), bareSize(&page)
	for ; n > tracePageMinHits && !fits(bare, sizes, n); n /= 2 {
	}
	page.Hits = result.Hits[:n]
	pageRaw := maps.Clone(raw)
	if rh, ok := raw["hits"].([]any); ok {
		pageRaw["hits"] = rh[:min(len(rh), n)]
	}
	return &page, pageRaw
}

// hitSizes are the lengths of json.Marshal of the first hits, each alone
// (as the array holds it), up to the first tracePageHits and then until
// their sum passes limit; a hit that does not encode counts as past it.
func hitSizes(hits []TraceHit, limit int) []int {
	var sizes []int
	sum := 0
	for i := range hits {
		if i >= tracePageHits && sum > limit {
			break
		}
		n := limit + 1
		if b, err := json.Marshal(&hits[i]); err == nil {
			n = len(b)
		}
		sizes = append(sizes, n)
		sum += n
	}
	return sizes
}

// bareSize is the length of json.Marshal of r without hits ("hits":[]),
// or past tracePageBytes when r does not encode.
func bareSize(r *TraceNativeCallsResult) int {
	bare := *r
	bare.Hits = []TraceHit{}
	b, err := json.Marshal(&bare)
	if err != nil {
		return tracePageBytes + 1
	}
	return len(b)
}

// fits says whether json.Marshal of a result of the given bare size with
// its first n hits is at most tracePageBytes long: the bare result, the n
// hits' sizes and the n-1 commas between them. An unmeasured hit does not
// fit.
func fits(bare int, sizes []int, n int) bool {
	if n > len(sizes) {
		return false
	}
	size := bare + max(n-1, 0)
	for _, s := range sizes[:n] {
		size += s
	}
	return size <= tracePageBytes
}

func itoaInt(n int) string { b, _ := json.Marshal(n); return string(b) }

func traceProjection(idx *procIndex, res *ports.TraceResult, program, sum string, sigs []*traceSig, pt *pointees, cs *callSites) (*TraceNativeCallsResult, map[string]any) {
	pt = pt.withBias(res)
	bps := []TraceBreakpoint{}
	for i, b := range res.Breakpoints {
		p, ok := idx.containing(b.Address)
		tb := TraceBreakpoint{Name: b.Name, Address: core.Hex(b.Address), Module: core.OptString(b.Module), Procedure: idx.procName(p, ok && b.Module == ""),
			Parameters: []TraceParameter{}}
		if i < len(sigs) && sigs[i] != nil {
			tb.ParametersSource = &sigs[i].source
			for _, q := range sigs[i].params {
				tb.Parameters = append(tb.Parameters, TraceParameter{Name: core.OptString(q.Name), Type: core.OptString(q.Type), Register: core.OptString(q.Location),
					Constant: core.OptString(q.Constant)})
			}
		}
		bps = append(bps, tb)
	}
	mainPaths := map[string]bool{program: true}
	for _, m := range res.Modules {
		if m.Name == "" {
			mainPaths[m.Path] = true
		}
	}
	hits, rawHits := []TraceHit{}, []any{}
	// Thread ids are renumbered 1.. in the order they first appear: a
	// hit's, or that of a stack an argument points into.
	threads := map[int]int{}
	number := func(id int) int {
		n, seen := threads[id]
		if !seen {
			n = len(threads) + 1
			threads[id] = n
		}
		return n
	}
	for _, h := range res.Hits {
		if idx.hasEntry && h.Address == idx.entry && h.Breakpoint >= 0 && h.Breakpoint < len(res.Breakpoints) && res.Breakpoints[h.Breakpoint].Module == "" {
			h.Caller, h.CallerModule = 0, "" // jumped to, not called
		}
		// A caller in a library is given in it; one in no module the
		// tracer knows (the vDSO, generated code) by its runtime address,
		// with module "".
		inMain := mainPaths[h.CallerModule]
		var callerModule *string
		if !inMain && h.Caller != 0 {
			m := h.CallerModule
			callerModule = &m // nil: the main executable, whatever its path
		}
		var sig *traceSig
		if h.Breakpoint >= 0 && h.Breakpoint < len(sigs) {
			sig = sigs[h.Breakpoint]
		}
		tid := number(h.ThreadID)
		argv := sig.arguments(h, traceTexts(h.Strings), traceTexts(h.ReturnStrings))
		pt.annotate(argv, sig, h, number)
		// The open analysis holds the main program's procedures only: a hit
		// in a library (usleep in libc) lies in none of them, whatever
		// procedure starts below its link-time address.
		p, ok := idx.containing(h.Address)
		ok = ok && h.Breakpoint >= 0 && h.Breakpoint < len(res.Breakpoints) && res.Breakpoints[h.Breakpoint].Module == ""
		cp, cok := idx.containing(h.Caller)
		rv, rbits := sig.result(h)
		var caller, callSite *string
		if h.Caller != 0 {
			v := core.Hex(h.Caller)
			caller = &v
			if inMain && !h.TailCall {
				callSite = cs.of(h.Caller) // a tail-called hit's is its tail caller's call
			}
		}
		var tailFrom *int
		if h.TailCall {
			tailFrom = &h.TailCallFrom
		}
		hits = append(hits, TraceHit{Sequence: h.Sequence, Breakpoint: h.Breakpoint, Name: h.Name, Address: core.Hex(h.Address),
			Procedure: idx.procName(p, ok), Arguments: argv, Caller: caller, CallSite: callSite, CallerModule: callerModule,
			CallerProcedure: idx.procName(cp, cok && inMain && h.Caller != 0), Returned: h.Returned, ReturnValue: rv, ReturnBits: rbits,
			TailCallFrom: tailFrom})
		rawHits = append(rawHits, map[string]any{"sequence": h.Sequence, "thread": tid, "return_sequence": h.ReturnSequence})
	}
	var exit *TraceExit
	if res.Exit != nil {
		exit = &TraceExit{Code: res.Exit.Code, Signal: core.OptString(res.Exit.Signal)}
	}
	cov := res.Coverage
	result := &TraceNativeCallsResult{
		Program: TraceProgram{SHA256: sum}, Architecture: res.Architecture, Convention: string(res.Convention),
		Breakpoints: bps, Hits: hits, Exit: exit,
		Coverage: TraceCoverage{StopReason: cov.StopReason, Threads: len(cov.Threads), HitsDropped: cov.HitsDropped,
			ReturnsMissing: cov.ReturnsMissing, ForksNotFollowed: len(cov.ForksNotFollowed), Notes: core.NonNil(cov.Notes)},
	}
	return result, traceRaw(res, rawHits)
}

// traceRaw keeps what relates the hits to each other (threads renumbered,
// return pairing) and what the trace did (modules, signals), without the
// values that differ on every run (pids, tids, load biases, runtime
// addresses, stack pointers): they would change the Evidence ID, which
// covers raw_result too.
func traceRaw(res *ports.TraceResult, rawHits []any) map[string]any {
	mods := []any{}
	for _, m := range res.Modules {
		if m.Name != "" {
			mods = append(mods, m.Name)
		}
	}
	remaining := []any{}
	for _, r := range res.Remaining {
		remaining = append(remaining, map[string]any{"kind": r.Kind, "reason": r.Reason})
	}
	sigs := []any{}
	for _, s := range res.Signals {
		sigs = append(sigs, map[string]any{"target": s.Target, "signal": s.Signal, "result": string(s.Result), "reason": core.OrNull(s.Reason)})
	}
	lineage := map[string]any{"status": "not_observed"}
	if res.Lineage.Status != "" {
		lineage = map[string]any{"status": string(res.Lineage.Status), "reason": core.OrNull(res.Lineage.Reason)}
	}
	return map[string]any{"libraries": mods, "hits": rawHits, "signals": sigs, "remaining": remaining, "lineage": lineage}
}

// traceError maps a tracer failure to the contract's codes, always with
// the partial observation. project is the finished trace's projection (the
// program's SHA-256, procedure names, parameters and texts), so the hits a
// failed trace kept read as a finished trace's do; nil projects them
// without the analysis.
func traceError(op string, err error, project func(*ports.TraceResult) (*TraceNativeCallsResult, map[string]any)) error {
	details := map[string]any{"partial_observation": nil}
	var te *ports.TraceError
	if errors.As(err, &te) && te.Partial != nil {
		if project == nil {
			project = func(r *ports.TraceResult) (*TraceNativeCallsResult, map[string]any) {
				return traceProjection(&procIndex{}, r, "", "", nil, nil, nil)
			}
		}
		res, rawRes := project(te.Partial)
		p := te.Partial
		sigs := []any{}
		for _, a := range p.Signals {
			sigs = append(sigs, map[string]any{"target": a.Target, "id": a.ID, "signal": a.Signal, "result": string(a.Result), "reason": core.OrNull(a.Reason)})
		}
		remaining := []any{}
		for _, r := range p.Remaining {
			remaining = append(remaining, map[string]any{"kind": r.Kind, "id": r.ID, "reason": r.Reason})
		}
		// A trace that failed before the tracer looked at its processes
		// has no lineage: not_observed, as binary_session says.
		lineage := map[string]any{"status": "not_observed"}
		if p.Lineage.Status != "" {
			lineage = map[string]any{"status": string(p.Lineage.Status), "launcher_pid": p.Lineage.LauncherPID,
				"process_group_id": p.Lineage.ProcessGroupID, "reason": core.OrNull(p.Lineage.Reason)}
		}
		details["partial_observation"] = map[string]any{"trace": res, "raw": rawRes, "operation": te.Op, "process_id": p.ProcessID,
			"signals": sigs, "remaining": remaining, "lineage": lineage}
	}
	e := &core.Error{Message: op + ": " + err.Error(), Details: details}
	var cl *ports.CleanupError
	switch {
	case errors.Is(err, ports.ErrTraceRequest):
		// The tracer's refusal names the argument in its message; there
		// are no details.issues for the default advice to point at.
		e.Code, e.Remediation = core.CodeInvalidRequest, "Correct the argument the message names (working_directory, environment, arguments or the limits) and call again."
	case errors.Is(err, ports.ErrEmulatorMissing):
		e.Code, e.Remediation = core.CodeProviderUnavailable, "install QEMU's user-mode emulator (Debian: apt-get install qemu-user)"
	case errors.Is(err, ports.ErrDebuggerMissing):
		e.Code, e.Remediation = core.CodeProviderUnavailable, "install gdbserver (Debian: apt-get install gdbserver)"
	case errors.Is(err, ports.ErrDebuggerDied):
		e.Code = core.CodeProviderUnavailable
	case errors.Is(err, ports.ErrTargetNotFound):
		e.Code = core.CodeTargetUnavailable
	case errors.Is(err, ports.ErrAddressNotMapped):
		// No details.issues to correct (the default advice): say what a
		// procedure may name.
		e.Code, e.Remediation = core.CodeInvalidRequest, "Name a procedure of the program (list_procedures lists them) or a function exported by a library it loads "+
			"(puts, or puts@plt for the program's own entry), or a mapped 0x address; call again. A static function the compiler inlined or specialized "+
			"has no procedure of its own name: trace the caller or copy the message names, or rebuild the program with -fno-inline."
	case errors.Is(err, ports.ErrTargetNotExecutable):
		e.Code, e.Remediation = core.CodeUnsupportedTarget, "Launch a Linux ELF program for x86-64, 32-bit x86 or AArch64 (one for another CPU than the host's runs under qemu-user) "+
			"that starts; the message says which condition failed."
	case errors.Is(err, context.Canceled):
		e.Code = core.CodeCancelled
	case errors.Is(err, context.DeadlineExceeded):
		e.Code = core.CodeProviderTimeout
	case errors.As(err, &cl):
		e.Code = core.CodeCleanupIncomplete
		details["resources"] = cl.Kinds()
	default:
		e.Code = core.CodeExecutionFailure
	}
	return e
}
