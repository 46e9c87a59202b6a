// Command fakehopper stands in for Hopper's launcher in the adapter's tests.
// It takes Hopper's argv, reads the session from the bootstrap rea wrote
// (the values the real bootstrap puts into the bridge's environment), binds
// the socket and speaks the bridge protocol: health and shutdown are
// answered from the bootstrap, read_bytes from the target's bytes through
// the recorded segments, every other request from the replay transcript
// named by FAKE_HOPPER_TRANSCRIPT, matched on method and parameters, with
// every recorded line (events, then the result or error) sent again under
// the request's id. Annotations (get_annotation, set_annotation,
// remove_annotation) are kept in memory as the bridge keeps them in
// Hopper's document, and list_names answers from the recorded names with
// the renames applied.
//
// FAKE_HOPPER_DELAY_MS delays the bind; FAKE_HOPPER_STARTS names a file
// that gets one line per start; FAKE_HOPPER_MODE misbehaves: crash (exit
// before the bind), crash-after-ready (exit at the first request after
// health), hang (never bind), ignore-term (ignore SIGTERM), fork (leave a
// child running), stranger (leave a process in the group that the
// supervisor cannot prove rea's; package fakeproc), oversized (an 11 MiB line), malformed (a line that is not
// JSON), wrong-id (answer under another id), bad-health (health names
// another run), error:<type> (answer every request after health with
// that error type) or error:<type>:<method> (only requests of that method).
package main

import (
	"bufio"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"rea/adapters/internal/fakeproc"
)

var envLine = regexp.MustCompile(`(?m)^os\.environ\["(REA_[A-Z_]+)"\] = (".*")$`)

func main() {
	fakeproc.Child("FAKE_HOPPER")
	var boot, target string
	args := os.Args[1:]
	for i := 0; i+1 < len(args); i++ {
		switch args[i] {
		case "--python":
			boot = args[i+1]
		case "--executable", "--database":
			target = args[i+1]
		}
	}
	if boot == "" || target == "" {
		fail("usage: Hopper [loader] --analysis --python <bootstrap> --executable <target>")
	}
	mode, err := fakeproc.Begin("FAKE_HOPPER")
	if err != nil {
		fail(err.Error())
	}
	b, err := os.ReadFile(boot)
	if err != nil {
		fail("bootstrap: " + err.Error())
	}
	env := map[string]string{}
	for _, m := range envLine.FindAllStringSubmatch(string(b), -1) {
		var v string
		if json.Unmarshal([]byte(m[2]), &v) == nil {
			env[m[1]] = v
		}
	}
	if env["REA_SOCKET"] == "" || env["REA_TOKEN"] == "" || env["REA_RUN_ID"] == "" {
		fail("bootstrap out of shape")
	}
	if ms, _ := strconv.Atoi(os.Getenv("FAKE_HOPPER_DELAY_MS")); ms > 0 {
		time.Sleep(time.Duration(ms) * time.Millisecond)
	}
	switch mode {
	case "crash":
		fmt.Fprintln(os.Stderr, "fake hopper: loading failed")
		os.Exit(3)
	case "hang":
		time.Sleep(time.Hour)
	}
	answers := loadTranscript(os.Getenv("FAKE_HOPPER_TRANSCRIPT"))
	notes := newNotes(answers)
	l, err := net.Listen("unix", env["REA_SOCKET"])
	if err != nil {
		fail("listen: " + err.Error())
	}
	os.Chmod(env["REA_SOCKET"], 0o600)
	defer os.Remove(env["REA_SOCKET"])
	c, err := l.Accept()
	if err != nil {
		fail("accept: " + err.Error())
	}
	l.Close()
	r := bufio.NewReaderSize(c, 1<<20)
	w := bufio.NewWriter(c)
	send := func(v map[string]any) {
		line, _ := json.Marshal(v)
		w.Write(append(line, '\n'))
		w.Flush()
	}
	started := func(id int64) {
		send(map[string]any{"id": id, "event": map[string]any{"type": "progress", "phase": "hopper_bridge", "completed": 0, "total": 1, "message": "Hopper bridge started request"}})
	}
	result := func(id int64, v any) {
		send(map[string]any{"id": id, "event": map[string]any{"type": "progress", "phase": "hopper_bridge", "completed": 1, "total": 1, "message": "Hopper bridge finished request", "terminal": true}})
		send(map[string]any{"id": id, "result": v})
	}
	failWith := func(id int64, typ, msg string) {
		e := map[string]any{"code": -32000, "message": msg, "type": typ}
		send(map[string]any{"id": id, "event": map[string]any{"type": "diagnostic", "error": e}})
		send(map[string]any{"id": id, "error": e})
	}
	for {
		line, err := r.ReadBytes('\n')
		if err != nil {
			return
		}
		var req struct {
			ID     *int64         `json:"id"`
			Token  string         `json:"token"`
			Method string         `json:"method"`
			Params map[string]any `json:"params"`
		}
		if json.Unmarshal(line, &req) != nil || req.ID == nil || *req.ID < 0 || req.Token != env["REA_TOKEN"] || req.Params == nil {
			send(map[string]any{"id": 0, "error": map[string]any{"code": -32000, "message": "Bridge request is invalid", "type": "authorization"}})
			return
		}
		id := *req.ID
		switch {
		case req.Method == "health":
			started(id)
			run := env["REA_RUN_ID"]
			if mode == "bad-health" {
				run = "another-run"
			}
			result(id, map[string]any{"name": "REA Hopper bridge", "version": "1.0.0", "run_id": run})
			continue
		case req.Method == "shutdown":
			started(id)
			result(id, map[string]any{"shutdown": true, "analysis_stopped": true, "document_closed": false})
			return
		case mode == "crash-after-ready":
			os.Exit(4)
		case mode == "oversized":
			w.WriteString(`{"id":` + strconv.FormatInt(id, 10) + `,"result":"` + strings.Repeat("x", 11<<20) + "\"}\n")
			w.Flush()
			continue
		case mode == "malformed":
			w.WriteString("{not json\n")
			w.Flush()
			continue
		case mode == "wrong-id":
			result(id+7, "x")
			continue
		case strings.HasPrefix(mode, "error:") && (!strings.Contains(mode[6:], ":") || strings.HasSuffix(mode, ":"+req.Method)):
			typ, _, _ := strings.Cut(strings.TrimPrefix(mode, "error:"), ":")
			started(id)
			failWith(id, typ, "fake engine told to fail")
			continue
		case req.Method == "read_bytes":
			started(id)
			v, ok := readBytes(req.Params, target, answers)
			if !ok {
				failWith(id, "invalid_request", "no segment maps the address")
				continue
			}
			result(id, v)
			continue
		}
		if v, handled, err := notes.answer(req.Method, req.Params); handled {
			started(id)
			if err != "" {
				failWith(id, "invalid_request", err)
				continue
			}
			result(id, v)
			continue
		}
		key := keyOf(req.Method, req.Params)
		lines, ok := answers[key]
		if !ok || len(lines) == 0 { // no lines: the transcript lost its reply
			fmt.Fprintln(os.Stderr, "fake hopper: unrecorded request", key)
			started(id)
			failWith(id, "bridge_exception", "unrecorded request "+key)
			continue
		}
		for _, l := range lines {
			m := map[string]any{}
			for k, v := range l {
				m[k] = v
			}
			m["id"] = id
			send(m)
		}
	}
}

func fail(msg string) {
	fmt.Fprintln(os.Stderr, "fake hopper:", msg)
	os.Exit(2)
}

func keyOf(method string, params map[string]any) string {
	b, _ := json.Marshal(params)
	return method + " " + string(b)
}

// loadTranscript reads a replay transcript: each request with the response
// lines (events, then the reply) that carry its id, in order. A recording
// can log a fast reply before its request, so replies wait for the request
// with their id; a transcript whose requests all use one id (make_fixture.py)
// pairs each request with the lines that follow it, and one of several
// connections, whose ids repeat, pairs each request with the lines of its
// own connection.
func loadTranscript(path string) map[string][]map[string]any {
	out := map[string][]map[string]any{}
	if path == "" {
		return out
	}
	f, err := os.Open(path)
	if err != nil {
		fail("transcript: " + err.Error())
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	byID := map[float64]string{}
	pending := map[float64][]map[string]any{}
	// answered marks the requests whose reply (result or error) is in: a
	// transcript of several connections (the live lane's recording) reuses
	// ids, so a later line with such an id waits for its own request.
	answered := map[string]bool{}
	// A request whose id is not above the last one begins a connection:
	// requests of the one before left unanswered are forgotten.
	last := -1.0
	final := func(l map[string]any) bool {
		_, r := l["result"]
		_, e := l["error"]
		return r || e
	}
	for sc.Scan() {
		var e struct {
			Type string  `json:"type"`
			Text *string `json:"text"`
		}
		if json.Unmarshal(sc.Bytes(), &e) != nil || e.Text == nil {
			continue
		}
		switch e.Type {
		case "request":
			var req struct {
				ID     float64        `json:"id"`
				Method string         `json:"method"`
				Params map[string]any `json:"params"`
			}
			if json.Unmarshal([]byte(*e.Text), &req) == nil {
				key := keyOf(req.Method, req.Params)
				if req.ID <= last {
					clear(byID)
				}
				last = req.ID
				byID[req.ID] = key
				out[key] = pending[req.ID]
				answered[key] = slices.ContainsFunc(out[key], final)
				delete(pending, req.ID)
			}
		case "response":
			var resp map[string]any
			if json.Unmarshal([]byte(*e.Text), &resp) != nil {
				continue
			}
			id, _ := resp["id"].(float64)
			if key, ok := byID[id]; ok && !answered[key] {
				out[key] = append(out[key], resp)
				answered[key] = final(resp)
			} else {
				pending[id] = append(pending[id], resp)
			}
		}
	}
	return out
}

// readBytes answers from the target's bytes through the recorded segments.
func readBytes(params map[string]any, target string, answers map[string][]map[string]any) (map[string]any, bool) {
	addrText, _ := params["address"].(string)
	length, _ := params["length"].(float64)
	addr, err := strconv.ParseUint(strings.TrimPrefix(addrText, "0x"), 16, 64)
	if err != nil || length < 1 || length > 4096 {
		return nil, false
	}
	var segs []any
	for _, l := range answers[keyOf("list_segments", map[string]any{})] {
		if r, ok := l["result"].([]any); ok {
			segs = r
		}
	}
	data, _ := os.ReadFile(target)
	for _, s := range segs {
		m, _ := s.(map[string]any)
		start, err1 := strconv.ParseUint(strings.TrimPrefix(fmt.Sprint(m["start"]), "0x"), 16, 64)
		off, ok := m["file_offset"].(float64)
		n, _ := m["file_bytes"].(float64)
		if err1 != nil || !ok || addr < start || addr-start >= uint64(n) {
			continue
		}
		from := uint64(off) + addr - start
		to := min(uint64(off)+uint64(n), from+uint64(length), uint64(len(data)))
		if from > to {
			return nil, false
		}
		b := data[from:to]
		return map[string]any{"address": addrText, "requested_bytes": int(length), "returned_bytes": len(b),
			"bytes_hex": hex.EncodeToString(b), "complete": len(b) == int(length)}, true
	}
	return nil, false
}

// notes is the fake document's names and comments: the recorded names, and
// what the session set since.
type notes struct {
	mapped [][2]uint64 // segment [start, end)
	text   map[string]map[uint64]string
}

func newNotes(answers map[string][]map[string]any) *notes {
	n := &notes{text: map[string]map[uint64]string{"name": {}, "comment": {}, "inline_comment": {}}}
	for _, l := range answers[keyOf("list_segments", map[string]any{})] {
		segs, _ := l["result"].([]any)
		for _, s := range segs {
			m, _ := s.(map[string]any)
			start, err1 := parseHex(m["start"])
			end, err2 := parseHex(m["end"])
			if err1 == nil && err2 == nil {
				n.mapped = append(n.mapped, [2]uint64{start, end})
			}
		}
	}
	for _, l := range answers[keyOf("list_names", map[string]any{"offset": 0.0, "limit": 500.0})] {
		page, _ := l["result"].(map[string]any)
		items, _ := page["items"].([]any)
		for _, it := range items {
			m, _ := it.(map[string]any)
			if a, err := parseHex(m["address"]); err == nil {
				n.text["name"][a], _ = m["value"].(string)
			}
		}
	}
	return n
}

func parseHex(v any) (uint64, error) {
	s, _ := v.(string)
	return strconv.ParseUint(strings.TrimPrefix(s, "0x"), 16, 64)
}

// answer handles the annotation methods and list_names; handled is false
// for every other method. err is an invalid_request message.
func (n *notes) answer(method string, params map[string]any) (v any, handled bool, err string) {
	switch method {
	case "list_names":
		offset, _ := params["offset"].(float64)
		limit, _ := params["limit"].(float64)
		addrs := make([]uint64, 0, len(n.text["name"]))
		for a := range n.text["name"] {
			addrs = append(addrs, a)
		}
		slices.Sort(addrs)
		items := []any{}
		for _, a := range addrs {
			items = append(items, map[string]any{"address": fmt.Sprintf("0x%x", a), "value": n.text["name"][a], "value_truncated": false})
		}
		from := min(int(offset), len(items))
		to := min(from+int(limit), len(items))
		var next any
		if to < len(items) {
			next = to
		}
		return map[string]any{"items": items[from:to], "offset": int(offset), "limit": int(limit), "total": len(items),
			"next_offset": next, "has_more": to < len(items)}, true, ""
	case "get_annotation", "set_annotation", "remove_annotation":
	default:
		return nil, false, ""
	}
	kind, _ := params["kind"].(string)
	m, ok := n.text[kind]
	if !ok {
		return nil, true, "kind must be one of name, comment, inline_comment"
	}
	addr, perr := parseHex(params["address"])
	mapped := false
	for _, r := range n.mapped {
		mapped = mapped || (addr >= r[0] && addr < r[1])
	}
	if perr != nil || !mapped {
		return nil, true, "no segment maps the address"
	}
	at := fmt.Sprintf("0x%x", addr)
	current := func() any {
		if t, ok := m[addr]; ok {
			return t
		}
		return nil
	}
	switch method {
	case "set_annotation":
		text, _ := params["text"].(string)
		if text == "" || strings.ContainsFunc(text, func(r rune) bool { return (r < 0x20 && r != '\t') || r == 0x7f }) {
			return nil, true, "text must be 1 to 4096 characters without control characters"
		}
		m[addr] = text
	case "remove_annotation":
		_, had := m[addr]
		delete(m, addr)
		return map[string]any{"kind": kind, "address": at, "removed": had}, true, ""
	}
	return map[string]any{"kind": kind, "address": at, "text": current()}, true, ""
}
