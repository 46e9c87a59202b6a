package cdp

import (
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"
	"time"
	"unicode/utf16"

	"github.com/chromedp/cdproto"
	"github.com/chromedp/cdproto/accessibility"
	"github.com/chromedp/cdproto/cachestorage"
	cdpt "github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/debugger"
	"github.com/chromedp/cdproto/domsnapshot"
	"github.com/chromedp/cdproto/domstorage"
	"github.com/chromedp/cdproto/indexeddb"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/cdproto/storage"
	"github.com/chromedp/cdproto/target"

	"rea/ports"
)

// optional runs an optional command: an unknown-method rejection marks the
// section unavailable and returns ok=false with no error; any other failure
// is returned.
func optional(ctx context.Context, s session, method string, params, result any, section string, pc *pageCapture) (bool, error) {
	err := s.c.call(ctx, s.id, method, params, result)
	if err == nil {
		return true, nil
	}
	if unknownMethod(err) {
		pc.mu.Lock()
		pc.led.unavailableSection(section, method)
		pc.mu.Unlock()
		return false, nil
	}
	return false, err
}

// oversized reports whether err is a reply over the 64 MiB message bound
// (the connection read past it and goes on); if so it records the section
// as truncated, its reply excluded as resource_budget_exhausted, and a
// limitation naming the method, so that a page too large for one command
// loses that section rather than the whole capture.
func oversized(err error, method, section string, pc *pageCapture) bool {
	be, ok := ports.AsBrowserError(err)
	if !ok || be.Code != ports.BrowserPayloadLimit {
		return false
	}
	pc.mu.Lock()
	defer pc.mu.Unlock()
	pc.led.truncated[section] = true
	pc.led.exclude(section, "resource_budget_exhausted", 1)
	pc.led.limitations = append(pc.led.limitations, fmt.Sprintf("%s's reply exceeded the %d MiB message bound, so the %s section is empty; the page is too large for it.", method, maxMessageBytes>>20, section))
	return true
}

// framesOf walks the frame tree in pre-order.
func framesOf(ft *page.FrameTree, sc scope, max int, led *ledger) []ports.BrowserFrame {
	var out []ports.BrowserFrame
	var walk func(t *page.FrameTree, parent string)
	walk = func(t *page.FrameTree, parent string) {
		if t == nil || t.Frame == nil {
			return
		}
		id := string(t.Frame.ID)
		u := frameURL(t.Frame)
		switch {
		case id == "" || len(id) > 256:
			led.exclude("frames", "invalid_protocol_value", 1)
		case sc.reason(u) != "":
			led.exclude("frames", sc.reason(u), 1)
		case len(out) >= max:
			led.truncated["frames"] = true
		default:
			clean, origin := sanitizeURL(u)
			out = append(out, ports.BrowserFrame{FrameID: id, ParentFrameID: parent, URL: clean, Origin: origin})
		}
		for _, c := range t.ChildFrames {
			walk(c, id)
		}
	}
	walk(ft, "")
	return out
}

type resourceTree struct {
	Frame       evFrame        `json:"frame"`
	ChildFrames []resourceTree `json:"childFrames"`
	Resources   []struct {
		URL         string   `json:"url"`
		Type        string   `json:"type"`
		MimeType    string   `json:"mimeType"`
		ContentSize *float64 `json:"contentSize"`
	} `json:"resources"`
}

func (e *Engine) resources(ctx context.Context, a *attachment, pc *pageCapture) ([]ports.BrowserResource, error) {
	var res struct {
		FrameTree *resourceTree `json:"frameTree"`
	}
	if err := a.page.c.call(ctx, a.page.id, page.CommandGetResourceTree, nil, &res); err != nil {
		return nil, err
	}
	out := []ports.BrowserResource{}
	pc.mu.Lock()
	defer pc.mu.Unlock()
	var walk func(t *resourceTree)
	walk = func(t *resourceTree) {
		if t == nil {
			return
		}
		for _, r := range t.Resources {
			if rr := pc.sc.reason(r.URL); rr != "" {
				pc.led.exclude("resources", rr, 1)
				continue
			}
			if len(out) >= pc.lim.MaxResources {
				pc.led.truncated["resources"] = true
				continue
			}
			clean, origin := sanitizeURL(r.URL)
			out = append(out, ports.BrowserResource{
				FrameID: t.Frame.ID, URL: clean, Origin: origin, Type: cutDefault(r.Type, 100, "Other"),
				MimeType: cut(r.MimeType, 256), ContentSize: r.ContentSize,
			})
		}
		for i := range t.ChildFrames {
			walk(&t.ChildFrames[i])
		}
	}
	walk(res.FrameTree)
	return out, nil
}

type snapshot struct {
	Documents []snapDocument `json:"documents"`
	Strings   []string       `json:"strings"`
}

// snapDocument is one document of a DOMSnapshot.captureSnapshot result.
type snapDocument struct {
	DocumentURL int  `json:"documentURL"`
	FrameID     *int `json:"frameId"`
	Nodes       struct {
		BackendNodeID []int   `json:"backendNodeId"`
		ParentIndex   []int   `json:"parentIndex"`
		NodeType      []int   `json:"nodeType"`
		NodeName      []int   `json:"nodeName"`
		NodeValue     []int   `json:"nodeValue"`
		Attributes    [][]int `json:"attributes"`
	} `json:"nodes"`
}

// str is the snapshot's string i, "" when i is out of range.
func (s *snapshot) str(i int) string {
	if i < 0 || i >= len(s.Strings) {
		return ""
	}
	return s.Strings[i]
}

// at is s[i], -1 past the end of s.
func at(s []int, i int) int {
	if i < len(s) {
		return s[i]
	}
	return -1
}

// node is node i of document d, whose nodes are numbered from base in
// the capture, without its attributes.
func (s *snapshot) node(d *snapDocument, i, base int) ports.BrowserDOMNode {
	parent := at(d.Nodes.ParentIndex, i)
	if parent >= 0 {
		parent += base
	}
	return ports.BrowserDOMNode{Index: base + i, ParentIndex: max(parent, -1), NodeType: max(at(d.Nodes.NodeType, i), 0),
		NodeName: cut(s.str(at(d.Nodes.NodeName, i)), 256), AttributeNames: []string{},
		NodeValueLength: len(utf16.Encode([]rune(s.str(at(d.Nodes.NodeValue, i)))))}
}

// urlAttribute, agentRel and axState are switches: a package-level map is
// built by init code every rea process runs.
func urlAttribute(name string) bool {
	switch name {
	case "href", "src", "action", "formaction", "poster":
		return true
	}
	return false
}

func agentRel(rel string) bool {
	switch rel {
	case "mcp", "model-context", "ai-plugin", "service-desc":
		return true
	}
	return false
}

func (e *Engine) domSnapshot(ctx context.Context, a *attachment, pc *pageCapture) (ports.BrowserDOM, error) {
	var snap snapshot
	f := false
	err := a.page.c.call(ctx, a.page.id, domsnapshot.CommandCaptureSnapshot,
		domsnapshot.CaptureSnapshotParams{ComputedStyles: []string{}, IncludePaintOrder: &f, IncludeDOMRects: &f}, &snap)
	if oversized(err, domsnapshot.CommandCaptureSnapshot, "dom", pc) {
		pc.mu.Lock()
		pc.domOversized = true
		pc.mu.Unlock()
		return ports.BrowserDOM{Nodes: []ports.BrowserDOMNode{}, URLs: []ports.BrowserDOMURL{}}, nil
	}
	if err != nil {
		return ports.BrowserDOM{}, err
	}
	str := snap.str
	dom := ports.BrowserDOM{Nodes: []ports.BrowserDOMNode{}, URLs: []ports.BrowserDOMURL{}}
	rels := map[string]bool{}
	pc.mu.Lock()
	defer pc.mu.Unlock()
	base := 0
	for _, d := range snap.Documents {
		docURL := str(d.DocumentURL)
		if pc.sc.reason(docURL) != "" {
			pc.led.exclude("dom", pc.sc.reason(docURL), 1)
			continue
		}
		n := len(d.Nodes.ParentIndex)
		dom.TotalNodes += n
		if d.FrameID != nil && str(*d.FrameID) != "" {
			if pc.axDocs == nil {
				pc.axDocs = map[string]axDocument{}
			}
			ids := d.Nodes.BackendNodeID[:min(len(d.Nodes.BackendNodeID), axReadsPerNode*pc.lim.MaxAXNodes)]
			pc.axDocs[str(*d.FrameID)] = axDocument{nodes: n, backendIDs: slices.Clone(ids)}
		}
		for i := 0; i < n; i++ {
			if len(dom.Nodes) >= pc.lim.MaxDOMNodes {
				pc.led.truncated["dom"] = true
				break
			}
			node := snap.node(&d, i, base)
			var attrs []int
			if i < len(d.Nodes.Attributes) {
				attrs = d.Nodes.Attributes[i]
			}
			var rel string
			for j := 0; j+1 < len(attrs); j += 2 {
				name := strings.ToLower(str(attrs[j]))
				if len(node.AttributeNames) < 200 {
					node.AttributeNames = append(node.AttributeNames, cut(name, 256))
				}
				val := str(attrs[j+1])
				if name == "rel" {
					rel = val
				}
				if !urlAttribute(name) {
					continue
				}
				if len(dom.URLs) >= pc.lim.MaxResources {
					pc.led.truncated["metadata"] = true
					continue
				}
				du := ports.BrowserDOMURL{NodeIndex: node.Index, Attribute: name}
				abs, ok := resolveRef(docURL, strings.TrimSpace(val))
				switch {
				case ok && pc.sc.allows(abs):
					clean, _ := sanitizeURL(abs)
					du.URL, du.DestinationScope = &clean, "approved"
				case ok && pc.sc.reason(abs) == "disallowed_origin":
					du.DestinationScope = "outside_policy"
				default:
					du.DestinationScope = "unsupported"
				}
				if du.URL == nil {
					reason := "unsupported_url"
					if ok {
						reason = pc.sc.reason(abs)
					}
					pc.led.exclude("metadata", reason, 1)
				}
				dom.URLs = append(dom.URLs, du)
			}
			if strings.EqualFold(node.NodeName, "link") {
				for _, r := range strings.Fields(strings.ToLower(rel)) {
					if agentRel(r) {
						rels[r] = true
					}
				}
			}
			dom.Nodes = append(dom.Nodes, node)
		}
		base += n
	}
	for r := range rels {
		dom.LinkRels = append(dom.LinkRels, r)
	}
	slices.Sort(dom.LinkRels)
	return dom, nil
}

type axValue struct {
	Value json.RawMessage `json:"value"`
}

type axNode struct {
	NodeID      string   `json:"nodeId"`
	ParentID    string   `json:"parentId"`
	Ignored     bool     `json:"ignored"`
	Role        *axValue `json:"role"`
	Name        *axValue `json:"name"`
	Description *axValue `json:"description"`
	Properties  []struct {
		Name  string  `json:"name"`
		Value axValue `json:"value"`
	} `json:"properties"`
	ChildIDs []string `json:"childIds"`
	FrameID  string   `json:"frameId"`
}

func axState(name string) bool {
	switch name {
	case "atomic", "autocomplete", "busy", "checked", "disabled", "editable", "expanded", "focusable", "focused", "hasPopup", "hidden",
		"invalid", "level", "live", "modal", "multiline", "multiselectable", "orientation", "pressed", "readonly", "required", "selected",
		"valuemax", "valuemin":
		return true
	}
	return false
}

// on reports a state property that holds: Chromium lists readonly,
// required and multiline as false and invalid as "false" on every plain
// input, so a property's presence says nothing. Numbers (level, valuemax)
// and other tokens (checked "mixed", live "polite") hold.
func (v axValue) on() bool {
	var b bool
	if json.Unmarshal(v.Value, &b) == nil {
		return b
	}
	var s string
	if json.Unmarshal(v.Value, &s) == nil {
		return s != "" && s != "false"
	}
	return len(v.Value) > 0 && string(v.Value) != "null"
}

func (v *axValue) text() string {
	if v == nil {
		return ""
	}
	var s string
	if json.Unmarshal(v.Value, &s) == nil {
		return s
	}
	return ""
}

// axDocument is what is known of a frame's document before its
// accessibility tree is read: its node count and its first nodes, in
// document order. inspect_web_page learns them from the DOM snapshot, as
// backend node ids; a scenario from a script in an isolated world
// (scenarioDocument), as remote objects.
type axDocument struct {
	nodes      int
	backendIDs []int
	objectIDs  []runtime.RemoteObjectID
}

// refs is how many of the document's first nodes can be asked for.
func (d axDocument) refs() int { return len(d.backendIDs) + len(d.objectIDs) }

// partial asks for the accessibility node of the document's i-th node,
// without its relatives.
func (d axDocument) partial(i int) accessibility.GetPartialAXTreeParams {
	no := false
	p := accessibility.GetPartialAXTreeParams{FetchRelatives: &no}
	if i < len(d.backendIDs) {
		p.BackendNodeID = cdpt.BackendNodeID(d.backendIDs[i])
	} else {
		p.ObjectID = d.objectIDs[i-len(d.backendIDs)]
	}
	return p
}

// axReadsPerNode bounds the node-by-node read at this many
// getPartialAXTree calls per node kept: nodes with no accessibility object
// (head, script, a display:none subtree) answer with none.
const axReadsPerNode = 2

// accessibility reads each frame's accessibility tree up to max_ax_nodes.
// Chromium's getFullAXTree returns a frame's whole tree in one reply: its
// depth bounds levels, not width, and a flat page puts nearly every node at
// depth 1 (a 200k-element page answered 191 MB, past the message bound,
// after 30 s). So a frame whose document (as the DOM snapshot counted it)
// holds more nodes than the room left is read node by node with
// getPartialAXTree, in document order, and no reply is larger than what is
// kept; a frame the snapshot does not know is asked for its whole tree.
func (e *Engine) accessibility(ctx context.Context, a *attachment, pc *pageCapture, frames []ports.BrowserFrame) (ports.BrowserAccessibility, error) {
	out := ports.BrowserAccessibility{Nodes: []ports.BrowserAXNode{}, TextCapture: "not_approved"}
	if pc.req.IncludeAccessibilityText {
		out.TextCapture = "included"
	}
	truncate := func(limitation string) {
		pc.mu.Lock()
		pc.led.truncated["accessibility"] = true
		if limitation != "" {
			pc.led.limitations = append(pc.led.limitations, limitation)
		}
		pc.mu.Unlock()
	}
	remaining := pc.lim.MaxTotalTextBytes
	keep := func(n axNode, frameID string) {
		node := ports.BrowserAXNode{NodeID: n.NodeID, ParentID: n.ParentID, FrameID: frameID, Role: cut(n.Role.text(), 1024), Ignored: n.Ignored, States: []string{}}
		for _, p := range n.Properties {
			if axState(p.Name) && p.Value.on() {
				node.States = append(node.States, p.Name)
			}
		}
		slices.Sort(node.States)
		node.States = slices.Compact(node.States)
		for _, fld := range []struct {
			src *axValue
			dst **string
		}{{n.Name, &node.Name}, {n.Description, &node.Description}} {
			t := fld.src.text()
			if t == "" {
				continue
			}
			if !pc.req.IncludeAccessibilityText {
				out.ExcludedFields++
				continue
			}
			lim := min(pc.lim.MaxTextFieldBytes, remaining)
			if len(t) > lim {
				t = cutBytes(t, max(lim, 0))
				out.TruncatedFields++
				out.TextCapture = "truncated"
			}
			if t == "" {
				out.ExcludedFields++
				continue
			}
			remaining -= len(t)
			out.RetainedBytes += len(t)
			*fld.dst = &t
		}
		out.Nodes = append(out.Nodes, node)
	}
	pc.mu.Lock()
	docs, domOversized := pc.axDocs, pc.domOversized
	pc.mu.Unlock()
	for i, f := range frames {
		room := pc.lim.MaxAXNodes - len(out.Nodes)
		if room <= 0 {
			truncate(fmt.Sprintf("The accessibility trees of %d frame(s) were not read: max_ax_nodes (%d) was reached.", len(frames)-i, pc.lim.MaxAXNodes))
			break
		}
		doc, known := docs[f.FrameID]
		if !known && domOversized {
			truncate(fmt.Sprintf("The accessibility tree of frame %s was not read: its document was too large for the DOM snapshot, and its tree would be larger still.", f.FrameID))
			continue
		}
		if known && doc.nodes > room {
			ok, err := e.axNodeByNode(ctx, a, pc, f.FrameID, doc, room, &out, keep)
			if err != nil {
				return out, err
			}
			if !ok {
				out.TextCapture = "unavailable"
				return out, nil
			}
			continue
		}
		var res struct {
			Nodes []axNode `json:"nodes"`
		}
		depth := int64(32)
		ok, err := optional(ctx, a.page, accessibility.CommandGetFullAXTree,
			accessibility.GetFullAXTreeParams{Depth: &depth, FrameID: cdpt.FrameID(f.FrameID)}, &res, "accessibility", pc)
		if oversized(err, accessibility.CommandGetFullAXTree, "accessibility", pc) {
			return out, nil // the frames before this one are kept
		}
		if err != nil {
			return out, err
		}
		if !ok {
			out.TextCapture = "unavailable"
			return out, nil
		}
		ids := map[string]bool{}
		for _, n := range res.Nodes {
			ids[n.NodeID] = true
		}
		out.TotalNodes += len(res.Nodes)
		for _, n := range res.Nodes {
			for _, c := range n.ChildIDs {
				if !ids[c] {
					truncate("")
				}
			}
			if len(out.Nodes) >= pc.lim.MaxAXNodes {
				truncate("")
				break
			}
			keep(n, f.FrameID)
		}
	}
	return out, nil
}

// axNodeByNode reads a frame's accessibility nodes node by node
// (axReadNodeByNode) through the capture's connection and says in a
// limitation how many of the document's nodes were not read; ok=false
// means the browser has no getPartialAXTree.
func (e *Engine) axNodeByNode(ctx context.Context, a *attachment, pc *pageCapture, frameID string, doc axDocument, room int, out *ports.BrowserAccessibility, keep func(axNode, string)) (bool, error) {
	call := func(ctx context.Context, method string, params, result any) (bool, error) {
		ok, err := optional(ctx, a.page, method, params, result, "accessibility", pc)
		if be, isBE := ports.AsBrowserError(err); isBE && be.Code == ports.BrowserProtocolError {
			return true, errAXRejected
		}
		return ok, err
	}
	read, ok, err := axReadNodeByNode(ctx, call, doc, room, func(n axNode) {
		out.TotalNodes++
		keep(n, frameID)
	})
	if err != nil || !ok {
		return ok, err
	}
	pc.mu.Lock()
	pc.led.truncated["accessibility"] = true
	pc.led.limitations = append(pc.led.limitations, axNotRead("The accessibility tree of frame "+frameID, read, doc.nodes, fmt.Sprintf("max_ax_nodes %d", pc.lim.MaxAXNodes)))
	pc.mu.Unlock()
	return true, nil
}

// axCall sends one Accessibility command and decodes its reply into
// result: the passive capture sends through its own connection, a scenario
// through chromedp's. ok=false means the browser does not know the
// command; errAXRejected, that it refused this one (a node gone since the
// snapshot).
type axCall func(ctx context.Context, method string, params, result any) (ok bool, err error)

var errAXRejected = errors.New("the browser rejected the accessibility command")

// axReadNodeByNode reads the accessibility nodes of doc's DOM nodes one at
// a time (getPartialAXTree without relatives), in document order, until
// room nodes are kept or axReadsPerNode reads per node kept are spent;
// read counts the DOM nodes asked. ok=false means the browser has no
// getPartialAXTree. A node the page removed since the snapshot is
// skipped. inspect_web_page and capture_browser_scenario's accessibility
// artifact both read a large document so.
func axReadNodeByNode(ctx context.Context, call axCall, doc axDocument, room int, keep func(axNode)) (read int, ok bool, err error) {
	kept := 0
	for i := range min(doc.refs(), axReadsPerNode*room) {
		if kept >= room {
			break
		}
		var res struct {
			Nodes []axNode `json:"nodes"`
		}
		read++
		ok, err := call(ctx, accessibility.CommandGetPartialAXTree, doc.partial(i), &res)
		if errors.Is(err, errAXRejected) {
			continue
		}
		if err != nil {
			return read, false, err
		}
		if !ok {
			return read, false, nil
		}
		for _, n := range res.Nodes {
			if n.NodeID == "" || n.NodeID == "0" || kept >= room {
				continue // "0": the DOM node has no accessibility object
			}
			keep(n)
			kept++
		}
	}
	return read, true, nil
}

// axNotRead says what a node-by-node read of a document of nodes DOM nodes
// left out; what names the tree, bound the limit that applied.
func axNotRead(what string, read, nodes int, bound string) string {
	return fmt.Sprintf("%s was read node by node, for the first %d of its document's %d DOM nodes (%s); the other %d were not read: Chromium returns a frame's whole tree in one reply, whatever its depth.", what, read, nodes, bound, nodes-read)
}

type scriptSourceResult struct {
	ScriptSource string `json:"scriptSource"`
}

func (e *Engine) scriptSources(ctx context.Context, a *attachment, pc *pageCapture, scripts []ports.BrowserScript) error {
	if !pc.req.IncludeScriptSources {
		for i := range scripts {
			scripts[i].SourceReason = "source capture was not approved"
		}
		pc.mu.Lock()
		pc.led.exclude("script_sources", "not_approved", len(scripts))
		pc.mu.Unlock()
		return nil
	}
	var total int64
	refuse := func(i int, why string) {
		scripts[i].SourceReason = why
		pc.mu.Lock()
		pc.led.truncated["script_sources"] = true
		pc.mu.Unlock()
	}
	for i, s := range scripts {
		if int64(s.Length) > pc.lim.MaxScriptSourceBytes {
			refuse(i, "the script is over the per-script source limit")
			continue
		}
		if total+int64(s.Length) > pc.lim.MaxTotalSourceBytes {
			refuse(i, "the total source limit was reached")
			continue
		}
		var res scriptSourceResult
		if err := a.page.c.call(ctx, a.page.id, debugger.CommandGetScriptSource, debugger.GetScriptSourceParams{ScriptID: cdpt.ScriptID(s.ScriptID)}, &res); err != nil {
			if be, ok := ports.AsBrowserError(err); ok && be.Code == ports.BrowserProtocolError {
				scripts[i].SourceReason = "the browser no longer holds the source"
				pc.mu.Lock()
				pc.led.exclude("script_sources", "provider_unavailable", 1)
				pc.mu.Unlock()
				continue
			}
			return err
		}
		n := int64(len(res.ScriptSource))
		if n > pc.lim.MaxScriptSourceBytes || total+n > pc.lim.MaxTotalSourceBytes {
			refuse(i, "the source is over the source limits")
			continue
		}
		total += n
		scripts[i].Source = []byte(res.ScriptSource)
	}
	return nil
}

// workerTarget is one Target.getTargets entry as the workers section reads it.
type workerTarget struct {
	TargetID      string `json:"targetId"`
	Type          string `json:"type"`
	URL           string `json:"url"`
	Attached      bool   `json:"attached"`
	OpenerID      string `json:"openerId"`
	ParentFrameID string `json:"parentFrameId"`
}

func (e *Engine) workers(ctx context.Context, a *attachment, pc *pageCapture, frames map[string]bool, main string) ([]ports.BrowserWorker, error) {
	s := a.browser
	if !a.flat {
		s = a.page
	}
	var res struct {
		TargetInfos []workerTarget `json:"targetInfos"`
	}
	ok, err := optional(ctx, s, target.CommandGetTargets, target.GetTargetsParams{}, &res, "workers", pc)
	if err != nil || !ok {
		return []ports.BrowserWorker{}, err
	}
	related, outside, unattributed, err := pageWorkers(ctx, a, res.TargetInfos, frames, main, pc.lim.MaxWorkers)
	if err != nil {
		return []ports.BrowserWorker{}, err
	}
	out := []ports.BrowserWorker{}
	pc.mu.Lock()
	defer pc.mu.Unlock()
	pc.led.exclude("workers", "out_of_target_scope", outside)
	if l := orphanWorkers(unattributed); l != "" {
		pc.led.limitations = append(pc.led.limitations, l)
	}
	if sw := originServiceWorkers(res.TargetInfos, a.target.Origin, pc.sc); len(sw) > 0 {
		pc.led.limitations = append(pc.led.limitations, fmt.Sprintf("%d service worker(s) of the page's origin are running (%s): "+
			"a service worker belongs to no page, so it is among the workers excluded as out_of_target_scope, "+
			"and its scripts, requests and console are not in this capture.", len(sw), strings.Join(sw, ", ")))
	}
	oop, l := outOfProcessFrames(res.TargetInfos, frames, webFrameGate(pc.sc), "allowed_origins", max(0, pc.lim.MaxFrames-len(frames)), pc.led)
	if l != "" {
		pc.led.limitations = append(pc.led.limitations, l)
	}
	pc.oopFrames = oop
	for _, t := range related {
		if r := pc.sc.reason(t.URL); r != "" {
			pc.led.exclude("workers", r, 1)
			continue
		}
		if len(out) >= pc.lim.MaxWorkers {
			pc.led.truncated["workers"] = true
			break
		}
		clean, origin := sanitizeURL(t.URL)
		out = append(out, ports.BrowserWorker{TargetID: t.TargetID, Type: cut(t.Type, 100), URL: clean, Origin: origin,
			Attached: t.Attached, OpenerTargetID: t.OpenerID, ParentFrameID: t.ParentFrameID})
	}
	return out, nil
}

// pageWorkers picks the page's workers from Target.getTargets' entries
// (opened by the page or started in one of its frames; outside counts the
// others) and names the unnamed ones with attachWorkers. The web and
// Electron page captures share it and then scope the URLs each its own way.
//
// A dedicated worker the browser lists with neither an opener nor a parent
// frame (Chromium 148 names neither for any worker) is the page's when the
// page's auto-attach announces it; once every announced session has been
// asked, one never announced is another page's. Unattributed counts those
// that stay unknown (auto-attach refused, a worker session silent or past
// the bounds): they are among outside, and orphanWorkers names them. Such a
// worker, placed by auto-attach, gets the parent frame of the session that
// announced it: main (the page's main frame) for the page's session, and
// the announcing worker's own parent frame for a worker's session.
func pageWorkers(ctx context.Context, a *attachment, infos []workerTarget, frames map[string]bool, main string, max int) (related []workerTarget, outside, unattributed int, err error) {
	unnamed := map[string]bool{}
	var orphans []workerTarget
	for _, t := range infos {
		switch {
		case !strings.Contains(t.Type, "worker"):
		case t.OpenerID == a.target.TargetID || frames[t.ParentFrameID]:
			related = append(related, t)
			if t.URL == "" {
				unnamed[t.TargetID] = true
			}
		case t.Type == "worker" && t.OpenerID == "" && t.ParentFrameID == "":
			orphans = append(orphans, t)
		default:
			outside++
		}
	}
	if len(unnamed) == 0 && len(orphans) == 0 {
		return related, outside, 0, nil
	}
	seen, complete, err := attachWorkers(ctx, a, unnamed, len(orphans) > 0, main, max)
	if err != nil {
		return nil, 0, 0, err
	}
	for i := range related {
		if related[i].URL == "" {
			related[i].URL = seen[related[i].TargetID].url
		}
	}
	for _, t := range orphans {
		w, ours := seen[t.TargetID]
		switch {
		case ours:
			t.URL, t.ParentFrameID = cmp.Or(t.URL, w.url), w.parent
			related = append(related, t)
		case complete:
			outside++
		default:
			outside++
			unattributed++
		}
	}
	return related, outside, unattributed, nil
}

// orphanWorkers is the limitation for the n dedicated workers that
// Target.getTargets lists with neither an opener nor a parent frame and
// that the page's auto-attach could not place ("" when there are none).
func orphanWorkers(n int) string {
	if n == 0 {
		return ""
	}
	return fmt.Sprintf("%d dedicated worker(s) in the browser were excluded as out_of_target_scope because the browser names "+
		"neither their opener nor their parent frame (Chromium 148 does not; 150 does) and auto-attach from the page's session "+
		"could not tell whether the page started them (refused, or a worker's session did not answer); "+
		"their scripts, requests and console are not in this capture. Chromium 150 or newer on PATH attributes them.", n)
}

// outOfProcessFrames finds the child frames of the page's frames (and of
// each other) that run in another renderer process (Chromium's
// out-of-process iframes, for a frame of another site): Page.getFrameTree on
// the page's session does not list them, only Target.getTargets does. The
// web and Electron page captures share it, so both say the same thing of
// such frames. gate scopes a frame's URL as the capture scopes its own
// frames: what to show of it (and its origin), or the reason it is excluded
// from frames, as an in-process frame would be; policy names the scope's
// parameter. An allowed one is returned as a frame marked OutOfProcess, to
// be placed after its parent's subtree (the Electron capture: last), while
// room lasts. The limitation ("" when there is
// none) names the allowed ones and counts the others.
func outOfProcessFrames(infos []workerTarget, frames map[string]bool, gate func(raw string) (shown, origin, reason string), policy string, room int, led *ledger) ([]ports.BrowserFrame, string) {
	known := maps.Clone(frames)
	var out []ports.BrowserFrame
	var named []string
	n := 0
	for grew := true; grew; {
		grew = false
		for _, t := range infos {
			if t.Type != "iframe" || !known[t.ParentFrameID] || known[t.TargetID] || t.TargetID == "" || len(t.TargetID) > 256 {
				continue
			}
			known[t.TargetID], grew = true, true
			n++
			u, o, why := gate(t.URL)
			switch {
			case why != "":
				led.exclude("frames", why, 1)
				continue
			case len(out) >= room:
				led.truncated["frames"] = true
				continue
			default:
				out = append(out, ports.BrowserFrame{FrameID: t.TargetID, ParentFrameID: t.ParentFrameID, URL: u, Origin: o, OutOfProcess: true})
			}
			if len(named) < 4 {
				named = append(named, u)
			}
		}
	}
	if n == 0 {
		return nil, ""
	}
	which := " (not named: outside " + policy + ")"
	if len(named) > 0 {
		which = " (" + strings.Join(named, ", ") + ")"
		if n > len(named) {
			which += fmt.Sprintf(" and %d more not named (outside %s, or past four)", n-len(named), policy)
		}
	}
	listed := "; none is listed in frames (outside " + policy + ", or past max_frames)"
	switch {
	case len(out) > 0:
		listed = fmt.Sprintf("; %d of them listed in frames, each with not_captured naming what is missing", len(out))
	}
	return out, fmt.Sprintf("%d frame(s) of another site run in their own renderer process%s: Chromium does not list such a frame in the page's "+
		"frame tree, so its DOM, accessibility tree, child frames, scripts, resources, network and console are not in this capture, which reads the page's own process%s.", n, which, listed)
}

// webFrameGate scopes an out-of-process frame's URL as a web capture scopes
// its frames (see outOfProcessFrames).
func webFrameGate(sc scope) func(string) (string, string, string) {
	return func(raw string) (string, string, string) {
		u, o := sanitizeURL(raw)
		why := sc.reason(u)
		if why == "" && o == "" {
			why = "unsupported_url"
		}
		return u, o, why
	}
}

// withFrames inserts extra frames (each with its parent among frames or
// extra) after their parent's subtree, keeping frames in pre-order.
func withFrames(frames, extra []ports.BrowserFrame) []ports.BrowserFrame {
	out := slices.Clone(frames)
	for _, f := range extra {
		i := slices.IndexFunc(out, func(g ports.BrowserFrame) bool { return g.FrameID == f.ParentFrameID })
		if i < 0 {
			out = append(out, f)
			continue
		}
		under := map[string]bool{f.ParentFrameID: true}
		j := i + 1
		for ; j < len(out) && under[out[j].ParentFrameID]; j++ {
			under[out[j].FrameID] = true
		}
		out = slices.Insert(out, j, f)
	}
	return out
}

// originServiceWorkers are the script URLs (at most four) of the service
// workers of origin among infos that the scope allows: they serve the
// page's origin, not the page, so the workers section leaves them out, but
// a page they control may be answered by them.
func originServiceWorkers(infos []workerTarget, origin string, sc scope) []string {
	var out []string
	for _, t := range infos {
		if t.Type == "service_worker" && origin != "" && originOfString(t.URL) == origin && sc.reason(t.URL) == "" && len(out) < 4 {
			out = append(out, t.URL)
		}
	}
	return out
}

// attachWorkers learns which dedicated workers are the page's and the
// script URLs of the unnamed ones: Chromium lists a dedicated worker in
// Target.getTargets (and /json/list) with an empty URL until a client
// attaches to it, and 148 names no worker's parent frame. The page's
// session auto-attaches to its workers (the filter leaves frames alone);
// the Target.attachedToTarget events, sent before the reply, name the
// workers and their scripts. While a worker is still unnamed (or, with
// walk, while any session is unasked), each announced worker's session does
// the same for the workers it started, level by level. Turning the page's
// auto-attach off detaches them all. waitForDebuggerOnStart is false, so a
// worker starting meanwhile runs on; nothing is evaluated, paused or
// resumed, and a worker's session gets only Target.setAutoAttach, which the
// browser answers itself.
//
// Seen maps every announced worker to its URL ("" when none was given) and
// the frame its announcing session runs for: main for the page's session,
// the announcing worker's own frame for a worker's session.
// Complete says every announced session was asked in turn, so a worker not
// in seen is not the page's. A browser that refuses auto-attach, a worker
// session that refuses or stays silent past workerAttachWait, and the
// bounds (max sessions, maxWorkerDepth levels) leave it false; losing the
// connection or the capture's deadline fails the call.
func attachWorkers(ctx context.Context, a *attachment, unnamed map[string]bool, walk bool, main string, max int) (seen map[string]announced, complete bool, err error) {
	var mu sync.Mutex
	seen = map[string]announced{}
	ours := map[string]string{a.page.id: main} // sessions whose announcements count, to the frame each runs for
	var fresh []string                         // worker sessions not yet asked for their workers
	complete = true
	a.c.setTap(func(ev event) {
		if ev.Method != cdproto.EventTargetAttachedToTarget {
			return
		}
		var e struct {
			SessionID  string       `json:"sessionId"`
			TargetInfo workerTarget `json:"targetInfo"`
		}
		mu.Lock()
		defer mu.Unlock()
		frame, ok := ours[ev.SessionID]
		if !ok || !decode(ev.Params, &e) || e.SessionID == "" || len(e.SessionID) > 256 || !strings.Contains(e.TargetInfo.Type, "worker") {
			return
		}
		id := e.TargetInfo.TargetID
		seen[id] = announced{url: cmp.Or(e.TargetInfo.URL, seen[id].url), parent: cmp.Or(seen[id].parent, frame)}
		if len(ours) <= max {
			ours[e.SessionID] = frame
			fresh = append(fresh, e.SessionID)
		} else {
			complete = false
		}
	})
	defer a.c.setTap(nil)
	result := func() (map[string]announced, bool, error) {
		mu.Lock()
		defer mu.Unlock()
		return maps.Clone(seen), complete, nil
	}
	flatten := true
	on := target.SetAutoAttachParams{AutoAttach: true, Flatten: &flatten, Filter: target.Filter{{Type: "worker"}, {Exclude: true}}}
	if _, err := call(ctx, a.page, target.SetAutoAttach, on); err != nil {
		if be, ok := ports.AsBrowserError(err); ok && be.Code == ports.BrowserProtocolError && a.c.failureNow() == nil {
			return nil, false, nil
		}
		return nil, false, err
	}
	defer func() {
		cctx, cancel := cleanupContext(ctx)
		defer cancel()
		call(cctx, a.page, target.SetAutoAttach, target.SetAutoAttachParams{Flatten: &flatten})
	}()
	wctx, cancel := context.WithTimeout(ctx, workerAttachWait)
	defer cancel()
	for depth := 1; ; depth++ {
		mu.Lock()
		next := fresh
		fresh = nil
		named := 0
		for id := range unnamed {
			if seen[id].url != "" {
				named++
			}
		}
		mu.Unlock()
		if len(next) == 0 {
			break
		}
		if depth >= maxWorkerDepth || (!walk && named == len(unnamed)) {
			mu.Lock()
			complete = false // sessions left unasked
			mu.Unlock()
			break
		}
		for _, sid := range next {
			if _, err := call(wctx, session{c: a.c, id: sid}, target.SetAutoAttach, on); err != nil {
				if ctx.Err() != nil {
					return nil, false, cancelled(ctx)
				}
				if be := a.c.failureNow(); be != nil {
					return nil, false, be
				}
				mu.Lock()
				complete = false
				mu.Unlock()
			}
		}
	}
	return result()
}

// announced is what the auto-attach walk learned of one worker.
type announced struct {
	url    string // its script URL; "" when none was given
	parent string // the frame of the session that announced it
}

// maxWorkerDepth bounds how deep attachWorkers follows workers started by
// workers.
const maxWorkerDepth = 4

// workerAttachWait bounds the time attachWorkers gives workers' sessions (a
// variable so a test can shorten it).
var workerAttachWait = 2 * time.Second

func sha256Hex(b []byte) string {
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:])
}

func (e *Engine) storage(ctx context.Context, a *attachment, pc *pageCapture, main ports.BrowserFrame) (ports.BrowserStorage, error) {
	st := ports.BrowserStorage{Origin: main.Origin}
	var uq struct {
		Usage *float64 `json:"usage"`
		Quota *float64 `json:"quota"`
	}
	ok, err := optional(ctx, a.page, storage.CommandGetUsageAndQuota, storage.GetUsageAndQuotaParams{Origin: main.Origin}, &uq, "storage", pc)
	if err != nil {
		return st, err
	}
	if ok {
		st.UsageBytes, st.QuotaBytes = uq.Usage, uq.Quota
	}
	if !pc.req.IncludeStorageKeys {
		pc.mu.Lock()
		pc.led.exclude("storage_keys", "not_approved", 1)
		pc.mu.Unlock()
		return st, nil
	}
	fp := pc.req.IncludeStorageFingerprints
	keys := func(list []string) []string {
		slices.Sort(list)
		list = slices.Compact(list)
		if len(list) > pc.lim.MaxStorageKeys {
			list = list[:pc.lim.MaxStorageKeys]
			pc.mu.Lock()
			pc.led.truncated["storage_keys"] = true
			pc.mu.Unlock()
		}
		for i := range list {
			list[i] = cut(list[i], 1024)
		}
		return list
	}
	for _, local := range []bool{true, false} {
		var items struct {
			Entries [][]string `json:"entries"`
		}
		ok, err := optional(ctx, a.page, domstorage.CommandGetDOMStorageItems,
			domstorage.GetDOMStorageItemsParams{StorageID: &domstorage.StorageID{SecurityOrigin: main.Origin, IsLocalStorage: local}}, &items, "storage_keys", pc)
		if err != nil {
			return st, err
		}
		if !ok {
			break
		}
		scopeName := "session_storage"
		if local {
			scopeName = "local_storage"
		}
		names := []string{}
		for _, kv := range items.Entries {
			if len(kv) != 2 {
				continue
			}
			names = append(names, kv[0])
			if fp {
				st.Fingerprints = append(st.Fingerprints, ports.BrowserStorageFingerprint{
					Scope: scopeName, Identity: map[string]string{"key": kv[0]}, ValueSHA256: sha256Hex([]byte(kv[1])), Complete: true})
			}
		}
		if local {
			st.LocalStorageKeys = keys(names)
		} else {
			st.SessionStorageKeys = keys(names)
		}
	}
	var dbs struct {
		DatabaseNames []string `json:"databaseNames"`
	}
	if ok, err := optional(ctx, a.page, indexeddb.CommandRequestDatabaseNames, indexeddb.RequestDatabaseNamesParams{SecurityOrigin: main.Origin}, &dbs, "storage_keys", pc); err != nil {
		return st, err
	} else if ok {
		st.IndexedDBNames = keys(dbs.DatabaseNames)
	}
	var caches struct {
		Caches []struct {
			CacheID   string `json:"cacheId"`
			CacheName string `json:"cacheName"`
		} `json:"caches"`
	}
	cacheIDs := map[string]string{}
	if ok, err := optional(ctx, a.page, cachestorage.CommandRequestCacheNames, cachestorage.RequestCacheNamesParams{SecurityOrigin: main.Origin}, &caches, "storage_keys", pc); err != nil {
		return st, err
	} else if ok {
		names := []string{}
		for _, c := range caches.Caches {
			names = append(names, c.CacheName)
			cacheIDs[c.CacheName] = c.CacheID
		}
		st.CacheNames = keys(names)
	}
	if !fp {
		return st, nil
	}
	var cookies struct {
		Cookies []struct {
			Name         string `json:"name"`
			Value        string `json:"value"`
			Domain       string `json:"domain"`
			Path         string `json:"path"`
			PartitionKey *struct {
				TopLevelSite string `json:"topLevelSite"`
			} `json:"partitionKey"`
		} `json:"cookies"`
	}
	if ok, err := optional(ctx, a.page, network.CommandGetCookies, network.GetCookiesParams{URLs: []string{main.URL}}, &cookies, "storage", pc); err != nil {
		return st, err
	} else if ok {
		for _, c := range cookies.Cookies {
			pk := ""
			if c.PartitionKey != nil {
				pk = c.PartitionKey.TopLevelSite
			}
			st.Fingerprints = append(st.Fingerprints, ports.BrowserStorageFingerprint{Scope: "cookie",
				Identity:    map[string]string{"domain": c.Domain, "path": c.Path, "name": c.Name, "partition_key": pk},
				ValueSHA256: sha256Hex([]byte(c.Value)), Complete: true})
		}
	}
	if err := e.recordFingerprints(ctx, a, pc, &st, cacheIDs); err != nil {
		return st, err
	}
	slices.SortFunc(st.Fingerprints, func(a, b ports.BrowserStorageFingerprint) int {
		return strings.Compare(a.Scope+":"+fpIdentity(a), b.Scope+":"+fpIdentity(b))
	})
	return st, nil
}

func fpIdentity(f ports.BrowserStorageFingerprint) string {
	keys := make([]string, 0, len(f.Identity))
	for k := range f.Identity {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	var b strings.Builder
	for _, k := range keys {
		b.WriteString(k + "=" + f.Identity[k] + "\x00")
	}
	return b.String()
}

// maxCachedBody is the largest Cache Storage body fingerprinted; a larger
// one is an incomplete fingerprint.
const maxCachedBody = 64 << 10

// recordFingerprints adds IndexedDB schema and record fingerprints and
// Cache Storage entry fingerprints, up to MaxStorageKeys records in all.
func (e *Engine) recordFingerprints(ctx context.Context, a *attachment, pc *pageCapture, st *ports.BrowserStorage, cacheIDs map[string]string) error {
	budget := pc.lim.MaxStorageKeys
	truncate := func() {
		pc.mu.Lock()
		pc.led.truncated["storage"] = true
		pc.mu.Unlock()
	}
	for _, db := range st.IndexedDBNames {
		var res struct {
			DB json.RawMessage `json:"databaseWithObjectStores"`
		}
		ok, err := optional(ctx, a.page, indexeddb.CommandRequestDatabase, indexeddb.RequestDatabaseParams{SecurityOrigin: st.Origin, DatabaseName: db}, &res, "storage", pc)
		if err != nil || !ok {
			return err
		}
		// The schema as the browser sent it: Chrome lists stores and
		// indexes in a stable order, so equal schemas hash equal.
		st.Fingerprints = append(st.Fingerprints, ports.BrowserStorageFingerprint{Scope: "indexed_db_schema",
			Identity: map[string]string{"database": db}, ValueSHA256: sha256Hex(res.DB), Complete: true})
		var schema struct {
			ObjectStores []struct {
				Name string `json:"name"`
			} `json:"objectStores"`
		}
		json.Unmarshal(res.DB, &schema)
		for _, store := range schema.ObjectStores {
			if budget <= 0 {
				truncate()
				break
			}
			var data struct {
				Entries []struct {
					Key   json.RawMessage `json:"key"`
					Value json.RawMessage `json:"value"`
				} `json:"objectStoreDataEntries"`
				HasMore bool `json:"hasMore"`
			}
			ok, err := optional(ctx, a.page, indexeddb.CommandRequestData, indexeddb.RequestDataParams{SecurityOrigin: st.Origin,
				DatabaseName: db, ObjectStoreName: store.Name, PageSize: int64(min(budget, 100))}, &data, "storage", pc)
			if err != nil || !ok {
				return err
			}
			if data.HasMore {
				truncate()
			}
			for _, en := range data.Entries {
				budget--
				v, complete := stableRemote(en.Value)
				k, _ := stableRemote(en.Key)
				st.Fingerprints = append(st.Fingerprints, ports.BrowserStorageFingerprint{Scope: "indexed_db_record",
					Identity:    map[string]string{"database": db, "store": store.Name, "key_sha256": sha256Hex(k)},
					ValueSHA256: sha256Hex(v), Complete: complete})
			}
		}
	}
	for _, name := range st.CacheNames {
		id := cacheIDs[name]
		if id == "" || budget <= 0 {
			// Past the budget, or a name cut to 1024 bytes that no
			// longer finds its cache: its entries are not fingerprinted.
			truncate()
			continue
		}
		var entries struct {
			Entries []struct {
				RequestURL     string            `json:"requestURL"`
				RequestMethod  string            `json:"requestMethod"`
				RequestHeaders []json.RawMessage `json:"requestHeaders"`
			} `json:"cacheDataEntries"`
			ReturnCount float64 `json:"returnCount"`
		}
		ok, err := optional(ctx, a.page, cachestorage.CommandRequestEntries, cachestorage.RequestEntriesParams{CacheID: cachestorage.CacheID(id), PageSize: int64(min(budget, 100))}, &entries, "storage", pc)
		if err != nil || !ok {
			return err
		}
		if int(entries.ReturnCount) > len(entries.Entries) {
			truncate()
		}
		for _, en := range entries.Entries {
			budget--
			fp := ports.BrowserStorageFingerprint{Scope: "cache_entry", Identity: map[string]string{"cache": name, "url": en.RequestURL, "method": en.RequestMethod}}
			headers := en.RequestHeaders
			if headers == nil {
				headers = []json.RawMessage{}
			}
			var body struct {
				Response struct {
					Body string `json:"body"`
				} `json:"response"`
			}
			params, _ := json.Marshal(map[string]any{"cacheId": id, "requestURL": en.RequestURL, "requestHeaders": headers})
			ok, err := optional(ctx, a.page, cachestorage.CommandRequestCachedResponse, json.RawMessage(params), &body, "storage", pc)
			if err != nil || !ok {
				return err
			}
			if b, err := base64.StdEncoding.DecodeString(body.Response.Body); err == nil && len(b) <= maxCachedBody {
				fp.ValueSHA256, fp.Complete = sha256Hex(b), true
			}
			st.Fingerprints = append(st.Fingerprints, fp)
		}
	}
	return nil
}

// stableRemote is a deterministic encoding of a RemoteObject without its
// per-session handles (objectId, customPreview); complete is false when
// the object's contents are only partly shown (no value and a preview that
// overflows or is absent).
func stableRemote(raw json.RawMessage) ([]byte, bool) {
	var m map[string]any
	if json.Unmarshal(raw, &m) != nil {
		return raw, false
	}
	delete(m, "objectId")
	delete(m, "customPreview")
	complete := true
	if _, hasValue := m["value"]; !hasValue && m["type"] == "object" && m["subtype"] != "null" {
		p, _ := m["preview"].(map[string]any)
		complete = p != nil && p["overflow"] == false && previewComplete(p, 0)
	}
	b, _ := json.Marshal(m) // maps marshal with sorted keys
	return b, complete
}

// previewComplete reports whether nested previews are all present and not
// overflowing, to depth 8.
func previewComplete(p map[string]any, depth int) bool {
	if depth >= 8 {
		return false
	}
	props, _ := p["properties"].([]any)
	for _, x := range props {
		prop, _ := x.(map[string]any)
		if prop["type"] == "object" && prop["subtype"] != "null" {
			vp, _ := prop["valuePreview"].(map[string]any)
			if vp == nil || vp["overflow"] != false || !previewComplete(vp, depth+1) {
				return false
			}
		}
	}
	return true
}
