package ports

import "context"

// JavaScriptEngine extracts syntactic facts from one JavaScript source
// without executing it. Implementations must be safe for concurrent use and
// must never panic on input: malformed, binary or oversized sources give a
// JSFacts with Errors or Limitations, not a Go error. A Go error is reserved
// for a cancelled context. Every offset is -1 or inside Source, and each
// JSLimits bound caps its list (the rest counted as omitted);
// portstest.RunJavaScript checks the whole contract.
type JavaScriptEngine interface {
	Info() ProviderInfo
	Facts(ctx context.Context, req JSRequest) (*JSFacts, error)
}

// JSRequest is one source to examine. Source is owned by the caller and must
// not be retained or modified by the engine.
type JSRequest struct {
	Path   string // logical path, for messages only
	Source []byte
	// Calls selects which call and new expressions are reported (all when
	// nil); see JSCallSelector.
	Calls  *JSCallSelector
	Limits JSLimits
	// Helpers are esbuild runtime helpers this source imports from another
	// chunk (esbuild --splitting), as the caller learned from that chunk's
	// HelperExports; the engine then reads calls of those bindings as
	// module declarations.
	Helpers []JSHelperBinding
	// ModuleType is "esm" or "commonjs" when the caller knows what the
	// source is without reading it (Node runs a .mjs file as an ES module
	// and a .cjs file as CommonJS), else "": an ES module's top-level
	// bindings are its own even when it has no import or export (a
	// bundle), where a script's are globals other scripts can assign.
	ModuleType string
	// SourceOwned hands Source, and its spare capacity, to the engine for
	// the call: the caller neither reads nor writes them until Facts
	// returns, so the engine may parse them in place instead of copying.
	SourceOwned bool
}

// JSHelperBinding is an esbuild runtime helper (__commonJS or __esm) as
// one module exports it and another imports it.
type JSHelperBinding struct {
	Specifier string // the importing file's specifier of the chunk ("" in HelperExports)
	Export    string // the exported name
	Kind      string // "cjs" or "esm" ("" in HelperImports: not known yet)
}

// JSCallSelector narrows the reported calls: a call is reported when any
// field selects it.
type JSCallSelector struct {
	LastNames      []string // last callee segment ("handle" in ipcMain.handle)
	ModuleSuffixes []string // module the root binding came from (".node")
	Roots          []string // first callee segment ("window" in window.api.open)
	// ModuleLastNames are "module:name" pairs ("fs:cp"): a call whose
	// root binding came from that module (a "node:" prefix aside) and
	// whose last segment there is name; for names too common to select
	// alone (cp is a minifier's name as often as fs's).
	ModuleLastNames []string
	// RelativeInArguments selects, inside a function written as an
	// argument of a selected call (an IPC handler in its registration),
	// or one the file declares or binds to a const (which a selected call
	// may take by name, before or after), exports, or makes a const
	// object's member, the calls whose root binding came from a relative
	// specifier (store.save after const store = require("./lib/store")):
	// the app's own functions the handler calls.
	RelativeInArguments bool
}

// JSLimits bound the facts of one source. Zero fields take the engine's
// defaults.
type JSLimits struct {
	MaxSourceBytes int64 // larger sources are not parsed (a limitation)
	MaxStrings     int   // string literals reported
	MaxStringBytes int   // longer literals are cut (JSString.Truncated)
	MaxCalls       int
	MaxModules     int // bundled modules reported
	MaxValueDepth  int // nesting captured in JSValue arguments
}

// JSFacts are the syntactic facts of one source. Offsets are byte offsets
// into Source; -1 means unknown.
type JSFacts struct {
	Parsed     bool   // the whole source parsed
	ModuleType string // esm, commonjs, script or unknown
	Imports    []JSImport
	Exports    []JSExport
	Strings    []JSString
	Calls      []JSCall
	Modules    []JSBundledModule // module tables of webpack, rspack and esbuild bundles
	// Routes are routes written as data: route objects in an array that
	// reaches a router (see JSRoute), in source order.
	Routes []JSRoute
	// Functions are the bodies of the functions passed as arguments of
	// recorded calls (JSValue kind function: written in the call, or
	// declared in the file and passed by name), by the recorded calls they
	// hold; one whose body holds none is left out. In call order.
	Functions []JSFunction
	// EntryRequires are the table modules the bundle's own code (runtime
	// and inlined entry modules, outside any table module) requires
	// through the runtime's require function.
	EntryRequires []JSBundleRequire
	Bundler       string // webpack, rspack, esbuild or "" when no bundle runtime was seen
	// HelperExports are the esbuild helpers this file exports (a split
	// build's shared chunk); HelperImports are imported bindings called at
	// module scope with a function, which may be helpers of another chunk.
	HelperExports, HelperImports []JSHelperBinding
	// ChunkGlobal is the global a webpack or rspack build's chunks share
	// ("webpackChunkapp"): a chunk file without the runtime belongs to the
	// build whose runtime names the same global.
	ChunkGlobal string
	// ChunkNames is the chunk file name function of the runtime this file
	// holds, when it holds one whose form the engine reads: it names the
	// chunks of the build's other files (a chunk file's Dynamic worker
	// with a JSImport.Chunk).
	ChunkNames  *JSChunkNames
	SourceMap   *JSSourceMapRef // the last sourceMappingURL comment
	Errors      []JSSyntaxError
	Limitations []string
	// StringsOmitted counts literals beyond MaxStrings; CallsOmitted and
	// ModulesOmitted likewise.
	StringsOmitted, CallsOmitted, ModulesOmitted int
}

// Import kinds (JSImport.Kind).
const (
	JSImportStatic    = "import"         // import ... from "x" / import "x"
	JSExportFrom      = "export-from"    // export {a} from "x"
	JSExportAll       = "export-all"     // export * from "x" / export * as ns from "x"
	JSRequire         = "require"        // require("x")
	JSDynamicImport   = "dynamic-import" // import("x")
	JSWorker          = "worker"         // new Worker("x") / new Worker(new URL("x", import.meta.url))
	JSSharedWorker    = "shared-worker"
	JSServiceWorker   = "service-worker" // navigator.serviceWorker.register("x")
	JSImportScripts   = "import-scripts" // importScripts("x")
	JSRequireResolved = "require-resolve"
)

// JSImport is one dependency edge written in the source.
type JSImport struct {
	Kind      string
	Specifier string // decoded literal; "" when Dynamic
	Dynamic   bool   // the specifier is not a literal (or a template with substitutions)
	Names     []string
	Offset    int64
	// InModule is the index in JSFacts.Modules of the bundled module whose
	// body holds this import, or -1.
	InModule int
	// Chunk is, for a worker that a webpack or rspack build starts from a
	// chunk (new Worker(new URL(r.p + r.u(id), r.b))), the chunk id. The
	// Specifier is then "./" and the name the file's own chunk file name
	// function gives, relative to the runtime's public path; a file that
	// holds no such function (a chunk file) leaves the worker Dynamic, for
	// the runtime that shares the file's ChunkGlobal to name (ChunkNames).
	Chunk string
}

// JSChunkNames is a webpack or rspack runtime's chunk file name function
// (__webpack_require__.u, r.u once minified) as a template: the file name
// of a chunk is its Parts joined, relative to the runtime's public path
// (the runtime file's directory by default).
type JSChunkNames struct {
	Parts []JSChunkNamePart
}

// JSChunkNamePart is one part of a chunk file name: Literal text, the
// chunk id itself (ID), or the id looked up in Table (per-chunk text such
// as a content hash; an id the table lacks has no file name, or, with
// OrID, is its own text: the names of named chunks, where every other
// chunk is named by its id).
type JSChunkNamePart struct {
	Literal string
	ID      bool
	Table   map[string]string
	OrID    bool
}

// Name is the file name of chunk id, or false when a table lacks the id.
func (n *JSChunkNames) Name(id string) (string, bool) {
	if n == nil {
		return "", false
	}
	var b []byte
	for _, p := range n.Parts {
		switch {
		case p.ID:
			b = append(b, id...)
		case p.Table != nil:
			v, ok := p.Table[id]
			if !ok && p.OrID {
				v, ok = id, true
			}
			if !ok {
				return "", false
			}
			b = append(b, v...)
		default:
			b = append(b, p.Literal...)
		}
	}
	return string(b), true
}

// JSExport is one exported name. Kind is named, default, re-export,
// export-all or commonjs (module.exports.x / exports.x).
type JSExport struct {
	Name   string
	Kind   string
	Source string // module of a re-export
	// Local is, for a re-export, the name in the source module ("c" in
	// export {c as e} from "x"; "*" for export * as ns).
	Local  string
	Offset int64
	// Value is what the source shows of the exported value without running
	// it; the zero value means nothing was observed (unknown).
	Value JSValueShape
	// InClause: Offset is the name in an export clause (export {a as b}),
	// which a bundle's source map may leave unmapped, because no
	// declaration or import before it in the file names the binding.
	InClause bool
	// First and End give the body of an exported function as JSFunction
	// does: Calls[First:End] are the recorded calls it holds (an IPC
	// handler another file imports). First == End: no function, no
	// recorded call in it, or not known (a var or let, a bundled module's
	// export).
	First, End int
}

// JSValueShape is the statically observed shape of a value: its kind and,
// for functions and classes, the declared parameters.
type JSValueShape struct {
	// Kind is one of the JSValue* constants; "" is unknown.
	Kind string
	// Params counts the declared parameters before a rest parameter (a
	// class counts its constructor's); -1 when not a function or not known.
	Params int
	Rest   bool // the function takes a rest parameter
}

// Value kinds (JSValueShape.Kind).
const (
	JSValueFunction       = "function"
	JSValueAsyncFunction  = "async-function"
	JSValueGenerator      = "generator"
	JSValueAsyncGenerator = "async-generator"
	JSValueClass          = "class"
	JSValueObject         = "object"
	JSValueArray          = "array"
	JSValueString         = "string"
	JSValueNumber         = "number"
	JSValueBigInt         = "bigint"
	JSValueBoolean        = "boolean"
	JSValueNull           = "null"
	JSValueUndefined      = "undefined"
	JSValueRegExp         = "regexp"
	JSValueUnknown        = "unknown"
)

// JSString is one string literal (or a template without substitutions).
type JSString struct {
	Value     string
	Offset    int64
	Length    int64 // bytes of the literal in the source, quotes included
	Truncated bool
}

// JSCall is one call or new expression with a name-path callee.
type JSCall struct {
	Offset int64 // the first literal argument's, else -1
	New    bool
	// CalleeOffset locates a call that has no literal argument (so that a
	// caller can tell which original source of a bundle holds it): the
	// property name of a member callee (x.send) at this call; for a plain
	// name (fetch) inside a function, the name's first use in the
	// innermost scope holding the call, which lies in the same function
	// (the parse keeps one position per name and scope); else -1. An int32
	// in the padding after New, so calls cost no more memory; -1 past 2 GiB.
	CalleeOffset int32
	// Position is where V8 places the call, the position its stack frames
	// (a request's initiator, a WebMCP registration) report: the callee's
	// name when it ends in one (fetch in fetch(…), get in api.get(…)), new
	// for a construction, else the parenthesis that opens the arguments
	// (o["f"](…), (0, x.f)(…), f?.(…)). -1 when the call's own tokens do
	// not place it (r(e): the parse keeps no position for a plain name's
	// use) or past 2 GiB.
	Position int32
	Callee   string // "ipcMain.handle", "window.api.send", "fetch"
	// Module and Member are set when the callee's root binding came from an
	// import or require of Module: Member is the path below it
	// ("ipcMain.handle" for i.handle after const {ipcMain: i} = require("electron")).
	Module   string
	Member   string
	Args     []JSValue // the first arguments; cut at the engine's bound as JSValue.Items are; none where only RelativeInArguments selects the call outside a function argument
	InModule int       // see JSImport.InModule
}

// Value kinds (JSValue.Kind).
const (
	JSValString   = "string"
	JSValTemplate = "template" // Value holds the parts with each substitution as ${}
	JSValNumber   = "number"
	JSValBool     = "boolean"
	JSValNull     = "null"
	JSValName     = "name" // identifier or member path, in Value
	JSValCall     = "call" // Value holds the callee path
	JSValNew      = "new"
	JSValObject   = "object"
	JSValArray    = "array"
	JSValFunction = "function" // Value: the name of a function the file declares (function f, const f = a function expression) or the path of a const object literal's function member (handlers.open), passed by it; else ""
	JSValOther    = "other"
)

// JSFunction is the body of a function passed as argument Arg of
// Calls[Call]: Calls[First:End] are the recorded calls it holds, nested
// functions' included. The parse keeps no positions of its own, so a body
// is known by the calls the walk met inside it, not by offsets: a call
// with no position is still known to be in it. An argument that names a
// binding imported from another file of the app (a relative require or
// import: open after const {open} = require("./h"), h.open) is given by
// Module, the specifier, and Member, the path below it ("open"), with no
// body (First == End): what it is, is the other file's to say.
type JSFunction struct {
	Call, Arg      int
	First, End     int
	Module, Member string
	// Prop is set for a function written as a member of an object
	// argument of contextBridge.exposeInMainWorld ({open: (p) => ...}),
	// or of the const object literal the argument names (const api =
	// {...} declared before the call): its key. Arg is then the object's
	// argument.
	Prop string
	// Unknown says why the function an argument names is not known
	// (handlers.open assigned in a function after the const literal);
	// the argument is then a name, and First == End.
	Unknown string
}

// JSValue is a captured argument, bounded in depth.
type JSValue struct {
	Kind   string
	Value  string
	Offset int64
	// Parts are a template's substitutions (as values) in order.
	Parts []JSValue
	Args  []JSValue // for call and new; cut at the engine's bound as Items are
	Props []JSProp  // for object
	Items []JSValue // for array; one cut at the engine's bound ends with an item of kind other, Value "…"
	// PropsCut: the object has more properties than the engine keeps;
	// Props holds the first ones (no property stands for the rest, so
	// Props stays the object's keys).
	PropsCut bool
}

// JSProp is one object property with a literal (non-computed) key.
type JSProp struct {
	Key   string
	Value JSValue
}

// JSRoute is one route object ({path: "/items", ...}) of a route table
// written as data, the shape React Router, Vue Router and Angular take: an
// array of object literals whose path is a string literal starting with
// "/" or ":" or empty, where the array is passed to a router call
// (createBrowserRouter, useRoutes, createRouter, new VueRouter,
// RouterModule.forRoot, ...), is the value of a routes property, or is
// bound to a name ending in "routes". Nested children arrays are
// followed; their paths may be relative ("edit").
type JSRoute struct {
	Path   string // as written
	Offset int64  // the path literal's
	// Parent is the index in JSFacts.Routes of the route whose children
	// hold this one, or -1.
	Parent int
	// Via says how the array reached a router: "call:createBrowserRouter",
	// "property:routes" or "name:appRoutes".
	Via string
}

// JSBundledModule is one entry of a bundle's module table.
type JSBundledModule struct {
	Bundler string // webpack, rspack, esbuild
	// ID is the table key (a number or a path) or, for a minified esbuild
	// module, which has none, "esbuild:cjs:" or "esbuild:esm:" plus the
	// first 12 hex digits of Fingerprint (modules of one shape add "." and
	// 8 hex digits over the fingerprints they require; "-2", "-3", ... in
	// file order only for modules identical in both).
	ID    string
	Start int64 // offset of the key, or of the binding's name without one
	// End is where the next module of the same table starts or, for the
	// last one, just past the last literal token of its body (a lower bound).
	End int64
	// Requires are the module ids the body requires: literal ids passed to
	// the bundle's require function, or, in esbuild bundles, the IDs of the
	// modules whose binding it calls (require_x(), init_x()).
	Requires []string
	// Fingerprint is a hex SHA-256 over the module body's syntax shape
	// (node kinds, literals and property names; local names excluded), so a
	// re-minified module keeps it.
	Fingerprint string
	// SourceMap is the module's own sourceMappingURL comment, for code
	// kept in an eval string (webpack's eval-source-map); Offset is in the
	// file. SourceURL is its sourceURL comment ("webpack://app/./src/a.js").
	SourceMap *JSSourceMapRef
	SourceURL string
	// Exports are the names the module defines on its exports object
	// (webpack's __webpack_require__.d getters) with their value shapes.
	Exports []JSExport
}

// JSBundleRequire is a literal module id required through a bundle's
// require function, with the offset of the id (-1 when unknown).
type JSBundleRequire struct {
	ID     string
	Offset int64
}

// JSSourceMapRef is a sourceMappingURL comment.
type JSSourceMapRef struct {
	URL    string
	Offset int64
}

// JSSyntaxError is where parsing stopped: Line is 1-based, Column 0-based
// in UTF-16 code units (rea's code locations), Offset a byte offset or -1.
type JSSyntaxError struct {
	Message string
	Line    int
	Column  int
	Offset  int64
}

// LineEnd is the length of the line terminator at b[i:], or 0: \n, \r,
// \r\n (one terminator, 2 bytes), U+2028 or U+2029 (3 bytes), the ends the
// JavaScript parser and V8 count lines by. Every code location rea gives
// (line 1-based, column 0-based in UTF-16 code units) counts lines with it.
func LineEnd(b []byte, i int) int {
	switch c := b[i]; {
	case c == '\n':
		return 1
	case c == '\r':
		if i+1 < len(b) && b[i+1] == '\n' {
			return 2
		}
		return 1
	case c == 0xE2 && i+2 < len(b) && b[i+1] == 0x80 && (b[i+2] == 0xA8 || b[i+2] == 0xA9):
		return 3
	}
	return 0
}
