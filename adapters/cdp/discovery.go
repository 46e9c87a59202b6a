package cdp

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"rea/ports"
)

// Discovery read bounds (BROWSER.md §1 [H]); [N] drops them, but a read of
// an untrusted peer stays bounded.
const (
	maxVersionBytes = 64 << 10
	maxListBytes    = 2 << 20
	maxTargets      = 1000
)

// endpoint is a validated cdp_endpoint.
type endpoint struct {
	Origin string // http://127.0.0.1:9222 or http://[::1]:9222
	Host   string // host:port as it goes on the wire
	Port   string
}

// parseEndpoint applies BROWSER.md §1's endpoint rules without any I/O.
func parseEndpoint(raw string) (endpoint, error) {
	bad := func(msg string) (endpoint, error) {
		return endpoint{}, &ports.BrowserError{Code: ports.BrowserInvalidRequest, Field: "cdp_endpoint", Msg: msg}
	}
	// A host that is no loopback address gets every problem at once: the
	// caller is likely to rewrite the whole endpoint, not one part.
	if p, port := remoteEndpointProblems(raw); len(p) > 0 {
		return bad("the endpoint " + strings.Join(p, "; ") + ": pass http://127.0.0.1:" + port +
			" (a browser on another machine: forward its debugging port to this one first, e.g. ssh -L " + port + ":127.0.0.1:" + port + ")")
	}
	if strings.ContainsAny(raw, "#?\\ \t\r\n") {
		return bad("the endpoint must have no query, fragment, backslash or space")
	}
	u, err := url.Parse(raw)
	if err != nil {
		// A bare loopback host:port is the usual slip.
		if h, p, herr := net.SplitHostPort(raw); herr == nil && (h == "127.0.0.1" || h == "::1") && p != "" {
			return bad("the endpoint is not a URL: pass http://" + raw)
		}
		return bad("the endpoint is not a URL")
	}
	if u.Scheme != "http" || u.Opaque != "" {
		// Node prints its inspector socket (ws://127.0.0.1:PORT/<id>) and
		// Chromium its browser socket; the endpoint is their HTTP origin.
		if (u.Scheme == "ws" || u.Scheme == "wss") && (u.Hostname() == "127.0.0.1" || u.Hostname() == "::1") && u.Port() != "" && u.User == nil {
			hint := " (the last path segment is the target_id)"
			if strings.Count(strings.Trim(u.Path, "/"), "/") > 0 || strings.Trim(u.Path, "/") == "" {
				hint = ""
			}
			return bad("the endpoint must be an http: URL: for the inspector socket " + raw + " pass http://" + u.Host + hint)
		}
		return bad("the endpoint must be an http: URL")
	}
	if u.User != nil {
		return bad("the endpoint must not carry userinfo")
	}
	if u.Path != "" && u.Path != "/" || u.RawPath != "" {
		// The discovery URL (/json, /json/version) or the browser
		// socket's path is the usual slip: name the origin to pass.
		if o := loopbackOrigin(u); o != "" {
			return bad("the endpoint must have no path: pass " + o)
		}
		return bad("the endpoint must have no path")
	}
	host, port := u.Hostname(), u.Port()
	switch {
	case host == "127.0.0.1" && u.Host == "127.0.0.1:"+port:
	case host == "::1" && u.Host == "[::1]:"+port:
	case (host == "127.0.0.1" || host == "::1") && port == "":
		return bad("the endpoint needs an explicit port 1..65535: http://" + strings.TrimSuffix(u.Host, ":") + ":PORT")
	case strings.EqualFold(host, "localhost"):
		// A name can resolve anywhere (and be rebound); the endpoint
		// names the loopback address itself (BROWSER.md §1).
		return bad("the endpoint host must be 127.0.0.1 or [::1], not the name localhost: use http://127.0.0.1:" + cmp.Or(port, "PORT"))
	default:
		return bad("the endpoint host must be 127.0.0.1 or [::1]")
	}
	n, err := strconv.Atoi(port)
	if err != nil || n < 1 || n > 65535 || strconv.Itoa(n) != port {
		return bad("the endpoint needs an explicit port 1..65535")
	}
	return endpoint{Origin: "http://" + u.Host, Host: u.Host, Port: port}, nil
}

// remoteEndpointProblems lists everything wrong with raw when it parses as
// a URL whose host is neither a loopback address nor localhost (those get
// one message each, with the origin to pass); nil otherwise. port is raw's
// port when it is a valid one, else "PORT".
func remoteEndpointProblems(raw string) (problems []string, port string) {
	u, err := url.Parse(raw)
	if err != nil || u.Opaque != "" || u.Host == "" {
		return nil, ""
	}
	switch h := u.Hostname(); {
	case h == "127.0.0.1", h == "::1", strings.EqualFold(h, "localhost"):
		return nil, ""
	}
	port = u.Port()
	var p []string
	if strings.ContainsAny(raw, "#?\\ \t\r\n") {
		p = append(p, "must have no query, fragment, backslash or space")
	}
	if u.Scheme != "http" {
		p = append(p, "must be an http: URL")
	}
	if u.User != nil {
		p = append(p, "must not carry userinfo")
	}
	if u.Path != "" && u.Path != "/" || u.RawPath != "" {
		p = append(p, "must have no path")
	}
	if n, err := strconv.Atoi(port); err != nil || n < 1 || n > 65535 || strconv.Itoa(n) != port {
		p, port = append(p, "needs an explicit port 1..65535"), "PORT"
	}
	return append(p, "must be on host 127.0.0.1 or [::1], not "+u.Hostname()), port
}

// loopbackOrigin is the endpoint to suggest for u, whose host is a
// loopback address or localhost: http://127.0.0.1:PORT or
// http://[::1]:PORT, with u's port when it is one; "" for any other host.
func loopbackOrigin(u *url.URL) string {
	var host string
	switch h := u.Hostname(); {
	case h == "127.0.0.1" || strings.EqualFold(h, "localhost"):
		host = "127.0.0.1"
	case h == "::1":
		host = "[::1]"
	default:
		return ""
	}
	port := "PORT"
	if n, err := strconv.Atoi(u.Port()); err == nil && n >= 1 && n <= 65535 && strconv.Itoa(n) == u.Port() {
		port = u.Port()
	}
	return "http://" + host + ":" + port
}

// discovered is one /json/list entry with its validated socket.
type discovered struct {
	ports.BrowserTarget
	rawURL string
	// socket is the rewritten ws:// URL, "" when unconnectable; kind is
	// "browser" or "page".
	socket string
}

type version struct {
	info      ports.BrowserInfo
	browserWS string // validated browser socket, "" when unusable
}

func httpClient() *http.Client {
	return &http.Client{
		Transport: &http.Transport{Proxy: nil, DisableKeepAlives: true, DisableCompression: true},
		CheckRedirect: func(*http.Request, []*http.Request) error {
			return http.ErrUseLastResponse
		},
	}
}

// getJSON fetches one discovery document, bounded.
func getJSON(ctx context.Context, ep endpoint, path string, max int64) ([]byte, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, ep.Origin+path, nil)
	if err != nil {
		return nil, &ports.BrowserError{Code: ports.BrowserInvalidRequest, Field: "cdp_endpoint", Err: err}
	}
	req.Header.Set("Accept", "application/json")
	resp, err := httpClient().Do(req)
	if err != nil {
		if ctx.Err() != nil {
			return nil, cancelled(ctx)
		}
		return nil, &ports.BrowserError{Code: ports.BrowserEndpointUnreachable, Msg: "GET " + path, Err: err}
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, &ports.BrowserError{Code: ports.BrowserInvalidEndpointResponse, Msg: "GET " + path + ": " + resp.Status}
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, max+1))
	if err != nil {
		if ctx.Err() != nil {
			return nil, cancelled(ctx)
		}
		return nil, &ports.BrowserError{Code: ports.BrowserEndpointUnreachable, Msg: "reading " + path, Err: err}
	}
	if int64(len(body)) > max {
		return nil, &ports.BrowserError{Code: ports.BrowserPayloadLimit, Msg: path + " is over " + strconv.FormatInt(max, 10) + " bytes"}
	}
	return body, nil
}

func discover(ctx context.Context, ep endpoint) (version, []discovered, error) {
	vb, err := getJSON(ctx, ep, "/json/version", maxVersionBytes)
	if err != nil {
		return version{}, nil, err
	}
	v, err := parseVersion(vb, ep)
	if err != nil {
		return version{}, nil, err
	}
	lb, err := getJSON(ctx, ep, "/json/list", maxListBytes)
	if err != nil {
		return version{}, nil, err
	}
	list, err := parseList(lb, ep)
	if err != nil {
		return version{}, nil, err
	}
	return v, list, nil
}

func invalidResponse(msg string) error {
	return &ports.BrowserError{Code: ports.BrowserInvalidEndpointResponse, Msg: msg}
}

// parseVersion checks /json/version: six string members.
func parseVersion(b []byte, ep endpoint) (version, error) {
	var m map[string]json.RawMessage
	if err := strictObject(b, &m); err != nil {
		return version{}, invalidResponse("/json/version is not a JSON object")
	}
	get := func(k string) (string, bool) {
		var s string
		r, ok := m[k]
		return s, ok && json.Unmarshal(r, &s) == nil
	}
	var fields [6]string
	for i, k := range []string{"Browser", "Protocol-Version", "User-Agent", "V8-Version", "WebKit-Version", "webSocketDebuggerUrl"} {
		s, ok := get(k)
		if !ok {
			// A V8 inspector (node --inspect) answers without a user agent.
			if b, _ := get("Browser"); strings.HasPrefix(b, "node.js/") || strings.HasPrefix(b, "Deno/") || strings.HasPrefix(b, "Bun/") {
				return version{}, invalidResponse("the endpoint is a JavaScript runtime's inspector (" + b + "), not a browser or an Electron app: " +
					"use list_javascript_runtime_targets and observe_javascript_runtime with inspector_endpoint")
			}
			return version{}, invalidResponse("/json/version lacks string " + k)
		}
		fields[i] = s
	}
	v := version{info: ports.BrowserInfo{
		Product: fields[0], ProtocolVersion: fields[1], UserAgent: fields[2],
		JSVersion: fields[3], Revision: fields[4],
	}}
	if ws, kind, _, ok := socketURL(fields[5], ep); ok && kind == "browser" {
		v.browserWS = ws
	}
	return v, nil
}

func strictObject(b []byte, out any) error {
	b = bytes.TrimSpace(b)
	if len(b) == 0 || b[0] != '{' {
		return errors.New("not an object")
	}
	return json.Unmarshal(b, out)
}

// parseList checks /json/list: an array of target objects.
func parseList(b []byte, ep endpoint) ([]discovered, error) {
	b = bytes.TrimSpace(b)
	if len(b) == 0 || b[0] != '[' {
		return nil, invalidResponse("/json/list is not a JSON array")
	}
	var raw []map[string]json.RawMessage
	if err := json.Unmarshal(b, &raw); err != nil {
		return nil, invalidResponse("/json/list is not an array of objects")
	}
	if len(raw) > maxTargets {
		return nil, &ports.BrowserError{Code: ports.BrowserPayloadLimit, Msg: "/json/list has over 1000 targets"}
	}
	out := make([]discovered, 0, len(raw))
	for i, m := range raw {
		var d discovered
		var ws string
		if err := readListItem(m, i, listField{"id", &d.TargetID, true, 256}, listField{"type", &d.Type, true, 100},
			listField{"title", &d.Title, false, 16384}, listField{"url", &d.rawURL, true, 65536},
			listField{"webSocketDebuggerUrl", &ws, false, 65536}); err != nil {
			return nil, err
		}
		if d.TargetID == "" {
			return nil, invalidResponse("/json/list item " + strconv.Itoa(i) + " has an empty id")
		}
		if r, ok := m["attached"]; ok && json.Unmarshal(r, &d.Attached) != nil {
			return nil, invalidResponse("/json/list item " + strconv.Itoa(i) + " has a bad attached")
		}
		d.URL, d.Origin = sanitizeURL(d.rawURL)
		if s, kind, id, ok := socketURL(ws, ep); ok && kind == "page" && id == d.TargetID {
			d.socket = s
		}
		out = append(out, d)
	}
	return out, nil
}

// listField is one string member of a /json/list item: where it goes,
// whether the item must have it, and the longest value accepted.
type listField struct {
	key      string
	dst      *string
	required bool
	max      int
}

// readListItem reads the string members of /json/list item i (m).
func readListItem(m map[string]json.RawMessage, i int, fields ...listField) error {
	for _, f := range fields {
		r, ok := m[f.key]
		if !ok || string(r) == "null" {
			if f.required {
				return invalidResponse("/json/list item " + strconv.Itoa(i) + " lacks " + f.key)
			}
			continue
		}
		if json.Unmarshal(r, f.dst) != nil || len(*f.dst) > f.max {
			return invalidResponse("/json/list item " + strconv.Itoa(i) + " has a bad " + f.key)
		}
	}
	return nil
}

// socketURL validates a webSocketDebuggerUrl and rewrites its host to the
// endpoint's: ws:, the endpoint's port, no userinfo, query or fragment,
// path /devtools/browser/<id> or /devtools/page/<id>.
func socketURL(raw string, ep endpoint) (ws, kind, id string, ok bool) {
	if raw == "" || strings.ContainsAny(raw, "?#") {
		return "", "", "", false
	}
	u, err := url.Parse(raw)
	if err != nil || u.Scheme != "ws" || u.User != nil || u.Port() != ep.Port || u.RawQuery != "" {
		return "", "", "", false
	}
	rest, found := strings.CutPrefix(u.Path, "/devtools/")
	if !found {
		return "", "", "", false
	}
	kind, id, found = strings.Cut(rest, "/")
	if !found || (kind != "browser" && kind != "page") || id == "" || strings.Contains(id, "/") {
		return "", "", "", false
	}
	return "ws://" + net.JoinHostPort(strings.Trim(ep.Host[:strings.LastIndex(ep.Host, ":")], "[]"), ep.Port) + u.EscapedPath(), kind, id, true
}
