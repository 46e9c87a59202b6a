package browser

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/url"
	"sort"
	"strings"
	"unicode/utf16"
	"unicode/utf8"

	"rea/core"
	"rea/ports"
)

func opAnalyzeBundle() *core.Operation {
	return &core.Operation{
		Name:  "analyze_web_bundle",
		Title: "Analyze Web Bundle",
		Description: "Capture one page target passively with its script sources and analyze them statically: module " +
			"edges (static and dynamic imports, require, importScripts, workers), routes, network endpoints, WebMCP registerTool " +
			"declarations and framework fingerprints, each located by script, line and column; with fetch_source_maps, in-scope v3 " +
			"source maps are fetched, their sources listed and each finding placed in them.",
		Kind:    core.KindApplication,
		Effects: passiveEffects,
		Input: schemaObj([]string{"cdp_endpoint", "target_id"}, propEndpoint, propTarget, propOrigins, inspectOptions,
			`"fetch_source_maps":{"type":"boolean","default":false,"description":"Fetch the scripts' in-scope source maps (http(s) on an allowed origin, no credentials)."}`,
			`"max_findings":{"type":"integer","minimum":1,"maximum":100000,"default":1000,"description":"Findings kept across edges, routes, endpoints and declarations; the rest are counted as dropped."}`),
		Result:      bundleResultSchema,
		Examples:    ex(`{"cdp_endpoint":"http://127.0.0.1:9222","target_id":"E3A1C0DE"}`, `{"cdp_endpoint":"http://127.0.0.1:9222","target_id":"E3A1C0DE","fetch_source_maps":true}`),
		Unavailable: func(r *core.Registry) (string, string) { return browserUnavailable(r) },
		Handler:     handleAnalyzeBundle,
	}
}

var bundleResultSchema = json.RawMessage(`{"type":"object","additionalProperties":false,
"required":["schema_version","capture","observations","inferences","unknowns","completeness","limitations"],
"properties":{"schema_version":{"const":1},
 "capture":{"type":"object","description":"The underlying page capture: target URL, scripts observed and analyzed, source artifacts (digests, no text).",
   "required":["target_url","scripts_observed","scripts_analyzed","source_artifacts"],"properties":{"target_url":{"type":"string"},"scripts_observed":{"type":"integer"},"scripts_analyzed":{"type":"integer"},"source_artifacts":{"type":"array","items":{"type":"object"}}}},
 "observations":{"type":"object","required":["chunks","routes","endpoints","webmcp_declarations","source_maps"],
   "properties":{"chunks":{"type":"object","required":["nodes","edges"],"properties":{"nodes":{"type":"array","items":{"type":"object"}},"edges":{"type":"array","items":{"type":"object"}}}},
   "routes":{"type":"array","items":{"type":"object"}},"endpoints":{"type":"array","items":{"type":"object"}},"webmcp_declarations":{"type":"array","items":{"type":"object"}},
   "source_maps":{"type":"object","required":["status","requested","processed","items"],"properties":{"status":{"enum":["not_requested","included","partial","unavailable","truncated"]},"requested":{"type":"integer"},"processed":{"type":"integer"},"items":{"type":"array","items":{"type":"object"}}}}}},
 "inferences":{"type":"array","items":{"type":"object","required":["kind","value","confidence","basis"],"properties":{"kind":{"enum":["bundle_runtime","vendor_fingerprint","route_framework"]},"value":{"type":"string"},"confidence":{"enum":["high","medium","low"]},"basis":{"type":"array","items":{"type":"object"}}}}},
 "unknowns":{"type":"array","items":{"type":"object","required":["dimension","reason","affected_script_keys"],"properties":{"dimension":{"enum":["script_source","javascript_ast","source_maps","webmcp_declarations"]},"reason":{"type":"string"},"affected_script_keys":{"type":"array","items":{"type":"string"}}}}},
 "completeness":{"type":"object","required":["status","parsed_scripts","parse_failures","dropped_findings"],"properties":{"status":{"enum":["complete","partial"]},"parsed_scripts":{"type":"integer"},"parse_failures":{"type":"integer"},"dropped_findings":{"type":"integer"}}},
 "limitations":{"type":"array","items":{"type":"string"}}}}`)

// findings shares max_findings across the finding lists.
type findings struct {
	left, dropped int
	seen          map[string]bool
}

func addFinding[T any](f *findings, list *[]T, item T) {
	k := core.MustDigest(item)
	if f.seen[k] {
		return
	}
	f.seen[k] = true
	if f.left == 0 {
		f.dropped++
		return
	}
	f.left--
	*list = append(*list, item)
}

// lineCol maps a byte offset to rea's code location: a 1-based line and a
// 0-based column in UTF-16 code units, as V8, CDP and source maps count, so
// a finding here and a network initiator or console entry of
// inspect_web_page name the same place alike. A byte that is not UTF-8
// counts as one unit (U+FFFD).
func lineCol(src []byte, off int64) (int, int) {
	if off < 0 || off > int64(len(src)) {
		return 0, 0
	}
	pre := src[:off]
	// Lines end at \n, \r, \r\n, U+2028 and U+2029, as the parser and
	// V8 end them (\r\n is one end: its \n is counted, its \r is not).
	line, start := 1, 0
	for i := 0; i < len(pre); i++ {
		if n := ports.LineEnd(src, i); n > 0 && i+n <= len(pre) {
			line, start = line+1, i+n
			i += n - 1
		}
	}
	col := 0
	for rest := pre[start:]; len(rest) > 0; {
		r, n := utf8.DecodeRune(rest)
		col += utf16.RuneLen(r)
		rest = rest[n:]
	}
	return line, col
}

// endpointSite is where an endpoint found in call is placed: the call as
// V8 places it (its Position, which the JavaScript engine takes from the
// parse), which is where inspect_web_page's request initiator points; else
// its URL value's first literal (v, the argument it reports), else the
// call's first literal argument; -1 when none is known.
func endpointSite(call ports.JSCall, v ports.JSValue) int64 {
	if call.Position >= 0 {
		return int64(call.Position)
	}
	if v.Offset >= 0 {
		return v.Offset
	}
	return call.Offset
}

// xhrSend is what xhrSends says of one open(): send is the index in calls
// of its send(), or -1; when a send() of the same name path follows but is
// refused as possibly another object's, candidate is its index and why
// says so (else candidate is -1).
type xhrSend struct {
	send, candidate int
	why             string
}

// xhrSends pairs each XHR open() call (by index in calls) with the send()
// of the same receiver that follows it before the receiver's next open(),
// in source order: an XHR's request is made, and its initiator placed, at
// send(), while its URL is at open(). The facts name a receiver by its
// name path only (x in x.open, this.req in this.req.open), not by its
// binding, so a send() of the same name is kept only when the source
// between the two calls shows it is the same object (sameXHR): within the
// block that holds the open(), the name neither assigned, declared again
// nor a parameter in between. Otherwise the open() is left without a send
// and why says which send() was refused and for what. A call without a
// position pairs with nothing.
func xhrSends(src []byte, calls []ports.JSCall) map[int]xhrSend {
	type ev struct {
		at   int32
		i    int
		open bool
	}
	byRecv := map[string][]ev{}
	for i, c := range calls {
		recv, method, ok := cutLast(c.Callee)
		if !ok || c.New || c.CalleeOffset < 0 || method != "open" && method != "send" {
			continue
		}
		byRecv[recv] = append(byRecv[recv], ev{c.CalleeOffset, i, method == "open"})
	}
	pairs := map[int]xhrSend{}
	budget := maxXHRRead
	recvs := make([]string, 0, len(byRecv))
	for recv, evs := range byRecv {
		sort.SliceStable(evs, func(a, b int) bool { return evs[a].at < evs[b].at })
		recvs = append(recvs, recv)
	}
	// The budget goes to receivers in the order of their first call, so
	// the answer does not depend on map order.
	sort.Slice(recvs, func(a, b int) bool { return byRecv[recvs[a]][0].at < byRecv[recvs[b]][0].at })
	for _, recv := range recvs {
		evs := byRecv[recv]
		open := -1
		var at int32
		for _, e := range evs {
			switch {
			case e.open:
				open, at = e.i, e.at
				pairs[open] = xhrSend{send: -1, candidate: -1}
			case open >= 0:
				why := "the source between the open() and the send() was not read: the script's reading budget was spent"
				if gap := int(e.at - at); gap <= budget {
					budget -= max(gap, 0)
					why = sameXHR(src, recv, int(at), int(e.at))
				}
				if why != "" {
					pairs[open] = xhrSend{send: -1, candidate: e.i, why: why}
				} else {
					pairs[open] = xhrSend{send: e.i, candidate: -1}
				}
				open = -1
			}
		}
	}
	return pairs
}

// maxXHRGap bounds the source sameXHR reads between an open() and a
// send(), maxXHRRead all it reads in one script (receivers of different
// names may each span the script).
const (
	maxXHRGap  = 1 << 20
	maxXHRRead = 16 << 20
)

// sameXHR reads src from an open() call's property name (from) to a
// send()'s (to), both of receiver recv, and says why the send() may be
// another object's, or "" when nothing between them suggests so. It skips
// strings, template text, comments and regular expressions, and refuses
// when the send() is outside the block that holds the open() (another
// function's variable of the same name, say), when recv or its root name
// is assigned, or the root name declared or made a parameter, in between.
// It reads tokens, not a syntax tree: a name used as an if condition just
// before a block reads as a parameter, and a non-arrow function between
// them that rebinds this is not noticed.
func sameXHR(src []byte, recv string, from, to int) string {
	if from < 0 || to > len(src) || from >= to {
		return "the send() is not after the open()"
	}
	if to-from > maxXHRGap {
		return fmt.Sprintf("the send() is more than %d KiB after the open(), past what is read to tell whether it is the same object", maxXHRGap>>10)
	}
	root, _, _ := strings.Cut(recv, ".")
	s := src[:to]
	depth := 0
	var templ []int   // brace depths at which a template literal's ${ opened
	prev := byte('.') // the last significant character: open is a member name
	prevWord := ""
	for i := from; i < len(s); {
		c := s[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			i++
			continue
		case c == '/' && i+1 < len(s) && s[i+1] == '/':
			for i < len(s) && s[i] != '\n' {
				i++
			}
			continue
		case c == '/' && i+1 < len(s) && s[i+1] == '*':
			end := bytes.Index(s[i+2:], []byte("*/"))
			if end < 0 {
				return ""
			}
			i += end + 4
			continue
		case c == '"' || c == '\'':
			i = skipQuoted(s, i, c)
			prev, prevWord = c, ""
			continue
		case c == '`':
			i = skipTemplate(s, i+1)
			if i < len(s) && s[i] == '{' { // ${: an expression until its }
				templ = append(templ, depth)
				depth++
				i++
				prev, prevWord = '{', ""
				continue
			}
			prev, prevWord = c, ""
			continue
		case c == '/' && regexMayStart(prev, prevWord):
			i = skipRegex(s, i+1)
			prev, prevWord = '/', ""
			continue
		case c == '{':
			depth++
		case c == '}':
			depth--
			if n := len(templ); n > 0 && templ[n-1] == depth {
				templ = templ[:n-1]
				i = skipTemplate(s, i+1)
				if i < len(s) && s[i] == '{' {
					templ = append(templ, depth)
					depth++
					i++
				}
				prev, prevWord = '`', ""
				continue
			}
			if depth < 0 {
				return "the send() is outside the block that holds the open(), so it may be another function's " + root
			}
		case isIdentByte(c):
			j := i
			for j < len(s) && isIdentByte(s[j]) {
				j++
			}
			word := string(s[i:j])
			if word == root && prev != '.' {
				if why := rebinding(s, i, j, recv, prevWord); why != "" {
					return why
				}
			}
			prev, prevWord = 'a', word
			i = j
			continue
		}
		prev, prevWord = c, ""
		i++
	}
	return ""
}

// rebinding says how the name root at s[i:j] (not a member) binds or
// assigns it, or "" when it only reads it: declared after var, let, const,
// function or class; assigned (= but not == or =>), or recv assigned
// through it; a parameter (before =>, or in a parenthesized list followed
// by => or {).
func rebinding(s []byte, i, j int, recv, prevWord string) string {
	root := string(s[i:j])
	switch prevWord {
	case "var", "let", "const", "function", "class":
		return root + " is declared again between the open() and the send()"
	}
	if e := i + len(recv); recv != root && bytes.HasPrefix(s[i:], []byte(recv)) && (e >= len(s) || !isIdentByte(s[e])) {
		// this.req = ...: the receiver's path assigned.
		if k := skipSpace(s, e); k < len(s) && s[k] == '=' && (k+1 >= len(s) || s[k+1] != '=' && s[k+1] != '>') {
			return recv + " is assigned between the open() and the send()"
		}
	}
	k := skipSpace(s, j)
	if k < len(s) && s[k] == '=' {
		if k+1 < len(s) && s[k+1] == '>' {
			return root + " is a parameter of a function between the open() and the send()"
		}
		if k+1 >= len(s) || s[k+1] != '=' {
			return root + " is assigned between the open() and the send()"
		}
	}
	if k < len(s) && (s[k] == ',' || s[k] == ')') {
		// The list this name is in: a parameter list when => or { follows.
		parens := 0
		for m := k; m < len(s); m++ {
			switch s[m] {
			case '(':
				parens++
			case ')':
				if parens--; parens < 0 {
					n := skipSpace(s, m+1)
					if n < len(s) && (s[n] == '{' || s[n] == '=' && n+1 < len(s) && s[n+1] == '>') {
						return root + " is a parameter of a function between the open() and the send()"
					}
					return ""
				}
			case ';', '{', '}':
				return ""
			}
		}
	}
	return ""
}

func skipSpace(s []byte, i int) int {
	for i < len(s) && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r') {
		i++
	}
	return i
}

func isIdentByte(c byte) bool {
	return c == '_' || c == '$' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c >= 0x80
}

// skipQuoted is the index after the string literal that opens at s[i]
// with quote q.
func skipQuoted(s []byte, i int, q byte) int {
	for i++; i < len(s); i++ {
		switch s[i] {
		case '\\':
			i++
		case q, '\n':
			return i + 1
		}
	}
	return i
}

// skipTemplate reads template text from s[i] to its closing backquote
// (the index after it) or to a ${ (the index of its {).
func skipTemplate(s []byte, i int) int {
	for ; i < len(s); i++ {
		switch s[i] {
		case '\\':
			i++
		case '`':
			return i + 1
		case '$':
			if i+1 < len(s) && s[i+1] == '{' {
				return i + 1
			}
		}
	}
	return i
}

// skipRegex is the index after the regular expression whose body starts
// at s[i] (a / inside a class [...] does not end it) and its flags.
func skipRegex(s []byte, i int) int {
	class := false
	for ; i < len(s) && s[i] != '\n'; i++ {
		switch c := s[i]; {
		case c == '\\':
			i++
		case c == '[':
			class = true
		case c == ']':
			class = false
		case c == '/' && !class:
			for i++; i < len(s) && isIdentByte(s[i]); i++ {
			}
			return i
		}
	}
	return i
}

// regexMayStart reports whether a / after the significant character prev
// (or keyword prevWord) starts a regular expression rather than dividing.
func regexMayStart(prev byte, prevWord string) bool {
	if prev == 'a' {
		switch prevWord {
		case "return", "typeof", "case", "in", "of", "new", "delete", "void", "throw", "else", "do", "instanceof", "yield", "await":
			return true
		}
		return false
	}
	return strings.IndexByte("(,=:[!&|?{};+-*%<>~^", prev) >= 0
}

func cutLast(path string) (string, string, bool) {
	i := strings.LastIndexByte(path, '.')
	if i <= 0 {
		return "", "", false
	}
	return path[:i], path[i+1:], true
}

var inferencePatterns = []struct{ kind, value, pattern, confidence string }{
	{"bundle_runtime", "webpack", "__webpack_require__", "high"},
	{"bundle_runtime", "Vite", "__vite__", "medium"},
	{"bundle_runtime", "Vite", "import.meta.hot", "medium"},
	{"vendor_fingerprint", "React", "__REACT_DEVTOOLS_GLOBAL_HOOK__", "medium"},
	{"vendor_fingerprint", "React", "React.createElement", "medium"},
	{"vendor_fingerprint", "Vue", "__VUE__", "medium"},
	{"vendor_fingerprint", "Vue", "createApp(", "medium"},
	{"vendor_fingerprint", "Next.js", "__NEXT_DATA__", "high"},
	{"vendor_fingerprint", "Next.js", "/_next/", "high"},
	{"vendor_fingerprint", "Angular", "ɵɵdefineComponent", "high"},
	{"vendor_fingerprint", "Svelte", "svelte/internal", "medium"},
}

var routeCalls = map[string]bool{"route": true, "addRoute": true, "useRoutes": true, "createBrowserRouter": true, "createHashRouter": true}

var endpointMethods = map[string]bool{"get": true, "post": true, "put": true, "patch": true, "delete": true, "request": true}

func lastSegment(callee string) string {
	if i := strings.LastIndexByte(callee, '.'); i >= 0 {
		return callee[i+1:]
	}
	return callee
}

func literal(v ports.JSValue) (string, bool) {
	if v.Kind == ports.JSValString || v.Kind == ports.JSValTemplate && len(v.Parts) == 0 {
		return v.Value, true
	}
	return "", false
}

// endpointValue is an endpoint's URL as analyze_javascript_application
// records it: a literal, or a template with each computed part as ${}
// (`${base}/orders`), so the live and the static view of one script agree.
func endpointValue(v ports.JSValue) (string, bool) {
	if v.Kind == ports.JSValTemplate {
		return v.Value, true
	}
	return literal(v)
}

// sanitizeEndpoint removes userinfo from an absolute URL; relative values
// stay as written.
func sanitizeEndpoint(s string) string {
	u, err := url.Parse(s)
	if err != nil || u.User == nil {
		return s
	}
	u.User = nil
	return u.String()
}

func handleAnalyzeBundle(ctx context.Context, c *core.Call) (any, error) {
	op := c.Op.Name
	b, err := needBrowser(c)
	if err != nil {
		return nil, err
	}
	eng := c.JavaScript()
	if eng == nil {
		return nil, &core.Error{Code: core.CodeCapabilityUnavailable, Message: op + ": no JavaScript engine is wired into this build",
			Details: map[string]any{"provider_id": "rea-js", "operation": op, "reason": "engine_missing"}}
	}
	in, err := core.Input[AnalyzeWebBundleInput](c)
	if err != nil {
		return nil, err
	}
	req, err := inspectRequest(op, InspectWebPageInput{CdpEndpoint: in.CdpEndpoint, TargetID: in.TargetID, AllowedOrigins: in.AllowedOrigins,
		IncludeAccessibilityText: in.IncludeAccessibilityText, IncludeConsoleText: in.IncludeConsoleText, IncludeJSONBodyShapes: in.IncludeJSONBodyShapes,
		IncludeStorageFingerprints: in.IncludeStorageFingerprints, IncludeStorageKeys: in.IncludeStorageKeys,
		IncludeWebsocketShapes: in.IncludeWebsocketShapes, ObservationMS: in.ObservationMS}, true)
	if err != nil {
		return nil, err
	}
	// The analysis reads the scripts alone: the DOM snapshot, accessibility
	// tree and storage a page inspection also takes are left out, so a page
	// with a large document neither slows the analysis nor fails it.
	req.ScriptsOnly = true
	fetchMaps := isSet(in.FetchSourceMaps)
	maps := c.SourceMaps()
	c.Observe(fmt.Sprintf("capturing page scripts over %d ms", req.ObservationMS))
	pc, err := b.InspectPage(ctx, req)
	if err != nil {
		return nil, browserErr(op, err)
	}
	insp := normalizeInspection(pc, req)
	items := insp.Scripts.Items
	// Script keys in normalized order; match them back to raw sources.
	var scripts []bundleScript
	bySrc := map[string][]ports.BrowserScript{}
	for _, s := range pc.Scripts {
		bySrc[s.URL+"\x00"+s.CDPHash] = append(bySrc[s.URL+"\x00"+s.CDPHash], s)
	}
	for _, it := range items {
		k := it.URL + "\x00" + it.CdpHash
		l := bySrc[k]
		if len(l) == 0 {
			continue
		}
		scripts = append(scripts, bundleScript{it.ScriptKey, l[0]})
		bySrc[k] = l[1:]
	}
	maxFindings := 1000
	if in.MaxFindings != nil {
		maxFindings = *in.MaxFindings
	}
	f := &findings{left: maxFindings, seen: map[string]bool{}}
	nodes, edges, routes, endpoints := []BundleChunkNode{}, []BundleChunkEdge{}, []BundleRoute{}, []BundleEndpoint{}
	decls, artifacts := []BundleWebMCPDeclaration{}, []BundleSourceArtifact{}
	unknowns := []AnalyzeWebBundleResultUnknown{}
	var noSource, parseFailed, unseenTools []string
	parsed := 0
	type basis struct{ kind, value, conf string }
	inferred := map[basis][]BundleBasis{}
	var inferOrder []basis
	infer := func(bs basis, b BundleBasis) {
		if _, ok := inferred[bs]; !ok {
			inferOrder = append(inferOrder, bs)
		}
		inferred[bs] = append(inferred[bs], b)
	}
	for i, s := range scripts {
		if i%16 == 0 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
			c.Observe(fmt.Sprintf("analyzed %d of %d scripts", i, len(scripts)))
		}
		src := s.raw.Source
		if src == nil {
			noSource = append(noSource, s.key)
			continue
		}
		sum := sha256.Sum256(src)
		digest := hex.EncodeToString(sum[:])
		nodes = append(nodes, BundleChunkNode{ScriptKey: s.key, URL: s.raw.URL, ArtifactSHA256: digest, Bytes: len(src)})
		artifacts = append(artifacts, BundleSourceArtifact{ScriptKey: s.key, URL: s.raw.URL, SHA256: digest, Bytes: len(src),
			MediaType: "text/javascript", TextAvailable: true})
		facts, err := eng.Facts(ctx, ports.JSRequest{Path: s.raw.URL, Source: src})
		if err != nil {
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			parseFailed = append(parseFailed, s.key)
			continue
		}
		if !facts.Parsed {
			parseFailed = append(parseFailed, s.key)
		} else {
			parsed++
		}
		loc := func(off int64) BundleLocation {
			l, c := lineCol(src, off)
			return BundleLocation{ScriptKey: s.key, Line: l, Column: c}
		}
		base, _ := url.Parse(s.raw.URL)
		for _, im := range facts.Imports {
			if im.Dynamic {
				continue
			}
			kind := ""
			switch im.Kind {
			case ports.JSImportStatic, ports.JSExportFrom, ports.JSExportAll:
				kind = "static_import"
			case ports.JSDynamicImport:
				kind = "dynamic_import"
			case ports.JSRequire:
				kind = "require"
			case ports.JSImportScripts, ports.JSWorker, ports.JSSharedWorker, ports.JSServiceWorker:
				kind = "worker_import"
			default:
				continue
			}
			var resolved *string
			if base != nil && (strings.HasPrefix(im.Specifier, ".") || strings.HasPrefix(im.Specifier, "/") || strings.Contains(im.Specifier, "://")) {
				if u, err := base.Parse(im.Specifier); err == nil {
					r := sanitizeEndpoint(u.String())
					resolved = &r
				}
			}
			spec := im.Specifier
			if len(spec) > 4096 {
				spec = spec[:4096]
			}
			addFinding(f, &edges, BundleChunkEdge{FromScriptKey: s.key, Kind: kind, Specifier: spec, ResolvedURL: resolved, Location: loc(im.Offset)})
		}
		sends := xhrSends(src, facts.Calls)
		for i, call := range facts.Calls {
			last := lastSegment(call.Callee)
			var a0, e0, e1 string
			var ok0, eok0, eok1 bool
			if len(call.Args) > 0 {
				a0, ok0 = literal(call.Args[0])
				e0, eok0 = endpointValue(call.Args[0])
			}
			if len(call.Args) > 1 {
				e1, eok1 = endpointValue(call.Args[1])
			}
			a0v, a1v := ports.JSValue{Offset: -1}, ports.JSValue{Offset: -1}
			if len(call.Args) > 0 {
				a0v = call.Args[0]
			}
			if len(call.Args) > 1 {
				a1v = call.Args[1]
			}
			switch {
			case routeCalls[last] && ok0:
				addFinding(f, &routes, BundleRoute{ScriptKey: s.key, Value: a0, Detector: "call:" + last, Location: loc(call.Offset)})
				fw := "Generic route registration API"
				if last == "useRoutes" || last == "createBrowserRouter" {
					fw = "React Router-compatible route API"
				}
				at := loc(call.Offset)
				infer(basis{"route_framework", fw, "medium"}, BundleBasis{ScriptKey: s.key, ArtifactSHA256: digest, Line: at.Line, Column: at.Column, Detector: "call:" + last})
			case (call.Callee == "fetch" || last == "fetch" || call.Callee == "WebSocket" && call.New) && eok0:
				kind := "fetch"
				if call.Callee == "WebSocket" {
					kind = "websocket"
				}
				addFinding(f, &endpoints, BundleEndpoint{ScriptKey: s.key, Kind: kind, Value: sanitizeEndpoint(e0), Location: loc(endpointSite(call, a0v))})
			case last == "open" && strings.Contains(call.Callee, ".") && eok1:
				ep := BundleEndpoint{ScriptKey: s.key, Kind: "xhr_open", Value: sanitizeEndpoint(e1), Location: loc(endpointSite(call, a1v))}
				if p, ok := sends[i]; ok && p.send >= 0 {
					if off := facts.Calls[p.send].Position; off >= 0 {
						at := loc(int64(off))
						ep.SendLocation = &at
					}
				} else if ok && p.candidate >= 0 {
					c := facts.Calls[p.candidate]
					off := int64(c.Position)
					if off < 0 {
						off = int64(c.CalleeOffset)
					}
					at := loc(off)
					ep.SendUnpaired = fmt.Sprintf("%s() at %d:%d was not taken as this request's send: %s", c.Callee, at.Line, at.Column, p.why)
				}
				addFinding(f, &endpoints, ep)
			case endpointMethods[last] && strings.Contains(call.Callee, ".") && eok0:
				addFinding(f, &endpoints, BundleEndpoint{ScriptKey: s.key, Kind: "http_" + last, Value: sanitizeEndpoint(e0), Location: loc(endpointSite(call, a0v))})
			case strings.HasSuffix(call.Callee, "modelContext.registerTool") && len(call.Args) > 0:
				if call.Args[0].Kind != ports.JSValObject {
					unseenTools = appendKey(unseenTools, s.key) // registerTool(tool): computed
					break
				}
				addFinding(f, &decls, webmcpDecl(call.Args[0], int64(call.Position), loc))
			case strings.HasSuffix(call.Callee, "modelContext.provideContext") && len(call.Args) > 0:
				// provideContext({tools: [{name, description, inputSchema, execute}, ...]})
				if !toolsSeen(call.Args[0]) {
					unseenTools = appendKey(unseenTools, s.key)
				}
				for _, p := range call.Args[0].Props {
					if p.Key == "tools" {
						for _, it := range p.Value.Items {
							if it.Kind == ports.JSValObject {
								addFinding(f, &decls, webmcpDecl(it, int64(call.Position), loc))
							}
						}
					}
				}
			}
		}
		// Routes written as data (route tables that reach a router), each
		// with its path joined to its parents'.
		full := make([]string, len(facts.Routes))
		for i, r := range facts.Routes {
			full[i] = r.Path
			if r.Parent >= 0 && r.Parent < i {
				full[i] = joinRoute(full[r.Parent], r.Path)
			}
			addFinding(f, &routes, BundleRoute{ScriptKey: s.key, Value: full[i], Detector: "data:" + r.Via, Location: loc(r.Offset)})
		}
		if b := facts.Bundler; b != "" {
			// The engine names the bundler from its runtime's markers,
			// which minified builds keep (webpack's chunk-loading global)
			// or from its helpers' shape (esbuild); the basis locates the
			// chunk global, else the first module of the table.
			det, off := "bundler:"+b, int64(-1)
			if g := facts.ChunkGlobal; g != "" {
				det, off = "chunk_global:"+g, int64(bytes.Index(src, []byte(g)))
			} else if len(facts.Modules) > 0 {
				det, off = "module_table:"+b, facts.Modules[0].Start
			}
			at := loc(off)
			infer(basis{"bundle_runtime", b, "high"}, BundleBasis{ScriptKey: s.key, ArtifactSHA256: digest, Line: at.Line, Column: at.Column, Detector: det})
		}
		for _, p := range inferencePatterns {
			if i := bytes.Index(src, []byte(p.pattern)); i >= 0 {
				l, col := lineCol(src, int64(i))
				infer(basis{p.kind, p.value, p.confidence}, BundleBasis{ScriptKey: s.key, ArtifactSHA256: digest, Line: l, Column: col, Detector: p.pattern})
			}
		}
	}
	if len(noSource) > 0 {
		unknowns = append(unknowns, AnalyzeWebBundleResultUnknown{Dimension: "script_source", Reason: "source was not captured (limits or browser)", AffectedScriptKeys: noSource})
	}
	if gone := unreportedScripts(pc); len(gone) > 0 {
		unknowns = append(unknowns, AnalyzeWebBundleResultUnknown{Dimension: "script_source", Reason: unreportedScriptsNote(gone), AffectedScriptKeys: []string{}})
	}
	if len(parseFailed) > 0 {
		unknowns = append(unknowns, AnalyzeWebBundleResultUnknown{Dimension: "javascript_ast", Reason: "source did not parse completely", AffectedScriptKeys: parseFailed})
	}
	if len(unseenTools) > 0 {
		unknowns = append(unknowns, AnalyzeWebBundleResultUnknown{Dimension: "webmcp_declarations", Reason: unseenToolsNote, AffectedScriptKeys: unseenTools})
	}
	inferences := make([]AnalyzeWebBundleResultInference, 0, len(inferOrder))
	sort.Slice(inferOrder, func(i, j int) bool {
		a, b := inferOrder[i], inferOrder[j]
		if a.kind != b.kind {
			return a.kind < b.kind
		}
		return a.value < b.value
	})
	merged := map[[2]string]int{}
	for _, bs := range inferOrder {
		k := [2]string{bs.kind, bs.value}
		if i, ok := merged[k]; ok {
			m := &inferences[i]
			m.Basis = append(m.Basis, inferred[bs]...)
			if bs.conf == "high" {
				m.Confidence = "high"
			}
			continue
		}
		merged[k] = len(inferences)
		inferences = append(inferences, AnalyzeWebBundleResultInference{Kind: bs.kind, Value: bs.value, Confidence: bs.conf,
			Basis: append([]BundleBasis{}, inferred[bs]...)})
	}
	sm, positions, smUnknown, err := sourceMaps(ctx, c, maps, fetchMaps, scripts2maps(scripts), pc.AllowedOrigins)
	if err != nil {
		return nil, err
	}
	placeOriginals(positions, edges, routes, endpoints, decls)
	if smUnknown != nil {
		unknowns = append(unknowns, *smUnknown)
	}
	status := "complete"
	if len(unknowns) > 0 || f.dropped > 0 {
		status = "partial"
	}
	lims := []string{"Analysis is syntactic: code is parsed, never run; values computed at run time are not resolved.",
		"Scripts come from a passive capture: only scripts parsed during or before the observation window in scope are seen."}
	res := &AnalyzeWebBundleResult{SchemaVersion: 1,
		Capture: AnalyzeWebBundleResultCapture{TargetURL: pc.Target.URL, ScriptsObserved: pc.ScriptsTotal, ScriptsAnalyzed: len(nodes), SourceArtifacts: artifacts},
		Observations: AnalyzeWebBundleResultObservations{Chunks: AnalyzeWebBundleResultObservationsChunks{Nodes: nodes, Edges: edges}, Routes: routes,
			Endpoints: endpoints, WebMCPDeclarations: decls, SourceMaps: sm},
		Inferences: inferences, Unknowns: unknowns,
		Completeness: AnalyzeWebBundleResultCompleteness{Status: status, ParsedScripts: parsed, ParseFailures: len(parseFailed), DroppedFindings: f.dropped},
		Limitations:  lims}
	return observed(b.Info(), pc.Browser, "rea.web-bundle-analysis/v1", res, nil), nil
}

// truncate cuts s to at most n bytes without splitting a character: the
// cut moves back to the start of the character it would split.
func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// schemaProps is the property names of an input schema written as an
// object literal, and whether they are all of them: not when the engine
// kept only an object's first properties (ports.JSValue.PropsCut), of the
// properties or of the schema before its properties key, nor when either
// is not an object literal (a name, a call), whose keys were not read.
func schemaProps(v ports.JSValue) (names []string, complete bool) {
	out := []string{}
	found := false
	for _, p := range v.Props {
		if p.Key == "properties" {
			found = true
			for _, q := range p.Value.Props {
				out = append(out, q.Key)
			}
			complete = p.Value.Kind == ports.JSValObject && !p.Value.PropsCut
		}
	}
	if !found {
		complete = v.Kind == ports.JSValObject && !v.PropsCut
	}
	sort.Strings(out)
	return out, complete
}

// unseenToolsNote says why webmcp_declarations may lack tools.
const unseenToolsNote = "webmcp_declarations lists only the tools written as object literals: these scripts pass " +
	"provideContext a tools array longer than the 16 items the engine keeps, or tools (or registerTool a tool) " +
	"computed at run time, whose declarations are not listed"

// toolsSeen says whether a provideContext argument's tools are all
// written out: an object literal whose tools (if any, and none past a
// cut of its properties) are an array literal the engine did not cut
// (ports.JSValue.Items ends with an item "…" when it did).
func toolsSeen(arg ports.JSValue) bool {
	if arg.Kind != ports.JSValObject {
		return false
	}
	for _, p := range arg.Props {
		if p.Key != "tools" {
			continue
		}
		it := p.Value.Items
		return p.Value.Kind == ports.JSValArray && (len(it) == 0 || it[len(it)-1].Kind != ports.JSValOther || it[len(it)-1].Value != "…")
	}
	return !arg.PropsCut // a tools key may lie past the cut
}

// appendKey appends key unless it is keys' last (one script's calls come
// together).
func appendKey(keys []string, key string) []string {
	if len(keys) > 0 && keys[len(keys)-1] == key {
		return keys
	}
	return append(keys, key)
}

// webmcpDecl reads one declared tool. It is placed where discover_webmcp_tools
// places the same registration (V8's position of the registering call, the
// top frame of its stack trace): at off, the call's position (Position:
// registerTool in navigator.modelContext.registerTool(...), r in r(...)).
// When that is unknown (-1), the tool's name literal stands in.
func webmcpDecl(tool ports.JSValue, off int64, loc func(int64) BundleLocation) BundleWebMCPDeclaration {
	d := BundleWebMCPDeclaration{SchemaPropertyNames: []string{}, SchemaPropertyNamesComplete: true, Trust: "page-declared-untrusted"}
	for _, p := range tool.Props {
		switch p.Key {
		case "name":
			if v, ok := literal(p.Value); ok {
				d.Name = truncate(v, 256)
				if off < 0 {
					off = p.Value.Offset
				}
			}
		case "description":
			if v, ok := literal(p.Value); ok {
				d.Description = truncate(v, 2048)
			}
		case "inputSchema":
			d.SchemaPropertyNames, d.SchemaPropertyNamesComplete = schemaProps(p.Value)
		}
	}
	d.Location = loc(off)
	return d
}

// joinRoute joins a nested route's path to its parent's: an absolute
// child stands alone, an empty one (an index route) is its parent's.
func joinRoute(parent, child string) string {
	switch {
	case strings.HasPrefix(child, "/"):
		return child
	case child == "":
		return parent
	}
	return strings.TrimSuffix(parent, "/") + "/" + child
}

type mapRef struct{ key, url string }

// bundleScript is a captured script with its normalized key.
type bundleScript struct {
	key string
	raw ports.BrowserScript
}

func scripts2maps(ss []bundleScript) []mapRef {
	var out []mapRef
	for _, s := range ss {
		if s.raw.SourceMapURL != "" {
			out = append(out, mapRef{s.key, s.raw.SourceMapURL})
		}
	}
	return out
}

const maxSourceMaps = 100

// sourceMaps fetches the scripts' maps; it also returns the included
// maps' decoded positions by script key.
func sourceMaps(ctx context.Context, c *core.Call, f ports.SourceMapFetcher, requested bool, refs []mapRef, origins []string) (AnalyzeWebBundleResultObservationsSourceMaps, map[string]*positionMap, *AnalyzeWebBundleResultUnknown, error) {
	type out = AnalyzeWebBundleResultObservationsSourceMaps
	positions := map[string]*positionMap{}
	if !requested {
		return out{Status: "not_requested", Items: []BundleSourceMap{}}, positions, nil, nil
	}
	if f == nil {
		keys := make([]string, len(refs))
		for i, r := range refs {
			keys[i] = r.key
		}
		return out{Status: "unavailable", Requested: len(refs), Items: []BundleSourceMap{}}, positions,
			&AnalyzeWebBundleResultUnknown{Dimension: "source_maps", Reason: "no source map fetcher is wired into this build", AffectedScriptKeys: keys}, nil
	}
	items := []BundleSourceMap{}
	included, processed := 0, 0
	for i, r := range refs {
		if i >= maxSourceMaps {
			break
		}
		c.Observe(fmt.Sprintf("fetching source map %d of %d", i+1, len(refs)))
		got, err := f.FetchSourceMap(ctx, ports.SourceMapRequest{URL: r.url, AllowedOrigins: origins})
		if err != nil {
			if ctx.Err() != nil {
				return out{}, nil, nil, ctx.Err()
			}
			msg := err.Error()
			items = append(items, BundleSourceMap{ScriptKey: r.key, DeclaredURL: r.url, Status: "fetch_failed", OriginalSources: []BundleOriginalSource{}, Limitation: &msg})
			processed++
			continue
		}
		processed++
		item := BundleSourceMap{ScriptKey: r.key, DeclaredURL: r.url, Status: got.Status, OriginalSources: []BundleOriginalSource{}, Limitation: core.OptString(got.Reason)}
		if got.Status == "included" {
			if srcs, ok := parseV3(got.Body); ok {
				sum := sha256.Sum256(got.Body)
				h := hex.EncodeToString(sum[:])
				item.Artifact = &BundleSourceMapArtifact{URI: "rea://web-content/sha256/" + h, SHA256: h, Bytes: len(got.Body), MediaType: "application/json"}
				item.OriginalSources = srcs
				if pm, ok := decodePositions(got.Body); ok {
					positions[r.key] = pm
				} else {
					lim := "its mappings could not be decoded: findings keep generated positions only"
					item.Limitation = &lim
				}
				included++
			} else {
				lim := "not a v3 source map"
				item.Status, item.Limitation = "invalid", &lim
			}
		}
		items = append(items, item)
	}
	status := "unavailable"
	switch {
	case len(refs) > maxSourceMaps:
		status = "truncated"
	case included == len(refs):
		status = "included"
	case included > 0:
		status = "partial"
	}
	if len(refs) == 0 {
		status = "included"
	}
	return out{Status: status, Requested: len(refs), Processed: processed, Items: items}, positions, nil, nil
}

// placeOriginals sets each finding's original position from its script's
// decoded source map.
func placeOriginals(positions map[string]*positionMap, edges []BundleChunkEdge, routes []BundleRoute, endpoints []BundleEndpoint, decls []BundleWebMCPDeclaration) {
	set := func(l *BundleLocation) {
		if pm := positions[l.ScriptKey]; pm != nil && l.Line > 0 {
			l.Original = pm.original(l.Line, l.Column)
		}
	}
	for i := range edges {
		set(&edges[i].Location)
	}
	for i := range routes {
		set(&routes[i].Location)
	}
	for i := range endpoints {
		set(&endpoints[i].Location)
	}
	for i := range decls {
		set(&decls[i].Location)
	}
}

// parseV3 checks the v3 envelope and lists its original sources.
func parseV3(b []byte) ([]BundleOriginalSource, bool) {
	var m struct {
		Version        int               `json:"version"`
		Sources        []*string         `json:"sources"`
		SourcesContent []*string         `json:"sourcesContent"`
		Mappings       *string           `json:"mappings"`
		Sections       []json.RawMessage `json:"sections"`
		Names          []json.RawMessage `json:"names"`
	}
	if json.Unmarshal(b, &m) != nil || m.Version != 3 || (m.Mappings == nil && m.Sections == nil) || len(m.Sections) > 10000 {
		return nil, false
	}
	out := []BundleOriginalSource{}
	for i, s := range m.Sources {
		if s == nil {
			continue
		}
		var art *BundleOriginalSourceArtifact
		if i < len(m.SourcesContent) && m.SourcesContent[i] != nil {
			sum := sha256.Sum256([]byte(*m.SourcesContent[i]))
			mt := "text/javascript"
			if strings.Contains(*s, ".ts") {
				mt = "text/typescript"
			}
			art = &BundleOriginalSourceArtifact{SHA256: hex.EncodeToString(sum[:]), Bytes: len(*m.SourcesContent[i]), MediaType: mt}
		}
		out = append(out, BundleOriginalSource{Source: *s, Artifact: art})
	}
	return out, true
}
