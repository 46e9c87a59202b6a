package jsapp

import (
	"bytes"
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync"

	"rea/ports"

	"rea/core"
	"rea/core/artifact"
	"rea/internal/hugeheap"
)

// analyze_javascript_application (CONTRACTS.md §16): inventory the app
// through the artifact graph (directories and ASARs, integrity policy
// included), extract syntactic facts from every JavaScript asset with the
// JavaScript engine port, then derive the application graph. Nothing is
// executed.

// jsappLimits bound one analysis.
var jsappArtifactLimits = artifact.Limits{
	MaxEntries: 200000, MaxTotalBytes: 4 << 30, MaxEntryBytes: 256 << 20,
	MaxCompressionRatio: 1000, MaxDepth: 64, MaxPathBytes: 4096,
}

const (
	jsappMaxSourceMapBytes = 64 << 20
	jsappMaxHTMLBytes      = 8 << 20
	jsappMaxPackageBytes   = 4 << 20
	jsappMaxStringIndex    = 5000
	jsappMaxUnknowns       = 5000
	jsappMaxRelations      = 50000
	// Source bytes parsed at once. A parse holds many times its source in
	// memory, and the inventory hashes (and so parses) the largest files
	// first: a file of 8 MB or more parses alone, and two files larger than
	// 4 MB never parse together.
	jsappParseBudget = 8 << 20
)

// electronCalls select the calls the analysis interprets.
var jsappCallSelector = &ports.JSCallSelector{
	LastNames: []string{
		"handle", "handleOnce", "on", "once", "invoke", "send", "sendSync", "sendToHost", "postMessage",
		"BrowserWindow", "BrowserView", "WebContentsView", "loadFile", "loadURL", "fork", "exposeInMainWorld",
		"fetch", "open", "WebSocket", "EventSource", "XMLHttpRequest",
		"setItem", "getItem", "removeItem", "clear",
		"readFile", "readFileSync", "writeFile", "writeFileSync", "appendFile", "appendFileSync", "existsSync",
		"mkdir", "mkdirSync", "readdir", "readdirSync", "unlink", "unlinkSync", "createReadStream", "createWriteStream",
		"rm", "rmSync", "stat", "statSync", "rename", "renameSync", "copyFile", "copyFileSync", "whenReady", "register",
		"openExternal", "openPath", "showItemInFolder", // shell's (sinks.go)
	},
	// child_process's calls (sinks.go) by their module: exec is a RegExp's
	// method too.
	ModuleSuffixes:  []string{".node", "child_process"},
	Roots:           []string{"window", "globalThis"},
	ModuleLastNames: fsCopySelectors, // fs.cp (gap_fs.go)
	// A handler's calls into the app's other files (calleePhase).
	RelativeInArguments: true,
}

type jsappRequest struct {
	op      string
	path    string // absolute
	given   string // as the caller wrote it (recorded in the result)
	format  string // auto, asar, directory
	policy  string
	engine  ports.JavaScriptEngine
	openers []ports.ContainerOpener
	observe func(string)
	// room reports the bytes the session can still retain and its bound
	// (nil: unbounded).
	room func() (free, maximum int64)
}

// jsFile is one inventoried regular file.
type jsFile struct {
	path    string
	sha256  string
	size    int64
	item    *artifact.Handle
	kind    string // javascript, source-map, package, html, native-addon, other
	quarant bool   // integrity contradicted: bytes are not analysed
}

// jsAsset is one analysed JavaScript file.
type jsAsset struct {
	*jsFile
	facts  *ports.JSFacts
	src    *sourceLines   // what source maps need of the bytes, while they are resolved
	sites  []callPosition // where its relations and frontiers lie (sitePositions)
	nodeID string
	roles  map[string]bool
	pkg    *jsPackage
}

type jsPackage struct {
	path   string // of package.json
	dir    string
	name   string
	ver    string
	main   string
	typ    string
	deps   map[string]bool
	nodeID string
	err    string
	// entries are the files main, module and exports name; fieldErrs the
	// fields that had the wrong type or shape (each was ignored).
	entries   []packageEntry
	fieldErrs []string
}

type jsappState struct {
	req         jsappRequest
	g           *artifact.Graph // nil once released (releaseInventory)
	rootSHA     string
	format      string
	files       map[string]*jsFile
	order       []string // file paths, sorted
	assets      map[string]*jsAsset
	assetOrder  []string
	packages    map[string]*jsPackage // by dir
	pkgsRead    bool                  // readPackages ran (parseTypeModules may run it first)
	symlinks    int
	dirs        int
	limitations []string
	unknowns    []map[string]any
	truncated   bool // stopped early (timeout)
	partialWhy  string
	bytesParsed int64
	syntaxErrs  int
	notParsed   int
	// quarantined counts JavaScript assets whose bytes contradict their
	// declared hash: they are not analysed, and the integrity limitation
	// (not the parse one) reports them.
	quarantined int
	// unparsed counts the assets that did not parse, neither quarantined
	// nor a syntax error (countUnparsed), as releaseLinks found them
	unparsed    int
	unknownsCut int
	// resolved memoizes resolveModule once the packages are read (nil
	// before: a resolution depends on them); the builder's goroutine only.
	resolved map[resolveKey]resolvedModule
	// facts parsed while the inventory was still hashing, by path
	preMu  sync.Mutex
	pre    map[string]*prefetched
	prePkg map[string]*prefetchedPackage // package.json files parsed from the bytes the inventory hashed
	preSrc map[string]*prefetchedSrcs    // HTML documents' script tags, from the same bytes
	budget *byteBudget                   // source bytes parsed at once
	// what the result needs of the graph once it is released
	manifest       artifact.InventoryArtifactResultManifest
	contradictions []artifact.Contradiction
	// the seal's relaxed collection target (result()), ended on return
	sealing *gcRelax

	// asar is the path of an ASAR archive the input is or holds ("." for
	// the root), "" when there is none: Electron's archive format makes
	// the app Electron whatever its code says (a syntax error hides it).
	asar string
}

// prefetched is a JavaScript file parsed from the bytes the inventory
// hashed.
type prefetched struct {
	sha256 string
	facts  *ports.JSFacts
	src    *sourceLines
	sites  []callPosition
}

// jsappOutcome is the analysis result plus whether it is partial.
type jsappOutcome struct {
	result  map[string]any
	partial bool
	locs    []core.Location
	subject *core.Subject
}

func analyzeJSApp(ctx context.Context, req jsappRequest) (*jsappOutcome, error) {
	st := &jsappState{req: req, files: map[string]*jsFile{}, assets: map[string]*jsAsset{}, packages: map[string]*jsPackage{},
		pre: map[string]*prefetched{}, prePkg: map[string]*prefetchedPackage{}, preSrc: map[string]*prefetchedSrcs{}, budget: newByteBudget(jsappParseBudget)}
	parsing := relaxGC()
	defer parsing.end()
	defer func() { st.sealing.end() }()
	if err := st.inventory(ctx); err != nil {
		return nil, err
	}
	defer func() { st.g.Close() }() // nil once result() has closed and released it
	if err := st.checkRoom(); err != nil {
		return nil, err
	}
	// The graph, its encoding and the sealed bytes are held at once while
	// the result is built: the call's memory account is charged a lower
	// bound of them before any parsing, until the analysis returns.
	need, _ := st.evidenceLowerBound()
	free, err := ports.Reserve(ctx, "the application graph", jsappGraphMemoryFactor*need)
	if err != nil {
		return nil, err
	}
	defer free()
	err = st.parse(ctx)
	if err == nil {
		err = st.linkSplitChunks(ctx)
	}
	if err == nil {
		err = st.parseTypeModules(ctx)
	}
	if err != nil {
		if ctx.Err() == nil || !errors.Is(err, context.DeadlineExceeded) {
			return nil, err
		}
		st.truncated, st.partialWhy = true, "parse"
	}
	parsing.hold() // the build collects in the heap the parse left (gcphase.go)
	if err := ctx.Err(); err != nil && !errors.Is(err, context.DeadlineExceeded) {
		return nil, err
	}
	return st.build(ctx)
}

// inventory builds the artifact graph and classifies its files.
func (st *jsappState) inventory(ctx context.Context) error {
	req := st.req
	info, err := statPath(req.path)
	if err != nil {
		return core.TargetError(req.op, req.path, "missing", err)
	}
	switch req.format {
	case "directory":
		if !info.IsDir() {
			return &core.Error{Code: core.CodeUnsupportedTarget, Message: req.op + ": " + req.path + " is not a directory (format directory)",
				Details: map[string]any{"operation": req.op, "path": req.path, "reason": "format_mismatch"}}
		}
	case "asar", "zip", "tar":
		if info.IsDir() {
			return &core.Error{Code: core.CodeUnsupportedTarget, Message: fmt.Sprintf("%s: %s is a directory, not an archive (format %s)", req.op, req.path, req.format),
				Details: map[string]any{"operation": req.op, "path": req.path, "reason": "format_mismatch"}}
		}
	}
	req.observe("inventory")
	// JavaScript is parsed from the bytes the inventory hashes, on the
	// goroutines that hash them, so parsing overlaps the rest of the
	// inventory and no file is read twice.
	// So are the package.json files (readPackages would read each again),
	// and HTML documents are scanned for module scripts (htmlModuleScripts).
	wants := func(p string, size int64) bool {
		switch classifyJSFile(p) {
		case "javascript":
			return size <= jsappArtifactLimits.MaxEntryBytes
		case "package":
			return size <= jsappMaxPackageBytes
		case "html":
			return size <= jsappMaxHTMLBytes
		}
		return false
	}
	g, err := artifact.Build(ctx, artifact.Request{Op: req.op, Path: req.path, Policy: req.policy, Limits: jsappArtifactLimits,
		Openers: req.openers, Observe: req.observe, KeepOpen: true, NoText: true, Wants: wants, Sized: prepareHeap,
		Content: func(p, sha string, data []byte) {
			switch classifyJSFile(p) {
			case "package":
				st.prefetchPackage(p, sha, data)
			case "html":
				pf := &prefetchedSrcs{sha256: sha, tags: scriptTags(data)}
				st.preMu.Lock()
				st.preSrc[p] = pf
				st.preMu.Unlock()
			default:
				st.prefetch(ctx, p, sha, data)
			}
		}})
	if err != nil {
		return err
	}
	// The analysis reads the graph's items, never its inventory result.
	g.DropInventory()
	st.g = g
	st.rootSHA = g.Manifest.RootSHA256
	st.format = g.Manifest.RootFormat
	// A single JavaScript file is an application of one asset, named by
	// its base name (the root of the inventory is the file itself).
	single := !info.IsDir() && g.Root().NodeKind() == "javascript"
	zipped := !info.IsDir() && (zipFormats[st.format] || tarFormats[st.format])
	if !info.IsDir() && st.format != "asar" && (req.format == "asar" || req.format != "zip" && req.format != "tar" && strings.EqualFold(path.Ext(req.path), ".asar")) {
		g.Close()
		return notASAR(req.op, req.path, info.Size())
	}
	if (!info.IsDir() && st.format != "asar" && !single && !zipped) || (req.format == "zip" && !zipFormats[st.format]) || (req.format == "tar" && !tarFormats[st.format]) || (req.format == "asar" && st.format != "asar") {
		g.Close()
		return &core.Error{Code: core.CodeUnsupportedTarget, Message: fmt.Sprintf("%s: %s is neither a directory, an ASAR, ZIP or tar archive nor a JavaScript file (it is %s)", req.op, req.path, st.format),
			Remediation: "Pass an application directory, an ASAR, ZIP or tar archive or a JavaScript file; inventory other archives with inventory_artifact.",
			Details:     map[string]any{"operation": req.op, "path": req.path, "reason": "format_mismatch"}}
	}
	if st.format == "asar" {
		st.asar = "."
	}
	for _, it := range g.Items {
		// An ASAR inside a ZIP is the packed app; in a directory only
		// Electron's own name for it (resources/app.asar) counts, so an
		// ASAR among a project's test fixtures does not.
		if st.asar == "" && it.Format() == "asar" && !strings.Contains(it.Path, "node_modules/") && (zipped || path.Base(it.Path) == "app.asar") {
			st.asar = it.Path
		}
		switch it.Kind {
		case ports.EntryDirectory:
			if it != g.Root() {
				st.dirs++
			}
			continue
		case ports.EntrySymlink:
			st.symlinks++
			continue
		}
		p := it.Path
		if single && it == g.Root() && it.Hashed {
			p = path.Base(filepath.ToSlash(req.path))
		} else if it == g.Root() || !it.Hashed {
			continue
		}
		f := &jsFile{path: p, sha256: it.SHA256, size: it.Size, item: g.Handle(it), kind: classifyJSFile(p), quarant: it.Mismatch}
		st.files[f.path] = f
		st.order = append(st.order, f.path)
	}
	// A file of an expanded ASAR's unpacked companion directory is the
	// ASAR's own entry, which reads its bytes from it: the app holds it
	// once, at its place in the ASAR (so a native add-on is not counted
	// twice, nor a JavaScript file parsed twice).
	kept := st.order[:0]
	for _, p := range st.order {
		if t, ok := artifact.CompanionTwin(p); ok && st.files[t] != nil && st.files[t].sha256 == st.files[p].sha256 {
			delete(st.files, p)
			continue
		}
		kept = append(kept, p)
	}
	st.order = kept
	// The files are read again through their handles only: the items,
	// about a sixth of what the build holds live, go before the parse.
	g.DropItems()
	sort.Strings(st.order)
	if zipped && !holdsJavaScript(st) {
		g.Close()
		return &core.Error{Code: core.CodeUnsupportedTarget, Message: fmt.Sprintf("%s: the %s archive %s holds no JavaScript file (nor one in an ASAR inside it)", req.op, st.format, req.path),
			Remediation: "Inventory the archive with inventory_artifact (rea inventory PATH).",
			Details:     map[string]any{"operation": req.op, "path": req.path, "reason": "no_javascript"}}
	}
	if st.symlinks > 0 {
		st.limitations = append(st.limitations, fmt.Sprintf("%s recorded and not followed; imports through them are unresolved.", describeCount(st.symlinks, "symbolic link")))
	}
	for _, l := range g.Limitations {
		// The occurrences that name entries left out are not in this
		// result: each is an unknown here, under its container's path.
		st.limitations = append(st.limitations, strings.Replace(l, artifact.LeftOutNamed, "the unknowns of kind unsafe-archive-entry name them", 1))
	}
	for _, l := range g.LeftOut {
		st.unknown("unsafe-archive-entry", "", l.Container, -1, l.String())
	}
	return nil
}

// prepareHeap asks for the heap's fresh memory in huge pages before the
// files are read (hugeheap), in a process whose host allows the tuning.
func prepareHeap(bytes int64) {
	if tuning.Load() {
		hugeheap.PrepareFor(bytes)
	}
}

// releaseInventory closes the artifact graph and lets go of it once no
// file is read again: the result needs only its manifest and
// contradictions.
func (st *jsappState) releaseInventory() {
	st.manifest, st.contradictions = st.g.Manifest, st.g.Contradictions
	st.g.Close()
	st.g = nil
	for _, f := range st.files {
		f.item = nil
	}
}

// zipFormats are the ZIP-based archives an application may come in (the
// artifact graph's container openers read them, nested ASARs included).
var zipFormats = map[string]bool{"zip": true, "apk": true, "ipa": true, "msix": true, "appx": true}

// tarFormats are the tar archives, plain or compressed, an application may
// come in: an npm package tarball (npm pack's .tgz) above all.
var tarFormats = map[string]bool{"tar": true, "tar.gz": true, "tar.zst": true}

func holdsJavaScript(st *jsappState) bool {
	for _, f := range st.files {
		if f.kind == "javascript" {
			return true
		}
	}
	return false
}

func classifyJSFile(p string) string {
	base := path.Base(p)
	switch ext := strings.ToLower(path.Ext(p)); {
	case base == "package.json" && !strings.Contains(p, "/.") && !strings.HasPrefix(p, "."):
		return "package"
	case ext == ".js" || ext == ".mjs" || ext == ".cjs" || ext == ".jsx":
		return "javascript"
	case ext == ".map":
		return "source-map"
	case ext == ".html" || ext == ".htm":
		return "html"
	case ext == ".node":
		return "native-addon"
	}
	return "other"
}

// read returns a file's bytes as they are now, checked against the hash the
// inventory recorded.
func (st *jsappState) read(ctx context.Context, f *jsFile, max int64) ([]byte, error) {
	rc, err := st.g.OpenHandle(ctx, f.item)
	if err != nil {
		return nil, err
	}
	defer rc.Close()
	b, err := readAll(io.LimitReader(rc, max+1), min(f.size, max)+1)
	if err != nil {
		return nil, &artifact.Failure{Reason: "io", Path: f.path, Err: err}
	}
	if int64(len(b)) > max {
		return nil, fmt.Errorf("%s is larger than %d bytes", f.path, max)
	}
	sum := sha256.Sum256(b)
	if hex.EncodeToString(sum[:]) != f.sha256 {
		return nil, artifact.ChangedError(st.req.op, f.path, "content_changed")
	}
	return b, nil
}

// readAll is io.ReadAll with a first buffer of size bytes: a file's
// recorded size (and one byte to see its end) is usually all it takes,
// where growing from 512 bytes copied a large map many times.
func readAll(r io.Reader, size int64) ([]byte, error) {
	b := make([]byte, 0, size)
	for {
		if len(b) == cap(b) {
			b = append(b, 0)[:len(b)]
		}
		n, err := r.Read(b[len(b):cap(b)])
		b = b[:len(b)+n]
		if err != nil {
			if err == io.EOF {
				err = nil
			}
			return b, err
		}
	}
}

// prefetch parses one JavaScript file from the bytes the inventory hashed.
func (st *jsappState) prefetch(ctx context.Context, p, sha string, data []byte) {
	if ctx.Err() != nil {
		return
	}
	n := int64(len(data))
	st.budget.acquire(n)
	facts, err := st.req.engine.Facts(ctx, ports.JSRequest{Path: p, Source: data, Calls: jsappCallSelector, ModuleType: moduleTypeOf(p), SourceOwned: true})
	st.budget.release(n)
	if err != nil {
		return // cancelled: the parse phase reports it
	}
	pf := &prefetched{sha256: sha, facts: facts, src: keepFacts(facts, data), sites: sitePositions(facts, data)}
	st.preMu.Lock()
	st.pre[p] = pf
	st.preMu.Unlock()
}

// prefetchedPackage is a package.json parsed from the bytes the inventory
// hashed.
type prefetchedPackage struct {
	sha256 string
	pkg    *jsPackage
}

// prefetchedSrcs are an HTML document's script tags, scanned from the
// bytes the inventory hashed.
type prefetchedSrcs struct {
	sha256 string
	tags   []scriptTag
}

// prefetchPackage parses a package.json on the goroutine that hashed it.
func (st *jsappState) prefetchPackage(p, sha string, data []byte) {
	pkg := &jsPackage{path: p, dir: path.Dir(p), deps: map[string]bool{}}
	parsePackageJSON(pkg, data)
	st.preMu.Lock()
	st.prePkg[p] = &prefetchedPackage{sha256: sha, pkg: pkg}
	st.preMu.Unlock()
}

// parse extracts facts from every JavaScript asset, concurrently, taking
// those the inventory already parsed.
func (st *jsappState) parse(ctx context.Context) error {
	var jobs []*jsAsset
	for _, p := range st.order {
		f := st.files[p]
		if f.kind != "javascript" {
			continue
		}
		a := &jsAsset{jsFile: f, roles: map[string]bool{}}
		st.assets[p] = a
		st.assetOrder = append(st.assetOrder, p)
		if f.quarant {
			st.quarantined++
			continue
		}
		if pf := st.pre[p]; pf != nil && pf.sha256 == f.sha256 {
			a.facts, a.src, a.sites = pf.facts, pf.src, pf.sites
			continue
		}
		jobs = append(jobs, a)
	}
	st.pre = nil
	st.req.observe(fmt.Sprintf("parsing %d JavaScript files (%d parsed during the inventory)", len(jobs), len(st.assetOrder)-st.quarantined-len(jobs)))
	workers := max(1, min(runtime.GOMAXPROCS(0), len(jobs)))
	// Parsing needs many times a source's size in memory: bound the bytes
	// parsed at once, so two huge bundles never parse together.
	budget := st.budget
	next := make(chan *jsAsset)
	var wg sync.WaitGroup
	var mu sync.Mutex
	var firstErr error
	done := 0
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for a := range next {
				if ctx.Err() != nil {
					continue
				}
				budget.acquire(a.size)
				err := st.parseOne(ctx, a, nil, moduleTypeOf(a.path))
				budget.release(a.size)
				mu.Lock()
				if err != nil && firstErr == nil {
					firstErr = err
				}
				done++
				if done%200 == 0 {
					st.req.observe(fmt.Sprintf("parsed %d of %d JavaScript files", done, len(jobs)))
				}
				mu.Unlock()
			}
		}()
	}
	for _, a := range jobs {
		if ctx.Err() != nil {
			break
		}
		next <- a
	}
	close(next)
	wg.Wait()
	if firstErr != nil {
		return firstErr
	}
	return ctx.Err()
}

func (st *jsappState) parseOne(ctx context.Context, a *jsAsset, helpers []ports.JSHelperBinding, moduleType string) error {
	src, err := st.read(ctx, a.jsFile, jsappArtifactLimits.MaxEntryBytes)
	if err != nil {
		return err
	}
	facts, err := st.req.engine.Facts(ctx, ports.JSRequest{Path: a.path, Source: src, Calls: jsappCallSelector, Helpers: helpers, ModuleType: moduleType, SourceOwned: true})
	if err != nil {
		return err
	}
	a.facts, a.src, a.sites = facts, keepFacts(facts, src), sitePositions(facts, src)
	return nil
}

// moduleTypeOf is what Node runs a file as by its extension alone (an ES
// module bundle may have no import or export to tell), or "".
func moduleTypeOf(p string) string {
	switch strings.ToLower(path.Ext(p)) {
	case ".mjs":
		return "esm"
	case ".cjs":
		return "commonjs"
	}
	return ""
}

// build derives the graph and the result. It runs even after a timeout,
// on the facts gathered so far, so the partial observation is useful.
func (st *jsappState) build(ctx context.Context) (*jsappOutcome, error) {
	cancelled := func() error {
		if err := ctx.Err(); err != nil && !errors.Is(err, context.DeadlineExceeded) {
			return err
		}
		return nil
	}
	b := newJSAppBuilder(st)
	var maps *mapPrefetch
	if !st.truncated {
		maps = st.prefetchMaps(ctx)
		defer maps.close()
	}
	st.req.observe("building the application graph")
	b.packagesPhase(ctx)
	if err := cancelled(); err != nil {
		return nil, err
	}
	b.assetsPhase()
	b.importsPhase()
	if err := cancelled(); err != nil {
		return nil, err
	}
	b.bundlePhase()  // first: calls inside bundled modules start from the module's node
	b.handlerPhase() // before the calls are linked: a handler's go from it
	b.calleePhase()
	b.electronPhase()
	st.releaseLinks()
	if len(b.g.nodes) >= collectBeforeSealNodes && tuning.Load() {
		// The heap's goal is still the one set from what the linking
		// phases held live (their facts, the resolutions): the source maps
		// phase would grow the heap to it, past what the seal needs. A
		// collection now sets the goal from the smaller heap; on npm-10
		// the collection the source maps phase made is no longer needed,
		// so the run makes as many as before.
		collectGarbage()
	}
	if !st.truncated {
		b.sourceMapPhase(ctx, maps)
	}
	if err := cancelled(); err != nil {
		return nil, err
	}
	b.ipcPhase()
	if ctx.Err() != nil && !st.truncated {
		st.truncated, st.partialWhy = true, "graph"
	}
	st.req.observe("sealing the graph")
	return b.result(), nil
}

// assetOrderSorted returns assets in path order.
// linkSplitChunks handles esbuild --splitting: a chunk's modules may be
// declared through helpers another chunk exports. A file that calls an
// imported binding with a function at module scope is parsed again, told
// which of its imports are helpers, when the file it imports them from
// exports helpers under those names.
func (st *jsappState) linkSplitChunks(ctx context.Context) error {
	for _, p := range st.assetOrder {
		a := st.assets[p]
		if a.facts == nil || len(a.facts.HelperImports) == 0 {
			continue
		}
		var helpers []ports.JSHelperBinding
		for _, c := range a.facts.HelperImports {
			target, ok := st.resolveModule(a.path, c.Specifier, ports.JSImportStatic)
			if !ok || st.assets[target] == nil || st.assets[target].facts == nil {
				continue
			}
			for _, h := range st.assets[target].facts.HelperExports {
				if h.Export == c.Export {
					helpers = append(helpers, ports.JSHelperBinding{Specifier: c.Specifier, Export: c.Export, Kind: h.Kind})
				}
			}
		}
		if len(helpers) == 0 {
			continue
		}
		if err := st.parseOne(ctx, a, helpers, moduleTypeOf(a.path)); err != nil {
			return err
		}
	}
	return nil
}

// parseTypeModules parses again, as ES modules, the files that read as
// scripts (no import or export left, as in an esbuild --format=esm bundle)
// but that the app runs as modules: a .js file in a package whose "type"
// is "module" (as Node does), and a file an HTML document loads with
// <script type="module"> (as a browser does). Which package holds a file
// and which document loads it are known only once the package.json files
// and the documents are read, after the parse. Such files are few (a
// module mostly imports or exports); none are looked for unless some file
// read as a script, the documents are read only for a script no package
// type settles, and each file is parsed once more at most.
func (st *jsappState) parseTypeModules(ctx context.Context) error {
	var scripts []*jsAsset
	for _, p := range st.assetOrder {
		if a := st.assets[p]; a.facts != nil && a.facts.ModuleType == "script" {
			scripts = append(scripts, a)
		}
	}
	if len(scripts) == 0 {
		return nil
	}
	st.readPackages(ctx)
	var tagged map[string]bool // by htmlModuleScripts, when first needed
	for _, a := range scripts {
		pkg := st.nearestPackage(a.path)
		if typeModule := pkg != nil && pkg.typ == "module" && strings.ToLower(path.Ext(a.path)) == ".js"; !typeModule {
			if tagged == nil {
				var err error
				if tagged, err = st.htmlModuleScripts(ctx); err != nil {
					return err
				}
			}
			if !tagged[a.path] {
				continue
			}
		}
		if err := st.parseOne(ctx, a, nil, "esm"); err != nil {
			return err
		}
	}
	return nil
}

func (st *jsappState) sortedAssets() []*jsAsset {
	out := make([]*jsAsset, 0, len(st.assetOrder))
	for _, p := range st.assetOrder {
		out = append(out, st.assets[p])
	}
	return out
}

func (st *jsappState) unknown(kind, nodeID, p string, off int64, detail string) {
	if len(st.unknowns) >= jsappMaxUnknowns {
		st.unknownsCut++
		return
	}
	st.unknowns = append(st.unknowns, map[string]any{"kind": kind, "node_id": core.OrNull(nodeID), "path": p,
		"offset": offsetPtr(off), "detail": detail})
}

// resolveModule resolves a specifier written in fromPath to an inventoried
// file, as Node would for relative and package specifiers, without
// executing anything. A package's exports map is followed with the
// conditions of the import kind (node plus require or import, then
// default); a subpath it does not export falls back to the file layout,
// as bundlers do.
func (st *jsappState) resolveModule(fromPath, spec, kind string) (string, bool) {
	if spec == "" {
		return "", false
	}
	if st.resolved == nil {
		return st.resolveModuleAt(path.Dir(fromPath), spec, kind)
	}
	// The same specifier is resolved from many files of one directory (and
	// a bare one walks every directory above): once is enough.
	key := resolveKey{path.Dir(fromPath), spec, kind}
	r, ok := st.resolved[key]
	if !ok {
		r.path, r.ok = st.resolveModuleAt(key.dir, spec, kind)
		st.resolved[key] = r
	}
	return r.path, r.ok
}

type resolveKey struct{ dir, spec, kind string }

type resolvedModule struct {
	path string
	ok   bool
}

func (st *jsappState) resolveModuleAt(dir, spec, kind string) (string, bool) {
	spec = strings.TrimPrefix(spec, "file://")
	if i := strings.IndexAny(spec, "?#"); i > 0 {
		spec = spec[:i]
	}
	if strings.HasPrefix(spec, "./") || strings.HasPrefix(spec, "../") || spec == "." || spec == ".." {
		return st.resolveFile(path.Join(dir, spec))
	}
	if strings.HasPrefix(spec, "/") || isBuiltinModule(spec) || strings.Contains(spec, ":") {
		return "", false
	}
	// node_modules lookup upward from dir.
	pkgName, sub := spec, ""
	parts := strings.SplitN(spec, "/", 3)
	if strings.HasPrefix(spec, "@") && len(parts) >= 2 {
		pkgName = parts[0] + "/" + parts[1]
		if len(parts) == 3 {
			sub = parts[2]
		}
	} else if i := strings.IndexByte(spec, '/'); i > 0 {
		pkgName, sub = spec[:i], spec[i+1:]
	}
	for d := dir; ; d = path.Dir(d) {
		base := path.Join(d, "node_modules", pkgName)
		if d == "." {
			base = path.Join("node_modules", pkgName)
		}
		if pkg, ok := st.packages[base]; ok {
			if p, ok := st.resolveExports(pkg, sub, kind); ok {
				return p, true
			}
		}
		if sub != "" {
			if p, ok := st.resolveFile(path.Join(base, sub)); ok {
				return p, true
			}
		} else if p, ok := st.resolveFile(base); ok {
			return p, true
		}
		if d == "." || d == "/" || d == "" {
			break
		}
	}
	return "", false
}

// maxPackageHops bounds how many package.json mains one resolution follows
// (a main naming another package's directory, and so on): real packages
// need one or two, and a cycle (a main of "." or "./", two packages naming
// each other) must end rather than overflow the stack.
const maxPackageHops = 8

func (st *jsappState) resolveFile(p string) (string, bool) { return st.resolveFileHops(p, 0) }

// resolveExportTarget resolves an exports target, which Node reads as a
// file path: extensions and index files, never another package's main.
func (st *jsappState) resolveExportTarget(p string) (string, bool) {
	return st.resolveFileHops(p, maxPackageHops)
}

func (st *jsappState) resolveFileHops(p string, hops int) (string, bool) {
	p = path.Clean(p)
	if p == ".." || strings.HasPrefix(p, "../") {
		return "", false
	}
	if _, ok := st.files[p]; ok {
		return p, true
	}
	for _, ext := range []string{".js", ".mjs", ".cjs", ".json", ".node", ".jsx"} {
		if _, ok := st.files[p+ext]; ok {
			return p + ext, true
		}
	}
	if pkg, ok := st.packages[p]; ok && hops < maxPackageHops {
		if m := path.Join(p, pkg.main); pkg.main != "" && m != p {
			if q, ok := st.resolveFileHops(m, hops+1); ok && q != p {
				return q, true
			}
		}
		// A package without a usable main: its "." export, as require
		// or else import would resolve it.
		for _, kind := range []string{ports.JSRequire, ports.JSImportStatic} {
			if q, ok := st.resolveExports(pkg, "", kind); ok {
				return q, true
			}
		}
	}
	for _, idx := range []string{"index.js", "index.mjs", "index.cjs", "index.json", "index.node"} {
		if _, ok := st.files[path.Join(p, idx)]; ok {
			return path.Join(p, idx), true
		}
	}
	return "", false
}

// builtinModules are Node's and Electron's built-in module names.
var builtinModules = func() map[string]bool {
	mods := map[string]bool{}
	for _, m := range strings.Fields(`assert async_hooks buffer child_process cluster console constants crypto dgram diagnostics_channel dns domain
 events fs fs/promises http http2 https inspector module net os path path/posix path/win32 perf_hooks process punycode querystring readline
 repl stream stream/promises string_decoder sys timers timers/promises tls trace_events tty url util util/types v8 vm wasi worker_threads zlib
 electron electron/main electron/renderer electron/common original-fs`) {
		mods[m] = true
	}
	return mods
}()

func isBuiltinModule(s string) bool {
	return builtinModules[s] || strings.HasPrefix(s, "node:")
}

// readPackages reads every package.json.
func (st *jsappState) readPackages(ctx context.Context) {
	if st.pkgsRead {
		return
	}
	st.pkgsRead = true
	for _, p := range st.order {
		f := st.files[p]
		if f.kind != "package" || f.quarant || ctx.Err() != nil {
			continue
		}
		if pp := st.prePkg[p]; pp != nil && pp.sha256 == f.sha256 {
			st.packages[pp.pkg.dir] = pp.pkg
			continue
		}
		pkg := &jsPackage{path: p, dir: path.Dir(p), deps: map[string]bool{}}
		st.packages[pkg.dir] = pkg
		b, err := st.read(ctx, f, jsappMaxPackageBytes)
		if err != nil {
			pkg.err = err.Error()
			continue
		}
		parsePackageJSON(pkg, b)
	}
}

// notASAR refuses a file named as an ASAR archive (or passed with format
// asar) whose bytes do not start as one, as a malformed ASAR is refused
// (artifact_operation_failed, reason format) rather than as a file of
// another kind: a 0-byte app.asar (a copy or download that failed) is an
// archive that is not there, not an empty application.
func notASAR(op, p string, size int64) error {
	why := "its first bytes are not an ASAR header (a 16-byte pickle prefix, then a JSON header)"
	switch {
	case size == 0:
		why = "it is empty (0 bytes)"
	case size < 17:
		why = fmt.Sprintf("its %d bytes are too few for an ASAR header (a 16-byte pickle prefix, then a JSON header)", size)
	}
	detail := "asar: not an ASAR archive: " + why
	return &core.Error{Code: core.CodeArtifactOperationFailed, Category: core.CategoryExecutionFailure,
		Message:     fmt.Sprintf("%s: %s is not an ASAR archive: %s", op, p, why),
		Remediation: "The artifact is malformed (see details.reason and details.detail); rea refuses it rather than guess. Pass the application's complete app.asar, or its unpacked directory.",
		Details:     map[string]any{"operation": op, "path": p, "logical_path": ".", "reason": "format", "detail": detail, "size": size}}
}

// nearestPackage returns the package whose directory holds p most closely.
func (st *jsappState) nearestPackage(p string) *jsPackage {
	for d := path.Dir(p); ; d = path.Dir(d) {
		if pkg, ok := st.packages[d]; ok {
			return pkg
		}
		if d == "." || d == "/" {
			return nil
		}
	}
}

// sitePositions are the positions of the offsets a relation, an unknown
// frontier, or an edge or node of a call of the file names (its imports
// and exports outside bundled modules, the workers bundled modules start,
// its IPC calls: a literal channel's, else the callee's; the calls the
// graph records: their literal arguments and the call), sorted by
// offset, so the graph can give their line and column once the bytes are
// gone (positionsAt).
func sitePositions(f *ports.JSFacts, src []byte) []callPosition {
	if f == nil {
		return nil
	}
	var offs []int64
	for _, im := range f.Imports {
		// Inside a bundled module only a worker is a relation (worker).
		if (im.InModule < 0 || isWorkerKind(im.Kind)) && im.Offset >= 0 {
			offs = append(offs, im.Offset)
		}
	}
	for _, e := range f.Exports {
		if e.Offset >= 0 {
			offs = append(offs, e.Offset)
		}
	}
	for _, c := range f.Calls {
		// A dynamic channel's frontier is located at its callee; the edges
		// and nodes of the calls the graph records (sitedCall, endpoints) at
		// a literal argument or the call (jsappBuilder.at).
		if rel, _ := ipcRole(c); rel != "" && callOffset(c) >= 0 {
			offs = append(offs, callOffset(c))
		}
		if rel, _ := ipcRole(c); rel == "handles" && len(c.Args) > 1 && c.Args[1].Kind == ports.JSValFunction && c.Args[1].Offset >= 0 {
			offs = append(offs, c.Args[1].Offset) // the handler's node (ipcHandler)
		}
		if _, _, ok := endpointTarget(c); !ok && !sitedCall(c) {
			continue
		}
		offs = append(offs, c.Offset, callPlace(c))
		if c.New && isWindowConstructor(calleeLast(c)) && len(c.Args) > 0 {
			if v, ok := findProp(c.Args[0], "webPreferences.preload"); ok {
				offs = append(offs, valueOffset(v)) // the preload's loads edge (browserWindow)
			}
		}
		for _, v := range c.Args {
			if v.Offset >= 0 {
				offs = append(offs, v.Offset)
			}
			for _, p := range v.Parts {
				offs = append(offs, p.Offset)
			}
			for _, p := range v.Props {
				offs = append(offs, p.Value.Offset)
			}
		}
	}
	return positionsAt(src, offs)
}

// positionsAt is the position of each offset of offs in src (sorted by
// offset, one per offset; offsets past src are left out), the one
// position rule of the graph, for relations as for the call sites and
// module bounds source maps are read at: 0-based lines (ending at \n, \r,
// \r\n, U+2028 and U+2029, ports.LineEnd, as esbuild and V8 count the
// generated lines of a source map) and 0-based columns in UTF-16 code units
// (ARCHITECTURE.md, Code locations; a source map's generated columns).
// offs is sorted in place. One sweep over src: a minified bundle's one long
// line is not counted again for each offset on it.
func positionsAt(src []byte, offs []int64) []callPosition {
	if len(offs) == 0 {
		return nil
	}
	slices.Sort(offs)
	offs = slices.Compact(offs)
	out := make([]callPosition, 0, len(offs))
	line, start, scan := 0, 0, 0 // start: the current line's first byte; scan: where line ends were counted to
	col, colAt := 0, 0           // col: UTF-16 units of src[start:colAt]
	for _, off := range offs {
		if off < 0 {
			continue
		}
		if off > int64(len(src)) {
			break
		}
		end := max(int(off), scan)
		if seg := src[scan:end]; bytes.IndexByte(seg, '\r') < 0 && bytes.IndexByte(seg, 0xE2) < 0 {
			if n := bytes.Count(seg, []byte{'\n'}); n > 0 {
				line, start = line+n, scan+bytes.LastIndexByte(seg, '\n')+1
			}
		} else {
			for i := scan; i < end; i++ {
				if n := ports.LineEnd(src, i); n > 0 {
					line, start = line+1, i+n
					i += n - 1
					end = max(end, i+1)
				}
			}
		}
		scan = end
		if start > colAt {
			col, colAt = 0, start
		}
		for _, c := range src[colAt:max(int(off), colAt)] {
			// A UTF-8 lead byte starts a code point: one UTF-16 unit, two
			// for a 4-byte sequence (outside the BMP); continuation bytes
			// add nothing.
			switch {
			case c < 0x80 || c >= 0xC0 && c < 0xF0:
				col++
			case c >= 0xF0:
				col += 2
			}
		}
		colAt = max(int(off), colAt)
		out = append(out, callPosition{off, genPos{int32(line), int32(col)}})
	}
	return out
}

// lineCount is the number of lines of src as positionsAt ends them.
func lineCount(src []byte) int {
	if bytes.IndexByte(src, '\r') < 0 && bytes.IndexByte(src, 0xE2) < 0 {
		return bytes.Count(src, []byte{'\n'}) + 1
	}
	n := 1
	for i := 0; i < len(src); i++ {
		if k := ports.LineEnd(src, i); k > 0 {
			n++
			i += k - 1
		}
	}
	return n
}

// siteAt is the 1-based line and the column of offset off of a file whose
// sitePositions are sites; line 0 when it was not kept.
func siteAt(sites []callPosition, off int64) (line, col int32) {
	if off < 0 {
		return 0, 0
	}
	i, ok := slices.BinarySearchFunc(sites, off, func(c callPosition, off int64) int { return cmp.Compare(c.off, off) })
	if !ok {
		return 0, 0
	}
	return sites[i].line + 1, sites[i].col
}

func statPath(p string) (os.FileInfo, error) {
	return os.Stat(filepath.Clean(p))
}

func jaKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// byteBudget is a counting semaphore over bytes. A request larger than the
// whole budget waits until nothing else holds any.
type byteBudget struct {
	mu    sync.Mutex
	cond  *sync.Cond
	free  int64
	total int64
}

func newByteBudget(n int64) *byteBudget {
	b := &byteBudget{free: n, total: n}
	b.cond = sync.NewCond(&b.mu)
	return b
}

func (b *byteBudget) acquire(n int64) {
	n = min(n, b.total)
	b.mu.Lock()
	for b.free < n {
		b.cond.Wait()
	}
	b.free -= n
	b.mu.Unlock()
}

func (b *byteBudget) release(n int64) {
	n = min(n, b.total)
	b.mu.Lock()
	b.free += n
	b.mu.Unlock()
	b.cond.Broadcast()
}

// Evidence bytes every JavaScript asset costs at least in the lean graph
// (lean.go): its node's row with its observed digest, size and status, its
// evidence and the edge that contains it, and its path written three
// times (identity, the edge's properties, the paths table). An app of
// one-byte scripts costs about 225 bytes per asset besides its paths
// (TestEvidenceLowerBoundHolds).
const (
	jsappMinAssetBytes  = 200
	jsappMinPathRepeats = 3
)

// jsappGraphMemoryFactor is how many times its Evidence's lower bound the
// graph costs in memory at least while it is built and encoded (nodes,
// edges and their encoding are held together).
const jsappGraphMemoryFactor = 2

// evidenceLowerBound is the least number of bytes the application's
// Evidence takes, and the bytes of JavaScript it describes.
func (st *jsappState) evidenceLowerBound() (need, js int64) {
	for _, p := range st.order {
		if f := st.files[p]; f.kind == "javascript" {
			need += jsappMinAssetBytes + jsappMinPathRepeats*int64(len(p))
			js += f.size
		}
	}
	return need, js
}

// checkRoom refuses, before any parsing, an application whose Evidence
// cannot fit what the session can still retain: the estimate is a lower
// bound, so an app that would fit is never refused here.
func (st *jsappState) checkRoom() error {
	if st.req.room == nil {
		return nil
	}
	free, maximum := st.req.room()
	need, js := st.evidenceLowerBound()
	if need <= free {
		return nil
	}
	msg := fmt.Sprintf("%s: the Evidence of %s (%d bytes of JavaScript) needs at least %d bytes; the session can retain %d more (of %d)",
		st.req.op, st.req.path, js, need, free, maximum)
	return &core.Error{Code: core.CodeResourceConstraint, Message: msg,
		Remediation: fmt.Sprintf("Start rea with %s set to at least %d (the CLI and rea serve read it at start; the default is a sixteenth of the machine's memory, at least 64 MiB), "+
			"or export retained records with export_evidence_bundle and clear them with close_binary, or analyze a smaller part of the application (one of its directories). Nothing was parsed.",
			core.LedgerBytesEnv, maximum-free+need*2),
		Details: map[string]any{"operation": st.req.op, "resource": "evidence-ledger", "reason": "estimated_evidence_exceeds_ledger",
			"javascript_bytes": js, "estimated_bytes_at_least": need, "ledger_free_bytes": free, "ledger_max_bytes": maximum, "setting": core.LedgerBytesEnv}}
}
