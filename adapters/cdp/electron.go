package cdp

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/chromedp/cdproto/domsnapshot"
	"github.com/chromedp/cdproto/page"

	"rea/ports"
)

// Electron page tools (BROWSER.md "Electron"): the same CDP transport as
// the web tools, but pages are file: documents, so scope is the file gate
// (realpath under allowed_file_roots) instead of origins. They send only
// enable/disable, reads, Target.attachToTarget/detachFromTarget and, to
// name a renderer's dedicated workers, Target.setAutoAttach (see
// attachWorkers: the browser answers it itself and no worker is paused).

func electronScope(roots []string) (runtimeScope, error) {
	return newRuntimeScope(ports.RuntimeScope{AllowedFileRoots: roots})
}

// ListElectronTargets lists an Electron application's file-gated page
// targets.
func (e *RuntimeEngine) ListElectronTargets(ctx context.Context, req ports.ElectronListRequest) (*ports.ElectronTargetList, error) {
	ep, err := parseEndpoint(req.Endpoint)
	if err != nil {
		return nil, err
	}
	sc, err := electronScope(req.AllowedFileRoots)
	if err != nil {
		return nil, err
	}
	v, list, err := discover(ctx, ep)
	if err != nil {
		return nil, err
	}
	out := &ports.ElectronTargetList{Browser: v.info, Targets: []ports.ElectronTarget{}}
	for _, d := range list {
		if d.Type != "page" {
			out.Excluded.NonPage++
			continue
		}
		p, why := sc.fileGate(d.rawURL)
		switch why {
		case "":
		case "outside_file_roots":
			out.Excluded.OutsideRoot++
			continue
		default:
			out.Excluded.UnsupportedURL++
			continue
		}
		if d.socket == "" && v.browserWS == "" {
			out.Excluded.Unconnectable++
			continue
		}
		out.Targets = append(out.Targets, ports.ElectronTarget{TargetID: d.TargetID, Type: d.Type, Title: d.Title, FilePath: p, Attached: d.Attached})
	}
	if n := out.Excluded.Unconnectable; n > 0 {
		out.Limitations = append(out.Limitations, itoa(n)+" otherwise allowed page target(s) lacked a validated direct CDP WebSocket and were excluded.")
	}
	slices.SortFunc(out.Targets, func(a, b ports.ElectronTarget) int { return strings.Compare(a.TargetID, b.TargetID) })
	return out, nil
}

// openFile attaches to a file-gated page target (attachment.connect).
func openFile(ctx context.Context, v version, d discovered) (*attachment, error) {
	a := &attachment{info: v.info, target: d.BrowserTarget}
	if err := a.connect(ctx, v, d); err != nil {
		return nil, err
	}
	return a, nil
}

// electronCapture collects script events of a file-gated page.
type electronCapture struct {
	mu       sync.Mutex
	sid      string // the page's session: a worker's auto-attached session is not the page
	sc       runtimeScope
	lim      ports.BrowserLimits
	led      *ledger
	contexts map[int64]string
	scripts  []ports.ElectronScript
	seen     map[string]bool
	total    int
}

func (c *electronCapture) onEvent(ev event) {
	if ev.SessionID != c.sid {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	switch ev.Method {
	case "Runtime.executionContextCreated":
		var p evExecutionContextCreated
		if decode(ev.Params, &p) && len(c.contexts) < 256 {
			c.contexts[p.Context.ID] = p.Context.AuxData.FrameID
		}
	case "Debugger.scriptParsed":
		var p evScriptParsed
		if !decode(ev.Params, &p) || p.ScriptID == nil || *p.ScriptID == "" {
			c.led.exclude("scripts", "invalid_protocol_value", 1)
			return
		}
		if p.URL == "" {
			c.led.exclude("scripts", "unattributed_origin", 1)
			return
		}
		fp, why := c.sc.fileGate(p.URL)
		if why != "" {
			c.led.exclude("scripts", electronReason(why), 1)
			return
		}
		if c.seen[*p.ScriptID] {
			return
		}
		c.seen[*p.ScriptID] = true
		c.total++
		if len(c.scripts) >= c.lim.MaxScripts {
			c.led.truncated["scripts"] = true
			c.led.dropped.Scripts++
			return
		}
		c.scripts = append(c.scripts, ports.ElectronScript{ScriptID: *p.ScriptID, FrameID: c.contexts[p.ExecutionContextID], FilePath: fp,
			CDPHash: cut(p.Hash, 256), Length: p.Length, IsModule: p.IsModule, Language: cut(p.ScriptLanguage, 100)})
	}
}

func electronReason(why string) string {
	if why == "outside_file_roots" {
		return "outside_root"
	}
	return "unsupported_url"
}

// InspectElectronPage captures one file-gated page passively: frames, DOM
// structure, scripts, resources and workers of gated documents.
func (e *RuntimeEngine) InspectElectronPage(ctx context.Context, req ports.ElectronInspectRequest) (*ports.ElectronPageCapture, error) {
	ep, err := parseEndpoint(req.Endpoint)
	if err != nil {
		return nil, err
	}
	if req.TargetID == "" || len(req.TargetID) > 256 {
		return nil, &ports.BrowserError{Code: ports.BrowserInvalidRequest, Field: "target_id", Msg: "target_id must be 1..256 characters"}
	}
	if req.ObservationMS < 0 || req.ObservationMS > 10000 {
		return nil, &ports.BrowserError{Code: ports.BrowserInvalidRequest, Field: "observation_ms", Msg: "observation_ms must be 0..10000"}
	}
	sc, err := electronScope(req.AllowedFileRoots)
	if err != nil {
		return nil, err
	}
	v, list, err := discover(ctx, ep)
	if err != nil {
		return nil, err
	}
	i := slices.IndexFunc(list, func(d discovered) bool { return d.TargetID == req.TargetID })
	if i < 0 {
		return nil, &ports.BrowserError{Code: ports.BrowserTargetNotFound, Msg: "no target " + req.TargetID}
	}
	d := list[i]
	if d.Type != "page" {
		return nil, &ports.BrowserError{Code: ports.BrowserTargetNotAllowed, Msg: "target is a " + d.Type + ", not a page"}
	}
	fp, why := sc.fileGate(d.rawURL)
	if why != "" {
		return nil, &ports.BrowserError{Code: ports.BrowserTargetNotAllowed, Msg: "the page is not an allowed file (" + electronReason(why) + ")"}
	}
	a, err := openFile(ctx, v, d)
	if err != nil {
		return nil, err
	}
	defer a.close(ctx)
	lim := limitsOrDefault(req.Limits)
	if req.Limits.MaxScripts == 0 {
		lim.MaxScripts = 500
	}
	cap := &electronCapture{sid: a.page.id, sc: sc, lim: lim, led: newLedger(), contexts: map[int64]string{}, seen: map[string]bool{}}
	a.c.setListener(cap.onEvent)
	out := &ports.ElectronPageCapture{Browser: v.info, Target: ports.ElectronTarget{TargetID: d.TargetID, Type: d.Type, Title: d.Title, FilePath: fp, Attached: d.Attached}}

	if err := a.enable(ctx, "Page", nil); err != nil {
		return nil, err
	}
	// A page whose navigation has not committed yet shows a blank main
	// frame (the target list already names the file it is loading): poll it
	// for up to two seconds, as the browser engine's gate does.
	ft, err := settledFrame(ctx, a, 20, 100*time.Millisecond, func(u string) bool { return !blankURL(u) })
	if err != nil {
		return nil, err
	}
	if _, why := sc.fileGate(frameURL(ft.Frame)); why != "" {
		return nil, &ports.BrowserError{Code: ports.BrowserTargetNotAllowed, Msg: "the main frame is not an allowed file (" + electronReason(why) + ")"}
	}
	if err := a.enable(ctx, "Runtime", nil); err != nil {
		return nil, err
	}
	if note, err := a.enableDebugger(ctx, json.RawMessage(`{"maxScriptsCacheSize":4194304}`)); err != nil {
		return nil, err
	} else if note != "" {
		cap.mu.Lock()
		cap.led.limitations = append(cap.led.limitations, note)
		cap.mu.Unlock()
	}
	started := time.Now().UTC()
	if req.ObservationMS == 0 {
		cap.mu.Lock()
		cap.led.limitations = append(cap.led.limitations, "observation_ms was 0: the page was read at once, with only the scripts and contexts "+
			"the enables reported; nothing was waited for.")
		cap.mu.Unlock()
	}
	ports.Observe(ctx, "observe", "observing the page for "+itoa(req.ObservationMS)+" ms")
	if err := sleep(ctx, time.Duration(req.ObservationMS)*time.Millisecond, a.gone()); err != nil {
		return nil, err
	}
	out.CaptureWindow = ports.BrowserCaptureWindow{StartedAt: started, EndedAt: time.Now().UTC(), ObservationMS: req.ObservationMS}
	select {
	case <-a.gone():
		// The page went away (its window closed, the renderer or the
		// browser gone): the status stays disconnected, and what was
		// seen before travels with it.
		return nil, cap.lost(out, ft, req, "", nil)
	default:
	}
	// A page lost while a section is read after the window keeps the
	// sections read before (read) and names the read it broke off in.
	var read []string
	lostIn := func(err error, during string) error {
		if !pageLost(a, err) {
			return err
		}
		return cap.lost(out, ft, req, during, read)
	}

	// Frames: breadth-first, ungated subtrees excluded. The listener
	// writes the ledger too (script events keep coming), so each section
	// holds cap.mu while it writes there, and never across a call (the
	// listener runs on the connection's reader).
	cap.mu.Lock()
	var frames map[string]bool
	out.Frames, frames = cap.frames(ft)
	cap.mu.Unlock()

	// Resources.
	var rt struct {
		FrameTree *resourceTree `json:"frameTree"`
	}
	if err := a.page.c.call(ctx, a.page.id, "Page.getResourceTree", nil, &rt); err != nil {
		return nil, lostIn(err, "the resources were read (Page.getResourceTree)")
	}
	out.Resources = []ports.ElectronResource{}
	var walk func(t *resourceTree)
	walk = func(t *resourceTree) {
		if t == nil {
			return
		}
		for _, r := range t.Resources {
			p, why := sc.fileGate(r.URL)
			if why != "" {
				cap.led.exclude("resources", electronReason(why), 1)
				continue
			}
			if len(out.Resources) >= lim.MaxResources {
				cap.led.truncated["resources"] = true
				continue
			}
			out.Resources = append(out.Resources, ports.ElectronResource{FrameID: t.Frame.ID, FilePath: p, Type: cutDefault(r.Type, 100, "Other"),
				MimeType: cut(r.MimeType, 256), ContentSize: r.ContentSize})
		}
		for i := range t.ChildFrames {
			walk(&t.ChildFrames[i])
		}
	}
	cap.mu.Lock()
	walk(rt.FrameTree)
	cap.mu.Unlock()
	read = append(read, "resources")

	// DOM structure of gated documents.
	if out.DOM, err = electronDOM(ctx, a, cap); err != nil {
		return nil, lostIn(err, "the DOM was read (DOMSnapshot.captureSnapshot)")
	}
	read = append(read, "dom")

	// Scripts and their sources.
	cap.mu.Lock()
	scripts := slices.Clone(cap.scripts)
	out.Scripts, out.ScriptsTotal = scripts, cap.total
	cap.mu.Unlock()
	if req.IncludeScriptSources {
		var total int64
		for i := range scripts {
			var src struct {
				ScriptSource string `json:"scriptSource"`
			}
			if err := a.page.c.call(ctx, a.page.id, "Debugger.getScriptSource", map[string]string{"scriptId": scripts[i].ScriptID}, &src); err != nil {
				if be, ok := ports.AsBrowserError(err); ok && be.Code == ports.BrowserProtocolError && a.c.failureNow() == nil {
					cap.mu.Lock()
					cap.led.exclude("script_sources", "unavailable", 1)
					cap.mu.Unlock()
					continue
				}
				return nil, lostIn(err, "the script sources were read (Debugger.getScriptSource)")
			}
			n := int64(len(src.ScriptSource))
			if n > lim.MaxScriptSourceBytes || total+n > lim.MaxTotalSourceBytes {
				cap.mu.Lock()
				cap.led.truncated["script_sources"] = true
				cap.mu.Unlock()
				continue
			}
			total += n
			scripts[i].Source = []byte(src.ScriptSource)
		}
		read = append(read, "script_sources")
	}

	// Workers of the page with gated files. Chromium lists a dedicated
	// worker without its script until a client attaches: pageWorkers names
	// it by auto-attach, as for a web page.
	out.Workers = []ports.ElectronWorker{}
	s := a.browser
	if !a.flat {
		s = a.page
	}
	var ti struct {
		TargetInfos []workerTarget `json:"targetInfos"`
	}
	if err := s.c.call(ctx, s.id, "Target.getTargets", nil, &ti); err != nil {
		if !unknownMethod(err) {
			return nil, lostIn(err, "the workers were read (Target.getTargets)")
		}
		cap.mu.Lock()
		cap.led.unavailableSection("workers", "Target.getTargets")
		cap.mu.Unlock()
	}
	related, outside, unattributed, err := pageWorkers(ctx, a, ti.TargetInfos, frames, string(ft.Frame.ID), lim.MaxWorkers)
	if err != nil {
		return nil, lostIn(err, "the workers were read (naming them by auto-attach)")
	}
	cap.mu.Lock()
	// Frames of another site in their own renderer process, which the
	// frame tree above does not list: named and listed as a web capture
	// does, last, with not_captured naming the sections that hold nothing
	// of them (Chromium counts every file: URL as one site, so such a frame
	// is rarely a file: one and usually fails the file gate).
	oop, l := outOfProcessFrames(ti.TargetInfos, frames, func(raw string) (string, string, string) {
		p, why := sc.fileGate(raw)
		if why != "" {
			return "", "", electronReason(why)
		}
		return p, "", ""
	}, "allowed_file_roots", max(0, lim.MaxFrames-len(out.Frames)), cap.led)
	if l != "" {
		cap.led.limitations = append(cap.led.limitations, l)
	}
	for _, f := range oop {
		out.Frames = append(out.Frames, ports.ElectronFrame{FrameID: f.FrameID, ParentFrameID: f.ParentFrameID, FilePath: f.URL,
			NotCaptured: slices.Clone(electronOutOfProcessSections)})
	}
	if len(oop) > 0 {
		// Its DOM, scripts and resources may change unseen: no comparison
		// may call those sections unchanged.
		for _, s := range electronOutOfProcessSections[1:] {
			if _, ok := cap.led.unavailable[s]; !ok {
				cap.led.unavailable[s] = "provider_unavailable"
			}
		}
	}
	cap.led.exclude("workers", "out_of_target_scope", outside)
	if l := orphanWorkers(unattributed); l != "" {
		cap.led.limitations = append(cap.led.limitations, l)
	}
	for _, t := range related {
		if t.URL == "" {
			// Still unnamed (auto-attach refused, a silent worker
			// session): unattributed, as a script without a URL is.
			cap.led.exclude("workers", "unattributed_origin", 1)
			continue
		}
		p, why := sc.fileGate(t.URL)
		if why != "" {
			cap.led.exclude("workers", electronReason(why), 1)
			continue
		}
		if len(out.Workers) >= lim.MaxWorkers {
			cap.led.truncated["workers"] = true
			break
		}
		out.Workers = append(out.Workers, ports.ElectronWorker{TargetID: t.TargetID, Type: cut(t.Type, 100), FilePath: p})
	}
	cap.mu.Unlock()
	read = append(read, "workers")

	// The final gate: the same main document.
	ft2, err := a.frameTree(ctx)
	if err != nil {
		return nil, lostIn(err, "the main frame was read again (Page.getFrameTree) to check that the document had not changed")
	}
	if ft2.Frame.ID != ft.Frame.ID || ft2.Frame.LoaderID != ft.Frame.LoaderID || frameURL(ft2.Frame) != frameURL(ft.Frame) {
		return nil, &ports.BrowserError{Code: ports.BrowserTargetChanged, Msg: "the main frame navigated during the capture"}
	}
	cap.mu.Lock()
	defer cap.mu.Unlock()
	out.Completeness = cap.led.completeness()
	out.Limitations = cap.led.limitations
	return out, nil
}

// electronOutOfProcessSections are the sections an Electron page capture
// holds nothing of for a frame in another renderer process.
var electronOutOfProcessSections = []string{"frames", "dom", "scripts", "resources"}

type frameNode struct {
	ft     *page.FrameTree
	parent string
}

// frames lists the gated frames of ft breadth-first, ungated subtrees
// excluded, and the set of their IDs. Called with c.mu held.
func (c *electronCapture) frames(ft *page.FrameTree) ([]ports.ElectronFrame, map[string]bool) {
	out, ids := []ports.ElectronFrame{}, map[string]bool{}
	bfs := []*frameNode{{ft: ft}}
	for len(bfs) > 0 {
		n := bfs[0]
		bfs = bfs[1:]
		f := n.ft.Frame
		if f == nil {
			continue
		}
		p, why := c.sc.fileGate(frameURL(f))
		if why != "" {
			c.led.exclude("frames", electronReason(why), 1)
			continue
		}
		if len(out) >= c.lim.MaxFrames {
			c.led.truncated["frames"] = true
			continue
		}
		out = append(out, ports.ElectronFrame{FrameID: string(f.ID), ParentFrameID: n.parent, FilePath: p})
		ids[string(f.ID)] = true
		for _, ch := range n.ft.ChildFrames {
			bfs = append(bfs, &frameNode{ft: ch, parent: string(f.ID)})
		}
	}
	return out, ids
}

// lost is the error of a page that went away before the inspection ended:
// the disconnected failure wrapped in an
// *ports.PartialError[ports.ElectronPageCapture] whose partial capture
// holds the frames of ft (read at the attach), the scripts reported until
// then and the sections read after the window before the loss (read, in
// order: resources, dom, script_sources, workers), the others unavailable,
// with a limitation saying when the inspection broke off: during the
// window (during "") or while the read during names was under way. out
// carries the browser, the target, the window as it ended and the
// sections read.
func (c *electronCapture) lost(out *ports.ElectronPageCapture, ft *page.FrameTree, req ports.ElectronInspectRequest, during string, read []string) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if out.Frames == nil {
		out.Frames, _ = c.frames(ft)
	}
	if out.Scripts == nil {
		out.Scripts, out.ScriptsTotal = slices.Clone(c.scripts), c.total
	}
	if out.Resources == nil {
		out.Resources = []ports.ElectronResource{}
	}
	if out.Workers == nil {
		out.Workers = []ports.ElectronWorker{}
	}
	if out.DOM.Nodes == nil {
		out.DOM = ports.BrowserDOM{Nodes: []ports.BrowserDOMNode{}, URLs: []ports.BrowserDOMURL{}, LinkRels: []string{}}
	}
	var unread []string
	for _, s := range []string{"dom", "resources", "script_sources", "workers"} {
		if !slices.Contains(read, s) && (s != "script_sources" || req.IncludeScriptSources) {
			unread = append(unread, s)
			c.led.unavailable[s] = "provider_unavailable"
		}
	}
	w := out.CaptureWindow
	how := " (its session detached or the connection closed, as when the window is closed or the renderer or browser exits): "
	if during == "" {
		c.led.limitations = append(c.led.limitations, "The page went away "+itoa(int(w.EndedAt.Sub(w.StartedAt).Milliseconds()))+" ms into the "+
			itoa(w.ObservationMS)+" ms window"+how+"this partial capture holds the frames read at the attach and the scripts reported before; the "+
			andList(unread)+" sections, read after the window, are unavailable, and anything later is unknown.")
	} else {
		held := "the frames read at the attach and the scripts reported before"
		if len(read) > 0 {
			held = "the frames read at the attach, the scripts reported before and " + sections(read)
		}
		rest := "every section was read, but whether the main document stayed the same to the end is unknown."
		if len(unread) > 0 {
			if len(unread) == 1 {
				rest = sections(unread) + " is unavailable, and anything later is unknown."
			} else {
				rest = sections(unread) + " are unavailable, and anything later is unknown."
			}
		}
		c.led.limitations = append(c.led.limitations, "The page went away"+strings.TrimSuffix(how, ": ")+" after the "+itoa(w.ObservationMS)+
			" ms window, while "+during+": this partial capture holds "+held+"; "+rest)
	}
	out.Completeness = c.led.completeness()
	out.Limitations = slices.Clone(c.led.limitations)
	return &ports.PartialError[ports.ElectronPageCapture]{Err: errDetached(), Partial: out}
}

// sections names sections as "the dom section" or "the dom and workers
// sections".
func sections(names []string) string {
	if len(names) == 1 {
		return "the " + names[0] + " section"
	}
	return "the " + andList(names) + " sections"
}

// andList joins words as "a, b and c".
func andList(words []string) string {
	if len(words) < 2 {
		return strings.Join(words, "")
	}
	return strings.Join(words[:len(words)-1], ", ") + " and " + words[len(words)-1]
}

// pageLost reports whether err is the page going away: its session
// detached or the connection failed (not a cancellation or a refusal).
func pageLost(a *attachment, err error) bool {
	select {
	case <-a.gone():
		return true
	default:
	}
	be, ok := ports.AsBrowserError(err)
	return ok && be.Code == ports.BrowserDisconnected
}

func electronDOM(ctx context.Context, a *attachment, c *electronCapture) (ports.BrowserDOM, error) {
	var snap snapshot
	f := false
	err := a.page.c.call(ctx, a.page.id, domsnapshot.CommandCaptureSnapshot,
		domsnapshot.CaptureSnapshotParams{ComputedStyles: []string{}, IncludePaintOrder: &f, IncludeDOMRects: &f}, &snap)
	if err != nil {
		return ports.BrowserDOM{}, err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	sc, lim, led := c.sc, c.lim, c.led
	dom := ports.BrowserDOM{Nodes: []ports.BrowserDOMNode{}, URLs: []ports.BrowserDOMURL{}, LinkRels: []string{}}
	base := 0
	for _, d := range snap.Documents {
		if _, why := sc.fileGate(snap.str(d.DocumentURL)); why != "" {
			led.exclude("dom", electronReason(why), 1)
			continue
		}
		n := len(d.Nodes.ParentIndex)
		dom.TotalNodes += n
		for i := 0; i < n; i++ {
			if len(dom.Nodes) >= lim.MaxDOMNodes {
				led.truncated["dom"] = true
				break
			}
			node := snap.node(&d, i, base)
			if i < len(d.Nodes.Attributes) {
				attrs := d.Nodes.Attributes[i]
				for j := 0; j+1 < len(attrs) && len(node.AttributeNames) < 200; j += 2 {
					node.AttributeNames = append(node.AttributeNames, cut(strings.ToLower(snap.str(attrs[j])), 256))
				}
			}
			dom.Nodes = append(dom.Nodes, node)
		}
		base += n
	}
	return dom, nil
}

// blankURL reports a main frame that has not committed a document yet.
// Chromium 150, right after it starts, reports such a frame's URL as ":"
// (an empty URL's serialization) in Page.getFrameTree now and then.
func blankURL(u string) bool { return u == "" || u == "about:blank" || strings.HasPrefix(u, ":") }
