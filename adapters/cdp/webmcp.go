package cdp

import (
	"bytes"
	"context"
	"encoding/json"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/chromedp/cdproto"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/webmcp"

	"rea/ports"
)

// The WebMCP payloads are decoded from raw JSON: cdproto types
// backendNodeId and the annotations as plain values, where absence means
// something (BROWSER.md §1).
type wmTool struct {
	Name        *string         `json:"name"`
	Description string          `json:"description"`
	InputSchema json.RawMessage `json:"inputSchema"`
	Annotations *struct {
		ReadOnly         *bool `json:"readOnly"`
		UntrustedContent *bool `json:"untrustedContent"`
		Autosubmit       *bool `json:"autosubmit"`
	} `json:"annotations"`
	FrameID       *string         `json:"frameId"`
	BackendNodeID json.RawMessage `json:"backendNodeId"`
	StackTrace    *evStackTrace   `json:"stackTrace"`
}

type wmState struct {
	mu        sync.Mutex
	sid       string
	sc        scope
	frames    map[string]wmFrame // in-scope frames
	tools     map[[2]string]ports.WebMCPTool
	max       int
	maxSchema int
	dropped   int
	bad       *ports.BrowserError
	limits    map[string]bool
}

type wmFrame struct {
	url, parent string
}

func (st *wmState) removeFrame(id string) {
	delete(st.frames, id)
	for k := range st.tools {
		if k[0] == id {
			delete(st.tools, k)
		}
	}
	for fid, f := range st.frames {
		if f.parent == id {
			st.removeFrame(fid)
		}
	}
}

func (st *wmState) onEvent(ev event) {
	if ev.SessionID != st.sid {
		return
	}
	st.mu.Lock()
	defer st.mu.Unlock()
	switch ev.Method {
	case cdproto.EventPageFrameDetached:
		var e evFrameDetached
		if decode(ev.Params, &e) {
			st.removeFrame(e.FrameID)
		}
	case cdproto.EventPageFrameNavigated:
		var e evFrameNavigated
		if !decode(ev.Params, &e) || e.Frame == nil {
			return
		}
		u := e.Frame.URL + e.Frame.URLFragment
		if st.sc.allows(u) {
			if f, ok := st.frames[e.Frame.ID]; ok {
				f.url = u
				st.frames[e.Frame.ID] = f
			}
		} else {
			st.removeFrame(e.Frame.ID)
		}
	case webmcp.ToolsAdded.Method:
		var e struct {
			Tools []wmTool `json:"tools"`
		}
		if !decode(ev.Params, &e) {
			st.bad = &ports.BrowserError{Code: ports.BrowserProtocolError, Msg: "a malformed WebMCP.toolsAdded payload"}
			return
		}
		for _, t := range e.Tools {
			st.add(t)
		}
	case webmcp.ToolsRemoved.Method:
		var e struct {
			Tools []struct {
				Name    string `json:"name"`
				FrameID string `json:"frameId"`
			} `json:"tools"`
		}
		if !decode(ev.Params, &e) {
			st.bad = &ports.BrowserError{Code: ports.BrowserProtocolError, Msg: "a malformed WebMCP.toolsRemoved payload"}
			return
		}
		for _, t := range e.Tools {
			delete(st.tools, [2]string{t.FrameID, t.Name})
		}
	}
}

func (st *wmState) add(t wmTool) {
	if t.Name == nil || *t.Name == "" || t.FrameID == nil {
		st.bad = &ports.BrowserError{Code: ports.BrowserProtocolError, Msg: "a WebMCP tool without name or frameId"}
		return
	}
	f, ok := st.frames[*t.FrameID]
	if !ok {
		return // not an in-scope frame of this page
	}
	key := [2]string{*t.FrameID, *t.Name}
	if _, exists := st.tools[key]; !exists && len(st.tools) >= st.max {
		st.dropped++
		return
	}
	clean, origin := sanitizeURL(f.url)
	tool := ports.WebMCPTool{
		Name: cut(*t.Name, 512), Description: cut(t.Description, 4096), FrameID: *t.FrameID,
		FrameURL: clean, OwnerOrigin: origin,
	}
	bn := bytes.TrimSpace(t.BackendNodeID)
	tool.Declarative = len(bn) > 0 && (bn[0] == '-' || (bn[0] >= '0' && bn[0] <= '9'))
	if s := bytes.TrimSpace(t.InputSchema); len(s) > 0 && string(s) != "null" {
		if len(s) > st.maxSchema {
			st.limits["An input schema over the schema byte limit was omitted."] = true
		} else {
			tool.InputSchema = append([]byte(nil), s...)
		}
	}
	if an := t.Annotations; an != nil {
		tool.Annotations = ports.WebMCPAnnotations{ReadOnly: an.ReadOnly, UntrustedContent: an.UntrustedContent, Autosubmit: an.Autosubmit}
	}
	if cf := topFrame(t.StackTrace); cf != nil && st.sc.allows(cf.URL) {
		c, _ := sanitizeURL(cf.URL)
		loc := &ports.BrowserSourceLocation{URL: c}
		if cf.LineNumber != nil {
			loc.Line = *cf.LineNumber + 1
		}
		if cf.ColumnNumber != nil {
			loc.Column = *cf.ColumnNumber
		}
		tool.RegistrationSource = loc
	}
	st.tools[key] = tool
}

// DiscoverWebMCPTools lists the WebMCP tools the page's in-scope frames
// register. It only enables the domain and listens: tools are never
// invoked.
func (e *Engine) DiscoverWebMCPTools(ctx context.Context, req ports.WebMCPRequest) (*ports.WebMCPDiscovery, error) {
	if req.ObservationMS == 0 {
		req.ObservationMS = 100
	}
	if req.MaxTools == 0 {
		req.MaxTools = 500
	}
	if req.MaxSchemaBytes == 0 {
		req.MaxSchemaBytes = 256 << 10
	}
	if req.ObservationMS < 0 || req.ObservationMS > 60000 || req.MaxTools < 0 || req.MaxSchemaBytes < 0 {
		return nil, &ports.BrowserError{Code: ports.BrowserInvalidRequest, Field: "observation_ms", Msg: "limits out of range"}
	}
	a, err := e.attach(ctx, req.Target)
	if err != nil {
		return nil, err
	}
	defer a.close(ctx)
	st := &wmState{sid: a.page.id, sc: a.scope, frames: map[string]wmFrame{}, tools: map[[2]string]ports.WebMCPTool{},
		max: req.MaxTools, maxSchema: req.MaxSchemaBytes, limits: map[string]bool{}}
	a.c.setListener(st.onEvent)
	if err := a.enable(ctx, "Page", nil); err != nil {
		return nil, err
	}
	ft, err := a.frameTree(ctx)
	if err != nil {
		return nil, err
	}
	first := frameURL(ft.Frame)
	if !a.scope.allows(first) {
		return nil, &ports.BrowserError{Code: ports.BrowserTargetNotAllowed, Msg: "the main frame is outside the allowed origins"}
	}
	st.mu.Lock()
	var walk func(t *page.FrameTree, parent string)
	walk = func(t *page.FrameTree, parent string) {
		if t == nil || t.Frame == nil || len(st.frames) >= 1000 {
			return
		}
		u := frameURL(t.Frame)
		if a.scope.allows(u) {
			st.frames[string(t.Frame.ID)] = wmFrame{url: u, parent: parent}
		}
		for _, c := range t.ChildFrames {
			walk(c, string(t.Frame.ID))
		}
	}
	walk(ft, "")
	st.mu.Unlock()
	out := &ports.WebMCPDiscovery{Browser: a.info, Target: a.target, Status: "available", Tools: []ports.WebMCPTool{}}
	if err := a.page.c.call(ctx, a.page.id, webmcp.CommandEnable, nil, nil); err != nil {
		be, ok := ports.AsBrowserError(err)
		if !ok || be.Code != ports.BrowserProtocolError || be.Err == nil {
			return nil, err
		}
		out.Status = "unavailable"
		out.UnavailableReason = "the browser target has no WebMCP domain (" + be.Err.Error() + ")"
		out.Limitations = append(out.Limitations, webmcp.CommandEnable+" was unavailable from this browser target.")
		return out, nil
	}
	a.enabled = append(a.enabled, "WebMCP")
	if err := sleep(ctx, time.Duration(max(req.ObservationMS, 25))*time.Millisecond, a.gone()); err != nil {
		return nil, err
	}
	ft2, err := a.frameTree(ctx)
	if err != nil {
		return nil, err
	}
	u2 := frameURL(ft2.Frame)
	if !a.scope.allows(u2) {
		return nil, &ports.BrowserError{Code: ports.BrowserTargetNotAllowed, Msg: "the main frame left the allowed origins"}
	}
	if !sameDocument(ft.Frame, ft2.Frame) {
		return nil, &ports.BrowserError{Code: ports.BrowserTargetChanged, Msg: "the main frame navigated during discovery"}
	}
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.bad != nil {
		return nil, st.bad
	}
	for _, t := range st.tools {
		out.Tools = append(out.Tools, t)
	}
	slices.SortFunc(out.Tools, func(x, y ports.WebMCPTool) int {
		if c := strings.Compare(x.FrameURL, y.FrameURL); c != 0 {
			return c
		}
		if c := strings.Compare(x.Name, y.Name); c != 0 {
			return c
		}
		return strings.Compare(x.FrameID, y.FrameID)
	})
	out.Dropped.WebMCPTools = st.dropped
	for l := range st.limits {
		out.Limitations = append(out.Limitations, l)
	}
	slices.Sort(out.Limitations)
	return out, nil
}
