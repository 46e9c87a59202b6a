package cdptest

import (
	"encoding/json"
	"net/http"
	"slices"
	"strings"
	"sync"

	"rea/adapters/cdp/internal/wsock"
)

// Inspector is a scripted fake of a V8 inspector endpoint as Node serves it
// (node --inspect): /json/version with only Browser and Protocol-Version,
// /json/list with "node" targets whose sockets live at /<id>, and sockets
// that answer every command with {} and record it. After Runtime.enable it
// reports Contexts; after Debugger.enable it reports Scripts as
// Debugger.scriptParsed, as V8 replays the scripts it holds.
type Inspector struct {
	URL string

	opts InspectorOptions
	sockets

	mu    sync.Mutex
	calls []Call
}

// InspectorTarget is one /json/list entry.
type InspectorTarget struct {
	ID, Type, Title, URL string
	Attached             bool
	// SocketPath overrides the socket path ("/<id>"); "-" gives none.
	SocketPath string
}

// InspectorOptions script an Inspector.
type InspectorOptions struct {
	Targets []InspectorTarget
	// Scripts are Debugger.scriptParsed params sent after Debugger.enable.
	Scripts []map[string]any
	// Contexts are Runtime.executionContextCreated params sent after
	// Runtime.enable (default: one context with id 1).
	Contexts []map[string]any
	// RawEvents are sent verbatim after Debugger.enable (broken frames).
	RawEvents []string
	// RefuseSockets answers every WebSocket handshake with 400 (another
	// debugger holds the target).
	RefuseSockets bool
	// CloseAfterEnable closes the socket after Debugger.enable's reply
	// (the process exited).
	CloseAfterEnable bool
	// DestroyAfterEnable reports every context destroyed after
	// Debugger.enable's reply and keeps the socket open, as Node does when
	// its program ends while a debugger is attached (it then waits for the
	// debugger to disconnect).
	DestroyAfterEnable bool
	// Version overrides /json/version's body.
	Version map[string]any
	// Refuse lists methods answered with a -32601 error instead of {}.
	Refuse []string
}

// NewInspector starts a fake inspector; Close stops it and its sockets.
func NewInspector(opts InspectorOptions) *Inspector {
	s := &Inspector{opts: opts}
	if s.opts.Contexts == nil {
		s.opts.Contexts = []map[string]any{{"context": map[string]any{"id": 1, "origin": "", "name": "node[1]", "auxData": map[string]any{"isDefault": true}}}}
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/json/version", func(w http.ResponseWriter, r *http.Request) {
		v := s.opts.Version
		if v == nil {
			v = map[string]any{"Browser": "node.js/v20.0.0-fake", "Protocol-Version": "1.1"}
		}
		json.NewEncoder(w).Encode(v)
	})
	mux.HandleFunc("/json/list", func(w http.ResponseWriter, r *http.Request) {
		items := []map[string]any{}
		for _, t := range s.opts.Targets {
			it := map[string]any{"id": t.ID, "type": t.Type, "title": t.Title, "url": t.URL, "description": "node.js instance"}
			if t.Attached {
				it["attached"] = true
			}
			p := t.SocketPath
			if p == "" {
				p = "/" + t.ID
			}
			if p != "-" {
				it["webSocketDebuggerUrl"] = "ws://" + strings.TrimPrefix(s.URL, "http://") + p
			}
			items = append(items, it)
		}
		json.NewEncoder(w).Encode(items)
	})
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		if s.opts.RefuseSockets {
			http.Error(w, "WebSockets request was expected", http.StatusBadRequest)
			return
		}
		c, err := wsock.Upgrade(w, r, 64<<20)
		if err != nil {
			return
		}
		s.add(c)
		go s.answer(c)
	})
	s.URL = s.listen(mux)
	return s
}

// Methods returns the methods received, in order.
func (s *Inspector) Methods() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []string
	for _, c := range s.calls {
		out = append(out, c.Method)
	}
	return out
}

// Calls returns the commands received, in order.
func (s *Inspector) Calls() []Call {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Call(nil), s.calls...)
}

// answer serves one socket.
func (s *Inspector) answer(c *wsock.Conn) {
	defer c.Close()
	event := func(method string, params any) {
		b, _ := json.Marshal(map[string]any{"method": method, "params": params})
		c.WriteMessage(wsock.OpText, b)
	}
	for {
		_, data, err := c.ReadMessage()
		if err != nil {
			return
		}
		var m wire
		if json.Unmarshal(data, &m) != nil {
			return
		}
		s.mu.Lock()
		s.calls = append(s.calls, Call{Method: m.Method, SessionID: m.SessionID, Params: m.Params})
		s.mu.Unlock()
		b, _ := json.Marshal(map[string]any{"id": m.ID, "result": map[string]any{}})
		if slices.Contains(s.opts.Refuse, m.Method) {
			b, _ = json.Marshal(map[string]any{"id": m.ID, "error": map[string]any{"code": -32601, "message": "'" + m.Method + "' wasn't found"}})
		}
		c.WriteMessage(wsock.OpText, b)
		switch m.Method {
		case "Runtime.enable":
			for _, cx := range s.opts.Contexts {
				event("Runtime.executionContextCreated", cx)
			}
		case "Debugger.enable":
			for _, sc := range s.opts.Scripts {
				event("Debugger.scriptParsed", sc)
			}
			for _, raw := range s.opts.RawEvents {
				c.WriteMessage(wsock.OpText, []byte(raw))
			}
			if s.opts.CloseAfterEnable {
				return
			}
			if s.opts.DestroyAfterEnable {
				for _, cx := range s.opts.Contexts {
					if m, ok := cx["context"].(map[string]any); ok {
						event("Runtime.executionContextDestroyed", map[string]any{"executionContextId": m["id"]})
					}
				}
			}
		}
	}
}
