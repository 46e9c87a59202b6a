package jsapp

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"path"
	"runtime"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"

	"rea/ports"

	"rea/core"
	"rea/core/artifact"
)

// jsappBuilder derives the application graph from the inventory and the
// facts.
type jsappBuilder struct {
	st      *jsappState
	g       *graphBuild
	rootID  string
	ipc     map[string]*ipcChannel
	apis    map[string]string // exposed world name -> node id
	windows int
	// counters for the summary
	mains, preloads, renderers, utilities map[string]bool
	endpoints, storage, workers, addons   map[string]bool
	systems                               map[string]bool // system-api nodes (sinks.go)
	bundled, sourceMaps, sourceModules    int
	htmlDocs                              int
	relations                             []relRecord
	relStrs                               *relStrings           // the relations' strings
	assetRelations                        map[*jsAsset][][2]int // [from, to) of relations: an asset's own (importsPhase), then its bundled modules' (bundlePhase)
	fingerprints                          []map[string]any
	frontiers                             []map[string]any
	stringIndex                           []indexedString
	electron                              bool
	stringsCut                            bool
	bundleModuleNode                      map[string]map[string]string  // asset path -> module id -> node id
	moduleNodes                           map[string][]string           // asset path -> node id of each module, by index in JSFacts.Modules
	exportViews                           map[*jsAsset][]ports.JSExport // exportView results
	exportWork                            int                           // module visits of exportView, bounded by maxExportWork
	// endpoint calls of mapped assets, waiting for the asset's source map
	// to name the original source at the call site (mappedCall)
	mappedCalls map[*jsAsset][]mappedCall
	// the source module a map names at each IPC call of a mapped asset,
	// read by ipcPhase after the maps are released (mapIPCSites)
	ipcSources map[callSiteKey]string
	// the assets holding a runtime's chunk file names, by chunk global
	// (chunkWorker; nil until a chunk file's worker asks)
	chunkRuntimes map[string][]*jsAsset
	// the directories of the HTML documents whose <script src> loads each
	// asset (documentDirs; nil until a worker's script needs them)
	scriptDocDirs map[string][]string
	// IPC handlers (handlerPhase): the function node of each handles
	// call, by asset and call index ("" when the handler is no function
	// of the file), and the bodies of those with calls inside
	handlerFns    map[callIndex]handlerFn
	handlerBodies map[*jsAsset][]handlerBody
	// the bodies of the functions a preload exposes as members of a
	// context-bridge API (expose): the IPC calls they hold go from the API
	memberBodies map[*jsAsset][]memberBody
	// caller is the handler whose body holds the call being linked, or
	// "": callEdge's edges go from it
	caller string
}

// callIndex is a call of an asset, by its index in JSFacts.Calls.
type callIndex struct {
	a *jsAsset
	i int
}

// handlerFn is an IPC handler's node and, for one imported from another
// file, that file's node and the evidence of the export that defines it
// (in == "": the file or module that registers it).
type handlerFn struct {
	fn, in string
	ev     GraphEvidence
}

// handlerBody is the calls an IPC handler's body holds,
// Calls[first:end], and the handler's node.
type handlerBody struct {
	first, end int
	fn         string
}

// memberBody is the calls a function exposed as member of a
// context-bridge API holds, Calls[first:end], and the API's node.
type memberBody struct {
	first, end  int
	api, member string
}

// callSiteKey is a call in an asset, by the offset mappedSite gives.
type callSiteKey struct {
	a   *jsAsset
	off int64
}

type ipcChannel struct {
	name     string
	nodeID   string
	handlers []string // asset paths registering a main-side handler
	senders  []string
	mainSend []string // main -> renderer sends (webContents.send)
	rendOn   []string // renderer listeners (ipcRenderer.on)
}

func newJSAppBuilder(st *jsappState) *jsappBuilder {
	g := newGraphBuild()
	g.pend.props = newPropText() // only the seal's encoder reads an edge's properties (sealReleasing)
	return &jsappBuilder{st: st, g: g, ipc: map[string]*ipcChannel{}, apis: map[string]string{},
		mains: map[string]bool{}, preloads: map[string]bool{}, renderers: map[string]bool{}, utilities: map[string]bool{},
		endpoints: map[string]bool{}, storage: map[string]bool{}, workers: map[string]bool{}, addons: map[string]bool{},
		bundleModuleNode: map[string]map[string]string{}, moduleNodes: map[string][]string{}, exportViews: map[*jsAsset][]ports.JSExport{},
		assetRelations: map[*jsAsset][][2]int{}, relStrs: newRelStrings()}
}

// localKey and pathKey are identity(...) written as one map: most nodes
// are named by them, and identity's copy of its fields doubled the maps
// made.
func (b *jsappBuilder) localKey(namespace, key string) map[string]any {
	return map[string]any{"strategy": idArtifactLocal, "stability": stabilityVersion, "artifact_sha256": b.st.rootSHA, "namespace": namespace, "key": key}
}

func (b *jsappBuilder) pathKey(p string) map[string]any {
	return map[string]any{"strategy": idCanonicalPath, "stability": stabilityVersion, "artifact_sha256": b.st.rootSHA, "path": p}
}

func inventoryEv(p string) GraphEvidence {
	return GraphEvidence{Basis: "artifact-inventory", Confidence: core.ConfidenceObserved, Locations: []GraphLocation{{Path: p}}}
}

func (b *jsappBuilder) packagesPhase(ctx context.Context) {
	st := b.st
	b.rootID = b.g.node("artifact", identity(idContentDigest, stabilityGlobal, map[string]any{"sha256": st.rootSHA}), "",
		map[string]any{"format": st.format, "sha256": st.rootSHA, "files": len(st.files)}, inventoryEv("."))
	b.g.root(b.rootID)
	st.readPackages(ctx)
	st.resolved = map[resolveKey]resolvedModule{}
	for _, dir := range jaKeys(st.packages) {
		pkg := st.packages[dir]
		props := map[string]any{"path": pkg.path, "name": pkg.name, "version": pkg.ver, "main": pkg.main, "type": pkg.typ,
			"electron_dependency": pkg.deps["electron"]}
		if pkg.err != "" {
			props["error"] = pkg.err
		}
		pkg.nodeID = b.g.node("package", b.pathKey(pkg.path), pkg.name, props, GraphEvidence{Basis: "package-metadata", Locations: []GraphLocation{{Path: pkg.path}}})
		b.g.edge(b.rootID, pkg.nodeID, "contains", map[string]any{"path": pkg.path}, inventoryEv(pkg.path))
		// The app's own packages say what the app is; a dependency that
		// depends on electron (often only to build or test itself) does not.
		if own := !strings.Contains(pkg.path, "node_modules/"); own {
			b.electron = b.electron || pkg.deps["electron"]
			b.g.root(pkg.nodeID)
		}
		if pkg.err != "" {
			st.unknown("invalid-package", pkg.nodeID, pkg.path, -1, pkg.err)
		}
		for _, fe := range pkg.fieldErrs {
			st.unknown("invalid-package-field", pkg.nodeID, pkg.path, -1, fe)
		}
	}
	for _, p := range st.order {
		f := st.files[p]
		switch f.kind {
		case "native-addon":
			id := b.g.node("native-addon", b.pathKey(p), path.Base(p), map[string]any{"path": p, "sha256": f.sha256, "size": f.size}, inventoryEv(p))
			b.g.edge(b.rootID, id, "contains", map[string]any{"path": p}, inventoryEv(p))
			b.addons[p] = true
		case "html":
			b.htmlDocs++
		}
	}
}

func (b *jsappBuilder) assetsPhase() {
	st := b.st
	for _, a := range st.sortedAssets() {
		props := map[string]any{"path": a.path, "sha256": a.sha256, "size": a.size}
		switch {
		case a.quarant:
			props["status"] = "quarantined"
		case a.facts == nil:
			props["status"] = "not-analysed"
		case !a.facts.Parsed && len(a.facts.Errors) > 0:
			props["status"] = "syntax-error"
			e := a.facts.Errors[0]
			props["syntax_error"] = map[string]any{"message": truncateUTF8(e.Message, 512), "line": e.Line, "column": e.Column, "offset": offsetPtr(e.Offset)}
			st.syntaxErrs++
		case !a.facts.Parsed:
			props["status"] = "not-parsed"
			st.notParsed++
		default:
			props["status"] = "parsed"
			props["module_type"] = a.facts.ModuleType
			st.bytesParsed += a.size
		}
		if a.facts != nil {
			if a.facts.Bundler != "" {
				props["bundler"] = a.facts.Bundler
			}
			if len(a.facts.Exports) > 0 {
				var names []string
				for _, e := range a.facts.Exports {
					names = append(names, e.Name)
				}
				names, shapes := uniqueUTF16(names), exportShapes(b.exportView(a))
				k := exportsRoom(props, len(names), len(shapes))
				props["exports"] = names[:min(k, len(names))] // a []string bounds as the list it encodes as (settle.go)
				props["export_shapes"] = shapes[:min(k, len(shapes))]
			}
			for _, l := range a.facts.Limitations {
				st.limitations = append(st.limitations, a.path+": "+l)
			}
		}
		a.nodeID = b.g.node("javascript-asset", b.pathKey(a.path), a.path, props, inventoryEv(a.path))
		parent := b.rootID
		if a.pkg = st.nearestPackage(a.path); a.pkg != nil && a.pkg.nodeID != "" {
			parent = a.pkg.nodeID
		}
		b.g.edge(parent, a.nodeID, "contains", map[string]any{"path": a.path}, inventoryEv(a.path))
		if a.facts != nil && !a.facts.Parsed {
			if len(a.facts.Errors) > 0 {
				e := a.facts.Errors[0]
				st.unknown("syntax-error", a.nodeID, a.path, e.Offset, e.Message)
			} else {
				st.unknown("not-parsed", a.nodeID, a.path, -1, strings.Join(a.facts.Limitations, " "))
			}
		}
		if a.quarant {
			st.unknown("integrity-contradiction", a.nodeID, a.path, -1, "declared and observed sha256 differ; the bytes were not analysed")
		}
		b.indexStrings(a)
	}
	// Export views serve the assets' export shapes only: their memory goes
	// (an empty map, so a later view would still be kept, not panic).
	b.exportViews = map[*jsAsset][]ports.JSExport{}
	// Entry points: main (index.js when absent), module and every exports
	// target, patterns matched against the inventory.
	for _, dir := range jaKeys(st.packages) {
		pkg := st.packages[dir]
		ev := GraphEvidence{Basis: "package-metadata", Locations: []GraphLocation{{Path: pkg.path}}}
		if pkg.main == "" {
			if p, ok := st.resolveFile(path.Join(pkg.dir, "index.js")); ok {
				if a := st.assets[p]; a != nil {
					b.g.edge(pkg.nodeID, a.nodeID, "loads", map[string]any{"field": "main", "specifier": "index.js"}, ev)
				}
			}
		}
		for _, e := range pkg.entries {
			props := map[string]any{"field": e.field, "specifier": e.target}
			if e.field == "exports" {
				props["subpath"], props["conditions"] = e.subpath, strSlice(e.conditions)
			}
			found := st.resolveEntry(pkg, e)
			for _, p := range found {
				if a := st.assets[p]; a != nil {
					b.g.edge(pkg.nodeID, a.nodeID, "loads", props, ev)
				}
			}
			if len(found) == 0 {
				st.unknown("unresolved-entry", pkg.nodeID, pkg.path, -1, e.field+" "+e.target+" does not name an inventoried file")
			}
		}
	}
}

// strings feeds the string index with literals worth a seed: 3..256 bytes.
func (b *jsappBuilder) indexStrings(a *jsAsset) {
	if a.facts == nil {
		return
	}
	strs := a.facts.Strings
	a.facts.Strings = nil // read here only: the index holds what it keeps
	seen := map[string]bool{}
	for _, s := range strs {
		if len(s.Value) < 3 || len(s.Value) > 256 || seen[s.Value] {
			continue
		}
		seen[s.Value] = true
		if len(b.stringIndex) >= jsappMaxStringIndex {
			b.stringsCut = true
			return
		}
		b.stringIndex = append(b.stringIndex, indexedString{s.Value, a.nodeID, s.Offset})
	}
}

func (b *jsappBuilder) importsPhase() {
	st := b.st
	// The relations are held until the result: sized once.
	n := 0
	for _, a := range st.sortedAssets() {
		if a.facts != nil {
			n += len(a.facts.Exports)
			for _, im := range a.facts.Imports {
				if im.InModule < 0 {
					n++
				}
			}
		}
	}
	b.relations = slices.Grow(b.relations, min(n, jsappMaxRelations)-len(b.relations))
	importProps := sharedProps{}
	for _, a := range st.sortedAssets() {
		if a.facts == nil {
			continue
		}
		from := len(b.relations)
		// A computed specifier without a literal has no offset: the
		// file's such imports of one kind are one relation (each is
		// still an unknown).
		var computed map[string]bool
		for _, im := range a.facts.Imports {
			if im.InModule >= 0 {
				continue // inside a bundled module: handled by the bundle phase
			}
			var via *chunkVia
			if im.Chunk != "" && isWorkerKind(im.Kind) {
				im, via = b.chunkWorker(a, im)
			}
			rel := semRelation{relation: im.Kind, source: a.nodeID, specifier: im.Specifier, offset: im.Offset, names: im.Names}
			rel.line, rel.col = siteAt(a.sites, im.Offset)
			if im.Dynamic {
				st.unknown(dynamicKind(im.Kind), a.nodeID, a.path, im.Offset, im.Kind+" specifier is computed at run time")
				b.frontier(a, dynamicKind(im.Kind), im.Offset, "computed specifier")
				if im.Offset < 0 && len(im.Names) == 0 {
					if computed[im.Kind] {
						continue
					}
					if computed == nil {
						computed = map[string]bool{}
					}
					computed[im.Kind] = true
				}
				b.relation(rel)
				continue
			}
			if isWorkerKind(im.Kind) {
				b.worker(a, im, rel, via)
				continue
			}
			target, ok := st.resolveModule(a.path, im.Specifier, im.Kind)
			if !ok {
				if isBuiltinModule(im.Specifier) || isBareSpecifier(im.Specifier) {
					rel.external = true
				} else {
					st.unknown("unresolved-import", a.nodeID, a.path, im.Offset, "specifier "+im.Specifier+" does not resolve to an inventoried file")
				}
				b.relation(rel)
				continue
			}
			props := importProps.get(im)
			if t := st.assets[target]; t != nil {
				b.g.edge(a.nodeID, t.nodeID, "imports", props, b.at(a, im.Offset))
				rel.target, rel.hasTarget = t.nodeID, true
			} else if st.files[target].kind == "native-addon" {
				nid := nodeID("native-addon", b.pathKey(target))
				b.g.edge(a.nodeID, nid, "loads", props, b.at(a, im.Offset))
				rel.target, rel.hasTarget = nid, true
			}
			b.relation(rel)
		}
		// The same export seen twice (two module.exports assignments
		// without an offset) is one relation.
		type exportKey struct {
			name, kind, spec string
			off              int64
			val              ports.JSValueShape
		}
		seen := make(map[exportKey]bool, len(a.facts.Exports))
		for _, e := range a.facts.Exports {
			k := exportKey{e.Name, e.Kind, e.Source, e.Offset, e.Value}
			if seen[k] {
				continue
			}
			seen[k] = true
			r := semRelation{export: true, relation: "exports", source: a.nodeID, name: e.Name, kind: e.Kind,
				specifier: e.Source, offset: e.Offset, value: e.Value, inClause: e.InClause}
			if e.Source != "" && e.Local != "" && e.Local != e.Name {
				r.local = e.Local
			}
			r.line, r.col = siteAt(a.sites, e.Offset)
			b.relation(r)
		}
		if len(b.relations) > from {
			b.assetRelations[a] = append(b.assetRelations[a], [2]int{from, len(b.relations)})
		}
	}
}

// worker adds the worker (or service-worker) node an import of a worker
// kind creates, with a loads edge from the site that creates it (the
// bundled module whose body holds it, else the asset: siteEdge) and, when
// the app holds the script, the worker's loads edge to it; a script the
// app lacks is an unknown of the creating node. A webpack chunk's script
// is the file via names (chunkWorker); another's is resolved from the
// asset. rel is the import's semantic relation, recorded with its target.
func (b *jsappBuilder) worker(a *jsAsset, im ports.JSImport, rel semRelation, via *chunkVia) {
	st := b.st
	var target string
	var ok bool
	if via != nil {
		target, ok = via.file, via.found
	} else {
		target, ok = st.resolveModule(a.path, im.Specifier, im.Kind)
		if !ok {
			target, ok = b.resolveWorkerURL(a, im.Specifier)
		}
	}
	kind := "worker"
	if im.Kind == ports.JSServiceWorker {
		kind = "service-worker"
	}
	key := im.Specifier
	if ok {
		key = target
	}
	wid := b.g.node(kind, b.localKey(kind, key), key, map[string]any{"specifier": im.Specifier, "type": im.Kind, "resolved": ok}, b.at(a, im.Offset))
	props := map[string]any{"kind": im.Kind, "specifier": im.Specifier}
	if via != nil && via.runtime != a.path {
		props["runtime"] = via.runtime
	}
	b.siteEdge(a, im.InModule, im.Offset, wid, "loads", props, b.at(a, im.Offset))
	b.workers[key] = true
	if ok {
		if t := st.assets[target]; t != nil {
			b.g.edge(wid, t.nodeID, "loads", map[string]any{"path": target}, b.at(a, im.Offset))
			t.roles[kind] = true
			rel.target, rel.hasTarget = t.nodeID, true
		}
	} else if !isBuiltinModule(im.Specifier) {
		st.unknown("unresolved-worker", b.callSite(a, im.InModule), a.path, im.Offset, "worker script "+im.Specifier+" is not in the app")
	}
	b.relation(rel)
}

// resolveWorkerURL finds the script of a worker that module resolution
// did not: the argument of new Worker, new SharedWorker and
// navigator.serviceWorker.register is a URL, so a bare name such as
// "worker.js" is a relative URL (not a package), and a page's script
// resolves it against its document, not its own directory. The bases are
// the script's directory, then the directory of each HTML document of the
// app whose <script src> loads the script (a src starting with / is looked
// for as htmlModuleScripts does). A URL with a scheme, a host or a query
// naming no file is not resolved, and no extension is added: a browser
// fetches exactly the URL.
func (b *jsappBuilder) resolveWorkerURL(a *jsAsset, spec string) (string, bool) {
	if i := strings.IndexAny(spec, "?#"); i >= 0 {
		spec = spec[:i]
	}
	if spec == "" || strings.Contains(spec, ":") || strings.HasPrefix(spec, "//") {
		return "", false
	}
	var bases []string
	if !strings.HasPrefix(spec, "/") {
		bases = append(bases, path.Dir(a.path))
	}
	bases = append(bases, b.documentDirs(a.path, strings.HasPrefix(spec, "/"))...)
	for _, base := range bases {
		if t := path.Join(base, spec); !strings.HasPrefix(t, "../") && t != ".." && b.st.assets[t] != nil {
			return t, true
		}
	}
	return "", false
}

// documentDirs returns the directories of the app's HTML documents that
// load script p with <script src>, in document order, and, when rooted
// (for a URL starting with /), each document's package directory too. The
// documents are scanned once per analysis; one that cannot be read is
// passed over.
func (b *jsappBuilder) documentDirs(p string, rooted bool) []string {
	st := b.st
	if b.scriptDocDirs == nil {
		b.scriptDocDirs = map[string][]string{}
		for _, dp := range st.order {
			f := st.files[dp]
			if f.kind != "html" || f.quarant || f.size > jsappMaxHTMLBytes {
				continue
			}
			tags, err := st.scriptTagsOf(context.Background(), f)
			if err != nil {
				continue
			}
			for _, tag := range tags {
				bases := []string{path.Dir(dp)}
				if strings.HasPrefix(tag.src, "/") {
					if pkg := st.nearestPackage(dp); pkg != nil {
						bases = append(bases, pkg.dir)
					}
				}
				for _, base := range bases {
					if t := path.Join(base, tag.src); st.assets[t] != nil {
						if !slices.Contains(b.scriptDocDirs[t], path.Dir(dp)) {
							b.scriptDocDirs[t] = append(b.scriptDocDirs[t], path.Dir(dp))
						}
						break
					}
				}
			}
		}
	}
	dirs := b.scriptDocDirs[p]
	if !rooted {
		return dirs
	}
	var out []string
	for _, d := range dirs {
		out = append(out, d)
		if pkg := st.nearestPackage(path.Join(d, "index.html")); pkg != nil && pkg.dir != d {
			out = append(out, pkg.dir)
		}
	}
	return out
}

// chunkVia is the script of a worker that a webpack build starts from a
// chunk: the file (found, or where the runtime puts it) and the runtime
// file whose chunk file names name it.
type chunkVia struct {
	runtime, file string
	found         bool
}

// chunkWorker finds the script of a worker started from a webpack chunk
// (im.Chunk). Its asset's own runtime names the chunk (im.Specifier); a
// chunk file holds no runtime, and its worker is named by the runtime
// files that share the file's chunk global (webpack's chunk loading
// pushes every chunk of a build onto that one global array), the import
// coming back with the name as its specifier. Runtimes that name the
// chunk as different files, or none, leave the import as it was (dynamic)
// and via nil.
func (b *jsappBuilder) chunkWorker(a *jsAsset, im ports.JSImport) (ports.JSImport, *chunkVia) {
	if !im.Dynamic {
		file, found := b.st.chunkFile(a.path, strings.TrimPrefix(im.Specifier, "./"))
		return im, &chunkVia{runtime: a.path, file: file, found: found}
	}
	if a.facts.ChunkGlobal == "" {
		return im, nil
	}
	if b.chunkRuntimes == nil {
		b.chunkRuntimes = map[string][]*jsAsset{}
		for _, r := range b.st.sortedAssets() {
			if r.facts != nil && r.facts.ChunkNames != nil && r.facts.ChunkGlobal != "" {
				b.chunkRuntimes[r.facts.ChunkGlobal] = append(b.chunkRuntimes[r.facts.ChunkGlobal], r)
			}
		}
	}
	var via *chunkVia
	spec := ""
	for _, r := range b.chunkRuntimes[a.facts.ChunkGlobal] {
		name, ok := r.facts.ChunkNames.Name(im.Chunk)
		if !ok || name == "" || strings.Contains(name, "://") || strings.HasPrefix(name, "/") {
			continue
		}
		file, found := b.st.chunkFile(r.path, name)
		if via == nil {
			via, spec = &chunkVia{runtime: r.path, file: file, found: found}, "./"+name
		} else if file != via.file {
			return im, nil // ambiguous
		}
	}
	if via != nil {
		im.Specifier, im.Dynamic = spec, false
	}
	return im, via
}

// chunkFile is the file of a chunk that a runtime file names: the name is
// relative to the runtime's public path, which is the runtime file's
// directory by default (webpack's "auto") or, for a runtime written under
// the output directory (static/js/runtime.js), above it (the auto path
// goes up again, "../../"; a configured one such as "/" is the site's
// root, usually the output directory). The nearest directory, from the
// runtime's up, that holds the name is taken; none: where the runtime's
// own directory puts it.
func (st *jsappState) chunkFile(runtime, name string) (string, bool) {
	for dir := path.Dir(runtime); ; dir = path.Dir(dir) {
		if p := path.Join(dir, name); st.files[p] != nil && !strings.HasPrefix(p, "../") {
			return p, true
		}
		if dir == "." || dir == "/" {
			return path.Join(path.Dir(runtime), name), false
		}
	}
}

// isWorkerKind reports the import kinds that create a worker (new Worker,
// new SharedWorker, navigator.serviceWorker.register).
func isWorkerKind(kind string) bool {
	return kind == ports.JSWorker || kind == ports.JSSharedWorker || kind == ports.JSServiceWorker
}

// sharedProps hands out one properties map per distinct import (kind,
// specifier, names) for the edges of the imports phase: edges only read
// their properties, and the same specifier is imported from many files.
type sharedProps map[string]map[string]any

func (c sharedProps) get(im ports.JSImport) map[string]any {
	var key strings.Builder
	for _, s := range append([]string{im.Kind, im.Specifier}, im.Names...) {
		key.WriteString(strconv.Itoa(len(s)))
		key.WriteByte(':')
		key.WriteString(s)
	}
	if p, ok := c[key.String()]; ok {
		return p
	}
	p := map[string]any{"kind": im.Kind, "specifier": im.Specifier}
	if len(im.Names) > 0 {
		p["names"] = strSlice(im.Names)
	}
	c[key.String()] = p
	return p
}

func dynamicKind(kind string) string {
	if strings.HasPrefix(kind, "dynamic-") {
		return kind
	}
	return "dynamic-" + kind
}

func isBareSpecifier(s string) bool {
	return s != "" && !strings.HasPrefix(s, ".") && !strings.HasPrefix(s, "/") && !strings.Contains(s, "://")
}

func strSlice(s []string) []any {
	out := make([]any, len(s))
	for i, v := range s {
		out[i] = v
	}
	return out
}

func (b *jsappBuilder) relation(r semRelation) {
	if len(b.relations) < jsappMaxRelations {
		b.relations = append(b.relations, b.relStrs.pack(&r))
	}
}

func (b *jsappBuilder) frontier(a *jsAsset, kind string, off int64, detail string) {
	if len(b.frontiers) < jsappMaxUnknowns {
		f := map[string]any{"node_id": a.nodeID, "kind": kind, "offset": offsetPtr(off), "detail": detail}
		if l, c := siteAt(a.sites, off); l > 0 {
			f["line"], f["column"] = l, c
		}
		b.frontiers = append(b.frontiers, f)
	}
}

// --- Electron, endpoints, storage, native add-ons ---

// member reports whether call is obj.name on an Electron module object
// (ipcMain, ipcRenderer, contextBridge, ...), by binding or by callee text.
func isMember(c ports.JSCall, obj string, names ...string) (string, bool) {
	for _, n := range names {
		if c.Module == "electron" || strings.HasPrefix(c.Module, "electron/") {
			if c.Member == obj+"."+n {
				return n, true
			}
		}
		if c.Callee == obj+"."+n || strings.HasSuffix(c.Callee, "."+obj+"."+n) {
			return n, true
		}
	}
	return "", false
}

func firstString(c ports.JSCall) (string, int64, bool) {
	if len(c.Args) == 0 || c.Args[0].Kind != ports.JSValString {
		return "", -1, false
	}
	return c.Args[0].Value, c.Args[0].Offset, true
}

func calleeLast(c ports.JSCall) string {
	name := c.Callee
	if (c.Module == "electron" || strings.HasPrefix(c.Module, "electron/")) && c.Member != "" {
		name = c.Member // a renamed binding: const {BrowserWindow: n} = require("electron"); new n()
	}
	if i := strings.LastIndexByte(name, '.'); i >= 0 {
		return name[i+1:]
	}
	return name
}

func (b *jsappBuilder) electronPhase() {
	st := b.st
	for _, a := range st.sortedAssets() {
		if a.facts == nil {
			continue
		}
		for _, im := range a.facts.Imports {
			if im.Specifier == "electron" || strings.HasPrefix(im.Specifier, "electron/") {
				b.electron = true
			}
		}
	}
	// An ASAR is Electron's archive: the app packed in one is Electron
	// even when no code that parsed says so (its main may not parse).
	if st.asar != "" {
		b.electron = true
	}
	// The root package's main is the main process when the app is Electron.
	// A main that did not parse hides its windows, preloads and handlers;
	// and, when nothing else says the app is Electron, whether it is.
	for _, dir := range jaKeys(st.packages) {
		pkg := st.packages[dir]
		if strings.Contains(pkg.path, "node_modules/") || pkg.main == "" {
			continue
		}
		p, ok := st.resolveFile(path.Join(pkg.dir, pkg.main))
		if !ok || st.assets[p] == nil {
			continue
		}
		a := st.assets[p]
		if b.electron {
			b.process("electron-main", a, GraphEvidence{Basis: "package-metadata", Locations: []GraphLocation{{Path: pkg.path}}})
		}
		if a.facts == nil || a.facts.Parsed || len(a.facts.Errors) == 0 {
			continue
		}
		e := a.facts.Errors[0]
		if b.electron {
			st.limitations = append(st.limitations, fmt.Sprintf("%s, the main process (%s's main), did not parse (%s at line %d): the windows, preloads and IPC handlers it sets up are not known.", p, pkg.path, truncateUTF8(e.Message, 200), e.Line))
		} else {
			st.limitations = append(st.limitations, fmt.Sprintf("%s (%s's main) did not parse (%s at line %d): whether it starts an Electron main process is not known, and %s does not depend on electron.", p, pkg.path, truncateUTF8(e.Message, 200), e.Line, pkg.path))
		}
	}
	for _, a := range st.sortedAssets() {
		if a.facts == nil {
			continue
		}
		var windows []string
		for i, c := range a.facts.Calls {
			b.caller = b.handlerOf(a, i)
			last := calleeLast(c)
			switch {
			case c.New && isWindowConstructor(last):
				b.electron = true
				b.process("electron-main", a, b.atCall(a, c, c.Offset))
				windows = append(windows, b.browserWindow(a, c))
			case last == "loadFile" || last == "loadURL":
				b.load(a, c, windows)
			case last == "fork":
				if _, ok := isMember(c, "utilityProcess", "fork"); ok {
					b.utility(a, c)
				}
			case last == "exposeInMainWorld":
				if isExposeCall(c) {
					b.expose(a, i, c)
				}
			}
			b.endpoint(a, c)
			b.storageCall(a, c)
			b.nativeCall(a, c)
			b.systemCall(a, c)
		}
		b.caller = ""
	}
	// Renderer calls into exposed APIs: window.<api>.<member>(...).
	for _, a := range st.sortedAssets() {
		if a.facts == nil {
			continue
		}
		for i, c := range a.facts.Calls {
			if api, member, ok := exposedAPICall(c); ok {
				if id, ok := b.apis[api]; ok {
					b.caller = b.handlerOf(a, i)
					b.callEdge(a, c, id, "calls", map[string]any{"member": member}, b.atCall(a, c, c.Offset))
					b.caller = ""
				}
			}
		}
	}
}

// isWindowConstructor reports the classes whose construction makes a
// browser-window node.
func isWindowConstructor(name string) bool {
	return name == "BrowserWindow" || name == "BrowserView" || name == "WebContentsView"
}

// exposedAPICall splits a call window.<api>.<member> (or globalThis.<api>
// ...), which calls into the API a preload exposed under the world key
// api, if any.
func exposedAPICall(c ports.JSCall) (api, member string, ok bool) {
	root, rest, _ := strings.Cut(c.Callee, ".")
	api, member, ok = strings.Cut(rest, ".")
	if !ok || root != "window" && root != "globalThis" {
		return "", "", false
	}
	return api, member, true
}

// process records an Electron process role for an asset.
func (b *jsappBuilder) process(kind string, a *jsAsset, ev GraphEvidence) string {
	role := strings.TrimPrefix(kind, "electron-")
	a.roles[role] = true
	id := b.g.node(kind, b.localKey("electron-process", role+":"+a.path), a.path, map[string]any{"path": a.path, "role": role}, ev)
	b.g.edge(id, a.nodeID, "loads", map[string]any{"path": a.path}, ev)
	switch kind {
	case "electron-main":
		b.mains[a.path] = true
		b.g.root(id)
	case "electron-preload":
		b.preloads[a.path] = true
	case "electron-renderer":
		b.renderers[a.path] = true
	case "electron-utility":
		b.utilities[a.path] = true
	}
	return id
}

// pathValue resolves a path expression written in asset a: a literal
// (relative to base), path.join/resolve(__dirname, ...), `${__dirname}/x`
// or __dirname + "/x". ok is false when any part is not literal.
func (b *jsappBuilder) pathValue(a *jsAsset, v ports.JSValue, base string) (string, bool) {
	dir := path.Dir(a.path)
	switch v.Kind {
	case ports.JSValString:
		if strings.HasPrefix(v.Value, "/") {
			return "", false
		}
		return path.Join(base, v.Value), true
	case ports.JSValName:
		if v.Value == "__dirname" {
			return dir, true
		}
	case ports.JSValCall:
		if v.Value == "path.join" || v.Value == "path.resolve" || v.Value == "join" || v.Value == "resolve" || strings.HasSuffix(v.Value, ".join") {
			var segs []string
			for i, arg := range v.Args {
				switch {
				case arg.Kind == ports.JSValName && arg.Value == "__dirname" && i == 0:
					segs = append(segs, dir)
				case arg.Kind == ports.JSValString:
					segs = append(segs, arg.Value)
				default:
					return "", false
				}
			}
			if len(segs) == 0 {
				return "", false
			}
			if len(v.Args) > 0 && v.Args[0].Kind == ports.JSValString {
				segs = append([]string{base}, segs...)
			}
			return path.Join(segs...), true
		}
	case ports.JSValTemplate:
		if len(v.Parts) == 1 && v.Parts[0].Kind == ports.JSValName && v.Parts[0].Value == "__dirname" && strings.HasPrefix(v.Value, "${}") {
			return path.Join(dir, strings.TrimPrefix(v.Value, "${}")), true
		}
		if len(v.Parts) == 0 {
			return path.Join(base, v.Value), true
		}
	}
	return "", false
}

func findProp(v ports.JSValue, dotted string) (ports.JSValue, bool) {
	cur := v
	for _, k := range strings.Split(dotted, ".") {
		found := false
		for _, p := range cur.Props {
			if p.Key == k {
				cur, found = p.Value, true
				break
			}
		}
		if !found {
			return ports.JSValue{}, false
		}
	}
	return cur, true
}

// prefsUnseen says whether a BrowserWindow's webPreferences keys may be
// set where the analysis did not see them: the options or webPreferences
// were cut by the engine (ports.JSValue.PropsCut: the options before a
// webPreferences key, or webPreferences itself), or either is not an
// object literal (new BrowserWindow(opts) with a let opts, webPreferences:
// prefs()); the engine renders a const bound to an object literal as the
// literal (adapters/js/constobjs.go).
// Without arguments nothing is unseen: Electron's defaults apply.
func prefsUnseen(opts ports.JSValue, given bool) bool {
	if wp, ok := findProp(opts, "webPreferences"); ok {
		return wp.PropsCut || wp.Kind != ports.JSValObject
	}
	return opts.PropsCut || given && opts.Kind != ports.JSValObject
}

// valueOffset is where value v is written: its own offset (a literal's),
// else its first literal's (path.join(__dirname, "preload.js")), or -1.
func valueOffset(v ports.JSValue) int64 {
	if v.Offset >= 0 {
		return v.Offset
	}
	for _, l := range [][]ports.JSValue{v.Args, v.Parts, v.Items} {
		for _, x := range l {
			if o := valueOffset(x); o >= 0 {
				return o
			}
		}
	}
	return -1
}

func (b *jsappBuilder) browserWindow(a *jsAsset, c ports.JSCall) string {
	b.windows++
	key := fmt.Sprintf("%s@%d#%d", a.path, c.Offset, b.windows)
	props := map[string]any{"created_in": a.path, "constructor": calleeLast(c)}
	var opts ports.JSValue
	if len(c.Args) > 0 {
		opts = c.Args[0]
	}
	var unread []any
	unseen := prefsUnseen(opts, len(c.Args) > 0)
	for _, k := range []string{"nodeIntegration", "contextIsolation", "sandbox", "webSecurity", "preload"} {
		v, ok := findProp(opts, "webPreferences."+k)
		if ok && v.Kind == ports.JSValBool && k != "preload" {
			props[k] = v.Value == "true"
		}
		if !ok && unseen {
			unread = append(unread, k)
		}
	}
	if len(unread) > 0 {
		// The engine kept only the first properties of the options or of
		// webPreferences, or they are computed (a variable, a call):
		// these keys may be set where the analysis did not see them, so
		// their absence is not Electron's default observed.
		props["web_preferences_unseen"] = unread
	}
	id := b.g.node("browser-window", b.localKey("browser-window", key), "BrowserWindow", props, b.atCall(a, c, c.Offset))
	b.callEdge(a, c, id, "calls", map[string]any{"callee": c.Callee}, b.atCall(a, c, c.Offset))
	if v, ok := findProp(opts, "webPreferences.preload"); ok {
		// At the preload value's first literal (path.join(__dirname,
		// "preload.js")), else at the constructor.
		off := valueOffset(v)
		if p, ok := b.pathValue(a, v, path.Dir(a.path)); ok {
			if pa := b.st.assets[p]; pa != nil {
				pid := b.process("electron-preload", pa, b.atCall(a, c, off))
				b.g.edge(id, pid, "loads", map[string]any{"via": "webPreferences.preload"}, b.atCall(a, c, off))
			} else {
				b.st.unknown("unresolved-preload", a.nodeID, a.path, v.Offset, "preload "+p+" is not an inventoried JavaScript file")
			}
		} else {
			b.st.unknown("dynamic-preload", a.nodeID, a.path, v.Offset, "the preload path is computed at run time")
		}
	}
	return id
}

func (b *jsappBuilder) load(a *jsAsset, c ports.JSCall, windows []string) {
	if len(c.Args) == 0 {
		return
	}
	arg := c.Args[0]
	var target string
	ok := false
	if calleeLast(c) == "loadURL" {
		if arg.Kind == ports.JSValString && (strings.HasPrefix(arg.Value, "http://") || strings.HasPrefix(arg.Value, "https://")) {
			tid := b.g.node("target", b.localKey("target", arg.Value), arg.Value, map[string]any{"url": arg.Value}, b.at(a, c.Offset))
			for _, w := range windows {
				b.g.edge(w, tid, "loads", map[string]any{"callee": c.Callee}, b.at(a, c.Offset))
			}
			if len(windows) == 0 {
				b.callEdge(a, c, tid, "loads", map[string]any{"callee": c.Callee}, b.atCall(a, c, c.Offset))
			}
			return
		}
		v := arg
		if v.Kind == ports.JSValTemplate && strings.HasPrefix(v.Value, "file://") {
			v.Value = strings.TrimPrefix(v.Value, "file://")
		}
		if v.Kind == ports.JSValString && strings.HasPrefix(v.Value, "file://") {
			v.Value = strings.TrimPrefix(v.Value, "file://")
		}
		target, ok = b.pathValue(a, v, b.appBase(a))
	} else {
		target, ok = b.pathValue(a, arg, b.appBase(a))
	}
	if !ok {
		b.st.unknown("dynamic-load", a.nodeID, a.path, callOffset(c), c.Callee+" argument is computed at run time")
		if calleeLast(c) == "loadURL" {
			b.systemNode(a, c, "loadURL") // a URL the code computes: what it can load
		}
		return
	}
	f := b.st.files[target]
	if f == nil {
		b.st.unknown("unresolved-load", a.nodeID, a.path, c.Offset, c.Callee+" target "+target+" is not in the app")
		return
	}
	rid := b.g.node("electron-renderer", b.localKey("electron-process", "renderer:"+target), target, map[string]any{"path": target, "role": "renderer"}, b.at(a, c.Offset))
	b.renderers[target] = true
	for _, w := range windows {
		b.g.edge(w, rid, "loads", map[string]any{"callee": c.Callee, "path": target}, b.at(a, c.Offset))
	}
	if len(windows) == 0 {
		b.callEdge(a, c, rid, "loads", map[string]any{"callee": c.Callee, "path": target}, b.atCall(a, c, c.Offset))
	}
	if f.kind == "html" && !f.quarant {
		// The script tags a browser runs (html.go), as scanned while the
		// document was hashed.
		tags, err := b.st.scriptTagsOf(context.Background(), f)
		if err != nil {
			return
		}
		for _, tag := range tags {
			s := tag.src
			p := path.Join(path.Dir(target), s)
			if strings.HasPrefix(s, "/") {
				p = path.Join(b.appBase(a), s)
			}
			if sa := b.st.assets[p]; sa != nil {
				sa.roles["renderer"] = true
				b.g.edge(rid, sa.nodeID, "loads", map[string]any{"via": "script", "src": s},
					GraphEvidence{Basis: "html-markup", Confidence: core.ConfidenceObserved, Locations: []GraphLocation{{Path: target, Offset: offsetPtr(int64(tag.offset)), Line: tag.line, Column: tag.column}}})
			} else {
				b.st.unknown("unresolved-script", rid, target, int64(tag.offset), "script "+s+" is not in the app")
			}
		}
	} else if sa := b.st.assets[target]; sa != nil {
		sa.roles["renderer"] = true
		b.g.edge(rid, sa.nodeID, "loads", map[string]any{"path": target}, b.at(a, c.Offset))
	}
}

// appBase is the directory loadFile resolves relative paths against: the
// app's root package.
func (b *jsappBuilder) appBase(a *jsAsset) string {
	if a.pkg != nil {
		return a.pkg.dir
	}
	return "."
}

func (b *jsappBuilder) utility(a *jsAsset, c ports.JSCall) {
	if len(c.Args) == 0 {
		return
	}
	p, ok := b.pathValue(a, c.Args[0], path.Dir(a.path))
	if !ok {
		b.st.unknown("dynamic-utility", a.nodeID, a.path, callOffset(c), "utilityProcess.fork argument is computed at run time")
		return
	}
	ua := b.st.assets[p]
	if ua == nil {
		b.st.unknown("unresolved-utility", a.nodeID, a.path, c.Offset, "utility process script "+p+" is not in the app")
		return
	}
	uid := b.process("electron-utility", ua, b.at(a, c.Offset))
	b.callEdge(a, c, uid, "calls", map[string]any{"callee": c.Callee}, b.atCall(a, c, c.Offset))
}

// expose makes the context-bridge API call i of asset a exposes, and
// notes the bodies of the functions written as its members
// (ports.JSFunction.Prop), whose IPC calls go from the API (ipcPhase).
func (b *jsappBuilder) expose(a *jsAsset, i int, c ports.JSCall) {
	name, off, ok := firstString(c)
	if !ok {
		b.st.unknown("dynamic-context-bridge", a.nodeID, a.path, callOffset(c), "exposeInMainWorld key is computed at run time")
		return
	}
	var members []string
	if len(c.Args) > 1 {
		for _, p := range c.Args[1].Props {
			members = append(members, p.Key)
		}
		// A method ({get(k) {...}}) is no property of the rendered
		// object; its function is (ports.JSFunction.Prop).
		for _, f := range a.facts.Functions {
			if f.Call == i && f.Arg == 1 && f.Prop != "" && !slices.Contains(members, f.Prop) {
				members = append(members, f.Prop)
			}
		}
	}
	sort.Strings(members)
	id := b.g.node("context-bridge-api", b.localKey("context-bridge", name), name, map[string]any{"world_key": name, "members": strSlice(members), "exposed_by": a.path}, b.at(a, off))
	b.apis[name] = id
	for _, f := range a.facts.Functions {
		if f.Call == i && f.Arg == 1 && f.Prop != "" && 0 <= f.First && f.First < f.End && f.End <= len(a.facts.Calls) && id != "" {
			if b.memberBodies == nil {
				b.memberBodies = map[*jsAsset][]memberBody{}
			}
			b.memberBodies[a] = append(b.memberBodies[a], memberBody{f.First, f.End, id, f.Prop})
		}
	}
	b.exposedImports(a, i, id) // members imported by name (gap_members.go)
	b.callEdge(a, c, id, "exposes", map[string]any{"world_key": name}, b.atCall(a, c, off))
	if !a.roles["preload"] {
		b.process("electron-preload", a, GraphEvidence{Basis: "derived", Confidence: core.ConfidenceInferred, Locations: []GraphLocation{{Path: a.path, Offset: offsetPtr(off)}}})
	}
}

// endpointTarget is the target argument of a network call: fetch(url),
// xhr.open(method, url), new WebSocket(url), new EventSource(url).
func endpointTarget(c ports.JSCall) (v ports.JSValue, api string, ok bool) {
	last := calleeLast(c)
	switch {
	case !c.New && (c.Callee == "fetch" || c.Callee == "window.fetch" || c.Callee == "globalThis.fetch" || c.Callee == "self.fetch") && len(c.Args) > 0:
		return c.Args[0], "fetch", true
	case !c.New && last == "open" && len(c.Args) >= 2 && c.Args[0].Kind == ports.JSValString && isHTTPMethod(c.Args[0].Value):
		return c.Args[1], "XMLHttpRequest", true
	case c.New && (last == "WebSocket" || last == "EventSource") && len(c.Args) > 0:
		return c.Args[0], last, true
	}
	return v, "", false
}

// endpointSite is an offset inside a network call whose target is v: its
// first literal argument, else a literal of the target's template. A
// string target read from a binding is located at the declaration, which
// may be in another module, so it does not count.
func endpointSite(c ports.JSCall, v ports.JSValue) int64 {
	if c.Offset >= 0 {
		return c.Offset
	}
	if v.Kind == ports.JSValTemplate {
		return v.Offset
	}
	return -1
}

// endpoint records literal network targets (endpointTarget).
func (b *jsappBuilder) endpoint(a *jsAsset, c ports.JSCall) {
	v, api, ok := endpointTarget(c)
	if !ok {
		return
	}
	var url string
	switch v.Kind {
	case ports.JSValString:
		url = v.Value
	case ports.JSValTemplate:
		url = v.Value
	default:
		b.st.unknown("dynamic-endpoint", a.nodeID, a.path, callOffset(c), api+" target is computed at run time")
		return
	}
	id := b.g.node("endpoint", b.localKey("endpoint", url), url, map[string]any{"url": url, "api": api, "literal": v.Kind == ports.JSValString}, b.at(a, v.Offset))
	props := map[string]any{"api": api}
	// The method a call uses: xhr.open's first argument, or fetch's
	// options {method: "POST"} when written literally. One URL may be
	// called with several, so it is the edge's, not the endpoint's.
	switch {
	case api == "XMLHttpRequest":
		props["method"] = strings.ToUpper(c.Args[0].Value)
	case api == "fetch" && len(c.Args) > 1:
		if m, ok := findProp(c.Args[1], "method"); ok && m.Kind == ports.JSValString && isHTTPMethod(m.Value) {
			props["method"] = strings.ToUpper(m.Value)
		}
	}
	b.endpoints[url] = true
	b.callEdge(a, c, id, "calls", props, b.at(a, v.Offset))
}

// mappedSite is the offset at which a source map names the original
// source of call c, and whether c is a call whose edge goes from there
// (sitedCall). keepFacts keeps the position of each such site. A call
// with no literal to locate it (new WebSocket(e)) is located by its
// callee's name.
func mappedSite(c ports.JSCall) (int64, bool) {
	site := int64(-1)
	if v, _, ok := endpointTarget(c); ok {
		site = endpointSite(c, v)
	} else if sitedCall(c) {
		site = c.Offset
	} else {
		return -1, false
	}
	if site < 0 {
		site = callPlace(c)
	}
	return site, true
}

// callOffset locates a call for an unknown: its first literal argument,
// else the call (callPlace), else -1. The unknowns of dynamic calls
// are the calls with no literal to locate them.
func callOffset(c ports.JSCall) int64 {
	if c.Offset >= 0 {
		return c.Offset
	}
	return callPlace(c)
}

// callPlace is where V8 places call c (ports.JSCall.Position) when the
// parse placed it, else its callee's name (CalleeOffset: a plain name's
// first use in its scope, which may be another call's, in another original
// source of a bundle), else -1.
func callPlace(c ports.JSCall) int64 {
	if c.Position >= 0 {
		return int64(c.Position)
	}
	return int64(c.CalleeOffset)
}

// sitedCall reports the calls other than network calls whose edges go
// from the call site (callEdge; IPC calls through mapIPCSites): storage,
// IPC, exposeInMainWorld, a window's creation, loadFile and loadURL,
// utilityProcess.fork, a native add-on's export, a system API's (sinks.go),
// and what may call an API
// a preload exposes (window.<api>.<member>: the APIs are known only in the
// build, so each such call is kept).
func sitedCall(c ports.JSCall) bool {
	if relation, _ := ipcRole(c); relation != "" || isStorageCall(c) || isExposeCall(c) || isNativeCall(c) || systemAPI(c) != "" {
		return true
	}
	switch last := calleeLast(c); {
	case c.New && isWindowConstructor(last), last == "loadFile" || last == "loadURL":
		return true
	case last == "fork":
		_, ok := isMember(c, "utilityProcess", "fork")
		return ok
	}
	_, _, ok := exposedAPICall(c)
	return ok
}

// callEdge adds an edge from the site of call c in asset a (siteEdge).
func (b *jsappBuilder) callEdge(a *jsAsset, c ports.JSCall, to, relation string, props map[string]any, ev GraphEvidence) {
	if b.caller != "" {
		// A handler's call goes from the handler, which is placed in its
		// file (or module) already: no source map is asked.
		b.g.edge(b.caller, to, relation, props, ev)
		return
	}
	site, _ := mappedSite(c)
	b.siteEdge(a, c.InModule, site, to, relation, props, ev)
}

// siteEdge adds an edge from a call or import at offset site of asset a,
// inside its bundled module inModule (-1: none). A bundle without module
// functions (scope-hoisted) holds many sources: with a source map the
// edge waits for the map to name the one at the site (mappedCall,
// attachSourceMap). site is the offset keepFacts kept the position under
// (mappedSite, or a worker's specifier).
func (b *jsappBuilder) siteEdge(a *jsAsset, inModule int, site int64, to, relation string, props map[string]any, ev GraphEvidence) {
	from := b.callSite(a, inModule)
	if pos, ok := a.src.callAt(site); ok && inModule < 0 && !b.st.truncated {
		if b.mappedCalls == nil {
			b.mappedCalls = map[*jsAsset][]mappedCall{}
		}
		b.mappedCalls[a] = append(b.mappedCalls[a], mappedCall{pos: pos, from: from, to: to, relation: relation, props: props, ev: ev})
		return
	}
	b.g.edge(from, to, relation, props, ev)
}

// mappedCall is an edge from a call in a bundle with a source map (calls
// to an endpoint, persists_to a storage, ...: siteEdge), made once the map
// is read: from the source module at the call's position when the map
// names one, else from the call site.
type mappedCall struct {
	pos      genPos
	from, to string
	relation string
	props    map[string]any
	ev       GraphEvidence
}

// mapCalls adds asset a's mappedCall edges, through its source map when sm
// is not nil.
func (b *jsappBuilder) mapCalls(a *jsAsset, sm *sourceMap, srcNodes []string) {
	for _, c := range b.mappedCalls[a] {
		from, ev := c.from, c.ev
		if sm != nil {
			if s := sm.sourceAt(c.pos); s >= 0 && int(s) < len(srcNodes) && srcNodes[s] != "" {
				from = srcNodes[s]
				ev.Confidence = core.ConfidenceDerived
			}
		}
		b.g.edge(from, c.to, c.relation, c.props, ev)
	}
	delete(b.mappedCalls, a)
}

// mapIPCSites notes the source module sm names at each of asset a's IPC
// calls outside module functions. The channels are known only once every
// asset's calls are read (ipcPhase, after the maps are released), so what
// waits for them is a node ID per call, not the map.
func (b *jsappBuilder) mapIPCSites(a *jsAsset, sm *sourceMap, srcNodes []string) {
	for _, c := range a.facts.Calls {
		if c.InModule >= 0 {
			continue
		}
		if relation, _ := ipcRole(c); relation == "" {
			continue
		}
		site, _ := mappedSite(c)
		pos, ok := a.src.callAt(site)
		if !ok {
			continue
		}
		if s := sm.sourceAt(pos); s >= 0 && int(s) < len(srcNodes) && srcNodes[s] != "" {
			if b.ipcSources == nil {
				b.ipcSources = map[callSiteKey]string{}
			}
			b.ipcSources[callSiteKey{a, site}] = srcNodes[s]
		}
	}
}

// callSite is the node a call is made from: the bundled module whose body
// holds it, else the asset.
func (b *jsappBuilder) callSite(a *jsAsset, inModule int) string {
	if mods := b.moduleNodes[a.path]; inModule >= 0 && inModule < len(mods) {
		return mods[inModule]
	}
	return a.nodeID
}

func isHTTPMethod(s string) bool {
	switch strings.ToUpper(s) {
	case "GET", "POST", "PUT", "DELETE", "PATCH", "HEAD", "OPTIONS":
		return true
	}
	return false
}

var fsOps = map[string]bool{"readFile": true, "readFileSync": true, "writeFile": true, "writeFileSync": true, "appendFile": true,
	"appendFileSync": true, "existsSync": true, "mkdir": true, "mkdirSync": true, "readdir": true, "readdirSync": true, "unlink": true,
	"unlinkSync": true, "createReadStream": true, "createWriteStream": true, "rm": true, "rmSync": true, "stat": true, "statSync": true,
	"rename": true, "renameSync": true, "copyFile": true, "copyFileSync": true}

// fsTwoPathOps are fsOps whose first two arguments are both paths (from,
// to): each is a storage node the call reaches.
var fsTwoPathOps = map[string]bool{"rename": true, "renameSync": true, "copyFile": true, "copyFileSync": true, "cp": true, "cpSync": true}

// storageArea says which storage a call reaches (localStorage,
// sessionStorage, indexedDB, fs) and with which operation, or "".
func storageArea(c ports.JSCall) (area, op string) {
	last := calleeLast(c)
	switch {
	case fsCopyOp(c) != "": // only on fs's binding (gap_fs.go)
		return "fs", fsCopyOp(c)
	case (strings.HasSuffix(c.Callee, "localStorage."+last) || strings.HasSuffix(c.Callee, "sessionStorage."+last) ||
		c.Callee == "localStorage."+last || c.Callee == "sessionStorage."+last) && (last == "setItem" || last == "getItem" || last == "removeItem" || last == "clear"):
		if strings.Contains(c.Callee, "sessionStorage") {
			return "sessionStorage", last
		}
		return "localStorage", last
	case (c.Callee == "indexedDB.open" || strings.HasSuffix(c.Callee, ".indexedDB.open")):
		return "indexedDB", "open"
	case fsOp(c) != "": // by the binding's module (gap_fs.go)
		return "fs", fsOp(c)
	}
	return "", ""
}

// isStorageCall reports a call storageCall records.
func isStorageCall(c ports.JSCall) bool {
	area, _ := storageArea(c)
	return area != ""
}

func (b *jsappBuilder) storageCall(a *jsAsset, c ports.JSCall) {
	area, op := storageArea(c)
	if area == "" {
		return
	}
	b.storageKey(a, c, area, op, 0)
	if area == "fs" && fsTwoPathOps[op] && len(c.Args) > 1 {
		b.storageKey(a, c, area, op, 1) // the destination: rename(from, to)
	}
}

// storageKey records the storage node call c of asset a reaches in area
// with operation op through its argument i (the key or path; for a
// two-path fs call, 0 is the source and 1 the destination).
func (b *jsappBuilder) storageKey(a *jsAsset, c ports.JSCall, area, op string, i int) {
	var key string
	var off int64 = c.Offset
	switch area {
	case "localStorage", "sessionStorage", "indexedDB":
		if s, o, ok := firstString(c); ok {
			key, off = s, o
		} else if len(c.Args) > 0 && c.Args[0].Kind == ports.JSValTemplate {
			key = c.Args[0].Value // "last:" + name: last:${}
		} else if op != "clear" {
			key = "${}"
		}
	case "fs":
		if len(c.Args) > i {
			arg := c.Args[i]
			if p, ok := b.pathValue(a, arg, path.Dir(a.path)); ok && arg.Kind != ports.JSValString {
				key = p
			} else if arg.Kind == ports.JSValString || arg.Kind == ports.JSValTemplate {
				key = arg.Value
			} else {
				key = "${}"
			}
			if arg.Offset >= 0 {
				off = arg.Offset
			}
		}
	}
	name := area
	if key != "" {
		name = area + ":" + key
	}
	// A key computed at run time is known by its expression in its file:
	// each distinct expression is a storage node of its own, so a trace
	// reaches each write, not the first of them all. The same text in
	// another file is another value.
	props := map[string]any{"area": area, "key": key}
	label, ident, expr := name, name, ""
	if strings.Contains(key, "${}") && len(c.Args) > i {
		expr = keyExpression(key, c.Args[i])
		props["expression"] = expr
		label = area + ":" + expr
		ident = label + " in " + a.path
	}
	id := b.g.node("storage", b.localKey("storage", ident), label, props, b.at(a, off))
	eprops := map[string]any{"api": c.Callee, "operation": op}
	if fsTwoPathOps[op] && area == "fs" {
		eprops["role"] = [...]string{"source", "destination"}[i]
	}
	if key == "${}" && len(c.Args) > i {
		if s := argumentText(c.Args[i]); s != "" {
			eprops["argument"] = s // what the key is known as: fs.writeFileSync(p)
		}
	}
	b.callEdge(a, c, id, "persists_to", eprops, b.atCall(a, c, off))
	b.storage[ident] = true
	if key == "${}" {
		if off < 0 {
			off = callPlace(c)
		}
		// The unknown names the key's own node (one per expression and
		// file), so a trace can start from it; the file only when the
		// graph's node limit left that node out.
		at := id
		if at == "" {
			at = a.nodeID
		}
		b.st.unknown("dynamic-storage-key", at, a.path, off, c.Callee+" key is computed at run time: "+expr)
	}
}

// maxExpressionBytes bounds the text of a computed key's expression
// (keyExpression, argumentText), so a long one does not bloat the graph.
const maxExpressionBytes = 120

// keyExpression is computed key key (with ${} for each part known only at
// run time) with each part as the source writes it, from the argument v
// that gives it: ${path.join(dir, name)}, last:${name}.
func keyExpression(key string, v ports.JSValue) string {
	var parts []string
	if key == "${}" && v.Kind != ports.JSValTemplate {
		parts = []string{exprText(v, 0)}
	} else {
		for _, p := range v.Parts {
			parts = append(parts, exprText(p, 0))
		}
	}
	var sb strings.Builder
	rest := key
	for i := 0; ; i++ {
		j := strings.Index(rest, "${}")
		if j < 0 {
			sb.WriteString(rest)
			break
		}
		sb.WriteString(rest[:j+2])
		if i < len(parts) {
			sb.WriteString(parts[i])
		} else {
			sb.WriteString("…")
		}
		sb.WriteByte('}')
		rest = rest[j+3:]
	}
	return boundText(sb.String())
}

// exprText is an argument as the source writes it, as far as the parse
// kept it: names, member paths, literals, calls with their arguments,
// templates and arrays; "…" for anything else.
func exprText(v ports.JSValue, depth int) string {
	switch v.Kind {
	case ports.JSValString:
		return strconv.Quote(v.Value)
	case ports.JSValNumber, ports.JSValBool, ports.JSValName:
		return v.Value
	case ports.JSValFunction:
		if v.Value != "" {
			return v.Value // a function of the file passed by its name
		}
	case ports.JSValNull:
		return "null"
	case ports.JSValCall, ports.JSValNew:
		if v.Value == "" {
			break
		}
		s := v.Value + "("
		if v.Kind == ports.JSValNew {
			s = "new " + s
		}
		if depth >= 3 && len(v.Args) > 0 {
			return s + "…)"
		}
		for i, a := range v.Args {
			if i > 0 {
				s += ", "
			}
			s += exprText(a, depth+1)
		}
		return s + ")"
	case ports.JSValTemplate:
		return "`" + keyExpression(v.Value, v) + "`"
	case ports.JSValArray:
		if depth >= 3 && len(v.Items) > 0 {
			return "[…]"
		}
		s := "["
		for i, a := range v.Items {
			if i > 0 {
				s += ", "
			}
			s += exprText(a, depth+1)
		}
		return s + "]"
	}
	return "…"
}

// boundText cuts s to maxExpressionBytes at a rune boundary, ending it
// with "…" when cut.
func boundText(s string) string {
	if len(s) <= maxExpressionBytes {
		return s
	}
	return truncateUTF8(s, maxExpressionBytes-len("…")) + "…"
}

// argumentText is what a computed argument is known as in the source
// (exprText): a name or member path (p, opts.file), a call with its
// arguments (path.join(dir, name)), or "" when the parse kept nothing of
// it. At most maxExpressionBytes, so a long one does not bloat the edge.
func argumentText(v ports.JSValue) string {
	if s := exprText(v, 0); s != "…" {
		return boundText(s)
	}
	return ""
}

// isNativeCall reports a call on a binding required from a .node add-on.
func isNativeCall(c ports.JSCall) bool {
	return strings.HasSuffix(c.Module, ".node") && c.Member != ""
}

// nativeCall records calls on a binding required from a .node add-on as
// native exports.
func (b *jsappBuilder) nativeCall(a *jsAsset, c ports.JSCall) {
	if !isNativeCall(c) {
		return
	}
	addon, ok := b.st.resolveModule(a.path, c.Module, ports.JSRequire)
	if !ok {
		addon = c.Module
	}
	export := strings.SplitN(c.Member, ".", 2)[0]
	id := b.g.node("native-export", b.localKey("native-export", addon+"#"+export), export, map[string]any{"addon": addon, "export": export}, b.at(a, c.Offset))
	b.callEdge(a, c, id, "calls", map[string]any{"callee": c.Callee}, b.atCall(a, c, c.Offset))
	if ok {
		b.g.edge(nodeID("native-addon", b.pathKey(addon)), id, "exposes", map[string]any{"export": export}, b.at(a, c.Offset))
	}
}

// --- IPC ---

func (b *jsappBuilder) channel(name string) *ipcChannel {
	ch := b.ipc[name]
	if ch == nil {
		ch = &ipcChannel{name: name}
		b.ipc[name] = ch
	}
	return ch
}

// ipcRole is the relation an IPC call has to its channel (handles, sends
// or invokes) and the side it is made on, or "" when c is no IPC call.
func ipcRole(c ports.JSCall) (relation, side string) {
	if _, ok := isMember(c, "ipcMain", "handle", "handleOnce", "on", "once"); ok {
		return "handles", "main"
	} else if n, ok := isMember(c, "ipcRenderer", "invoke", "send", "sendSync", "sendToHost"); ok {
		if n == "invoke" {
			return "invokes", "renderer"
		}
		return "sends", "renderer"
	} else if _, ok := isMember(c, "ipcRenderer", "on", "once"); ok {
		return "handles", "renderer-listener"
	} else if _, ok := isMember(c, "webContents", "send"); ok {
		return "sends", "main-send"
	}
	return "", ""
}

// isExposeCall reports contextBridge.exposeInMainWorld.
func isExposeCall(c ports.JSCall) bool {
	_, ok := isMember(c, "contextBridge", "exposeInMainWorld")
	return ok
}

func (b *jsappBuilder) ipcPhase() {
	st := b.st
	type use struct {
		a        *jsAsset
		relation string
		side     string
		call     ports.JSCall
		idx      int
		channel  string
		off      int64
	}
	var uses []use
	for _, a := range st.sortedAssets() {
		if a.facts == nil {
			continue
		}
		for i, c := range a.facts.Calls {
			relation, side := ipcRole(c)
			if relation == "" {
				continue
			}
			name, off, ok := firstString(c)
			if !ok {
				detail := c.Callee + " channel is computed at run time"
				st.unknown("dynamic-ipc-channel", a.nodeID, a.path, callOffset(c), detail)
				b.frontier(a, "dynamic-ipc-channel", callOffset(c), detail)
				continue
			}
			uses = append(uses, use{a, relation, side, c, i, name, off})
		}
	}
	for _, u := range uses {
		ch := b.channel(u.channel)
		switch u.side {
		case "main":
			ch.handlers = append(ch.handlers, u.a.path)
		case "renderer":
			ch.senders = append(ch.senders, u.a.path)
		case "main-send":
			ch.mainSend = append(ch.mainSend, u.a.path)
		case "renderer-listener":
			ch.rendOn = append(ch.rendOn, u.a.path)
		}
	}
	for _, name := range jaKeys(b.ipc) {
		ch := b.ipc[name]
		status := "unresolved"
		switch {
		case len(ch.handlers) == 1 && len(ch.senders) > 0:
			status = "paired"
		case len(ch.handlers) > 1:
			status = "ambiguous"
		case len(ch.handlers) == 0 && len(ch.senders) > 0:
			status = "no-handler"
		case len(ch.handlers) == 1 && len(ch.senders) == 0 && len(ch.mainSend) == 0:
			status = "no-sender"
		case len(ch.mainSend) > 0 && len(ch.rendOn) > 0:
			status = "paired"
		}
		ch.nodeID = b.g.node("ipc-channel", b.localKey("ipc-channel", name), name, map[string]any{"channel": name, "status": status,
			"handlers": len(ch.handlers), "senders": len(ch.senders) + len(ch.mainSend)}, GraphEvidence{Basis: "derived", Confidence: core.ConfidenceDerived, Locations: []GraphLocation{}})
		if status == "ambiguous" {
			st.unknown("ambiguous-ipc-channel", ch.nodeID, "", -1, fmt.Sprintf("channel %q has %d handlers; it is not paired", name, len(ch.handlers)))
		}
	}
	for _, u := range uses {
		ch := b.ipc[u.channel]
		props := map[string]any{"callee": u.call.Callee, "channel": u.channel}
		from, ev := b.callSite(u.a, u.call.InModule), b.at(u.a, u.off)
		site, _ := mappedSite(u.call)
		if n, ok := b.ipcSources[callSiteKey{u.a, site}]; ok && u.call.InModule < 0 {
			from, ev.Confidence = n, core.ConfidenceDerived // as mapCalls attributes
		}
		if u.relation == "handles" {
			if h := b.handlerFns[callIndex{u.a, u.idx}]; h.fn != "" {
				// Function-level: the channel is handled by the function,
				// defined in the file (or module), so an outgoing trace
				// from the channel still reaches what the file does.
				b.g.edge(ch.nodeID, h.fn, "handles", props, ev)
				if h.in != "" {
					b.g.edge(h.fn, h.in, "defined_in", map[string]any{"channel": u.channel}, h.ev)
					continue
				}
				b.g.edge(h.fn, from, "defined_in", map[string]any{"channel": u.channel}, ev)
				continue
			}
			// The handler is not a function of this file (imported, a
			// member, computed): the file handles the channel, and the
			// edge says what the handler was written as.
			props["handler"] = "unresolved"
			if len(u.call.Args) > 1 {
				if s := argumentText(u.call.Args[1]); s != "" {
					props["handler_argument"] = s
				}
			}
			b.g.edge(ch.nodeID, from, "handles", props, ev)
		} else {
			if fn := b.handlerOf(u.a, u.idx); fn != "" {
				from = fn // sent or invoked by a handler
			} else if api, member := b.memberOf(u.a, u.idx); api != "" {
				// by a member of an API the preload exposes: what calls
				// window.notes.open reaches the channel through the API
				from, props["member"] = api, member
			}
			b.g.edge(from, ch.nodeID, u.relation, props, ev)
		}
	}
	b.ipcSources = nil
}

// handlerPhase makes the function node of each IPC handler (ipcHandler),
// in the order ipcPhase meets the handles calls, and notes the calls each
// handler's body holds (ports.JSFacts.Functions): the calls a handler
// makes go from it (handlerOf), so a trace from its channel goes on
// through the handler to what it reads, writes, sends and loads. Before
// the calls are linked (electronPhase).
func (b *jsappBuilder) handlerPhase() {
	seen := map[string]bool{} // ipcHandler's keys
	for _, a := range b.st.sortedAssets() {
		if a.facts == nil {
			continue
		}
		for i, c := range a.facts.Calls {
			if relation, _ := ipcRole(c); relation != "handles" {
				continue
			}
			name, off, ok := firstString(c)
			if !ok {
				continue
			}
			h := handlerFn{fn: b.ipcHandler(a, c, name, off, seen)}
			if h.fn == "" {
				h = b.importedHandler(a, i)
			}
			if h.fn == "" {
				h = b.unknownHandler(a, i, name, off) // gap_handlers.go
			}
			if h.fn == "" {
				continue
			}
			if b.handlerFns == nil {
				b.handlerFns = map[callIndex]handlerFn{}
			}
			b.handlerFns[callIndex{a, i}] = h
			fn := h.fn
			for _, f := range a.facts.Functions {
				if f.Call == i && f.Arg == 1 && 0 <= f.First && f.First < f.End && f.End <= len(a.facts.Calls) {
					if b.handlerBodies == nil {
						b.handlerBodies = map[*jsAsset][]handlerBody{}
					}
					b.handlerBodies[a] = append(b.handlerBodies[a], handlerBody{f.First, f.End, fn})
				}
			}
		}
	}
}

// importedHandler is the function node of the handler call i of asset a
// passes by a name imported from another file of the app
// (ports.JSFunction.Module), when that is unambiguous: the module
// resolves to a file whose exports name the member once, as a function,
// or pass on one other file's (definedExport: re-exports and export *),
// known by its name in the file that defines it, at its export, and
// defined_in that file.
// The calls its body holds there (ports.JSExport First and End) go from
// it. A zero handlerFn otherwise: the file that registers the handler
// keeps the edge (handler: unresolved).
func (b *jsappBuilder) importedHandler(a *jsAsset, i int) handlerFn {
	for _, f := range a.facts.Functions {
		if f.Call != i || f.Arg != 1 || f.Module == "" || f.Member == "" || strings.Contains(f.Member, ".") {
			continue
		}
		h, body, t := b.importedFunction(a, f.Module, f.Member)
		if h.fn != "" && body.end > body.first {
			b.addHandlerBody(t, body)
		}
		return h
	}
	return handlerFn{}
}

// handlerOf is the IPC handler whose body holds call i of asset a, the
// innermost when handlers nest, or "".
func (b *jsappBuilder) handlerOf(a *jsAsset, i int) string {
	fn, size := "", 0
	for _, h := range b.handlerBodies[a] {
		if i >= h.first && i < h.end && (fn == "" || h.end-h.first < size) {
			fn, size = h.fn, h.end-h.first
		}
	}
	return fn
}

// memberOf is the context-bridge API and member whose function's body
// holds call i of asset a, the innermost when they nest, or "".
func (b *jsappBuilder) memberOf(a *jsAsset, i int) (api, member string) {
	size := 0
	for _, m := range b.memberBodies[a] {
		if i >= m.first && i < m.end && (api == "" || m.end-m.first < size) {
			api, member, size = m.api, m.member, m.end-m.first
		}
	}
	return api, member
}

// ipcHandler is the node of the function an IPC listener call c of asset
// a registers for channel (ipcMain.handle("ch", fn)): a function
// expression written in the call, known by the call (its callee and
// channel, which a new version keeps where offsets move; a second such
// call in the file also by its place, the channel literal at off), or a
// function the file declares and passes by name, known by its name (and,
// for a member assigned another function before a later registration,
// by that function's place too). Both in their file, or bundled module,
// whose names are its own. seen counts the keys given so far. "" when the handler is no such function, or the
// graph's node limit left it out.
func (b *jsappBuilder) ipcHandler(a *jsAsset, c ports.JSCall, channel string, off int64, seen map[string]bool) string {
	if len(c.Args) < 2 || c.Args[1].Kind != ports.JSValFunction {
		return ""
	}
	fn := c.Args[1]
	scope := a.path
	if c.InModule >= 0 {
		scope = b.callSite(a, c.InModule) // the module's node
	}
	label := c.Callee + "(" + strconv.Quote(channel) + ") handler"
	props := map[string]any{"path": a.path, "channel": channel, "registered_by": c.Callee}
	key, at := scope+"#"+label, off
	if fn.Offset >= 0 {
		at = fn.Offset
	}
	ev := b.at(a, at)
	if fn.Value != "" {
		// One function may handle several channels: one node. A member
		// assigned again between two registrations (handlers.open =
		// ...) names another function, defined elsewhere (fn.Offset):
		// a node of its own, labelled as assigned there.
		key, label = scope+"#"+fn.Value, fn.Value
		props = map[string]any{"path": a.path, "name": fn.Value}
		first := key + "\x00first@" // + the offset of the name's first function
		if !seen[key] {
			seen[first+strconv.FormatInt(fn.Offset, 10)] = true
		} else if fn.Offset >= 0 && !seen[first+strconv.FormatInt(fn.Offset, 10)] && !seen[first+"-1"] {
			key += "@" + strconv.FormatInt(fn.Offset, 10)
			label += " (assigned again)"
			if l := ev.Locations[0].Line; l > 0 {
				label = fn.Value + " (assigned at line " + strconv.FormatInt(l, 10) + ")"
			}
		}
	} else if seen[key] {
		if off < 0 {
			off = callOffset(c)
		}
		if off < 0 {
			return "" // nothing tells this handler from the other
		}
		key += "@" + strconv.FormatInt(off, 10)
	}
	seen[key] = true
	return b.g.node("javascript-function", b.localKey("javascript-function", key), label, props, ev)
}

// --- bundles and source maps ---

func (b *jsappBuilder) bundlePhase() {
	st := b.st
	// Module nodes of every asset first: a chunk's code may require a
	// module that another chunk of the same build holds.
	global := map[string][]string{} // bundler + "\x00" + module id -> node IDs across assets
	// A chunk file holds no runtime, so it cannot tell rspack from webpack
	// (rspack writes webpack's names): it takes the bundler of the runtime
	// that shares its chunk global.
	chunkBundler := map[string]string{}
	for _, a := range st.sortedAssets() {
		if a.facts != nil && a.facts.ChunkGlobal != "" && a.facts.Bundler == "rspack" {
			chunkBundler[a.facts.ChunkGlobal] = "rspack"
		}
	}
	for _, a := range st.sortedAssets() {
		if a.facts == nil || len(a.facts.Modules) == 0 {
			continue
		}
		if bn, ok := chunkBundler[a.facts.ChunkGlobal]; ok && a.facts.ChunkGlobal != "" && a.facts.Bundler == "webpack" {
			a.facts.Bundler = bn
			for i := range a.facts.Modules {
				if a.facts.Modules[i].Bundler == "webpack" {
					a.facts.Modules[i].Bundler = bn
				}
			}
		}
		ids := map[string]string{}
		count := map[string]int{}
		for _, m := range a.facts.Modules {
			count[m.ID]++
		}
		for _, m := range a.facts.Modules {
			key := m.ID
			if count[m.ID] > 1 {
				key = fmt.Sprintf("%s@%d", m.ID, m.Start)
			}
			props := map[string]any{"bundler": m.Bundler, "module_id": m.ID, "asset": a.path, "start": m.Start, "end": m.End,
				"fingerprint_sha256": m.Fingerprint, "requires": len(m.Requires)}
			if len(m.Exports) > 0 {
				names := make([]string, len(m.Exports))
				for i, e := range m.Exports {
					names[i] = e.Name
				}
				shapes := exportShapes(m.Exports)
				k := exportsRoom(props, len(names), len(shapes))
				props["exports"] = strSlice(names[:min(k, len(names))])
				props["export_shapes"] = shapes[:min(k, len(shapes))]
			}
			id := b.g.node("javascript-module", b.localKey(a.path+"#"+m.Bundler, key), m.ID, props, b.at(a, m.Start))
			b.g.edge(a.nodeID, id, "contains", map[string]any{"module_id": m.ID}, b.at(a, m.Start))
			b.moduleNodes[a.path] = append(b.moduleNodes[a.path], id)
			if count[m.ID] == 1 {
				ids[m.ID] = id
			}
			global[m.Bundler+"\x00"+m.ID] = append(global[m.Bundler+"\x00"+m.ID], id)
			b.bundled++
			b.fingerprints = append(b.fingerprints, map[string]any{"node_id": id, "algorithm": "rea-js-shape-v1", "fingerprint_sha256": m.Fingerprint,
				"basis": []any{"syntax-tree", "literals"}})
		}
		b.bundleModuleNode[a.path] = ids
	}
	// resolve finds a required module: in the asset's own tables, else the
	// one module of that id and bundler in the whole app (ambiguous ids stay
	// unresolved).
	resolve := func(a *jsAsset, bundler, id string) (string, bool, bool) {
		if n, ok := b.bundleModuleNode[a.path][id]; ok {
			return n, false, true
		}
		if l := global[bundler+"\x00"+id]; len(l) == 1 {
			return l[0], true, true
		}
		return "", false, false
	}
	for _, a := range st.sortedAssets() {
		if a.facts == nil {
			continue
		}
		ids := b.bundleModuleNode[a.path]
		for _, m := range a.facts.Modules {
			src, ok := ids[m.ID]
			if !ok {
				continue
			}
			for _, r := range m.Requires {
				if dst, other, ok := resolve(a, m.Bundler, r); ok {
					b.g.edge(src, dst, "imports", map[string]any{"kind": "bundle-require", "module_id": r, "cross_asset": other}, b.at(a, m.Start))
				} else {
					st.unknown("unresolved-bundle-module", src, a.path, m.Start, "module "+m.ID+" requires "+r+", which is not in this bundle's tables")
				}
			}
		}
		// The bundle's own code (runtime, inlined entry modules) requiring
		// table modules, chunk loads included.
		for _, r := range a.facts.EntryRequires {
			if dst, other, ok := resolve(a, a.facts.Bundler, r.ID); ok {
				b.g.edge(a.nodeID, dst, "imports", map[string]any{"kind": "bundle-require", "module_id": r.ID, "cross_asset": other}, b.at(a, r.Offset))
			} else {
				st.unknown("unresolved-bundle-module", a.nodeID, a.path, r.Offset, "the bundle requires module "+r.ID+", which no table in the app holds uniquely")
			}
		}
		// Imports written inside modules (require of externals, dynamic
		// chunks); the workers they start are the asset's relations too.
		first := len(b.relations)
		for _, im := range a.facts.Imports {
			if im.InModule < 0 || im.InModule >= len(a.facts.Modules) {
				continue
			}
			var via *chunkVia
			if im.Chunk != "" && isWorkerKind(im.Kind) {
				im, via = b.chunkWorker(a, im)
			}
			if im.Dynamic {
				// A worker's is the creating module's (a webpack chunk file
				// holds no runtime to name its workers' chunks, and no
				// runtime file of the build named it: chunkWorker).
				from := a.nodeID
				if isWorkerKind(im.Kind) {
					from = b.callSite(a, im.InModule)
				}
				st.unknown(dynamicKind(im.Kind), from, a.path, im.Offset, im.Kind+" specifier is computed at run time")
			} else if isWorkerKind(im.Kind) {
				// A module function that starts a worker (a webpack
				// module's new Worker(new URL(r.p + r.u(id), r.b)), its
				// chunk named by the runtime's r.u) creates it.
				rel := semRelation{relation: im.Kind, source: a.nodeID, specifier: im.Specifier, offset: im.Offset, names: im.Names}
				rel.line, rel.col = siteAt(a.sites, im.Offset)
				b.worker(a, im, rel, via)
			}
		}
		if len(b.relations) > first {
			b.assetRelations[a] = append(b.assetRelations[a], [2]int{first, len(b.relations)})
		}
	}
}

// mapPrefetch prepares the assets' source maps (reading, hashing and
// decoding a map depend on its asset alone) on every core from the start
// of the build, so that work overlaps the phases before the source map
// phase, which takes the prepared maps in path order (so the graph is the
// same whatever the number of cores). It runs a bounded amount ahead of
// that phase: two maps per core whatever their size, and more while the
// maps waiting are smaller than mapsAheadBytes in all.
type mapPrefetch struct {
	assets       []*jsAsset
	prepared     []chan *preparedMap
	cost         []int64 // bytes counted against the window; -1: none (no map)
	stop         chan struct{}
	producerDone chan struct{}
	launched     int // set by the producer; read once producerDone is closed
	next         int // the first asset not taken
	mu           sync.Mutex
	cond         *sync.Cond
	ahead        int // maps launched and not yet taken
	aheadBytes   int64
	stopped      bool
}

const (
	mapsAheadBytes = 8 << 20
	maxMapsAhead   = 64
)

func (st *jsappState) prefetchMaps(ctx context.Context) *mapPrefetch {
	assets := st.sortedAssets()
	m := &mapPrefetch{assets: assets, prepared: make([]chan *preparedMap, len(assets)), cost: make([]int64, len(assets)),
		stop: make(chan struct{}), producerDone: make(chan struct{})}
	m.cond = sync.NewCond(&m.mu)
	// Which assets name a map is known now (their facts are set, and what
	// the build lets go of leaves the reference): only those have a
	// channel, and take answers nil at once for the others, most of an
	// app's assets, whose channels were held until the source map phase.
	for i, a := range assets {
		if a.facts == nil || a.facts.SourceMap == nil {
			m.cost[i] = -1
		} else {
			m.prepared[i] = make(chan *preparedMap, 1)
		}
	}
	minAhead := 2 * max(1, runtime.GOMAXPROCS(0))
	go func() {
		defer close(m.producerDone)
		for i, a := range assets {
			if m.prepared[i] == nil {
				m.launched = i + 1
				continue // no map
			}
			// What the map needs of the asset is read here, before the
			// graph moves on: the prepared map reads nothing of it.
			ref, lines := *a.facts.SourceMap, 1
			if a.src != nil {
				lines = a.src.lines
			}
			cost := st.mapCost(a.path, ref.URL)
			m.mu.Lock()
			for !m.stopped && m.ahead >= minAhead && (m.ahead >= maxMapsAhead || m.aheadBytes+cost > mapsAheadBytes) {
				m.cond.Wait()
			}
			if m.stopped {
				m.mu.Unlock()
				return
			}
			m.ahead++
			m.aheadBytes += cost
			m.mu.Unlock()
			m.cost[i] = cost
			m.launched = i + 1
			go func() { m.prepared[i] <- st.prepareMap(ctx, a.path, &ref, lines) }()
		}
	}()
	return m
}

// mapCost is about the bytes of a map an asset names (its inline text or
// its file), for the prefetch window.
func (st *jsappState) mapCost(assetPath, url string) int64 {
	if strings.HasPrefix(url, "data:") {
		return int64(len(url))
	}
	if mp, _ := st.mapFilePath(assetPath, url); mp != "" {
		if f := st.files[mp]; f != nil {
			return min(f.size, jsappMaxSourceMapBytes)
		}
	}
	return 0
}

// mapFilePath is the path of the source map file that the asset at
// assetPath names by the relative URL url, resolved against the asset's
// place in the innermost archive that holds it (an ASAR inside a release
// ZIP, or the input itself), as for a bare ASAR: a URL that climbs above
// that archive's root (../x.map from an ASAR's top-level file) names no
// file of the app, even where the ZIP holds one beside the ASAR. Then mp
// is "" and outside names what it left: the app, or the archive.
func (st *jsappState) mapFilePath(assetPath, url string) (mp, outside string) {
	container := ""
	for d := path.Dir(assetPath); d != "." && d != "/"; d = path.Dir(d) {
		if st.files[d] != nil { // a file with entries beneath it: an archive
			container = d
			break
		}
	}
	inner := strings.TrimPrefix(assetPath, container+"/")
	mp = path.Join(path.Dir(inner), url)
	if mp == ".." || strings.HasPrefix(mp, "../") {
		if container == "" {
			return "", "the app"
		}
		return "", container
	}
	if container != "" {
		mp = container + "/" + mp
	}
	return mp, ""
}

// take waits for asset i's prepared map (nil when it has none) and frees
// its place in the window and its channel.
func (m *mapPrefetch) take(i int) *preparedMap {
	m.next = i + 1
	c := m.prepared[i]
	if c == nil {
		return nil
	}
	p := <-c
	m.prepared[i] = nil // sent to: the producer is past i
	if m.cost[i] >= 0 {
		m.mu.Lock()
		m.ahead--
		m.aheadBytes -= m.cost[i]
		m.mu.Unlock()
		m.cond.Broadcast()
	}
	return p
}

// close stops the prefetch and waits for the maps being prepared (each
// returns at once when the call is cancelled, else finishes its map): once
// it returns nothing reads the assets or the inventory (which the call
// closes next), and every map not taken has given back its memory
// reservation. Safe to call more than once.
func (m *mapPrefetch) close() {
	if m == nil {
		return
	}
	m.mu.Lock()
	if m.stopped {
		m.mu.Unlock()
		return
	}
	m.stopped = true
	m.mu.Unlock()
	m.cond.Broadcast()
	<-m.producerDone
	for _, c := range m.prepared[m.next:m.launched] {
		if c != nil {
			(<-c).release()
		}
	}
	m.next = m.launched
	m.assets, m.prepared, m.cost = nil, nil, nil // the build holds m until it returns
}

func (b *jsappBuilder) sourceMapPhase(ctx context.Context, maps *mapPrefetch) {
	st := b.st
	defer maps.close()
	for i, a := range maps.assets {
		p := maps.take(i)
		if ctx.Err() != nil {
			p.release()
			return // close gives back what was prepared ahead
		}
		b.attachModuleMaps(a)
		if p == nil {
			b.mapCalls(a, nil, nil)
			a.src = nil
			releaseMapped(a)
			continue
		}
		if p.unknownKind != "" {
			st.unknown(p.unknownKind, a.nodeID, a.path, a.facts.SourceMap.Offset, p.unknownDetail)
			if p.limitation != "" {
				st.limitations = append(st.limitations, p.limitation)
			}
		} else if !p.skip {
			b.attachSourceMap(a, p, a.facts.SourceMap.Offset)
		}
		b.mapCalls(a, nil, nil) // those the map did not take
		p.release()
		a.src = nil
		releaseMapped(a)
	}
}

// releaseMapped lets go of asset a's facts once its maps are attached
// when they hold no IPC call: the IPC phase reads nothing else of them,
// and the result counts the unparsed assets from releaseLinks' count.
// Each such asset's facts (their struct, modules and source map
// reference) no longer take a share of the heap while the source map phase
// decodes the rest.
func releaseMapped(a *jsAsset) {
	if a.facts != nil && a.facts.Calls == nil {
		a.facts = nil
	}
}

// preparedMap is an asset's source map read, hashed and decoded, or the
// unknown that says why it was not.
type preparedMap struct {
	skip                       bool // nothing to attach (quarantined)
	unknownKind, unknownDetail string
	mapPath, mapSHA            string
	inline                     bool
	sm                         *sourceMap
	err                        error
	bad                        int   // mappings out of range
	srcSHA                     []any // sha256 of each embedded source, or nil
	limitation                 string
	// free gives back the memory reserved for the map until it is attached.
	free func()
}

// release gives back p's memory reservation; nil-safe, once.
func (p *preparedMap) release() {
	if p != nil && p.free != nil {
		p.free()
		p.free = nil
	}
}

// prepareMap does the work of the source map ref that the asset at
// assetPath (of lines lines) names, which needs nothing else of the asset:
// safe to run concurrently for different assets.
func (st *jsappState) prepareMap(ctx context.Context, assetPath string, ref *ports.JSSourceMapRef, lines int) *preparedMap {
	if ctx.Err() != nil {
		return nil
	}
	p := &preparedMap{inline: strings.HasPrefix(ref.URL, "data:")}
	var data []byte
	if p.inline {
		d, err := decodeDataURL(ref.URL)
		if err != nil {
			p.unknownKind, p.unknownDetail = "invalid-source-map", "inline source map: "+err.Error()
			return p
		}
		data, p.mapPath = d, assetPath+"#inline-source-map"
		sum := sha256.Sum256(d)
		p.mapSHA = hex.EncodeToString(sum[:])
	} else {
		if strings.Contains(ref.URL, "://") || strings.HasPrefix(ref.URL, "/") {
			p.unknownKind, p.unknownDetail = "external-source-map", "source map "+ref.URL+" is outside the app; not read"
			return p
		}
		mp, outside := st.mapFilePath(assetPath, ref.URL)
		if mp == "" {
			p.unknownKind, p.unknownDetail = "external-source-map", "source map "+ref.URL+" is outside "+outside+"; not read"
			return p
		}
		f := st.files[mp]
		if f == nil {
			p.unknownKind, p.unknownDetail = "missing-source-map", "source map "+mp+" is not in the app"
			return p
		}
		if f.quarant {
			p.skip = true
			return p
		}
		// The map, its decoded form and the graph built from it hold about
		// four times its size: charged to the call's memory budget until the
		// map is attached.
		free, err := ports.Reserve(ctx, "source map "+mp, 4*min(f.size, jsappMaxSourceMapBytes))
		if err != nil {
			p.unknownKind, p.unknownDetail = "unreadable-source-map", err.Error()
			p.limitation = fmt.Sprintf("%s was not read: %v.", mp, err)
			return p
		}
		p.free = free
		d, err := st.read(ctx, f, jsappMaxSourceMapBytes)
		if err != nil {
			p.unknownKind, p.unknownDetail = "unreadable-source-map", err.Error()
			return p
		}
		data, p.mapPath, p.mapSHA = d, mp, f.sha256
	}
	p.sm, p.err = parseSourceMap(data)
	if p.sm != nil {
		p.sm.sortSegments()
		p.bad = p.sm.OutOfRange + p.sm.checkGenerated(lines)
		p.srcSHA = contentDigests(p.sm)
	}
	return p
}

// contentDigests hashes the sources a map embeds (nil where it embeds none).
func contentDigests(sm *sourceMap) []any {
	out := make([]any, len(sm.Sources))
	for i := range sm.Sources {
		if i < len(sm.SourcesContent) && sm.SourcesContent[i] != nil {
			sum := sha256.Sum256([]byte(*sm.SourcesContent[i]))
			out[i] = hex.EncodeToString(sum[:])
		}
	}
	return out
}

// sourceModuleNodes adds a node for each source of a map, contained by the
// map's node, and notes sources outside the app without embedded content.
func (b *jsappBuilder) sourceModuleNodes(sm *sourceMap, smID, mapPath, mapSHA string, digests []any) []string {
	st := b.st
	srcNodes := make([]string, len(sm.Sources))
	outside, cut := 0, 0
	if digests == nil {
		digests = contentDigests(sm)
	}
	for i, s := range sm.Sources {
		if b.sourceModules >= jsappMaxSourceModules {
			cut = len(sm.Sources) - i
			break
		}
		srcSHA := digests[i]
		props := map[string]any{"original_source": s, "has_content": srcSHA != nil}
		if p, ok := resolveSourcePath(path.Dir(mapPath), s); ok {
			props["resolved_path"] = p
		} else if !strings.HasPrefix(s, "webpack://") && !strings.HasPrefix(s, "rspack://") {
			// A source outside the app is a loss only when the map does not
			// embed its text: rea never reads outside the analysed root.
			if srcSHA == nil {
				outside++
			}
			props["outside_app"] = true
		}
		id := b.g.node("source-module", identity(idSourceMap, stabilitySMExact, map[string]any{"source_map_sha256": mapSHA, "original_source": s, "source_sha256": srcSHA}),
			s, props, GraphEvidence{Basis: "source-map", Locations: []GraphLocation{{Path: mapPath}}})
		b.g.edge(smID, id, "contains", map[string]any{"index": i}, GraphEvidence{Basis: "source-map", Locations: []GraphLocation{{Path: mapPath}}})
		srcNodes[i] = id
		b.sourceModules++
	}
	if cut > 0 {
		st.limitations = append(st.limitations, fmt.Sprintf("%s: %d of its %d sources have no source-module node: an analysis records at most %d source modules (each costs graph memory); their maps_to edges are missing.",
			mapPath, cut, len(sm.Sources), jsappMaxSourceModules))
	}
	if outside > 0 {
		st.limitations = append(st.limitations, fmt.Sprintf("%s: %d sources lie outside the app (absolute paths, URLs or ../ beyond the root) and the map embeds no content for them; rea does not read outside the app, so their text is unknown.", mapPath, outside))
	}
	return srcNodes
}

// attachModuleMaps reads the inline source maps that bundled modules carry
// in their eval strings (webpack's eval-source-map): each module maps to
// the sources of its own map.
func (b *jsappBuilder) attachModuleMaps(a *jsAsset) {
	if a.facts == nil {
		return
	}
	mods := b.moduleNodes[a.path]
	for i, m := range a.facts.Modules {
		if m.SourceMap == nil || i >= len(mods) {
			continue
		}
		if !strings.HasPrefix(m.SourceMap.URL, "data:") {
			continue // module maps outside the file are not read
		}
		mapPath := a.path + "#" + m.ID + "#inline-source-map"
		data, err := decodeDataURL(m.SourceMap.URL)
		if err != nil {
			b.st.unknown("invalid-source-map", mods[i], a.path, m.SourceMap.Offset, "module "+m.ID+" inline source map: "+err.Error())
			continue
		}
		sum := sha256.Sum256(data)
		mapSHA := hex.EncodeToString(sum[:])
		sm, err := parseSourceMap(data)
		props := map[string]any{"path": mapPath, "sha256": mapSHA, "inline": true, "module_id": m.ID}
		if sm != nil {
			props["index_map"] = sm.Index
			props["sources"] = len(sm.Sources)
		}
		smID := b.g.node("source-map", b.pathKey(mapPath), mapPath, props, GraphEvidence{Basis: "source-map", Locations: []GraphLocation{{Path: a.path, Offset: offsetPtr(m.SourceMap.Offset)}}})
		b.g.edge(mods[i], smID, "maps_to", map[string]any{"inline": true}, b.at(a, m.SourceMap.Offset))
		b.sourceMaps++
		if err != nil {
			b.st.unknown("invalid-source-map", smID, mapPath, -1, err.Error())
			if sm == nil {
				continue
			}
		}
		for _, id := range b.sourceModuleNodes(sm, smID, mapPath, mapSHA, nil) {
			if id == "" {
				continue // past the source-module limit
			}
			b.g.edge(mods[i], id, "maps_to", map[string]any{"via": "module-source-map"}, GraphEvidence{Basis: "source-map", Confidence: core.ConfidenceDerived, Locations: []GraphLocation{{Path: mapPath}}})
		}
	}
}

func (b *jsappBuilder) attachSourceMap(a *jsAsset, p *preparedMap, refOff int64) {
	st := b.st
	sm, err, mapPath, mapSHA, inline := p.sm, p.err, p.mapPath, p.mapSHA, p.inline
	props := map[string]any{"path": mapPath, "sha256": mapSHA, "inline": inline}
	if sm != nil {
		props["index_map"] = sm.Index
		props["sources"] = len(sm.Sources)
	}
	ident := b.pathKey(mapPath)
	smID := b.g.node("source-map", ident, mapPath, props, GraphEvidence{Basis: "source-map", Locations: []GraphLocation{{Path: a.path, Offset: offsetPtr(refOff)}}})
	ev := b.at(a, refOff)
	if p, ok := a.src.refAt(refOff); ok && ev.Locations[0].Line == 0 {
		ev.Locations[0].Line, ev.Locations[0].Column = int64(p.line)+1, int64(p.col)
	}
	b.g.edge(a.nodeID, smID, "maps_to", map[string]any{"inline": inline}, ev)
	b.sourceMaps++
	if err != nil {
		st.unknown("invalid-source-map", smID, mapPath, -1, err.Error())
		if sm == nil {
			return
		}
	}
	if bad := p.bad; bad > 0 {
		st.limitations = append(st.limitations, fmt.Sprintf("%s: %d source map mappings point outside the generated file or the source list; they were ignored.", mapPath, bad))
		st.unknown("source-map-out-of-range", smID, mapPath, -1, fmt.Sprintf("%d mappings are out of range", bad))
	}
	srcNodes := b.sourceModuleNodes(sm, smID, mapPath, mapSHA, p.srcSHA)
	b.mapRelations(a, sm, srcNodes)
	b.mapCalls(a, sm, srcNodes)
	b.mapIPCSites(a, sm, srcNodes)
	// Attribute bundled modules to original sources.
	mods := b.bundleModuleNode[a.path]
	if len(mods) == 0 || a.src == nil {
		return
	}
	for i, m := range a.facts.Modules {
		id, ok := mods[m.ID]
		if !ok || m.Start < 0 || i >= len(a.src.modules) {
			continue
		}
		pos := a.src.modules[i]
		srcs := sm.sourcesIn(pos.fromLine, pos.fromCol, pos.toLine, pos.toCol)
		if len(srcs) == 0 || srcNodes[srcs[0]] == "" {
			continue
		}
		b.g.edge(id, srcNodes[srcs[0]], "maps_to", map[string]any{"segments_sources": len(srcs)}, GraphEvidence{Basis: "source-map", Confidence: core.ConfidenceDerived, Locations: []GraphLocation{{Path: mapPath}}})
	}
}

// mapRelations gives each of a's semantic relations with a line the
// original source position a's map gives for it (the segment at or before
// it on its line, as a source map consumer reads one; for an export left
// in an export clause, not the last segment of the line when the export
// lies past it).
func (b *jsappBuilder) mapRelations(a *jsAsset, sm *sourceMap, srcNodes []string) {
	for _, span := range b.assetRelations[a] {
		for i := span[0]; i < span[1]; i++ {
			r := &b.relations[i]
			if r.line <= 0 {
				continue
			}
			seg, ok := sm.originalAt(genPos{r.line - 1, r.col})
			if !ok || int(seg.src) >= len(srcNodes) || srcNodes[seg.src] == "" || seg.sline < 0 || seg.scol < 0 {
				continue // no source-module node past jsappMaxSourceModules
			}
			if r.inClause && seg.col != r.col && !sm.segmentAfter(genPos{r.line - 1, r.col}) {
				// An export left in an export clause (a name the file
				// does not declare) past its line's last segment is not
				// mapped: a minified bundle's closing export{t as Store}
				// follows the last module's code, which the segment
				// before it maps, not where Store is defined. An export
				// at its declaration takes the segment before it as any
				// relation does (a map of line starts maps
				// function parse(…) at its column 0); so does one
				// between two segments (exports.f = f).
				continue
			}
			r.origNode, r.origLine, r.origCol = b.relStrs.code(srcNodes[seg.src]), seg.sline+1, seg.scol
		}
	}
}

// releaseLinks lets go of the facts that only the phases before the source
// maps read: imports, exports, the bundles' entry requires and helper
// bindings, each bundled module's requires and exports, the function
// bodies (handlerPhase) and every call but the IPC calls, and the
// resolutions. The source map and IPC phases read IPC calls (by their index:
// ipcCalls), modules' spans and maps, and the graph and the relations hold
// what the rest gave, so these would only add to the heap while the graph
// grows to its peak.
func (st *jsappState) releaseLinks() {
	st.unparsed = countUnparsed(st) // before the source map phase lets facts go (releaseMapped)
	for _, a := range st.assets {
		f := a.facts
		if f == nil {
			continue
		}
		f.Imports, f.Exports, f.EntryRequires, f.HelperImports, f.HelperExports = nil, nil, nil, nil, nil
		for i := range f.Modules {
			f.Modules[i].Requires, f.Modules[i].Exports = nil, nil
		}
		f.Functions, f.Calls = nil, ipcCalls(f.Calls)
	}
	st.resolved = nil // nothing is resolved from here on: resolveModule no longer memoizes
}

// ipcCalls is calls with only the IPC calls left (ipcRole), at their
// indices (handlerFns and handlerOf name calls by index): the others are
// zero (what they held goes, the array stays), and nil when there are none.
func ipcCalls(calls []ports.JSCall) []ports.JSCall {
	last := -1
	for i, c := range calls {
		if r, _ := ipcRole(c); r != "" {
			last = i
		} else {
			calls[i] = ports.JSCall{Offset: -1, InModule: -1}
		}
	}
	if last < 0 {
		return nil // an empty slice would still hold the array
	}
	return calls[: last+1 : last+1]
}

// --- the result ---

func (b *jsappBuilder) result() *jsappOutcome {
	st := b.st
	// The facts are all read: what the graph's seal needs is in the graph
	// now, so their memory goes before the seal's peak.
	// So are the call sites' positions (at reads them), and no file is
	// looked up again: the result counts the files, and an asset keeps
	// its own.
	unparsed := st.unparsed
	for _, a := range st.assets {
		a.facts, a.sites = nil, nil
	}
	st.resolved = nil     // nothing is resolved from here on (releaseLinks, unless the build stopped before it)
	b.relStrs.index = nil // no relation is made from here on: only the codes are read
	st.releaseInventory() // nor read
	files := len(st.files)
	st.files, st.order = nil, nil
	if len(b.g.nodes) >= collectBeforeSealNodes && tuning.Load() {
		// The facts, the inventory and what the build no longer holds are
		// garbage now, and the heap's target is still the one the build
		// set: collected now, that memory holds the seal's buffers instead
		// of the heap growing past it. The target is then relaxed as for
		// parsing (gcphase.go) until the analysis returns, so the seal
		// fills the room this collection made rather than collecting
		// again: on npm-10 the run makes as many collections as before.
		// In the background: the seal need not wait for it.
		st.sealing = relaxGC()
		collectGarbage()
	}
	for _, a := range st.sortedAssets() {
		if len(a.roles) > 0 {
			// Roles are also recorded on the asset for views and traces.
			roles := jaKeys(a.roles)
			b.g.node("javascript-asset", b.pathKey(a.path), a.path, map[string]any{"path": a.path, "sha256": a.sha256, "roles": strSlice(roles)},
				GraphEvidence{Basis: "derived", Confidence: core.ConfidenceDerived, Locations: []GraphLocation{{Path: a.path}}})
		}
	}
	var limits []GraphLimit
	lims := append([]string(nil), st.limitations...)
	if st.truncated {
		lims = append(lims, "The analysis stopped at analysis_timeout_ms during the "+st.partialWhy+" phase; the graph holds the facts gathered before it.")
		limits = append(limits, GraphLimit{Name: "analysis_timeout_ms", Value: 0, Unit: "ms"})
		b.g.truncated = true
	}
	if st.unknownsCut > 0 {
		lims = append(lims, fmt.Sprintf("%d unknowns beyond the first %d were not listed.", st.unknownsCut, jsappMaxUnknowns))
	}
	if b.stringsCut {
		lims = append(lims, fmt.Sprintf("string_index holds the first %d literals (3 to 256 bytes, one per value and asset); trace string seeds beyond them match node labels only.", jsappMaxStringIndex))
	}
	if n := st.syntaxErrs + st.notParsed; n > 0 {
		lims = append(lims, fmt.Sprintf("%s did not parse; their facts are missing (see unknowns).", describeCount(n, "JavaScript file")))
	}
	if len(st.contradictions) > 0 {
		lims = append(lims, fmt.Sprintf("%d integrity contradiction(s) were recorded; mismatched content is observed-untrusted.", len(st.contradictions)))
	}
	// The IPC statuses (read from observations) and the semantic relations
	// (which name nodes by index) are done once the nodes are indexed,
	// before their rows are written: the seal then lets each node's
	// contents go, and the relations are gone before the rows are made.
	var paired, unresolved []any
	var relations core.Canonical
	semCoverage := map[string]any{"status": "complete", "truncated": false}
	if len(b.relations) >= jsappMaxRelations || st.truncated {
		semCoverage = map[string]any{"status": "partial", "truncated": true}
	}
	graph, enc := b.g.sealReleasing(lims, limits, st.rootSHA, func(graph *Graph, enc *leanEncoder) {
		for _, name := range jaKeys(b.ipc) {
			ch := b.ipc[name]
			if status := nodeStatus(graph, ch.nodeID); status == "paired" {
				paired = append(paired, name)
			} else {
				unresolved = append(unresolved, map[string]any{"channel": name, "status": status})
			}
		}
		strs := b.relStrs.list
		order := relationOrder(len(b.relations), func(i int) string { return strs[b.relations[i].source] })
		var err error
		relations, err = core.CanonicalArrayFunc(len(order), func(dst []byte, i int) ([]byte, error) {
			r := b.relStrs.unpack(&b.relations[order[i]])
			return enc.appendRelation(dst, &r)
		})
		if err != nil {
			panic(fmt.Sprintf("jsapp semantic graph: %v", err)) // rea's own values always encode
		}
		b.relations, b.relStrs = nil, nil
	})
	b.g = nil
	stats := map[string]any{
		"files": files, "directories": st.dirs, "symlinks": st.symlinks, "javascript_assets": len(st.assets),
		"parsed_assets": len(st.assets) - st.syntaxErrs - st.notParsed - st.quarantined - unparsed, "syntax_errors": st.syntaxErrs,
		"packages": len(st.packages), "bundled_modules": b.bundled, "source_maps": b.sourceMaps, "source_modules": b.sourceModules,
		"html_documents": b.htmlDocs, "native_addons": len(b.addons), "bytes_parsed": st.bytesParsed, "graph_nodes": len(graph.Nodes),
	}
	dynIPC := 0
	for _, u := range st.unknowns {
		if u["kind"] == "dynamic-ipc-channel" {
			dynIPC++
		}
	}
	electron := map[string]any{
		"detected": b.electron, "main": strSlice(jaKeys(b.mains)), "preload": strSlice(jaKeys(b.preloads)),
		"renderer": strSlice(jaKeys(b.renderers)), "utility": strSlice(jaKeys(b.utilities)), "browser_windows": b.windows,
		"context_bridge_apis": strSlice(jaKeys(b.apis)),
		"ipc":                 map[string]any{"channels": len(b.ipc), "paired": jaList(paired), "unresolved": jaList(unresolved), "dynamic": dynIPC},
	}
	summary := map[string]any{"main_processes": len(b.mains), "preload_scripts": len(b.preloads), "renderer_processes": len(b.renderers),
		"utility_processes": len(b.utilities), "browser_windows": b.windows, "context_bridge_apis": len(b.apis), "ipc_channels": len(b.ipc),
		"ipc_paired": len(paired), "ipc_unresolved": len(unresolved) + dynIPC, "endpoints": len(b.endpoints), "storage": len(b.storage),
		"workers": len(b.workers), "native_addons": len(b.addons), "system_apis": len(b.systems)}
	coverage := map[string]any{"status": graph.Coverage.Status, "truncated": graph.Coverage.Truncated, "omitted_count": graph.Coverage.OmittedCount,
		"limits": graph.Coverage.Limits}
	if len(st.contradictions) > 0 && coverage["status"] == "complete" {
		coverage["status"] = "partial"
		coverage["omitted_count"] = nil
	}
	// The semantic graph and the string index name graph nodes by index
	// (lean.go).
	assets := assetNodeIDs(st)
	semNodes := make([]any, len(assets))
	for i, id := range assets {
		semNodes[i] = enc.ref(id)
	}
	sem := map[string]any{"nodes": semNodes, "relations": relations, "fingerprints": enc.refs(b.fingerprints),
		"unknown_frontiers": enc.refs(b.frontiers), "coverage": semCoverage, "query_tool": "trace_javascript_semantics"}
	semSealed, semID, err := sealMembers(sem, "graph_id", "jsrg_")
	if err != nil {
		panic(fmt.Sprintf("jsapp semantic graph: %v", err)) // rea's own values always encode
	}
	sem["graph_id"] = semID
	slices.SortStableFunc(b.stringIndex, func(x, y indexedString) int { return cmpUTF16(x.value, y.value) })
	contradictions := st.contradictions
	if contradictions == nil {
		contradictions = []artifact.Contradiction{}
	}
	unknowns := jaMaps(st.unknowns)
	format := "directory"
	switch {
	case st.format == "asar":
		format = "asar"
	case st.format == "javascript-bundle" || st.format == "file":
		format = "file"
	case zipFormats[st.format], tarFormats[st.format]:
		format = st.format
	}
	res := map[string]any{
		"schema_version": resultSchemaVersion, "input_path": st.req.given, "format": format, "root_artifact_sha256": st.rootSHA,
		"inventory_manifest_id": st.manifest.ManifestID, "inventory_graph_sha256": st.manifest.GraphSHA256,
		"statistics": stats, "summary": summary, "electron": electron, "coverage": coverage, "graph": graph.sealed, "semantic_graph": semSealed,
		"string_index": enc.stringIndex(b.stringIndex), "integrity_contradictions": contradictions,
		"limitations": graph.Limitations, "unknowns": unknowns,
	}
	subjFormat := "directory"
	if format != "directory" {
		subjFormat = format
	}
	return &jsappOutcome{result: res, partial: st.truncated, subject: core.NewSubject(st.req.given, st.rootSHA, subjFormat, ""),
		locs: []core.Location{{Kind: "artifact-path", Path: "."}}}
}

// collectBeforeSealNodes is the graph size from which result() collects
// the garbage before the seal: a smaller graph's is not worth a collection
// (which marks all the process holds, retained Evidence included).
const collectBeforeSealNodes = 1000

func countUnparsed(st *jsappState) int {
	n := 0
	for _, a := range st.assets {
		if a.facts == nil && !a.quarant {
			n++
		}
	}
	return n
}

func nodeStatus(g *Graph, id string) string {
	for _, n := range g.Nodes {
		if n.NodeID == id {
			for _, o := range n.Observations {
				if s, ok := o.Properties["status"].(string); ok {
					return s
				}
			}
		}
	}
	return "unresolved"
}

func assetNodeIDs(st *jsappState) []string {
	var out []string
	for _, a := range st.sortedAssets() {
		if a.nodeID != "" {
			out = append(out, a.nodeID)
		}
	}
	return out
}

func jaList(s []any) []any {
	if s == nil {
		return []any{}
	}
	return s
}

func jaMaps(s []map[string]any) []map[string]any {
	if s == nil {
		return []map[string]any{}
	}
	return s
}

// at is the evidence of something seen at offset off of asset a, with the
// line and column of that offset where sitePositions kept them, so a
// trace step names its place as the other JavaScript tools do.
func (b *jsappBuilder) at(a *jsAsset, off int64) GraphEvidence {
	ev := at(a.path, off)
	if l, c := siteAt(a.sites, off); l > 0 {
		ev.Locations[0].Line, ev.Locations[0].Column = int64(l), int64(c)
	}
	return ev
}

// atCall is at for an edge from call c at offset off, which is at the
// call itself (callPlace) when off is unknown (-1): a write to a path in a
// variable has no literal to locate it.
func (b *jsappBuilder) atCall(a *jsAsset, c ports.JSCall, off int64) GraphEvidence {
	if off < 0 {
		off = callPlace(c)
	}
	return b.at(a, off)
}
