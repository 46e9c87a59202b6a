// Command fakeghidra stands in for Ghidra's support/analyzeHeadless in the
// adapter's tests. It takes analyzeHeadless's argv, reads the session
// descriptor (the last argument) and deletes it, binds the descriptor's Unix
// socket, and speaks the bridge protocol: ping is answered from the
// descriptor, read_bytes from the imported copy and the recorded segment
// table, every other request from the transcript named by
// FAKE_GHIDRA_TRANSCRIPT (the record/replay format), matched on method and
// parameters.
//
// FAKE_GHIDRA_LAUNCH names a file that gets the launch (argv, environment,
// the descriptor's token and the script directory's files) as JSON.
// FAKE_GHIDRA_DELAY_MS delays the bind; FAKE_GHIDRA_STARTS names a file that
// gets one line per start; FAKE_GHIDRA_MODE misbehaves: crash (exit before
// the bind), crash-after-ready (exit at the first request after ping), hang
// (never bind), analysis-timeout (ping reports Ghidra's analysis timed
// out), ignore-term (ignore SIGTERM), fork (leave a child running),
// stranger (leave a process in the group that the supervisor cannot prove
// rea's; package fakeproc),
// oversized (a 2 MiB reply), malformed (a reply that is not JSON), or
// error:<code> (answer every request after ping with that error code).
package main

import (
	"bufio"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"strconv"
	"strings"
	"time"

	"rea/adapters/internal/fakeproc"
)

func main() {
	fakeproc.Child("FAKE_GHIDRA")
	args := os.Args[1:]
	if len(args) < 2 {
		fail("usage: analyzeHeadless ... -postScript ReaGhidraBridge.java <descriptor>")
	}
	desc := args[len(args)-1]
	var imported string
	for i, a := range args {
		if a == "-import" && i+1 < len(args) {
			imported = args[i+1]
		}
	}
	mode, err := fakeproc.Begin("FAKE_GHIDRA")
	if err != nil {
		fail(err.Error())
	}
	b, err := os.ReadFile(desc)
	if err != nil {
		fail("descriptor: " + err.Error())
	}
	os.Remove(desc)
	var d struct {
		SchemaVersion   int    `json:"schema_version"`
		Transport       string `json:"transport"`
		EndpointPath    string `json:"endpoint_path"`
		Token           string `json:"token"`
		RunID           string `json:"run_id"`
		TargetSHA256    string `json:"target_sha256"`
		ProviderVersion string `json:"provider_version"`
		ProfileDigest   string `json:"profile_digest"`
	}
	if err := json.Unmarshal(b, &d); err != nil || d.SchemaVersion != 2 || d.Token == "" {
		fail("descriptor out of shape")
	}
	if p := os.Getenv("FAKE_GHIDRA_LAUNCH"); p != "" {
		// What the launch looked like, for the test to check: argv, the
		// environment, the descriptor's token, and the bridge's files in
		// the script directory.
		var scripts []string
		for i, a := range args {
			if a == "-scriptPath" && i+1 < len(args) {
				es, _ := os.ReadDir(args[i+1])
				for _, e := range es {
					scripts = append(scripts, e.Name())
				}
			}
		}
		out, _ := json.Marshal(map[string]any{"argv": args, "env": os.Environ(), "token": d.Token, "scripts": scripts})
		if err := os.WriteFile(p, out, 0o600); err != nil {
			fail("launch record: " + err.Error())
		}
	}
	if ms, _ := strconv.Atoi(os.Getenv("FAKE_GHIDRA_DELAY_MS")); ms > 0 {
		time.Sleep(time.Duration(ms) * time.Millisecond)
	}
	switch mode {
	case "crash":
		fmt.Fprintln(os.Stderr, "fake ghidra: import failed")
		os.Exit(3)
	case "hang":
		time.Sleep(time.Hour)
	}
	answers := loadTranscript(os.Getenv("FAKE_GHIDRA_TRANSCRIPT"))
	l, err := net.Listen("unix", d.EndpointPath)
	if err != nil {
		fail("listen: " + err.Error())
	}
	os.Chmod(d.EndpointPath, 0o600)
	defer os.Remove(d.EndpointPath)
	c, err := l.Accept()
	if err != nil {
		fail("accept: " + err.Error())
	}
	l.Close()
	r := bufio.NewReaderSize(c, 1<<20)
	w := bufio.NewWriter(c)
	reply := func(v map[string]any) {
		line, _ := json.Marshal(v)
		w.Write(append(line, '\n'))
		w.Flush()
	}
	for {
		line, err := r.ReadBytes('\n')
		if err != nil {
			return
		}
		var req struct {
			ID     int64          `json:"id"`
			Token  string         `json:"token"`
			Method string         `json:"method"`
			Params map[string]any `json:"params"`
		}
		if json.Unmarshal(line, &req) != nil || req.Token != d.Token || req.ID < 1 {
			reply(map[string]any{"id": 1, "ok": false, "error": map[string]any{"code": "invalid_request", "message": "Bridge request is invalid"}})
			return
		}
		switch {
		case req.Method == "ping":
			info := ping(d.RunID, d.ProfileDigest, d.ProviderVersion, d.TargetSHA256, imported)
			if mode == "analysis-timeout" {
				info["analysis_complete"], info["analysis_timed_out"] = false, true
			}
			reply(map[string]any{"id": req.ID, "ok": true, "result": info})
			continue
		case req.Method == "shutdown":
			reply(map[string]any{"id": req.ID, "ok": true, "result": map[string]any{"shutdown": true, "project_ephemeral": true}})
			return
		case mode == "crash-after-ready":
			os.Exit(4)
		case mode == "oversized":
			w.WriteString(`{"id":` + strconv.FormatInt(req.ID, 10) + `,"ok":true,"result":"` + strings.Repeat("x", 2<<20) + "\"}\n")
			w.Flush()
			continue
		case mode == "malformed":
			w.WriteString("{not json\n")
			w.Flush()
			continue
		case strings.HasPrefix(mode, "error:"):
			reply(map[string]any{"id": req.ID, "ok": false, "error": map[string]any{"code": strings.TrimPrefix(mode, "error:"), "message": "fake engine told to fail"}})
			continue
		case req.Method == "read_bytes":
			reply(readBytes(req.ID, req.Params, imported, answers))
			continue
		}
		key := keyOf(req.Method, req.Params)
		ans, ok := answers[key]
		if !ok {
			fmt.Fprintln(os.Stderr, "fake ghidra: unrecorded request", key)
			reply(map[string]any{"id": req.ID, "ok": false, "error": map[string]any{"code": "bridge_exception", "message": "unrecorded request " + key}})
			continue
		}
		ans["id"] = req.ID
		reply(ans)
	}
}

func fail(msg string) {
	fmt.Fprintln(os.Stderr, "fake ghidra:", msg)
	os.Exit(2)
}

func keyOf(method string, params map[string]any) string {
	b, _ := json.Marshal(params)
	return method + " " + string(b)
}

// loadTranscript reads request/response pairs from a replay transcript.
func loadTranscript(path string) map[string]map[string]any {
	out := map[string]map[string]any{}
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
	// Requests and responses pair by id: a recording may log a fast reply
	// before the request that caused it (they are written by two
	// goroutines). Hand-written transcripts with one id throughout pair in
	// order.
	// A recording of several connections (the live lane's) starts each
	// connection's ids again: a request whose id is not above the last one
	// begins a connection, and requests of the one before left unanswered
	// (cancelled, or closed before the reply) are forgotten, so their ids
	// pair with the new connection's replies.
	var pending string
	byID := map[string]string{}          // request id -> key
	early := map[string]map[string]any{} // responses seen before their request
	last := -1.0
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
				ID     json.RawMessage `json:"id"`
				Method string          `json:"method"`
				Params map[string]any  `json:"params"`
			}
			if json.Unmarshal([]byte(*e.Text), &req) == nil {
				pending = keyOf(req.Method, req.Params)
				id := string(req.ID)
				if n, err := strconv.ParseFloat(id, 64); err == nil {
					if n <= last {
						clear(byID)
					}
					last = n
				}
				byID[id] = pending
				if resp, ok := early[id]; ok {
					out[pending] = resp
					delete(early, id)
					pending = ""
				}
			}
		case "response":
			var resp map[string]any
			if json.Unmarshal([]byte(*e.Text), &resp) != nil {
				pending = ""
				continue
			}
			rawID, _ := json.Marshal(resp["id"])
			id := string(rawID)
			switch key, ok := byID[id]; {
			case ok && key != "":
				out[key] = resp
				delete(byID, id)
			case pending != "":
				out[pending] = resp
			default:
				early[id] = resp
			}
			pending = ""
		}
	}
	return out
}

func ping(runID, digest, version, sha, imported string) map[string]any {
	name := imported[strings.LastIndex(imported, "/")+1:]
	return map[string]any{
		"name": "REA Ghidra bridge", "bridge_version": 6, "run_id": runID, "profile_digest": digest,
		"provider": map[string]any{"id": "ghidra", "version": version}, "read_only": true,
		"analysis_complete": true, "analysis_timed_out": false,
		"capabilities": []string{"ping", "shutdown", "address_name", "list_documents", "list_names",
			"list_procedures", "list_segments", "list_strings", "procedure_address",
			"procedure_info", "procedure_pseudo_code", "read_bytes", "function_body", "list_references", "disassemble", "native_api"},
		"target": map[string]any{"name": name, "language_id": "x86:LE:64:default", "compiler_spec_id": "gcc",
			"image_base": "0x400000", "default_address_space": "ram", "sha256": sha},
	}
}

// readBytes answers from the imported copy through the recorded segments.
func readBytes(id int64, params map[string]any, imported string, answers map[string]map[string]any) map[string]any {
	notFound := map[string]any{"id": id, "ok": false, "error": map[string]any{"code": "not_found", "message": "no initialized block"}}
	addrText, _ := params["address"].(string)
	length, _ := params["length"].(float64)
	addr, err := strconv.ParseUint(strings.TrimPrefix(addrText, "0x"), 16, 64)
	if err != nil {
		return notFound
	}
	segs, _ := answers[keyOf("list_segments", map[string]any{"document": nil})]["result"].([]any)
	data, _ := os.ReadFile(imported)
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
			return notFound
		}
		return map[string]any{"id": id, "ok": true, "result": map[string]any{"address": addrText, "base64": base64.StdEncoding.EncodeToString(data[from:to])}}
	}
	return notFound
}
