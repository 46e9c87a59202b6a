package js

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"math"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"unicode/utf16"
	"unicode/utf8"
	"unsafe"

	"github.com/tdewolff/parse/v2"
	tjs "github.com/tdewolff/parse/v2/js"

	"rea/ports"
)

// Default limits (ports.JSLimits zero fields).
const (
	DefaultMaxSourceBytes = 64 << 20
	DefaultMaxStrings     = 20000
	DefaultMaxStringBytes = 4096
	DefaultMaxCalls       = 20000
	DefaultMaxModules     = 20000
	DefaultMaxValueDepth  = 4
)

// ParserVersion is the parser module version the engine reports.
const ParserVersion = "tdewolff/parse v2.25.0"

// Engine is the JavaScript engine. The zero value is ready; it is stateless
// and safe for concurrent use.
type Engine struct{}

var _ ports.JavaScriptEngine = Engine{}

// New returns an Engine.
func New() Engine { return Engine{} }

// Info names the engine.
func (Engine) Info() ports.ProviderInfo {
	return ports.ProviderInfo{ID: "rea-js", Name: "rea JavaScript engine", Version: ParserVersion}
}

func limitsOf(l ports.JSLimits) ports.JSLimits {
	if l.MaxSourceBytes <= 0 {
		l.MaxSourceBytes = DefaultMaxSourceBytes
	}
	if l.MaxStrings <= 0 {
		l.MaxStrings = DefaultMaxStrings
	}
	if l.MaxStringBytes <= 0 {
		l.MaxStringBytes = DefaultMaxStringBytes
	}
	if l.MaxCalls <= 0 {
		l.MaxCalls = DefaultMaxCalls
	}
	if l.MaxModules <= 0 {
		l.MaxModules = DefaultMaxModules
	}
	if l.MaxValueDepth <= 0 {
		l.MaxValueDepth = DefaultMaxValueDepth
	}
	return l
}

// Facts parses req.Source and reports its facts. The only error is the
// context's.
func (Engine) Facts(ctx context.Context, req ports.JSRequest) (f *ports.JSFacts, err error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	lim := limitsOf(req.Limits)
	f = &ports.JSFacts{ModuleType: "unknown"}
	src := req.Source
	f.SourceMap = sourceMapRef(src)
	if int64(len(src)) > lim.MaxSourceBytes {
		f.Limitations = append(f.Limitations, fmt.Sprintf("The source has %d bytes, more than the %d-byte parse limit; it was not parsed.", len(src), lim.MaxSourceBytes))
		return f, nil
	}
	if why := binaryReason(src); why != "" {
		f.Limitations = append(f.Limitations, "The file is not JavaScript text ("+why+"); it was not parsed.")
		f.SourceMap = nil
		return f, nil
	}
	// The parser wants a NUL after the input; give it its own copy so the
	// caller's bytes are never written and literal slices alias one buffer,
	// unless the caller handed them over with room for the NUL.
	buf := src
	if !req.SourceOwned || cap(src) == len(src) {
		buf = make([]byte, len(src), len(src)+1)
		copy(buf, src)
	}
	// A panic in the third-party parser or in rea's own walk must not take
	// the process down: the source is reported as not analysed. The message
	// says which side failed, so the fuzz target can fail on rea's.
	who := "parser"
	defer func() {
		if r := recover(); r != nil {
			f = &ports.JSFacts{ModuleType: "unknown", SourceMap: f.SourceMap,
				Errors:      []ports.JSSyntaxError{{Message: fmt.Sprintf("%s failure: %v", who, r), Offset: -1}},
				Limitations: []string{"The " + who + " failed on this source; no facts were extracted."}}
			err = nil
		}
	}()
	ast, perr := tjs.Parse(parse.NewInputBytes(buf), tjs.Options{})
	if perr != nil && bytes.Contains([]byte(perr.Error()), []byte("unexpected return")) {
		// Node runs a CommonJS file inside a function, so a top-level
		// return is legal there: parse it again as a function body, with a
		// shebang line blanked (offsets stay those of the source).
		retry := make([]byte, len(src), len(src)+1)
		copy(retry, src)
		if bytes.HasPrefix(retry, []byte("#!")) {
			for i := 0; i < len(retry) && retry[i] != '\n' && retry[i] != '\r'; i++ {
				retry[i] = ' '
			}
		}
		if ast2, err2 := tjs.Parse(parse.NewInputBytes(retry), tjs.Options{Inline: true}); err2 == nil {
			ast, perr, buf = ast2, nil, retry
		}
	}
	if perr != nil {
		if ast2, buf2, ok := parseWithASI(buf, perr); ok {
			ast, perr, buf = ast2, nil, buf2
		}
	}
	if perr != nil {
		f.Errors = append(f.Errors, syntaxError(buf, perr))
		return f, nil
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	who = "engine"
	if !extract(ctx, buf, req, lim, f, ast) {
		return nil, ctx.Err()
	}
	f.Parsed = true
	return f, nil
}

// extract walks the parsed ast of buf into f; false when ctx was
// cancelled.
func extract(ctx context.Context, buf []byte, req ports.JSRequest, lim ports.JSLimits, f *ports.JSFacts, ast *tjs.AST) bool {
	w := walkerPool.Get().(*walker)
	defer func() {
		w.release()
		walkerPool.Put(w)
	}()
	w.reset(ctx, buf, req, lim, f)
	sp := stringsPool.Get().(*[]ports.JSString)
	w.strs = (*sp)[:0]
	w.hasESM, w.hasCJS = req.ModuleType == "esm", req.ModuleType == "commonjs"
	w.scope = &ast.BlockStmt.Scope
	w.bindImports(ast) // first: a split esbuild chunk's helpers are import bindings
	w.detectBundler(ast)
	w.walk(ast)
	w.takeStrings(sp)
	if w.cancelled {
		return false
	}
	w.settleBindings()
	w.settleObjects() // after settleBindings: without objects wins
	w.settleGlobals()
	w.resolveFunctions() // after settleBindings, which may give calls new arguments
	w.resolveRoutes()
	w.finish()
	w.resolveExportShapes()
	w.fnDecls, w.fnExports = nil, nil // resolveExportShapes gives exported functions their bodies
	w.resolveEntryRequires()
	w.resolveChunkWorkers()
	return true
}

// binaryReason reports why src is not JavaScript text, or "".
func binaryReason(src []byte) string {
	head := src[:min(len(src), 8192)]
	if bytes.IndexByte(head, 0) >= 0 {
		return "it holds NUL bytes"
	}
	if !utf8.Valid(head) {
		// Allow a cut rune at the end of the sample.
		cut := head
		for i := 0; i < 3 && len(cut) > 0 && !utf8.Valid(cut); i++ {
			cut = cut[:len(cut)-1]
		}
		if !utf8.Valid(cut) {
			return "it is not valid UTF-8"
		}
	}
	return ""
}

// maxASIRetries bounds the semicolons parseWithASI inserts in one source.
const maxASIRetries = 16

// parseWithASI works around the parser where it misses automatic semicolon
// insertion: after an arrow function with a block body, a line that starts
// with [ or ( is a new statement (the grammar cannot continue the arrow
// function, so a semicolon is inserted), but the parser reports
// "unexpected [ in expression". When the offending token starts a line, the
// whitespace byte just before it becomes ';' in a copy, which keeps every
// offset, and the copy is parsed again, a bounded number of times.
func parseWithASI(buf []byte, perr error) (*tjs.AST, []byte, bool) {
	var cp []byte
	for range maxASIRetries {
		se := syntaxError(buf, perr)
		if !strings.HasPrefix(se.Message, "unexpected [") && !strings.HasPrefix(se.Message, "unexpected (") {
			return nil, nil, false
		}
		off := int(se.Offset)
		if off <= 0 || off >= len(buf) || (buf[off] != '[' && buf[off] != '(') {
			return nil, nil, false
		}
		k := off - 1
		for k >= 0 && (buf[k] == ' ' || buf[k] == '\t') {
			k--
		}
		if k < 0 || (buf[k] != '\n' && buf[k] != '\r') {
			return nil, nil, false // not at the start of a line: no semicolon is inserted there
		}
		if cp == nil {
			cp = make([]byte, len(buf), len(buf)+1)
			copy(cp, buf)
		}
		cp[off-1] = ';'
		ast, err := tjs.Parse(parse.NewInputBytes(cp), tjs.Options{})
		if err == nil {
			return ast, cp, true
		}
		buf, perr = cp, err
	}
	return nil, nil, false
}

func syntaxError(buf []byte, err error) ports.JSSyntaxError {
	var pe *parse.Error
	if errors.As(err, &pe) {
		msg := pe.Message
		off := lineColOffset(buf, pe.Line, pe.Column)
		return ports.JSSyntaxError{Message: msg, Line: pe.Line, Column: utf16Column(buf, off, pe.Column), Offset: off}
	}
	return ports.JSSyntaxError{Message: truncate(err.Error(), 512), Offset: -1}
}

// lineColOffset converts a 1-based line and rune column to a byte offset.
// Lines end where the parser ends them (parse.Position): at \n, \r, \r\n,
// U+2028 and U+2029.
func lineColOffset(buf []byte, line, col int) int64 {
	if line < 1 || col < 1 {
		return -1
	}
	off := 0
	for l := 1; l < line; l++ {
		n := nextLine(buf, off)
		if n < 0 {
			return -1
		}
		off = n
	}
	for c := 1; c < col && off < len(buf); c++ {
		if ports.LineEnd(buf, off) > 0 {
			break
		}
		_, n := utf8.DecodeRune(buf[off:])
		off += n
	}
	return int64(off)
}

// nextLine is the offset just after the first line terminator at or after
// off, or -1 when there is none.
func nextLine(buf []byte, off int) int {
	for off < len(buf) {
		i := bytes.IndexAny(buf[off:], "\n\r\u2028\u2029")
		if i < 0 {
			return -1
		}
		off += i
		if n := ports.LineEnd(buf, off); n > 0 {
			return off + n
		}
		_, n := utf8.DecodeRune(buf[off:])
		off += n
	}
	return -1
}

// utf16Column is rea's column of byte offset off: 0-based, in UTF-16 code
// units from the start of its line (after the last \n, \r, U+2028 or
// U+2029, the line terminators the parser counts lines by). The parser's
// own column is 1-based in runes; it is used, less one, when off is
// unknown (-1).
func utf16Column(buf []byte, off int64, runeCol int) int {
	if off < 0 || off > int64(len(buf)) {
		return max(runeCol-1, 0)
	}
	line := buf[:off]
	for i := len(line) - 1; i >= 0; i-- {
		if c := line[i]; c == '\n' || c == '\r' || (c == 0xA8 || c == 0xA9) && i >= 2 && line[i-2] == 0xE2 && line[i-1] == 0x80 {
			line = line[i+1:]
			break
		}
	}
	col := 0
	for len(line) > 0 {
		r, n := utf8.DecodeRune(line)
		col += utf16.RuneLen(r)
		line = line[n:]
	}
	return col
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// sourceMapRef finds the last sourceMappingURL comment.
func sourceMapRef(src []byte) *ports.JSSourceMapRef {
	return commentRef(src, "sourceMappingURL=")
}

// commentRef finds the last //# key=value (or //@, /*#) comment of src.
func commentRef(src []byte, key string) *ports.JSSourceMapRef {
	// Most files hold no such comment: a forward search for the key's
	// uppercase tail (rare in code, so the vectorised search seldom
	// stops) rules that out many times faster than a backward search of
	// the whole key, which then runs only when the key is there.
	if tail := strings.IndexAny(key, "ABCDEFGHIJKLMNOPQRSTUVWXYZ"); tail > 0 && !bytes.Contains(src, []byte(key[tail:])) {
		return nil
	}
	i := bytes.LastIndex(src, []byte(key))
	for i >= 4 {
		pre := src[i-4 : i]
		if (pre[0] == '/' && (pre[1] == '/' || pre[1] == '*') && (pre[2] == '#' || pre[2] == '@') && pre[3] == ' ') ||
			(i >= 3 && src[i-3] == '/' && src[i-2] == '/' && (src[i-1] == '#' || src[i-1] == '@')) {
			start := i + len(key)
			end := start
			for end < len(src) && src[end] != '\n' && src[end] != '\r' && src[end] != ' ' && src[end] != '\t' && src[end] != '*' {
				end++
			}
			if end == start {
				return nil
			}
			// A comment inside a string (webpack's eval-source-map keeps one
			// per module in its eval strings) runs into escapes and quotes;
			// it is not the file's.
			if url := src[start:end]; bytes.IndexAny(url, "\\\"'`") < 0 {
				return &ports.JSSourceMapRef{URL: string(url), Offset: int64(start)}
			}
		}
		i = bytes.LastIndex(src[:i], []byte(key))
	}
	return nil
}

// --- the walk ---

// alias is the module a binding came from and the member path below it;
// whole says the binding is the module object itself (a require, a
// namespace import), so a member read from it names one of its exports.
type alias struct {
	module, member string
	whole          bool
}

type modCtx struct {
	idx     int
	reqVar  *tjs.Var // the module function's require parameter (webpack)
	expVar  *tjs.Var // its exports parameter
	modVar  *tjs.Var // its module parameter
	hasher  hash.Hash
	varCall []*tjs.Var  // esbuild: calls to require_x() / init_x()
	params  *tjs.Params // the module function's parameters
}

type walker struct {
	ctx       context.Context
	buf       []byte
	req       ports.JSRequest
	lim       ports.JSLimits
	f         *ports.JSFacts
	strs      []ports.JSString // the string literals met, JSFacts.Strings once the walk ends (takeStrings)
	aliases   map[*tjs.Var]alias
	imported  map[string]alias  // the module's import bindings by name (bindImports)
	modFuncs  map[tjs.INode]int // module function node -> index in f.Modules
	stack     []*modCtx
	esVars    map[*tjs.Var]int    // esbuild require_x/init_x -> module
	esHelpers map[*tjs.Var]esKind // esbuild helpers found by shape
	modScopes map[*tjs.Scope]bool // scopes whose helper calls declare modules
	minMods   []minModule         // modules of minified esbuild bundles
	esReqs    []esRequire         // calls inside modules, resolved in finish
	lastNames map[string]bool
	modSuffix []string
	modLast   []string // "module:name" (ports.JSCallSelector.ModuleLastNames)
	// assignments to const objects' members (reassign.go)
	memberSets map[memberKey]*memberSet
	roots      map[string]bool
	cuts       [cutKinds]int      // captured values cut at the engine's bounds (cut)
	cutNodes   map[tjs.INode]bool // the values counted in cuts
	tables     [][]int            // module indices of each table, in source order
	hasESM     bool
	hasCJS     bool
	steps      int
	cancelled  bool
	tag        [1]byte
	// export value shapes (exports.go)
	scope      *tjs.Scope          // module scope
	scopeNames map[string]*tjs.Var // its declarations by name, built on first use
	// module code inside eval strings (evalcode.go)
	ev *evalSource
	// webpack runtime requires (webpack.go)
	requireFuncs    map[*tjs.Var]bool
	externals       map[string]string      // table module id -> the request it re-exports (webpack externals)
	chunkURLs       map[*tjs.Var]tjs.IExpr // runtime chunk file name functions (require.u = id => ...)
	chunkWorkers    []chunkWorker
	pendingRequires []pendingRequire
	declNotes       []declNote
	decls           map[*tjs.Var]tjs.INode
	exportValues    []exportValue
	// bindings to strings (consts.go)
	consts       map[*tjs.Var]constString
	written      []*tjs.Var // var and let bindings assigned or declared again
	provisional  []provisionalCall
	readMutable  []*tjs.Var // the var and let bindings the call being recorded read
	noMutable    bool       // render without var and let bindings
	dynamicScope bool       // direct eval or with: a write may name no binding
	nest         int        // statements and blocks open in the current function body
	nests        []int      // nest of each enclosing function
	// bindings to object literals (constobjs.go)
	constLits      map[*tjs.Var]*tjs.ObjectExpr
	litWritten     map[*tjs.Var]bool // those whose members the file changes
	litReads       []*tjs.Var        // those the call being recorded read
	litProvisional []provisionalCall
	litsOn, noLits bool // render a recorded call's arguments with them; without
	// names read from module objects (uses.go)
	uses     map[useKey]*moduleUses
	useOrder []useKey
	// routes written as data (routes.go)
	routeCands []routeCand
	arrayBinds map[*tjs.Var]*tjs.ArrayExpr
	// bindings to navigator members (globals.go)
	globals        map[*tjs.Var]globalAlias
	pendingGlobals []pendingGlobal
	// bodies of function arguments (functions.go)
	fnArgs    map[tjs.INode][]int // an argument's function -> its fnPending entries
	fnPending []fnArg
	fnOpen    []fnOpen
	fnDecls   map[*tjs.Var][2]int          // the calls each declared function holds
	fnDeclAt  map[*tjs.Var]int64           // where each declared function's declaration names it
	constFns  map[*tjs.Var]tjs.INode       // const bindings to a function expression
	fnNamed   map[tjs.INode]*tjs.Var       // and back
	constObjs map[*tjs.Var]*tjs.ObjectExpr // const bindings to an object literal with function members
	fnMembers map[tjs.INode][2]int         // those members, and the calls each holds
	fnExports map[tjs.INode][2]int         // function expressions exports name, and the calls each holds
	cursor    int                          // past the last token of the file the walk met (declName)
	relInArgs bool                         // ports.JSCallSelector.RelativeInArguments
}

func newWalker(ctx context.Context, buf []byte, req ports.JSRequest, lim ports.JSLimits, f *ports.JSFacts) *walker {
	w := new(walker)
	w.reset(ctx, buf, req, lim, f)
	return w
}

// release empties w for walkerPool: it holds nothing of the file it
// walked, only the room of the lists every file's walk appends to, its
// declNotes, written, nests and fnOpen, cleared. A walk only appends to
// declNotes and written, so past their length their room is still as the
// last release left it, zero: only what this walk used is cleared. (Their
// whole capacity, which one large file grows for the walker's life, was
// cleared for every file: a pointer's clear takes a write barrier while
// the collector runs, and that was a tenth of extract's time on npm-50.)
// fnOpen is a stack, whose popped entries lie past its length.
func (w *walker) release() {
	notes, written, nests, open := w.declNotes, w.written, w.nests, w.fnOpen
	clear(notes)
	clear(written)
	clear(open[:cap(open)])
	*w = walker{declNotes: notes[:0], written: written[:0], nests: nests[:0], fnOpen: open[:0]}
}

// walkerPool holds walkers for extract: a walker is a kilobyte, made for
// every file.
var walkerPool = sync.Pool{New: func() any { return new(walker) }}

// reset makes w a new walker of buf, keeping the room of the lists every
// file's walk appends to (release).
func (w *walker) reset(ctx context.Context, buf []byte, req ports.JSRequest, lim ports.JSLimits, f *ports.JSFacts) {
	*w = walker{ctx: ctx, buf: buf, req: req, lim: lim, f: f, nest: -1,
		declNotes: w.declNotes[:0], written: w.written[:0], nests: w.nests[:0], fnOpen: w.fnOpen[:0]}
	if req.Calls != nil {
		w.lastNames, w.roots = selectorSets(req.Calls)
		w.modSuffix, w.modLast = req.Calls.ModuleSuffixes, req.Calls.ModuleLastNames
		w.relInArgs = req.Calls.RelativeInArguments
	}
}

// setAlias, setModFunc and setESVar fill maps most files never need,
// made on first use.
func (w *walker) setAlias(v *tjs.Var, a alias) {
	if w.aliases == nil {
		w.aliases = map[*tjs.Var]alias{}
	}
	w.aliases[v] = a
}

func (w *walker) setModFunc(fn tjs.INode, idx int) {
	if w.modFuncs == nil {
		w.modFuncs = map[tjs.INode]int{}
	}
	w.modFuncs[fn] = idx
}

func (w *walker) setESVar(v *tjs.Var, idx int) {
	if w.esVars == nil {
		w.esVars = map[*tjs.Var]int{}
	}
	w.esVars[v] = idx
}

// selectorSet is a call selector's names as sets, read-only once made.
type selectorSet struct {
	lastNames, roots []string // the names the sets were made from
	lastNameSet      map[string]bool
	rootSet          map[string]bool
}

// lastSelector is the set made for the selector seen last: an application
// passes the same selector for each of its thousands of files, and the
// sets were most of a small file's walker.
var lastSelector atomic.Pointer[selectorSet]

// selectorSets returns the sets of c's names, reusing the last ones made
// when they were made from the same names.
func selectorSets(c *ports.JSCallSelector) (lastNames, roots map[string]bool) {
	if s := lastSelector.Load(); s != nil && slices.Equal(s.lastNames, c.LastNames) && slices.Equal(s.roots, c.Roots) {
		return s.lastNameSet, s.rootSet
	}
	s := &selectorSet{lastNames: slices.Clone(c.LastNames), roots: slices.Clone(c.Roots),
		lastNameSet: make(map[string]bool, len(c.LastNames)), rootSet: make(map[string]bool, len(c.Roots))}
	for _, n := range c.LastNames {
		s.lastNameSet[n] = true
	}
	for _, n := range c.Roots {
		s.rootSet[n] = true
	}
	lastSelector.Store(s)
	return s.lastNameSet, s.rootSet
}

// offsetOf returns the offset of b in the engine's buffer, or -1 when b
// does not alias it (the parser made a copy).
func (w *walker) offsetOf(b []byte) int64 {
	if len(b) == 0 {
		return -1
	}
	// The lexer hands out three-index slices of its buffer, so only the
	// address tells where a token lies. Go does not move heap objects, and
	// the result is checked against the buffer before it is used.
	base := uintptr(unsafe.Pointer(unsafe.SliceData(w.buf)))
	p := uintptr(unsafe.Pointer(unsafe.SliceData(b)))
	if p < base || p-base+uintptr(len(b)) > uintptr(len(w.buf)) {
		return w.evalOffset(b)
	}
	off := int(p - base)
	if &w.buf[off] != &b[0] {
		return -1
	}
	return int64(off)
}

// detectBundler names the bundler from its runtime's names or, for
// esbuild, from its helpers' shape (minified bundles rename them).
func (w *walker) detectBundler(ast *tjs.AST) {
	b := w.buf
	webpack, rspack := false, false
	// One scan for "pack" finds every webpack and rspack marker (they are
	// rare in other code); the esbuild names are looked for only without
	// them. Every file passes here, so the scans are few.
	for i := 0; ; {
		j := indexRare(b[i:], []byte("pack"), 3)
		if j < 0 {
			break
		}
		at := i + j
		i = at + 4
		switch {
		case at >= 2 && string(b[at-2:at]) == "rs":
			// __rspack_require__, rspackChunk, __rspack_*, rspack_version,
			// and rspack 1.x's __webpack_require__.ruid = "bundler=rspack@1.6.2".
			rest := b[at+4 : min(len(b), at+12)]
			if bytes.HasPrefix(rest, []byte("Chunk")) || bytes.HasPrefix(rest, []byte("_")) || bytes.HasPrefix(rest, []byte("@")) && at >= 10 && string(b[at-10:at-2]) == "bundler=" {
				rspack = true
			}
		case at >= 3 && string(b[at-3:at]) == "web":
			rest := b[at+4 : min(len(b), at+14)]
			switch {
			case bytes.HasPrefix(rest, []byte("Chunk")):
				webpack = true
				if w.f.ChunkGlobal == "" {
					k := at - 3
					e := at + 4 + len("Chunk")
					for e < len(b) && e-k < 256 && (b[e] == '_' || b[e] == '$' || b[e] >= '0' && b[e] <= '9' || b[e]|0x20 >= 'a' && b[e]|0x20 <= 'z') {
						e++
					}
					w.f.ChunkGlobal = string(b[k:e])
				}
			case bytes.HasPrefix(rest, []byte("Jsonp")), bytes.HasPrefix(rest, []byte("_require__")) && at >= 5 && string(b[at-5:at-3]) == "__":
				webpack = true
			}
		}
	}
	shaped := w.findEsbuildHelpers(ast)
	runtime := !shaped && !webpack && !rspack && w.findWebpackRuntime(ast)
	if (webpack || rspack) && w.requireFuncs == nil {
		w.findWebpackRuntime(ast) // the require function of a marked build, for EntryRequires
	}
	switch {
	case rspack:
		w.f.Bundler = "rspack"
	case webpack:
		w.f.Bundler = "webpack"
	case shaped || indexRare(b, []byte("__commonJS"), 8) >= 0 || indexRare(b, []byte("__esm("), 0) >= 0 || indexRare(b, []byte("__toESM"), 5) >= 0:
		w.f.Bundler = "esbuild"
	case runtime:
		w.f.Bundler = "webpack" // by the runtime's shape (a minified build without chunk loading)
	}
}

// bindImports records module-scope import bindings as aliases.
func (w *walker) bindImports(ast *tjs.AST) {
	for _, st := range ast.BlockStmt.List {
		im, ok := st.(*tjs.ImportStmt)
		if !ok {
			continue
		}
		mod, _ := decodeString(im.Module)
		if im.Default != nil {
			w.importBinding(im.Default, alias{module: mod, member: "default"})
			if v := w.declaredAt(im.Default); v != nil {
				w.setAlias(v, alias{module: mod})
			}
		}
		for _, a := range im.List {
			member := string(a.Name)
			if member == "" {
				member = string(a.Binding)
			}
			w.importBinding(a.Binding, alias{module: mod, member: member, whole: member == "*"})
			v := w.declaredAt(a.Binding)
			if v == nil {
				continue
			}
			if member == "*" {
				w.setAlias(v, alias{module: mod, whole: true})
				continue
			}
			w.setAlias(v, alias{module: mod, member: member})
		}
	}
}

// importBinding records name as an import binding of the module named by
// a.module, bound to its export a.member ("default", "*" for a namespace).
// By name: the parser declares no Var for an import binding (one exists
// only where the code uses it).
func (w *walker) importBinding(name []byte, a alias) {
	if len(name) == 0 {
		return
	}
	if w.imported == nil {
		w.imported = map[string]alias{}
	}
	w.imported[string(name)] = a
}

func (w *walker) top() *modCtx {
	if len(w.stack) == 0 {
		return nil
	}
	return w.stack[len(w.stack)-1]
}

func (w *walker) inModule() int {
	if m := w.top(); m != nil {
		return m.idx
	}
	return -1
}

func (w *walker) importStmt(t *tjs.ImportStmt) {
	spec, _ := decodeString(t.Module)
	im := ports.JSImport{Kind: ports.JSImportStatic, Specifier: spec, Offset: w.offsetOf(t.Module), InModule: w.inModule()}
	if t.Default != nil {
		im.Names = append(im.Names, "default")
	}
	for _, a := range t.List {
		name := string(a.Name)
		if name == "" {
			name = string(a.Binding)
		}
		im.Names = append(im.Names, name)
	}
	w.f.Imports = append(w.f.Imports, im)
}

func (w *walker) exportStmt(t *tjs.ExportStmt) {
	if t.Module != nil {
		spec, _ := decodeString(t.Module)
		off := w.offsetOf(t.Module)
		all := len(t.List) == 1 && (string(t.List[0].Binding) == "*" || string(t.List[0].Name) == "*")
		kind := ports.JSExportFrom
		var names []string
		for _, a := range t.List {
			names = append(names, string(a.Binding))
			ek := "re-export"
			if all {
				ek = "export-all"
			}
			if len(a.Binding) == 0 {
				continue // the empty alias after a trailing comma
			}
			if string(a.Binding) != "*" {
				local := string(a.Name)
				if local == "" {
					local = string(a.Binding)
				}
				// Located by the exported name, else by the specifier.
				at := w.offsetOf(a.Binding)
				if at < 0 {
					at = off
				}
				w.addExport(ports.JSExport{Name: string(a.Binding), Kind: ek, Source: spec, Local: local, Offset: at, Value: unknownShape()}, nil)
			} else {
				w.addExport(ports.JSExport{Name: "*", Kind: ek, Source: spec, Offset: off, Value: unknownShape()}, nil)
			}
		}
		if all {
			kind = ports.JSExportAll
		}
		w.f.Imports = append(w.f.Imports, ports.JSImport{Kind: kind, Specifier: spec, Names: names, Offset: off, InModule: w.inModule()})
		return
	}
	if t.Default {
		// A named default function or class is located by its name; an
		// anonymous one or an expression names nothing (-1).
		off := int64(-1)
		switch d := t.Decl.(type) {
		case *tjs.FuncDecl:
			off = w.varOffset(d.Name)
		case *tjs.ClassDecl:
			off = w.varOffset(d.Name)
		}
		w.addExport(ports.JSExport{Name: "default", Kind: "default", Offset: off, Value: unknownShape()}, t.Decl)
		return
	}
	for _, a := range t.List {
		if len(a.Binding) == 0 {
			continue // the empty alias after a trailing comma
		}
		local := a.Name
		if local == nil {
			local = a.Binding
		}
		var value tjs.INode
		// Located at the declaration the clause names (a bundle's map
		// maps it; its closing export clause it does not), else at the
		// exported name in the clause (an imported binding), which
		// InClause says.
		off := w.offsetOf(a.Binding)
		v := w.declaredAt(local)
		if im, ok := w.imported[string(local)]; ok && (v == nil || v.Decl == tjs.NoDecl) && len(w.stack) == 0 {
			// An import binding exported again (import {a} from "./x";
			// export {a as b}) is a re-export of the name in its module,
			// as export {a as b} from "./x" is: the definition is there,
			// and the clause is where this file re-exports it.
			ek := "re-export"
			if im.whole {
				ek = "export-all" // import * as ns; export {ns}: export * as ns
			}
			w.addExport(ports.JSExport{Name: string(a.Binding), Kind: ek, Source: im.module, Local: im.member, Offset: off, Value: unknownShape(), InClause: true}, nil)
			continue
		}
		if v != nil {
			value = v
			w.noteWrite(v, 0) // an exported var or let is not followed (consts.go)
			if d := w.varOffset(v); d >= 0 {
				off = d
			}
		}
		inClause := off == w.offsetOf(a.Binding) || off == w.offsetOf(local)
		w.addExport(ports.JSExport{Name: string(a.Binding), Kind: "named", Offset: off, Value: unknownShape(), InClause: inClause}, value)
	}
	switch d := t.Decl.(type) {
	case *tjs.FuncDecl:
		if d.Name != nil {
			w.addExport(ports.JSExport{Name: string(d.Name.Name()), Kind: "named", Offset: w.varOffset(d.Name), Value: unknownShape()}, d)
		}
	case *tjs.ClassDecl:
		if d.Name != nil {
			w.addExport(ports.JSExport{Name: string(d.Name.Name()), Kind: "named", Offset: w.varOffset(d.Name), Value: unknownShape()}, d)
		}
	case *tjs.VarDecl:
		for _, b := range d.List {
			if d.TokenType != tjs.ConstToken {
				w.noteBindingWrite(b.Binding, 0) // not followed (consts.go)
			}
			if v, ok := b.Binding.(*tjs.Var); ok {
				w.addExport(ports.JSExport{Name: string(v.Name()), Kind: "named", Offset: w.varOffset(v), Value: unknownShape()}, b.Default)
				continue
			}
			for _, v := range bindingVars(b.Binding) {
				w.addExport(ports.JSExport{Name: string(v.Name()), Kind: "named", Offset: w.varOffset(v), Value: unknownShape()}, nil)
			}
		}
	}
}

// bindingVars lists the variables a binding pattern declares.
func bindingVars(b tjs.IBinding) []*tjs.Var {
	switch t := b.(type) {
	case *tjs.Var:
		return []*tjs.Var{t}
	case *tjs.BindingArray:
		var out []*tjs.Var
		for _, e := range t.List {
			out = append(out, bindingVars(e.Binding)...)
		}
		return out
	case *tjs.BindingObject:
		var out []*tjs.Var
		for _, e := range t.List {
			out = append(out, bindingVars(e.Value.Binding)...)
		}
		return out
	}
	return nil
}

// varOffset is where a declared name lies in the source (the declaration's
// token), or -1.
func (w *walker) varOffset(v *tjs.Var) int64 {
	if v == nil {
		return -1
	}
	return w.offsetOf(v.Data)
}

func (w *walker) literal(t *tjs.LiteralExpr) {
	if t.TokenType != tjs.StringToken {
		return
	}
	w.addString(t.Data)
}

func (w *walker) addString(raw []byte) {
	if len(w.strs) >= w.lim.MaxStrings {
		w.f.StringsOmitted++
		return
	}
	v, ok := decodeString(raw)
	if !ok {
		return
	}
	s := ports.JSString{Value: v, Offset: w.offsetOf(raw), Length: int64(len(raw))}
	if len(s.Value) > w.lim.MaxStringBytes {
		s.Value, s.Truncated = truncate(s.Value, w.lim.MaxStringBytes), true
	}
	w.strs = append(w.strs, s)
}

// stringsPool holds slices a walk collects string literals in (walker
// strs): a file's literals are the most numerous of its facts, and
// growing JSFacts.Strings literal by literal allocated about twice what
// it ends up holding.
var stringsPool = sync.Pool{New: func() any { return new([]ports.JSString) }}

// takeStrings gives the literals collected in w.strs to JSFacts.Strings,
// in a slice of their own, and the scratch back to the pool, emptied.
func (w *walker) takeStrings(sp *[]ports.JSString) {
	if len(w.strs) > 0 {
		w.f.Strings = slices.Clone(w.strs)
	}
	clear(w.strs)
	*sp, w.strs = w.strs[:0], nil
	stringsPool.Put(sp)
}

func (w *walker) template(t *tjs.TemplateExpr) {
	w.addString(t.Tail)
}

// calleePath renders a name path and the module binding its root came from.
func (w *walker) calleePath(x tjs.IExpr, depth int) (path string, al alias, ok bool) {
	var scratch [128]byte
	b, al, ok := w.appendCalleePath(scratch[:0], x, depth)
	if !ok {
		return "", alias{}, false
	}
	return string(b), al, true
}

// transientPath is calleePath with the path rendered in scratch: a string
// valid only while scratch is, for the checks every call and new
// expression goes through, most of which keep nothing. What keeps the path
// copies it (recordCall).
func (w *walker) transientPath(scratch []byte, x tjs.IExpr) (path string, al alias, ok bool) {
	b, al, ok := w.appendCalleePath(scratch, x, 0)
	if !ok {
		return "", alias{}, false
	}
	return unsafe.String(unsafe.SliceData(b), len(b)), al, true
}

// calleeAlias is calleePath's module binding, without the path.
func (w *walker) calleeAlias(x tjs.IExpr) (alias, bool) {
	var scratch [128]byte
	_, al, ok := w.appendCalleePath(scratch[:0], x, 0)
	return al, ok
}

// appendCalleePath appends calleePath's path to dst: the walk renders one
// for every call and assignment, and a dotted path made string by string
// was an allocation per name and per dot.
func (w *walker) appendCalleePath(dst []byte, x tjs.IExpr, depth int) (path []byte, al alias, ok bool) {
	if depth > 12 {
		return dst, alias{}, false
	}
	switch t := x.(type) {
	case *tjs.Var:
		dst = append(dst, t.Name()...)
		if a, found := w.aliases[root(t)]; found {
			return dst, a, true
		}
		return dst, alias{}, true
	case *tjs.DotExpr:
		p, a, ok := w.appendCalleePath(dst, t.X, depth+1)
		if !ok {
			return dst, alias{}, false
		}
		y := dotBytes(t.Y)
		if len(y) == 0 {
			return dst, alias{}, false
		}
		if a.module != "" {
			a.member, a.whole = joinPath(a.member, string(y)), false
		}
		return append(append(p, '.'), y...), a, true
	case *tjs.IndexExpr:
		lit, isLit := t.Y.(*tjs.LiteralExpr)
		if !isLit || lit.TokenType != tjs.StringToken {
			return dst, alias{}, false
		}
		s, _ := decodeString(lit.Data)
		p, a, ok := w.appendCalleePath(dst, t.X, depth+1)
		if !ok {
			return dst, alias{}, false
		}
		if a.module != "" {
			a.member, a.whole = joinPath(a.member, s), false
		}
		return append(append(p, '.'), s...), a, true
	case *tjs.GroupExpr:
		return w.appendCalleePath(dst, t.X, depth+1)
	case *tjs.CommaExpr:
		if len(t.List) > 0 {
			return w.appendCalleePath(dst, t.List[len(t.List)-1], depth+1)
		}
	case *tjs.LiteralExpr:
		if t.TokenType == tjs.ThisToken {
			return append(dst, "this"...), alias{}, true
		}
	case *tjs.CallExpr:
		if spec, ok := w.requireSpec(t); ok {
			// fmt's %q of a string is strconv's quoting
			return append(strconv.AppendQuote(append(dst, "require("...), spec), ')'), alias{module: spec, whole: true}, true
		}
	case *tjs.NewExpr:
		// new X(...).m(): the instance's method, named after its class.
		p, a, ok := w.appendCalleePath(append(dst, "new "...), t.X, depth+1)
		if !ok {
			return dst, alias{}, false
		}
		return p, a, true
	}
	return dst, alias{}, false
}

func root(v *tjs.Var) *tjs.Var {
	for v.Link != nil {
		v = v.Link
	}
	return v
}

func dotName(y tjs.IExpr) string { return string(dotBytes(y)) }

// dotBytes is dotName's bytes, where the parser has them (to compare
// without making a string).
func dotBytes(y tjs.IExpr) []byte {
	switch t := y.(type) {
	case tjs.LiteralExpr:
		return t.Data
	case *tjs.LiteralExpr:
		return t.Data
	case *tjs.Var:
		return t.Name()
	}
	return nil
}

// dotOffset is where a member expression's property name lies, or -1.
func (w *walker) dotOffset(y tjs.IExpr) int64 {
	switch t := y.(type) {
	case tjs.LiteralExpr:
		return w.offsetOf(t.Data)
	case *tjs.LiteralExpr:
		return w.offsetOf(t.Data)
	case *tjs.Var:
		return w.offsetOf(t.Data)
	}
	return -1
}

func joinPath(a, b string) string {
	if a == "" {
		return b
	}
	return a + "." + b
}

// requireSpec reports require("x") with a literal x.
func (w *walker) requireSpec(c *tjs.CallExpr) (string, bool) {
	v, ok := c.X.(*tjs.Var)
	if !ok || len(c.Args.List) != 1 {
		return "", false
	}
	if string(v.Name()) != "require" || v.Decl != tjs.NoDecl {
		return w.externalRequire(v, c.Args.List[0].Value)
	}
	return literalString(c.Args.List[0].Value)
}

// literalString decodes a string literal or a template without substitutions.
func literalString(x tjs.IExpr) (string, bool) {
	switch t := x.(type) {
	case *tjs.LiteralExpr:
		if t.TokenType == tjs.StringToken {
			return decodeString(t.Data)
		}
	case *tjs.TemplateExpr:
		if t.Tag == nil && len(t.List) == 0 {
			return decodeString(t.Tail)
		}
	}
	return "", false
}

func (w *walker) literalOffset(x tjs.IExpr) int64 {
	switch t := x.(type) {
	case *tjs.LiteralExpr:
		return w.offsetOf(t.Data)
	case *tjs.TemplateExpr:
		if len(t.List) > 0 {
			return w.offsetOf(t.List[0].Value)
		}
		return w.offsetOf(t.Tail)
	case *tjs.NewExpr:
		if t.Args != nil && len(t.Args.List) > 0 {
			return w.literalOffset(t.Args.List[0].Value)
		}
	}
	return -1
}

func (w *walker) addImport(kind string, arg tjs.IExpr) {
	im := ports.JSImport{Kind: kind, Offset: -1, InModule: w.inModule()}
	if arg == nil {
		im.Dynamic = true
	} else if s, ok := literalString(arg); ok {
		im.Specifier, im.Offset = s, w.literalOffset(arg)
	} else {
		im.Dynamic = true
		im.Offset = w.literalOffset(arg)
	}
	w.f.Imports = append(w.f.Imports, im)
}

func (w *walker) call(t *tjs.CallExpr) {
	var first tjs.IExpr
	if len(t.Args.List) > 0 {
		first = t.Args.List[0].Value
	}
	if lit, ok := t.X.(*tjs.LiteralExpr); ok && lit.TokenType == tjs.ImportToken {
		w.addImport(ports.JSDynamicImport, first)
		return
	}
	if v, ok := t.X.(*tjs.Var); ok && v.Decl == tjs.NoDecl {
		switch string(v.Name()) {
		case "eval":
			w.dynamicScope = true // a direct eval can assign any binding in scope
			if m := w.top(); m != nil && len(t.Args.List) == 1 {
				if lit, ok := t.Args.List[0].Value.(*tjs.LiteralExpr); ok && lit.TokenType == tjs.StringToken {
					w.evalModule(m, lit)
				}
			}
		case "require":
			w.hasCJS = true
			if len(t.Args.List) == 1 {
				w.addImport(ports.JSRequire, first)
			}
		case "importScripts":
			for _, a := range t.Args.List {
				w.addImport(ports.JSImportScripts, a.Value)
			}
		}
	}
	if w.f.Bundler == "webpack" || w.f.Bundler == "rspack" {
		w.webpackCall(t)
	}
	if m := w.top(); m != nil {
		if v, ok := t.X.(*tjs.Var); ok {
			if m.reqVar != nil && root(v) == m.reqVar && first != nil {
				if id, ok := moduleKey(first); ok {
					w.f.Modules[m.idx].Requires = append(w.f.Modules[m.idx].Requires, id)
				}
			} else if len(w.esVars) > 0 {
				m.varCall = append(m.varCall, root(v))
			}
		}
		// __webpack_require__.d(exports, {name: getter})
		if d, ok := t.X.(*tjs.DotExpr); ok && m.reqVar != nil && string(dotBytes(d.Y)) == "d" && len(t.Args.List) == 2 {
			if v, ok := d.X.(*tjs.Var); ok && root(v) == m.reqVar {
				if obj, ok := t.Args.List[1].Value.(*tjs.ObjectExpr); ok {
					for _, p := range obj.List {
						if k, ok := propKey(p.Name); ok {
							w.addModuleExport(m.idx, ports.JSExport{Name: k, Kind: "named", Offset: w.offsetOf(p.Name.Literal.Data), Value: unknownShape()}, getterValue(p.Value))
						}
					}
				}
			}
		}
	}
	var scratch [128]byte
	path, al, ok := w.transientPath(scratch[:0], t.X)
	if !ok {
		return
	}
	w.routeCall(path, t.Args.List)
	if len(w.constLits) > 0 {
		w.noteObjectCall(path, t.Args.List)
	}
	path, gv, renamed := w.globalCallee(t.X, path)
	if renamed && w.globals[gv].mutable {
		// Settled at the end of the walk (globals.go): a later write
		// may disprove the binding, and only the call is given back.
		w.recordGlobalCall(false, t.X, path, al, t.Args.List, first, t, gv)
		return
	}
	if path == "require.resolve" && first != nil {
		w.addImport(ports.JSRequireResolved, first)
	}
	if path == "navigator.serviceWorker.register" || strings.HasSuffix(path, ".serviceWorker.register") {
		if spec := w.workerURL(first); !w.chunkWorker(ports.JSServiceWorker, spec) {
			w.addImport(ports.JSServiceWorker, spec)
		}
	}
	w.recordCall(false, t.X, path, al, t.Args.List, first, t)
	// esbuild: var require_x = __commonJS({...}) is handled in varDecl.
}

func moduleKey(x tjs.IExpr) (string, bool) {
	lit, ok := x.(*tjs.LiteralExpr)
	if !ok {
		return "", false
	}
	switch lit.TokenType {
	case tjs.DecimalToken, tjs.IntegerToken:
		return string(lit.Data), true
	case tjs.StringToken:
		return decodeString(lit.Data)
	}
	return "", false
}

func (w *walker) newExpr(t *tjs.NewExpr) {
	var args []tjs.Arg
	if t.Args != nil {
		args = t.Args.List
	}
	var scratch [128]byte
	path, al, ok := w.transientPath(scratch[:0], t.X)
	if !ok {
		return
	}
	var first tjs.IExpr
	if len(args) > 0 {
		first = args[0].Value
	}
	w.routeCall(path, args)
	path, gv, renamed := w.globalCallee(t.X, path)
	if renamed && w.globals[gv].mutable {
		w.recordGlobalCall(true, t.X, path, al, args, first, t, gv)
		return
	}
	switch path {
	case "Worker", "SharedWorker", "window.Worker", "self.Worker":
		kind := ports.JSWorker
		if strings.HasSuffix(path, "SharedWorker") {
			kind = ports.JSSharedWorker
		}
		spec := w.workerURL(first)
		if w.chunkWorker(kind, spec) {
			break
		}
		w.addImport(kind, spec)
	}
	w.recordCall(true, t.X, path, al, args, first, t)
}

// workerURL is the script a worker is started from: x of new URL(x, base)
// (new URL("./w.js", import.meta.url), or webpack's rewritten new
// URL(r.p + r.u(id), r.b)), else the argument itself.
func (w *walker) workerURL(first tjs.IExpr) tjs.IExpr {
	if nu, ok := first.(*tjs.NewExpr); ok {
		if p, _, _ := w.calleePath(nu.X, 0); p == "URL" && nu.Args != nil && len(nu.Args.List) > 0 {
			return nu.Args.List[0].Value
		}
	}
	return first
}

func (w *walker) selected(path string, al alias) bool {
	if w.lastNames == nil {
		return true
	}
	last := path
	if i := strings.LastIndexByte(path, '.'); i >= 0 {
		last = path[i+1:]
	}
	if w.lastNames[last] {
		return true
	}
	if al.module != "" && al.member != "" {
		// A renamed binding (const {BrowserWindow: n} = require("electron"))
		// is selected by the name it was imported as.
		m := al.member
		if i := strings.LastIndexByte(m, '.'); i >= 0 {
			m = m[i+1:]
		}
		if w.lastNames[m] {
			return true
		}
		mod := strings.TrimPrefix(al.module, "node:")
		for _, ml := range w.modLast {
			if len(ml) == len(mod)+1+len(m) && ml[len(mod)] == ':' && strings.HasPrefix(ml, mod) && strings.HasSuffix(ml, m) {
				return true
			}
		}
	}
	first := path
	if i := strings.IndexByte(path, '.'); i >= 0 {
		first = path[:i]
	}
	if w.roots[first] && first != path {
		return true
	}
	for _, s := range w.modSuffix {
		if al.module != "" && strings.HasSuffix(al.module, s) {
			return true
		}
	}
	return false
}

// relativeCall says whether a call whose root binding came from a relative
// specifier is recorded (ports.JSCallSelector.RelativeInArguments): inside
// a function written as an argument of a recorded call, or inside any
// function whose body is wanted (fnOpen: a declaration or a const function
// a later call may take by name, an export, a const object's member).
// quiet: only the latter, recorded without its arguments (ports.JSCall
// Args), since a caller follows such a call by its callee alone, and only
// when a handler's body holds it; most are not in one (a library's
// functions calling its other files), and rendering their arguments would
// cost for nothing (and count cuts no reader meets).
func (w *walker) relativeCall(al alias) (ok, quiet bool) {
	if !w.relInArgs || len(w.fnOpen) == 0 || !(strings.HasPrefix(al.module, "./") || strings.HasPrefix(al.module, "../")) {
		return false, false
	}
	if w.inFuncArg() {
		return true, false
	}
	return true, true
}

// inFuncArg says whether the walk is inside a function written as an
// argument of a recorded call (noteFuncArgs), whose body is wanted.
func (w *walker) inFuncArg() bool {
	for _, o := range w.fnOpen {
		if _, ok := w.fnArgs[o.node]; ok {
			return true
		}
	}
	return false
}

func (w *walker) recordCall(isNew bool, callee tjs.IExpr, path string, al alias, args []tjs.Arg, first tjs.IExpr, node tjs.IExpr) {
	quiet := false
	if !w.selected(path, al) {
		var ok bool
		if ok, quiet = w.relativeCall(al); !ok {
			return
		}
	}
	if len(w.f.Calls) >= w.lim.MaxCalls {
		w.f.CallsOmitted++
		return
	}
	c := ports.JSCall{New: isNew, Callee: strings.Clone(path), Module: al.module, Member: al.member, Offset: -1, InModule: w.inModule()}
	if !quiet {
		c.Args = w.callArgs(args)
	}
	c.Offset = w.calleeOffset(path, args)
	c.CalleeOffset = -1
	if o := w.nameOffset(callee, 0); o >= 0 && o <= math.MaxInt32 {
		c.CalleeOffset = int32(o)
	}
	c.Position = -1
	if pos := w.position(node); pos >= 0 && pos <= math.MaxInt32 {
		c.Position = int32(pos)
	}
	w.f.Calls = append(w.f.Calls, c)
	w.noteFuncArgs(args)
	w.noteMemberFuncs(args)
}

// callArgs renders the arguments of the call about to be recorded (at
// index len(w.f.Calls)), noting the renderings without var and let
// bindings, and without const objects, that settleBindings and
// settleObjects may give it back.
func (w *walker) callArgs(args []tjs.Arg) []ports.JSValue {
	w.readMutable = w.readMutable[:0]
	w.litReads, w.litsOn = w.litReads[:0], len(w.constLits) > 0
	out := w.values(args)
	mutable := len(w.readMutable) > 0
	var lits []*tjs.Var
	if len(w.litReads) > 0 {
		lits = slices.Clone(w.litReads)
	}
	if mutable {
		// The arguments read var or let bindings that a write later in
		// the walk may disprove; settleBindings decides (consts.go).
		p := provisionalCall{call: len(w.f.Calls), reads: slices.Clone(w.readMutable)}
		w.noMutable, w.litReads = true, w.litReads[:0]
		p.args = w.values(args)
		w.noMutable = false
		w.provisional = append(w.provisional, p)
	}
	if lits != nil {
		// The arguments read const objects that a change in place later
		// in the walk may disprove; settleObjects decides (constobjs.go),
		// after settleBindings, so this rendering is without either.
		p := provisionalCall{call: len(w.f.Calls), reads: lits}
		w.noLits, w.noMutable = true, mutable
		p.args = w.values(args)
		w.noLits, w.noMutable = false, false
		w.litProvisional = append(w.litProvisional, p)
	}
	w.litsOn = false
	return out
}

// recordGlobalCall records a call renamed through a let or var navigator
// binding, for settleGlobals to give back its local name if need be.
func (w *walker) recordGlobalCall(isNew bool, callee tjs.IExpr, path string, al alias, args []tjs.Arg, first tjs.IExpr, node tjs.IExpr, v *tjs.Var) {
	n := len(w.f.Calls)
	w.recordCall(isNew, callee, path, al, args, first, node)
	if len(w.f.Calls) > n {
		orig, _, _ := w.calleePath(callee, 0)
		w.pendingGlobals = append(w.pendingGlobals, pendingGlobal{call: n, orig: orig, v: v})
	}
}

// nameOffset is the offset of callee x's last name (JSCall.CalleeOffset):
// a member's property name is a token of this expression, but a plain
// name's Var is shared by the uses in one scope and holds the first, which
// only inside a function is sure to lie near the call.
func (w *walker) nameOffset(x tjs.IExpr, depth int) int64 {
	if depth > 12 {
		return -1
	}
	switch t := x.(type) {
	case *tjs.Var:
		if len(w.nests) > 0 {
			return w.offsetOf(t.Data)
		}
	case *tjs.DotExpr:
		switch y := t.Y.(type) {
		case tjs.LiteralExpr:
			return w.offsetOf(y.Data)
		case *tjs.LiteralExpr:
			return w.offsetOf(y.Data)
		}
	case *tjs.IndexExpr:
		return w.literalOffset(t.Y)
	case *tjs.GroupExpr:
		return w.nameOffset(t.X, depth+1)
	case *tjs.CommaExpr:
		if len(t.List) > 0 {
			return w.nameOffset(t.List[len(t.List)-1], depth+1)
		}
	}
	return -1
}

// values captures a call's first arguments.
func (w *walker) values(args []tjs.Arg) []ports.JSValue {
	var out []ports.JSValue
	for i, a := range args {
		if i >= maxCallArgs {
			out = append(out, w.cut(cutArgs, a.Value))
			break
		}
		out = append(out, w.value(a.Value, 0))
	}
	return out
}

// calleeOffset is the offset of the first literal argument, else -1: the
// AST gives positions only through literal tokens.
func (w *walker) calleeOffset(path string, args []tjs.Arg) int64 {
	for _, a := range args {
		if o := w.literalOffset(a.Value); o >= 0 {
			return o
		}
	}
	return -1
}

// value captures an argument, bounded in depth and breadth.
func (w *walker) value(x tjs.IExpr, depth int) ports.JSValue {
	v := ports.JSValue{Kind: ports.JSValOther, Offset: -1}
	if x == nil {
		return v
	}
	if depth >= w.lim.MaxValueDepth {
		return v
	}
	switch t := x.(type) {
	case *tjs.LiteralExpr:
		v.Offset = w.offsetOf(t.Data)
		switch {
		case t.TokenType == tjs.StringToken:
			v.Kind = ports.JSValString
			v.Value, _ = decodeString(t.Data)
			v.Value = truncate(v.Value, w.lim.MaxStringBytes)
		case tjs.IsNumeric(t.TokenType):
			v.Kind, v.Value = ports.JSValNumber, string(t.Data)
		case t.TokenType == tjs.TrueToken || t.TokenType == tjs.FalseToken:
			v.Kind, v.Value = ports.JSValBool, string(t.Data)
		case t.TokenType == tjs.NullToken:
			v.Kind = ports.JSValNull
		case t.TokenType == tjs.ThisToken:
			v.Kind, v.Value = ports.JSValName, "this"
		}
	case *tjs.TemplateExpr:
		if t.Tag != nil {
			return v
		}
		if len(t.List) == 0 {
			v.Kind = ports.JSValString
			v.Value, _ = decodeString(t.Tail)
			v.Offset = w.offsetOf(t.Tail)
			return v
		}
		v.Kind = ports.JSValTemplate
		v.Offset = w.offsetOf(t.List[0].Value)
		var sb strings.Builder
		for _, p := range t.List {
			s, _ := templateChunk(p.Value)
			sb.WriteString(s)
			if c, ok := w.constOf(p.Expr); ok {
				sb.WriteString(c.value)
				continue
			}
			sb.WriteString("${}")
			v.Parts = append(v.Parts, w.value(p.Expr, depth+1))
		}
		s, _ := templateChunk(t.Tail)
		sb.WriteString(s)
		v.Value = truncate(sb.String(), w.lim.MaxStringBytes)
	case *tjs.BinaryExpr:
		if t.Op != tjs.AddToken {
			return v
		}
		// a + "b" + c: a template in all but syntax.
		var parts []tjs.IExpr
		flattenAdd(t, &parts, 0)
		var sb strings.Builder
		v.Kind = ports.JSValTemplate
		for _, p := range parts {
			if s, ok := literalString(p); ok {
				sb.WriteString(s)
				if v.Offset < 0 {
					v.Offset = w.literalOffset(p)
				}
				continue
			}
			if c, ok := w.constOf(p); ok {
				sb.WriteString(c.value)
				continue
			}
			sb.WriteString("${}")
			v.Parts = append(v.Parts, w.value(p, depth+1))
		}
		v.Value = truncate(sb.String(), w.lim.MaxStringBytes)
	case *tjs.Var, *tjs.DotExpr, *tjs.IndexExpr:
		if r, ok := x.(*tjs.Var); ok && (root(r).Decl == tjs.FunctionDecl || w.constFns[root(r)] != nil) {
			// A function declared in this file (function f or, before
			// the call, const f = a function expression), passed by name
			// (an IPC handler): the function, named, at its name's first
			// token in its scope (the parse keeps one per name and
			// scope; resolveFunctions moves a declaration's to it).
			r = root(r)
			v.Kind, v.Value, v.Offset = ports.JSValFunction, string(r.Data), w.varOffset(r)
			return v
		}
		if d, ok := x.(*tjs.DotExpr); ok && len(w.constObjs) > 0 {
			if _, key, name := w.memberFunc(d); key != nil {
				// A function member of a const object literal, passed by
				// its member path: the function, at its key.
				v.Kind, v.Value, v.Offset = ports.JSValFunction, name, w.offsetOf(key)
				return v
			}
		}
		if c, ok := w.constOf(x); ok {
			v.Kind, v.Value, v.Offset = ports.JSValString, c.value, c.offset
			return v
		}
		if r, ok := x.(*tjs.Var); ok && len(w.constLits) > 0 {
			if obj := w.constLiteral(r); obj != nil {
				return w.value(obj, depth) // as if written here (constobjs.go)
			}
		}
		if p, al, ok := w.calleePath(x, 0); ok {
			v.Kind, v.Value = ports.JSValName, p
			if al.module != "" {
				v.Value = p
			}
		}
	case *tjs.GroupExpr:
		return w.value(t.X, depth)
	case *tjs.CallExpr:
		if p, _, ok := w.calleePath(t.X, 0); ok {
			v.Kind, v.Value = ports.JSValCall, p
			for i, a := range t.Args.List {
				if i >= maxCallArgs {
					v.Args = append(v.Args, w.cut(cutArgs, a.Value))
					break
				}
				v.Args = append(v.Args, w.value(a.Value, depth+1))
			}
		}
	case *tjs.NewExpr:
		if p, _, ok := w.calleePath(t.X, 0); ok {
			v.Kind, v.Value = ports.JSValNew, p
			if t.Args != nil {
				for i, a := range t.Args.List {
					if i >= maxCallArgs {
						v.Args = append(v.Args, w.cut(cutArgs, a.Value))
						break
					}
					v.Args = append(v.Args, w.value(a.Value, depth+1))
				}
			}
		}
	case *tjs.ObjectExpr:
		v.Kind = ports.JSValObject
		for _, p := range t.List {
			if len(v.Props) >= maxObjectProps {
				// Props is data (a schema's property names): the cut is
				// said by PropsCut, not by a property standing for it.
				v.PropsCut = true
				w.cut(cutProps, t)
				break
			}
			if p.Spread || p.Name == nil {
				continue
			}
			k, ok := propKey(p.Name)
			if !ok {
				continue
			}
			val := p.Value
			if p.Init != nil {
				val = p.Init
			}
			v.Props = append(v.Props, ports.JSProp{Key: k, Value: w.value(val, depth+1)})
		}
	case *tjs.ArrayExpr:
		v.Kind = ports.JSValArray
		for i, e := range t.List {
			if i >= maxArrayItems {
				// Cut, and said so: a reader must not take the array
				// for written out in full (spawn's arguments).
				v.Items = append(v.Items, w.cut(cutItemsKind, t))
				break
			}
			v.Items = append(v.Items, w.value(e.Value, depth+1))
		}
	case *tjs.FuncDecl:
		// A function expression: at its name when it has one; its name
		// is its own (Value stays "": no binding of the file holds it).
		v.Kind = ports.JSValFunction
		if t.Name != nil {
			v.Offset = w.varOffset(t.Name)
		}
	case *tjs.ArrowFunc, *tjs.MethodDecl:
		v.Kind = ports.JSValFunction
	}
	return v
}

func flattenAdd(x tjs.IExpr, out *[]tjs.IExpr, depth int) {
	if b, ok := x.(*tjs.BinaryExpr); ok && b.Op == tjs.AddToken && depth < 64 {
		flattenAdd(b.X, out, depth+1)
		flattenAdd(b.Y, out, depth+1)
		return
	}
	if g, ok := x.(*tjs.GroupExpr); ok && depth < 64 {
		flattenAdd(g.X, out, depth+1)
		return
	}
	*out = append(*out, x)
}

func propKey(n *tjs.PropertyName) (string, bool) {
	if n == nil || n.IsComputed() {
		return "", false
	}
	switch n.Literal.TokenType {
	case tjs.StringToken:
		return decodeString(n.Literal.Data)
	}
	if len(n.Literal.Data) == 0 {
		return "", false
	}
	return string(n.Literal.Data), true
}

// propKeyIs reports whether propKey(n) is key, an ASCII name, without
// making n's key a string unless it is written with escapes: routes.go
// asks it of every property of every object literal.
func propKeyIs(n *tjs.PropertyName, key string) bool {
	if n == nil || n.IsComputed() {
		return false
	}
	d := n.Literal.Data
	if n.Literal.TokenType != tjs.StringToken {
		return len(d) > 0 && string(d) == key
	}
	if len(d) >= 2 && (d[0] == '"' || d[0] == '\'') && d[len(d)-1] == d[0] && bytes.IndexByte(d, '\\') < 0 {
		// decodeString's value unless the bytes are not UTF-8, when it
		// holds U+FFFD and is no ASCII name either
		return string(d[1:len(d)-1]) == key
	}
	k, ok := propKey(n)
	return ok && k == key
}

func (w *walker) varDecl(t *tjs.VarDecl) {
	if t.TokenType != tjs.ConstToken {
		w.noteBindings(t)
	}
	for _, b := range t.List {
		if b.Default == nil {
			continue
		}
		if t.TokenType == tjs.ConstToken {
			if v, ok := b.Binding.(*tjs.Var); ok {
				w.noteConst(v, b.Default, false)
				w.noteConstFunc(v, b.Default)
				w.noteConstObject(v, b.Default)
				w.noteConstLiteral(v, b.Default)
			}
		}
		// esbuild: var require_x = __commonJS({...}); var init_x = __esm({...})
		if v, ok := b.Binding.(*tjs.Var); ok {
			if len(w.esHelpers) > 0 && w.esbuildModule(t, v, b.Default) {
				continue
			}
			if c, ok := b.Default.(*tjs.CallExpr); ok {
				if cv, ok := c.X.(*tjs.Var); ok {
					if n := string(cv.Name()); (n == "__commonJS" || n == "__esm") && len(c.Args.List) == 1 {
						if obj, ok := c.Args.List[0].Value.(*tjs.ObjectExpr); ok && len(obj.List) == 1 {
							if idx := w.addTableModule(obj.List[0], "esbuild", nil); idx >= 0 {
								w.setESVar(root(v), idx)
							}
						}
						continue
					}
				}
			}
		}
		a, ok := w.aliasOf(b.Default)
		if !ok {
			continue
		}
		switch bt := b.Binding.(type) {
		case *tjs.Var:
			w.setAlias(root(bt), a)
		case *tjs.BindingObject:
			for _, it := range bt.List {
				k, ok := propKey(it.Key)
				if !ok {
					continue
				}
				if a.whole {
					w.useName(a.module, k)
				}
				if v, ok := it.Value.Binding.(*tjs.Var); ok {
					w.setAlias(root(v), alias{module: a.module, member: joinPath(a.member, k)})
				}
			}
		}
	}
}

// aliasOf reports the module binding an initializer denotes: require("m"),
// require("m").x, or a member of another alias; and a choice of two that
// denote the same binding, or the same member of fs and of Electron's
// original-fs (fs without the ASAR patch: cond ? require("original-fs") :
// require("fs")), which is fs's.
func (w *walker) aliasOf(x tjs.IExpr) (alias, bool) {
	if c, ok := x.(*tjs.CondExpr); ok {
		a, aok := w.calleeAlias(c.X)
		b, bok := w.calleeAlias(c.Y)
		fsTwins := func(m string) bool { return m == "fs" || m == "node:fs" || m == "original-fs" }
		switch {
		case !aok || !bok || a.module == "" || a.member != b.member || a.whole != b.whole:
			return alias{}, false
		case a == b:
			return a, true
		case fsTwins(a.module) && fsTwins(b.module):
			return alias{module: "fs", member: a.member, whole: a.whole}, true
		}
		return alias{}, false
	}
	a, ok := w.calleeAlias(x)
	if !ok || a.module == "" {
		return alias{}, false
	}
	return a, true
}

// assign records CommonJS exports: module.exports.x = ..., exports.x = ...
func (w *walker) assign(t *tjs.BinaryExpr) {
	w.chunkURLAssign(t)
	if w.constObjs != nil {
		w.memberAssign(t) // reassign.go
	}
	if m := w.top(); m != nil && (m.expVar != nil || m.modVar != nil) && w.moduleAssign(m, t) {
		return
	}
	var scratch [128]byte
	pb, _, ok := w.appendCalleePath(scratch[:0], t.X, 0)
	if !ok {
		return
	}
	// Most assignments are to other paths: the path is made a string only
	// when it is an export's.
	if !bytes.HasPrefix(pb, []byte("module.exports")) && !bytes.HasPrefix(pb, []byte("exports.")) {
		return
	}
	p := string(pb)
	var name string
	switch {
	case p == "module.exports":
		w.hasCJS = true
		if obj, ok := t.Y.(*tjs.ObjectExpr); ok {
			for _, pr := range obj.List {
				if m, ok := pr.Value.(*tjs.MethodDecl); ok && pr.Name == nil && m.Name.Private == nil {
					pr.Name = &m.Name.PropertyName // a method: {f() {}}, {get g() {}}
				}
				if k, ok := propKey(pr.Name); ok {
					w.cjsExport(ports.JSExport{Name: k, Kind: "commonjs", Offset: w.offsetOf(pr.Name.Literal.Data), Value: unknownShape()}, pr.Value)
				}
			}
			return
		}
		name = "default"
	case strings.HasPrefix(p, "module.exports."):
		name = p[len("module.exports."):]
	case strings.HasPrefix(p, "exports."):
		name = p[len("exports."):]
	default:
		return
	}
	if strings.Contains(name, ".") {
		return
	}
	w.hasCJS = true
	off := int64(-1)
	if d, ok := t.X.(*tjs.DotExpr); ok {
		off = w.dotOffset(d.Y) // exports.name =, module.exports = (at "exports")
	}
	w.cjsExport(ports.JSExport{Name: name, Kind: "commonjs", Offset: off, Value: unknownShape()}, t.Y)
}

// objectTable detects a webpack or rspack module table: an object whose
// properties all have number or path keys and function values.
func (w *walker) objectTable(t *tjs.ObjectExpr) {
	if (w.f.Bundler != "webpack" && w.f.Bundler != "rspack") || len(t.List) == 0 {
		return
	}
	for _, p := range t.List {
		name := p.Name
		if m, ok := p.Value.(*tjs.MethodDecl); ok && name == nil && m.Name.Private == nil && !m.Get && !m.Set && !m.Async && !m.Generator {
			// webpack 5.9x and later: {"./src/a.js"(module, exports, require) {...}, 416(e, t) {...}}
			name = &m.Name.PropertyName
		} else if !isFunc(p.Value) {
			return
		}
		if p.Spread || name == nil || name.IsComputed() {
			return
		}
		// Keys are numbers or paths, or an external's request ("electron",
		// which the parser may hand over as an identifier) whose module
		// only re-exports require(request).
		k, _ := propKey(name)
		switch name.Literal.TokenType {
		case tjs.DecimalToken, tjs.IntegerToken:
		case tjs.StringToken:
			if !strings.ContainsAny(k, "/.") && w.externalOf(p.Value) == "" {
				return
			}
		default:
			if w.externalOf(p.Value) == "" {
				return
			}
		}
	}
	var table []int
	for _, p := range t.List {
		if spec := w.externalOf(p.Value); spec != "" {
			name := p.Name
			if m, ok := p.Value.(*tjs.MethodDecl); ok && name == nil {
				name = &m.Name.PropertyName
			}
			if k, ok := propKey(name); ok {
				if w.externals == nil {
					w.externals = map[string]string{}
				}
				w.externals[k] = spec
			}
		}
		fn := unwrapFunc(p.Value)
		if idx := w.addTableModule(p, w.f.Bundler, fn); idx >= 0 {
			table = append(table, idx)
		}
	}
	w.tables = append(w.tables, table)
}

// isFuncNode reports the pointer kinds that can key modFuncs (some AST
// values, such as LiteralExpr, are not comparable).
func isFuncNode(n tjs.INode) bool {
	switch n.(type) {
	case *tjs.FuncDecl, *tjs.ArrowFunc, *tjs.MethodDecl:
		return true
	}
	return false
}

func isFunc(x tjs.IExpr) bool { return unwrapFunc(x) != nil }

func unwrapFunc(x tjs.IExpr) tjs.INode {
	switch t := x.(type) {
	case *tjs.FuncDecl, *tjs.ArrowFunc:
		return t
	case *tjs.GroupExpr:
		return unwrapFunc(t.X)
	}
	return nil
}

// addTableModule records one module of a table. For esbuild the property is
// a method (name(exports, module) {...}).
func (w *walker) addTableModule(p tjs.Property, bundler string, fn tjs.INode) int {
	if p.Name == nil {
		if m, ok := p.Value.(*tjs.MethodDecl); ok && m.Name.Private == nil {
			p.Name = &m.Name.PropertyName
		} else {
			return -1
		}
	}
	key, ok := propKey(p.Name)
	if !ok {
		return -1
	}
	if len(w.f.Modules) >= w.lim.MaxModules {
		w.f.ModulesOmitted++
		return -1
	}
	if fn == nil {
		if m, ok := p.Value.(*tjs.MethodDecl); ok {
			fn = m
		} else {
			fn = unwrapFunc(p.Value)
		}
	}
	if fn == nil {
		return -1
	}
	idx := len(w.f.Modules)
	start := w.offsetOf(p.Name.Literal.Data)
	w.f.Modules = append(w.f.Modules, ports.JSBundledModule{Bundler: bundler, ID: key, Start: start, End: start})
	w.setModFunc(fn, idx)
	return idx
}

func (w *walker) enterModule(n tjs.INode, idx int) {
	m := &modCtx{idx: idx, hasher: sha256.New()}
	var params *tjs.Params
	switch t := n.(type) {
	case *tjs.FuncDecl:
		params = &t.Params
	case *tjs.ArrowFunc:
		params = &t.Params
	case *tjs.MethodDecl:
		params = &t.Params
	}
	m.params = params
	if params != nil && w.f.Modules[idx].Bundler != "esbuild" {
		if len(params.List) >= 3 {
			if v, ok := params.List[2].Binding.(*tjs.Var); ok {
				m.reqVar = root(v)
			}
		}
		if len(params.List) >= 2 {
			if v, ok := params.List[1].Binding.(*tjs.Var); ok {
				m.expVar = root(v)
			}
		}
		if len(params.List) >= 1 {
			if v, ok := params.List[0].Binding.(*tjs.Var); ok {
				m.modVar = root(v)
			}
		}
	} else if params != nil && len(params.List) >= 1 && len(params.List) <= 2 {
		// esbuild's __commonJS((exports, module) => {...}); minified, an
		// unused module parameter is dropped.
		if v, ok := params.List[0].Binding.(*tjs.Var); ok {
			m.expVar = root(v)
		}
		if len(params.List) == 2 {
			if v, ok := params.List[1].Binding.(*tjs.Var); ok {
				m.modVar = root(v)
			}
		}
	}
	w.stack = append(w.stack, m)
}

func (w *walker) exitModule(m *modCtx) {
	w.stack = w.stack[:len(w.stack)-1]
	mod := &w.f.Modules[m.idx]
	mod.Fingerprint = hex.EncodeToString(m.hasher.Sum(nil))
	for _, v := range m.varCall {
		w.esReqs = append(w.esReqs, esRequire{from: m.idx, v: v})
	}
}

// shape feeds the module fingerprint: node kinds and literal values, never
// local names, and extends the module's end.
func (w *walker) shape(m *modCtx, n tjs.INode) {
	var data []byte
	tag := byte('?')
	switch t := n.(type) {
	case *tjs.LiteralExpr:
		tag, data = 'L', t.Data
	case tjs.LiteralExpr:
		tag, data = 'P', t.Data
	case *tjs.CallExpr:
		tag = 'C'
	case *tjs.NewExpr:
		tag = 'N'
	case *tjs.DotExpr:
		tag = 'D'
	case *tjs.BinaryExpr:
		tag = byte('B' + t.Op%7)
	case *tjs.FuncDecl, *tjs.ArrowFunc, *tjs.MethodDecl:
		tag = 'F'
	case *tjs.IfStmt:
		tag = 'I'
	case *tjs.ReturnStmt:
		tag = 'R'
	case *tjs.ObjectExpr:
		tag = 'O'
	case *tjs.ArrayExpr:
		tag = 'A'
	case *tjs.VarDecl:
		tag = 'V'
	case *tjs.ForStmt, *tjs.ForInStmt, *tjs.ForOfStmt, *tjs.WhileStmt, *tjs.DoWhileStmt:
		tag = 'W'
	case *tjs.TemplateExpr:
		tag, data = 'T', t.Tail
	case *tjs.Var:
		// Names are not hashed, but a declared name's slice is where it is
		// declared, which extends the module's end.
		if t.Decl != tjs.NoDecl {
			w.extend(w.offsetOf(t.Data), int64(len(t.Data)))
		}
		return
	default:
		return
	}
	w.tag[0] = tag
	m.hasher.Write(w.tag[:])
	if len(data) > 0 {
		m.hasher.Write(data)
		w.extend(w.offsetOf(data), int64(len(data)))
	}
}

// extend moves the end of every open module past a token at off.
func (w *walker) extend(off, n int64) {
	if off < 0 {
		return
	}
	end := off + n
	for _, mc := range w.stack {
		if mod := &w.f.Modules[mc.idx]; end > mod.End && off > mod.Start {
			mod.End = end
		}
	}
}

func (w *walker) finish() {
	w.esbuildIDs()
	w.attachUses()
	// A table's modules are contiguous: each one ends where the next key
	// starts (bodies without literals would otherwise end early).
	for _, t := range w.tables {
		for i := 0; i+1 < len(t); i++ {
			m, next := &w.f.Modules[t[i]], w.f.Modules[t[i+1]]
			if next.Start > m.Start {
				m.End = next.Start
			}
		}
	}
	switch {
	case w.hasESM:
		w.f.ModuleType = "esm"
	case w.hasCJS:
		w.f.ModuleType = "commonjs"
	default:
		w.f.ModuleType = "script"
	}
	if w.f.StringsOmitted > 0 {
		w.f.Limitations = append(w.f.Limitations, fmt.Sprintf("%d string literals beyond the first %d were not recorded.", w.f.StringsOmitted, w.lim.MaxStrings))
	}
	if w.f.CallsOmitted > 0 {
		w.f.Limitations = append(w.f.Limitations, fmt.Sprintf("%d selected calls beyond the first %d were not recorded.", w.f.CallsOmitted, w.lim.MaxCalls))
	}
	if w.f.ModulesOmitted > 0 {
		w.f.Limitations = append(w.f.Limitations, fmt.Sprintf("%d bundled modules beyond the first %d were not recorded.", w.f.ModulesOmitted, w.lim.MaxModules))
	}
	for k, n := range w.cuts {
		if n > 0 {
			w.f.Limitations = append(w.f.Limitations, fmt.Sprintf(cutLimitations[k], n))
		}
	}
}

// The bounds of a captured value: the items of an array, the properties
// of an object, the arguments of a call (ports.JSValue Items, Props and
// Args, and ports.JSCall Args). A list cut there ends with cutItems; an
// object cut there has PropsCut.
const (
	maxArrayItems  = 16
	maxObjectProps = 32
	maxCallArgs    = 8
)

// cutItems ends a list cut at its bound: not a value of the source, the
// items it stands for were not recorded.
var cutItems = ports.JSValue{Kind: ports.JSValOther, Value: "…", Offset: -1}

// What a cut cuts: the index into walker.cuts and cutLimitations.
const (
	cutItemsKind = iota
	cutProps
	cutArgs
	cutKinds
)

// cutLimitations say, per file, how many values of each kind were cut.
var cutLimitations = [cutKinds]string{
	cutItemsKind: "Array arguments of recorded calls cut at " + strconv.Itoa(maxArrayItems) + " items, the rest not recorded (\"…\" ends each): %d.",
	cutProps:     "Object arguments of recorded calls cut at " + strconv.Itoa(maxObjectProps) + " properties, the rest not recorded: %d.",
	cutArgs:      "Recorded calls' arguments cut at " + strconv.Itoa(maxCallArgs) + ", the rest not recorded (\"…\" ends each): %d.",
}

// cut counts value x, of kind k, cut at its bound and returns cutItems,
// the item that ends a cut list. Each value counts once, however often it
// is captured: a call's arguments as its own record and as another's
// argument, a provisional call's arguments twice (consts.go).
func (w *walker) cut(k int, x tjs.INode) ports.JSValue {
	if !w.cutNodes[x] {
		if w.cutNodes == nil {
			w.cutNodes = map[tjs.INode]bool{}
		}
		w.cutNodes[x] = true
		w.cuts[k]++
	}
	return cutItems
}
