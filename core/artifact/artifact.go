package artifact

import (
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"io"
	"io/fs"
	"maps"
	"math"
	"os"
	"path"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"

	"rea/ports"

	"rea/core"
)

// This file builds the artifact graph of CONTRACTS.md §15.3: a directory, a
// container file (ASAR, ZIP and the formats built on ZIP, reached through
// ports.ContainerOpener) or a plain file becomes nodes (content), occurrences
// (where the content was found) and edges (relations), all with content IDs,
// so the same tree at two paths has the same IDs. Root containers and ASARs
// found in a directory or a root ZIP are expanded; other nested containers are
// recorded only.
//
// Sorting is by code point (Go string order), as everywhere in rea
// (ARCHITECTURE.md). The TypeScript reference sorts occurrences with ICU
// localeCompare("en"), so graph_sha256 can differ from the reference's for
// trees whose paths differ in case or punctuation order.

// Limits bound one graph (§15 inventory_artifact input).
type Limits struct {
	MaxEntries          int   `json:"max_entries"`
	MaxTotalBytes       int64 `json:"max_total_bytes"`
	MaxEntryBytes       int64 `json:"max_entry_bytes"`
	MaxCompressionRatio int64 `json:"max_compression_ratio"`
	MaxDepth            int   `json:"max_depth"`
	MaxPathBytes        int   `json:"max_path_bytes"`
}

// defaultArtifactLimits are the limits a call that sets none gets, over
// MCP and the CLI alike. max_entries is 100,000: a mid-size Electron
// application holds tens of thousands of entries, the graph's memory is
// charged to the budgets whatever the count, and the answer no longer
// grows with it (concise.go); at 10,000, MCP stopped such an application
// with truncated where rea inventory (100,000) read it.
var defaultArtifactLimits = Limits{
	MaxEntries: 100000, MaxTotalBytes: 1 << 30, MaxEntryBytes: 256 << 20,
	MaxCompressionRatio: 1000, MaxDepth: 20, MaxPathBytes: 4096,
}

// Integrity policies (§15).
const (
	IntegrityFail   = "fail"
	integrityRecord = "record-and-continue"
)

// Hash statuses of an occurrence.
const (
	hashVerified    = "verified"
	hashMismatched  = "mismatched"
	hashUnavailable = "unavailable"
)

const (
	artifactSchemaVersion = 1
	headBytes             = 4096
	maxContradictions     = 100
	contradictionTrust    = "observed-untrusted"
	contradictionSource   = "container-integrity-metadata-versus-observed-bytes"
)

// Request is one graph to build.
type Request struct {
	Op       string
	Path     string // absolute
	Policy   string
	Limits   Limits
	Openers  []ports.ContainerOpener
	Observe  func(string)
	KeepOpen bool // keep containers open after building (extraction reads again)
	// ResultOnly: the caller reads only the inventory result (and the
	// graph's records), not its items, which then go before the text is
	// written. Not with KeepOpen.
	ResultOnly bool
	// NoText: the caller reads the manifest (its graph digest and ID
	// included) but never the inventory result, whose text is then not
	// written: the graph's lists are streamed into the digest instead.
	NoText bool
	// Sized, when set, is told how many bytes the root's files declare
	// (their sizes as listed) before any is read: a caller can size what
	// it prepares by the work ahead.
	Sized func(bytes int64)
	// Content, when set, is handed the whole bytes of each regular file
	// that Wants selects, from the goroutine that hashed them, right after
	// hashing and only when they match any hash the container declared: a
	// caller can work on them while the rest is still being hashed, instead
	// of reading them again. Both run concurrently for different files.
	// The bytes (and their slice's spare capacity) are Content's own: the
	// graph never reads or writes them again.
	Wants   func(path string, size int64) bool
	Content func(path, sha256 string, data []byte)
}

// Records of the graph (§15.3).

// Node is one distinct content of the artifact graph (inventory_artifact result).
type Node struct {
	ArtifactID   string   `json:"artifact_id"`
	Kind         string   `json:"kind"`
	Format       string   `json:"format"`
	SHA256       string   `json:"sha256"`
	Size         int64    `json:"size"`
	MediaType    *string  `json:"media_type"`
	Architecture *string  `json:"architecture"`
	Executable   bool     `json:"executable"`
	ContentState string   `json:"content_state"`
	Limitations  []string `json:"limitations"`
}

// Occurrence is where a content was found: one logical path of the artifact.
type Occurrence struct {
	OccurrenceID       string                    `json:"occurrence_id"`
	ArtifactID         *string                   `json:"artifact_id"`
	ParentOccurrenceID *string                   `json:"parent_occurrence_id"`
	LogicalPath        string                    `json:"logical_path"`
	EntryKind          string                    `json:"entry_kind"`
	DeclaredSize       *int64                    `json:"declared_size"`
	CompressedSize     *int64                    `json:"compressed_size"`
	Executable         bool                      `json:"executable"`
	Encrypted          bool                      `json:"encrypted"`
	HashStatus         string                    `json:"hash_status"`
	SourceLocation     *OccurrenceSourceLocation `json:"source_location"`
	Limitations        []string                  `json:"limitations"`
}

// OccurrenceSourceLocation is an occurrence's byte range inside its container.
type OccurrenceSourceLocation struct {
	Offset int64 `json:"offset"`
	Length int64 `json:"length"`
}

// Edge relates two contents: contains (parent to child) or maps-source (x.map to x).
type Edge struct {
	EdgeID           string  `json:"edge_id"`
	Ordinal          int     `json:"ordinal"`
	ParentArtifactID string  `json:"parent_artifact_id"`
	ChildArtifactID  string  `json:"child_artifact_id"`
	Relation         string  `json:"relation"`
	OccurrenceID     string  `json:"occurrence_id"`
	LogicalPath      *string `json:"logical_path"`
	Producer         any     `json:"producer"`
}

// Contradiction is a declared integrity hash the observed bytes contradict.
type Contradiction struct {
	ContradictionID  string   `json:"contradiction_id"`
	OccurrenceID     string   `json:"occurrence_id"`
	ParentArtifactID string   `json:"parent_artifact_id"`
	LogicalPath      string   `json:"logical_path"`
	DeclaredSHA256   string   `json:"declared_sha256"`
	ObservedSHA256   string   `json:"observed_sha256"`
	EntryKind        string   `json:"entry_kind"`
	Unpacked         bool     `json:"unpacked"`
	Trust            string   `json:"trust"`
	Provenance       string   `json:"provenance"`
	Limitations      []string `json:"limitations"`
}

// InventoryArtifactResultManifest identifies a graph: its root, its digest and its counts.
type InventoryArtifactResultManifest struct {
	SchemaVersion   int    `json:"schema_version"`
	ManifestID      string `json:"manifest_id"`
	RootArtifactID  string `json:"root_artifact_id"`
	RootSHA256      string `json:"root_sha256"`
	RootFormat      string `json:"root_format"`
	GraphSHA256     string `json:"graph_sha256"`
	NodeCount       int    `json:"node_count"`
	OccurrenceCount int    `json:"occurrence_count"`
	EdgeCount       int    `json:"edge_count"`
}

// Graph is a built graph plus what extraction needs to read the
// bytes again.
type Graph struct {
	Manifest       InventoryArtifactResultManifest
	Nodes          []Node
	Occurrences    []Occurrence
	Edges          []Edge
	Contradictions []Contradiction
	Limitations    []string
	// LeftOut are the entries containers left out for unsafe or ambiguous
	// names (at most maxRejectedListed per container), by container path;
	// leftOutTotal counts them all.
	LeftOut      []LeftOut
	leftOutTotal int
	// LinksOut are the symbolic links whose targets lead outside the
	// inventoried root (linkLeaves), in occurrence order.
	LinksOut []LinkOut

	Items     []*Item      // every occurrence, in occurrence order
	extracted atomic.Int64 // bytes read by extraction, its own max_total_bytes budget
	byOcc     map[string]*Item
	nodeOf    map[string]*Node
	b         *graphBuilder
	text      []byte // the inventory result's canonical text
}

// close releases the containers and directories the graph holds open.
func (g *Graph) Close() {
	if g != nil && g.b != nil {
		g.b.close()
	}
}

// DropInventory releases the inventory result (its canonical text and the
// node, occurrence and edge lists) for a caller that keeps the graph only
// for its manifest, items, limitations and contradictions and to read
// items again; the graph cannot answer inventory or inspection after it.
func (g *Graph) DropInventory() {
	g.text, g.Nodes, g.Occurrences, g.Edges, g.byOcc, g.nodeOf = nil, nil, nil, nil, nil, nil
}

// DropItems releases the items for a caller that reads the graph's files
// again only through handles it took (Handle), after DropInventory: an
// item holds its whole directory's block of items, its records' IDs and
// the tree, many times the bytes of what reading it needs. Root and Items
// are nil afterwards.
func (g *Graph) DropItems() {
	g.Items = nil
	g.b.items, g.b.byPath, g.b.root = nil, nil, nil
}

// Handle is what reading an item again needs of it, and nothing else of
// the graph.
type Handle struct {
	path, fsRel, inner string
	box                *artBox
}

// Handle returns the item's handle, for OpenHandle once the items are
// dropped.
func (g *Graph) Handle(it *Item) *Handle {
	return &Handle{path: it.Path, fsRel: it.fsRel, inner: it.inner, box: it.box}
}

// OpenHandle reads the item h names again, as Open does.
func (g *Graph) OpenHandle(ctx context.Context, h *Handle) (io.ReadCloser, error) {
	return g.b.openAt(ctx, h.path, h.fsRel, h.inner, h.box)
}

// Root is the graph's root occurrence.
func (g *Graph) Root() *Item { return g.b.root }

// Format is the item's format as the inventory classified it from its name
// and first bytes (the node's format: asar, zip, javascript-bundle, file,
// ...); empty for a directory.
func (it *Item) Format() string { return it.class.format }

// NodeKind is the item's node kind as the inventory classified it
// (javascript, source-map, container, ...).
func (it *Item) NodeKind() string { return it.class.kind }

// Open reads an occurrence's content again (the graph must have been built
// with KeepOpen).
func (g *Graph) Open(ctx context.Context, it *Item) (io.ReadCloser, error) {
	return g.b.open(ctx, it)
}

// Item is one occurrence under construction.
type Item struct {
	Path     string // logical path; "." for the root
	name     string
	Kind     ports.EntryKind
	parent   *Item
	children []*Item

	fsRel string  // set for items read from the file system: path under the builder's fsRoot
	box   *artBox // the container holding the item; nil for file-system items
	inner string  // path inside box

	declaredSize, compressedSize *int64
	exec, encrypted, unpacked    bool
	loc                          *OccurrenceSourceLocation
	declared                     string // declared sha256
	link                         string
	special                      string    // a non-regular file-system entry's type
	stamp                        fileStamp // file-system stat fingerprint
	node                         fsNode    // the walk's inode and change time (recheckSettled)
	held                         int32     // a walked directory's descriptor plus one, while held (listWalked); 0: none
	settled                      bool      // a walked directory changed last before the walk (settledCut)

	// observed
	Hashed   bool
	SHA256   string
	Size     int64
	head     []byte
	slice    []byte    // 16 bytes at a universal Mach-O's first slice, when seen
	spill    *artSpill // the bytes of a nested ASAR inside a container
	err      error
	status   string
	limits   []string // occurrence limitations
	class    artClass
	opaque   string                // why a recognised container was not expanded
	misnamed bool                  // named .asar, but no opener recognised its bytes
	rejected int                   // entries the container left out (noteRejected)
	leftOut  []ports.RejectedEntry // the first maxRejectedListed of them
	gone     error                 // why an unpacked file's bytes are missing (record-and-continue)
	nested   *artBox
	Mismatch bool

	artifactID, occurrenceID string
	linkSHA                  string // a link's digest
	treeBytes                int64  // a directory's file bytes beneath it
	ord                      int    // index of its occurrence in the sealed graph
}

// collectBeforeTextItems is the graph size from which seal collects the
// garbage before writing the text, when the host allows it.
const collectBeforeTextItems = 10000

// collect is whether seal may start a collection: the host that owns the
// process turns it on (cmd/rea does); a program embedding rea/core gets no
// collection forced on it unless it asks.
var collect atomic.Bool

// TuneCollector lets an inventory of 10,000 entries or more collect its
// walk's garbage before writing its text (a lower peak for one
// collection's pause). Off by default.
func TuneCollector(on bool) { collect.Store(on) }

// closedBox stands for a container once the builder closed it.
type closedBox struct{}

func (closedBox) Entries() []ports.ContainerEntry { return nil }
func (closedBox) Close() error                    { return nil }
func (closedBox) Open(context.Context, string) (io.ReadCloser, error) {
	return nil, fs.ErrClosed
}

// artBox is an open container.
type artBox struct {
	format string
	c      ports.Container
	item   *Item
	closer io.Closer
	root   bool // the root container (expansion of nested ASARs is allowed from a root ZIP)
}

type graphBuilder struct {
	req     Request
	fsRoot  *os.Root // the directory root, or the directory holding a file root
	fsDir   *os.File // fsRoot's directory, opened through it, for openBeneath
	isDir   bool
	root    *Item
	items   []*Item
	byPath  map[string]*Item
	boxes   []*artBox
	spills  []*artSpill // closed with the builder
	held    []func()    // memory reservations, released with the builder (memory.go)
	charged int         // items already reserved
	total   atomic.Int64
	hashedN atomic.Int64
	mu      sync.Mutex
	// companions are the files beside a file-system container its opener
	// asked for, by path under fsRoot, with their stamps when opened (nil:
	// absent or not a regular file); under mu. pages.go fingerprints them.
	companions map[string]*fileStamp
	heldDirs   []*Item // the walk's directories holding a descriptor (listWalked), under mu
	// settledCut is the change time before which a walked directory is
	// settled (list_linux.go), 0 when none is; rootDev is the root's device.
	settledCut int64
	rootDev    uint64
	relisted   atomic.Int64 // directories the recheck listed again
}

func (b *graphBuilder) close() {
	b.mu.Lock()
	for _, s := range b.spills {
		s.close()
	}
	b.spills = nil
	b.mu.Unlock()
	defer b.releaseHeld()
	for _, bx := range b.boxes {
		bx.c.Close()
		bx.c = closedBox{} // the items keep their box: let the container's tree go
		if bx.closer != nil {
			bx.closer.Close()
		}
	}
	b.boxes = nil
	b.closeHeld()
	if b.fsDir != nil {
		b.fsDir.Close()
		b.fsDir = nil
	}
	if b.fsRoot != nil {
		b.fsRoot.Close()
		b.fsRoot = nil
	}
}

// Build inventories req.path.
func Build(ctx context.Context, req Request) (g *Graph, err error) {
	if req.Observe == nil {
		req.Observe = func(string) {}
	}
	b := &graphBuilder{req: req, byPath: map[string]*Item{}}
	defer func() {
		if err != nil || !req.KeepOpen {
			b.close()
		}
		if err != nil {
			err = b.classify(ctx, err)
		}
	}()
	st, err := os.Stat(req.Path)
	if err != nil {
		return nil, core.TargetError(req.Op, req.Path, "missing", err)
	}
	if err := b.start(ctx, st); err != nil {
		return nil, err
	}
	if err := b.chargeItems(ctx); err != nil {
		return nil, err
	}
	level := b.hashable(b.items)
	if req.Sized != nil {
		var n int64
		for _, it := range level {
			n = satAdd(n, max(artSize(it), 0))
		}
		req.Sized(n)
	}
	// Nested containers are expanded only from the root's own level (see
	// expandable), so this ends after at most two rounds.
	for len(level) > 0 {
		if err := b.checkTotal(level); err != nil {
			return nil, err
		}
		req.Observe(fmt.Sprintf("hashing %d files", len(level)))
		if err := b.hashAll(ctx, level); err != nil {
			return nil, err
		}
		if err := b.applyPolicy(level); err != nil {
			return nil, err
		}
		added, err := b.expandNested(ctx, level)
		if err != nil {
			return nil, err
		}
		if err := b.chargeItems(ctx); err != nil {
			return nil, err
		}
		level = b.hashable(added)
	}
	if req.KeepOpen && b.isDir {
		// The tree is listed again while the graph is sealed: the seal
		// reads and writes none of what the recheck reads (paths, kinds,
		// stamps, the index by path), and the result is the recheck's
		// error, then the context's, then the seal's, as in turn.
		rechecked := make(chan error, 1)
		go func() { rechecked <- b.recheck(ctx, st) }()
		req.Observe("sealing the graph")
		g, err := b.seal()
		if err := <-rechecked; err != nil {
			return nil, err
		}
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		return g, err
	}
	if err := b.recheck(ctx, st); err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if !req.KeepOpen {
		// Nothing reads the containers again: free their directories
		// before the records and the text are built.
		b.close()
	}
	req.Observe("sealing the graph")
	return b.seal()
}

// start sets up the root: a directory walk, a root container's entries, or
// a single file.
func (b *graphBuilder) start(ctx context.Context, st os.FileInfo) error {
	if st.IsDir() {
		root, err := os.OpenRoot(b.req.Path)
		if err != nil {
			return core.TargetError(b.req.Op, b.req.Path, "unreadable", err)
		}
		b.fsRoot, b.isDir = root, true
		b.fsDir, _ = root.Open(".") // without it every open goes through os.Root
		b.root = &Item{Path: ".", name: filepath.Base(b.req.Path), Kind: ports.EntryDirectory}
		b.items = append(b.items, b.root)
		b.byPath["."] = b.root
		b.req.Observe("walking " + b.req.Path)
		return b.walk(ctx)
	}
	if !st.Mode().IsRegular() {
		return core.TargetError(b.req.Op, b.req.Path, "not_regular_file", nil)
	}
	root, err := os.OpenRoot(filepath.Dir(b.req.Path))
	if err != nil {
		return core.TargetError(b.req.Op, b.req.Path, "unreadable", err)
	}
	b.fsRoot = root
	b.fsDir, _ = root.Open(".")
	name := filepath.Base(b.req.Path)
	size := st.Size()
	b.root = &Item{Path: ".", name: name, Kind: ports.EntryFile, fsRel: name, declaredSize: &size,
		exec: st.Mode()&0o111 != 0, stamp: artStamp(st)}
	b.items = append(b.items, b.root)
	b.byPath["."] = b.root
	f, err := b.openRegular(name)
	if err != nil {
		return core.TargetError(b.req.Op, b.req.Path, "unreadable", err)
	}
	head := make([]byte, headBytes)
	n, _ := f.ReadAt(head, 0)
	head = head[:n]
	for _, o := range b.req.Openers {
		format, ok := o.Recognize(head, name)
		if !ok {
			continue
		}
		b.req.Observe("reading the " + format + " directory")
		bx, err := b.openBox(ctx, o, format, b.root, f, size, b.fsCompanion(name))
		if err != nil {
			f.Close()
			return err
		}
		bx.root = true
		return b.addEntries(bx, "")
	}
	f.Close()
	noteMisnamed(b.root)
	return nil
}

// linkLeaves reports whether a link at logical path p whose target is
// target leads outside the inventoried root (absolute, or climbing above
// it): half of a symlink zip-slip, worth an agent's notice though rea never
// follows a link.
func linkLeaves(p, target string) bool {
	if strings.HasPrefix(target, "/") || strings.HasPrefix(target, `\`) || filepath.VolumeName(target) != "" {
		return true
	}
	j := path.Join(path.Dir(p), target)
	return j == ".." || strings.HasPrefix(j, "../")
}

// misnamedASAR is the limitation of a file named .asar whose bytes no
// opener recognised (a damaged or truncated archive, or a file misnamed):
// it is still inventoried as the file it is, but is not what its name says.
const misnamedASAR = "Named .asar, but its first bytes are not an ASAR header; recorded as a plain file, not expanded."

// noteMisnamed records that it is named as an ASAR archive but was not
// recognised as one.
func noteMisnamed(it *Item) {
	if strings.EqualFold(path.Ext(it.name), ".asar") && !it.misnamed {
		it.misnamed = true
		it.limits = append(it.limits, misnamedASAR)
	}
}

// add links it under its parent (creating implied directories) and checks
// the count, depth and path limits.
func (b *graphBuilder) add(it *Item, parentPath string) error {
	l := b.req.Limits
	if len(it.Path) > l.MaxPathBytes {
		return limitFailure("max_path_bytes", it.Path, int64(len(it.Path)), int64(l.MaxPathBytes))
	}
	if d := strings.Count(it.Path, "/") + 1; d > l.MaxDepth {
		return limitFailure("max_depth", it.Path, int64(d), int64(l.MaxDepth))
	}
	if len(b.items)-1 >= l.MaxEntries {
		return limitFailure("max_entries", it.Path, int64(len(b.items)), int64(l.MaxEntries))
	}
	if prev, dup := b.byPath[it.Path]; dup {
		if prev.Kind == ports.EntryDirectory && it.Kind == ports.EntryDirectory {
			return nil
		}
		return &Failure{Reason: "path", Path: it.Path, Err: errors.New("two entries share one logical path")}
	}
	parent, ok := b.byPath[parentPath]
	if !ok {
		// A ZIP may leave parent directories implicit.
		parent = &Item{Path: parentPath, name: path.Base(parentPath), Kind: ports.EntryDirectory, box: it.box,
			inner: path.Dir(it.inner)}
		if err := b.add(parent, path.Dir(parentPath)); err != nil {
			return err
		}
	}
	if parent.Kind != ports.EntryDirectory && parent.nested == nil {
		return &Failure{Reason: "path", Path: it.Path, Err: fmt.Errorf("parent %q is not a directory", parentPath)}
	}
	it.parent = parent
	parent.children = append(parent.children, it)
	b.items = append(b.items, it)
	b.byPath[it.Path] = it
	return nil
}

// fileStamp is a file's stat fingerprint: size, modification time and
// mode. Comparable, and made without allocating (it was a formatted
// string, two allocations per file on each of the two walks).
type fileStamp struct {
	size, mtime int64
	mode        os.FileMode
}

func artStamp(fi os.FileInfo) fileStamp {
	return fileStamp{size: fi.Size(), mtime: fi.ModTime().UnixNano(), mode: fi.Mode()}
}

// fsCompanion opens files beside a file-system container through the
// directory root, so a companion can never be read from outside it.
func (b *graphBuilder) fsCompanion(rel string) func(context.Context, string) (io.ReadCloser, error) {
	dir := path.Dir(rel)
	return func(ctx context.Context, name string) (io.ReadCloser, error) {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		p := path.Join(dir, name)
		st, err := b.fsRoot.Stat(p)
		if err != nil {
			b.noteCompanion(p, nil)
			return nil, err
		}
		if !st.Mode().IsRegular() {
			b.noteCompanion(p, nil)
			return nil, fmt.Errorf("companion %s is not a regular file (%v)", p, st.Mode().Type())
		}
		stamp := artStamp(st)
		b.noteCompanion(p, &stamp)
		return b.openRegular(p)
	}
}

// noteCompanion records that the companion file p was asked for, with its
// stamp (nil when absent or not regular).
func (b *graphBuilder) noteCompanion(p string, stamp *fileStamp) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.companions == nil {
		b.companions = map[string]*fileStamp{}
	}
	b.companions[p] = stamp
}

// boxCompanion opens files beside a container stored inside another one.
func boxCompanion(parent *artBox, inner string) func(context.Context, string) (io.ReadCloser, error) {
	dir := path.Dir(inner)
	return func(ctx context.Context, name string) (io.ReadCloser, error) {
		p := path.Join(dir, name)
		for _, e := range parent.c.Entries() {
			if e.Path == p && e.Kind == ports.EntryFile {
				return parent.c.Open(ctx, p)
			}
		}
		return nil, fs.ErrNotExist
	}
}

func (b *graphBuilder) openBox(ctx context.Context, o ports.ContainerOpener, format string, it *Item, ra io.ReaderAt, size int64,
	companion func(context.Context, string) (io.ReadCloser, error)) (*artBox, error) {
	l := b.req.Limits
	// A container kept open is read twice (inventory, then extraction or the
	// application graph's second reading), and containers count what they
	// yield over their whole life; each pass has its own max_total_bytes,
	// enforced here in core, so the container gets both budgets.
	containerTotal := l.MaxTotalBytes
	if b.req.KeepOpen && containerTotal > 0 {
		containerTotal = satAdd(containerTotal, l.MaxTotalBytes)
	}
	c, err := o.OpenContainer(ctx, ports.ContainerRequest{Name: it.name, ReaderAt: ra, Size: size, Companion: companion,
		Limits: ports.ContainerLimits{MaxEntries: l.MaxEntries, MaxEntryBytes: l.MaxEntryBytes, MaxTotalBytes: containerTotal,
			MaxCompressionRatio: l.MaxCompressionRatio, MaxDepth: l.MaxDepth, MaxPathBytes: l.MaxPathBytes}})
	if err != nil {
		return nil, withPath(err, it.Path)
	}
	bx := &artBox{format: format, c: c, item: it}
	if cl, ok := ra.(io.Closer); ok {
		bx.closer = cl
	}
	it.nested = bx
	b.boxes = append(b.boxes, bx)
	return bx, nil
}

// addEntries adds a container's entries under its item.
func (b *graphBuilder) addEntries(bx *artBox, prefix string) error {
	if rj, ok := bx.c.(ports.EntryRejecter); ok {
		noteRejected(bx.item, rj.Rejected())
	}
	entries := slices.Clone(bx.c.Entries())
	slices.SortFunc(entries, func(a, c ports.ContainerEntry) int { return strings.Compare(a.Path, c.Path) })
	if len(b.byPath) < len(entries) {
		// Sized once rather than grown entry by entry (the container held
		// its entries to max_entries).
		grown := make(map[string]*Item, len(b.byPath)+len(entries))
		maps.Copy(grown, b.byPath)
		b.byPath = grown
	}
	for _, e := range entries {
		if !fs.ValidPath(e.Path) || e.Path == "." {
			return &Failure{Reason: "path", Path: path.Join(prefix, e.Path), Err: errors.New("the container declared an unsafe path")}
		}
		lp := e.Path
		if prefix != "" {
			lp = prefix + "/" + e.Path
		}
		it := &Item{Path: lp, name: path.Base(e.Path), Kind: e.Kind, box: bx, inner: e.Path,
			exec: e.Executable, encrypted: e.Encrypted, unpacked: e.Unpacked, link: e.Link}
		if e.Kind == ports.EntryFile {
			size := e.Size
			it.declaredSize = &size
			if e.CompressedSize >= 0 {
				cs := e.CompressedSize
				it.compressedSize = &cs
			}
			if e.Offset >= 0 {
				it.loc = &OccurrenceSourceLocation{Offset: e.Offset, Length: e.Length}
			}
			it.declared = e.DeclaredSHA256
		}
		if err := b.add(it, path.Dir(lp)); err != nil {
			return err
		}
	}
	return nil
}

// maxRejectedListed bounds the entries one container's occurrence names as
// left out; the rest are counted.
const maxRejectedListed = 20

// rejectedWhy says why a container left an entry out (ports.RejectedEntry).
var rejectedWhy = map[string]string{
	"dot-dot":           "its name climbs out of the archive (..)",
	"absolute":          "its name is an absolute path",
	"backslash":         "its name holds a backslash",
	"slash":             "its name holds a slash",
	"nul":               "its name holds a NUL byte",
	"utf8":              "its name is not valid UTF-8",
	"empty":             "its name has an empty component",
	"dot":               "its name has a . component",
	"duplicate":         "another entry declares the same name, and tools disagree on which one wins",
	"file-as-directory": "other entries use its name as a directory",
	"link-utf8":         "it is a symbolic link whose target is not valid UTF-8 text",
	"special":           "it is a device, FIFO or other special file, which has no bytes to read",
	"sparse":            "it is a sparse file, whose holes rea does not expand",
	"hardlink":          "it is a hard link whose target is not a file listed before it",
	"case-collision":    "a sibling's name differs from it only in case, and both cannot be extracted on a case-insensitive file system",
	"link-dot-dot":      "it is a symbolic link whose target climbs out of the archive (..)",
	"link-absolute":     "it is a symbolic link whose target is an absolute path",
	"link-unresolvable": "it is a symbolic link in a cycle or a chain too long to follow",
}

// noteRejected records on a container's occurrence the entries it left out
// of its listing, by their names as declared: they are in no occurrence
// (their paths are unsafe or ambiguous), so this is where an analyst learns
// of them.
func noteRejected(it *Item, rejected []ports.RejectedEntry) {
	it.rejected = len(rejected)
	for i, e := range rejected {
		if i == maxRejectedListed {
			it.limits = append(it.limits, fmt.Sprintf("%d more entries were left out for unsafe or ambiguous names.", len(rejected)-i))
			break
		}
		it.leftOut = append(it.leftOut, e)
		it.limits = append(it.limits, LeftOut{Entry: e}.String())
	}
}

// LeftOut is an entry a container left out of the graph (noteRejected):
// Container is the container's logical path ("." for the root).
type LeftOut struct {
	Container string
	Entry     ports.RejectedEntry
}

// String is the sentence the container's occurrence limitations hold.
func (l LeftOut) String() string {
	e := l.Entry
	why := rejectedWhy[e.Reason]
	if t, link := strings.CutPrefix(e.Reason, "link-"); why == "" && link {
		why = "it is a symbolic link whose target is unsafe (" + t + ")"
	}
	why = cmp.Or(why, "its name is unsafe ("+e.Reason+")")
	size, with, unread := "", "", "its bytes were not read"
	switch e.Kind {
	case ports.EntryFile:
		size = fmt.Sprintf(", %d bytes", e.Size)
	case ports.EntryDirectory:
		with, unread = " with everything beneath it", "nothing beneath it was read"
	case ports.EntrySymlink:
		unread = "it was not followed"
	}
	return fmt.Sprintf("Entry %q (%s%s, entry %d as declared) was left out%s: %s; %s.", e.Name, e.Kind, size, e.Index, with, why, unread)
}

// symlinkNote is a link node's limitation, naming its target: the only
// place the graph's records hold it (the node's sha256 is its digest), so
// entryViews reads it back (linkTarget).
const symlinkNote = "Symbolic link to %q; recorded, not followed. sha256 is the digest of the link, not of bytes."

// linkTarget is the target a link node's symlinkNote names.
func linkTarget(n *Node) (string, bool) {
	for _, l := range n.Limitations {
		var target string
		if _, err := fmt.Sscanf(l, "Symbolic link to %q;", &target); err == nil {
			return target, true
		}
	}
	return "", false
}

// LinkOut is a symbolic link whose target leads outside the inventoried
// root: half of a symlink zip-slip, recorded and never followed.
type LinkOut struct {
	Path   string // the link's logical path
	Target string // as declared: untrusted
}

// leftOut is the limitation that counts the entries containers left out
// (noteRejected), followed by and, or "" when there are none.
func leftOut(items []*Item, and string) string {
	n, boxes := 0, 0
	for _, it := range items {
		if it.rejected > 0 {
			n += it.rejected
			boxes++
		}
	}
	if n == 0 {
		return ""
	}
	return fmt.Sprintf("%d entr(ies) of %d container(s) were left out for unsafe or ambiguous names (zip-slip paths, duplicates)%s; %s.", n, boxes, and, LeftOutNamed)
}

// LeftOutNamed ends the limitation that counts the entries left out: where
// the graph names them. A result without the occurrences says where it
// does instead.
const LeftOutNamed = "their containers' occurrence limitations name them"

// checkTotal fails with max_total_bytes before any byte of items is read
// when the bytes they are sure to yield already exceed it: files on disk
// (their size when walked) and packed ASAR entries (their bytes lie within
// the archive). Compressed or unpacked entries, whose declared sizes can
// lie, are held to the limit as they are read.
func (b *graphBuilder) checkTotal(items []*Item) error {
	sure := b.total.Load()
	for _, it := range items {
		if it.declaredSize != nil && it.compressedSize == nil && (it.box == nil || it.loc != nil && !it.unpacked) {
			sure += *it.declaredSize
		}
	}
	if l := b.req.Limits.MaxTotalBytes; sure > l {
		return limitFailure("max_total_bytes", "", sure, l)
	}
	return nil
}

// hashable selects the items whose bytes are read.
func (b *graphBuilder) hashable(items []*Item) []*Item {
	var out []*Item
	for _, it := range items {
		if it.Kind != ports.EntryFile {
			continue
		}
		switch {
		case it.special != "":
			it.status = hashUnavailable
			it.limits = append(it.limits, fmt.Sprintf("Not a regular file (%s); its bytes were not read.", it.special))
		case it.encrypted:
			it.status = hashUnavailable
			it.limits = append(it.limits, "The entry is encrypted; its bytes were not read.")
		default:
			out = append(out, it)
		}
	}
	return out
}

// hashAll hashes items: the root archive and its stored entries in one
// sequential read of the archive (hashStream), the others with one worker
// per CPU, largest first. The first failure stops the others; the error
// reported is the one of the first item in path order, so a failure names
// the same entry every time.
func (b *graphBuilder) hashAll(ctx context.Context, items []*Item) error {
	work, stop := context.WithCancel(ctx)
	defer stop()
	root, stream, rest := b.splitStream(items)
	if root != nil {
		b.hashStream(work, stop, root, stream)
	}
	if work.Err() == nil {
		b.hashPool(work, stop, rest)
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	var first *Item
	for _, it := range items {
		if it.err != nil && !errors.Is(it.err, context.Canceled) && (first == nil || it.Path < first.Path) {
			first = it
		}
	}
	if first != nil {
		return first.err
	}
	return nil
}

// hashPool hashes items with one worker per CPU, largest first, each item
// opened on its own.
func (b *graphBuilder) hashPool(work context.Context, stop func(), items []*Item) {
	if len(items) == 0 {
		return
	}
	order := slices.Clone(items)
	slices.SortStableFunc(order, func(x, y *Item) int { return cmp.Compare(artSize(y), artSize(x)) })
	jobs := make(chan *Item)
	var wg sync.WaitGroup
	for range min(runtime.NumCPU(), len(order)) {
		wg.Go(func() {
			sc := newHashScratch()
			for it := range jobs {
				if work.Err() != nil {
					continue
				}
				if it.err = b.hashItem(work, it, sc); it.err != nil && !errors.Is(it.err, context.Canceled) {
					stop()
				}
				b.hashed()
			}
		})
	}
feed:
	for _, it := range order {
		select {
		case jobs <- it:
		case <-work.Done():
			break feed
		}
	}
	close(jobs)
	wg.Wait()
}

// progressBytes is how many bytes read between two progress observations
// (hashWriter): at the 270 MB/s a deflated 4 GiB entry was read at here, a
// few a second, which the MCP front end rate-limits.
var progressBytes int64 = 64 << 20

// hashed counts one more item hashed, reporting progress now and then.
func (b *graphBuilder) hashed() {
	if n := b.hashedN.Add(1); n%500 == 0 {
		b.req.Observe(fmt.Sprintf("hashed %d files", n))
	}
}

func artSize(it *Item) int64 {
	if it.declaredSize != nil {
		return *it.declaredSize
	}
	return 0
}

// open returns an item's bytes as they are now.
func (b *graphBuilder) open(ctx context.Context, it *Item) (io.ReadCloser, error) {
	if it.box == nil && it.parent != nil && it.parent.held > 0 {
		if rc, ok := openReadAt(int(it.parent.held-1), it.name); ok {
			return rc, nil
		}
	}
	return b.openAt(ctx, it.Path, it.fsRel, it.inner, it.box)
}

// openAt opens the item at logical path p: inner in box, or fsRel on the
// file system when box is nil.
func (b *graphBuilder) openAt(ctx context.Context, p, fsRel, inner string, box *artBox) (io.ReadCloser, error) {
	if box != nil {
		rc, err := box.c.Open(ctx, inner)
		if err != nil {
			return nil, withPath(err, p)
		}
		return rc, nil
	}
	if rc, ok := openReadBeneath(b.fsDir, fsRel); ok {
		return rc, nil
	}
	f, err := b.openRegular(fsRel)
	if err != nil {
		return nil, &Failure{Reason: "io", Path: p, Err: err}
	}
	return f, nil
}

// satAdd adds two non-negative sizes, saturating.
func satAdd(a, b int64) int64 {
	if a > math.MaxInt64-b {
		return math.MaxInt64
	}
	return a + b
}

// openRegular opens name under the builder's root without blocking and keeps it only if
// it is a regular file once open: a file swapped for a FIFO or a device
// between the walk and the read would otherwise block the open (a FIFO with
// no writer) or the read forever.
// One openat2 call opens it where the kernel has it (beneath_linux.go);
// otherwise, or when that call refuses, os.Root opens it component by
// component and gives the error.
func (b *graphBuilder) openRegular(name string) (*os.File, error) {
	f, ok := openBeneath(b.fsDir, name)
	if !ok {
		var err error
		if f, err = b.fsRoot.OpenFile(name, os.O_RDONLY|syscall.O_NONBLOCK, 0); err != nil {
			return nil, err
		}
	}
	st, err := f.Stat()
	if err == nil && !st.Mode().IsRegular() {
		err = fmt.Errorf("%s is not a regular file any more (%v)", name, st.Mode().Type())
	}
	if err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

// hashScratch is one hashing goroutine's reusable state.
type hashScratch struct {
	buf  []byte // read buffer
	head []byte // the first headBytes of the item being hashed
	tail []byte // its last tailBytes, for a JavaScript file
	h    hash.Hash
}

func newHashScratch() *hashScratch {
	return &hashScratch{buf: make([]byte, 1<<20), head: make([]byte, 0, headBytes), tail: make([]byte, 0, tailBytes), h: sha256.New()}
}

// hashItem reads one item within the limits, recording its hash, size and
// class (from its first bytes, which are kept only for a container), and
// keeping the whole bytes of an ASAR inside a container so it can be
// expanded.
func (b *graphBuilder) hashItem(ctx context.Context, it *Item, sc *hashScratch) error {
	rc, err := b.open(ctx, it)
	if err != nil && b.req.Policy == integrityRecord && isUnpackedMissing(err) {
		// Packagers strip or move .unpacked files after writing the
		// header; under record-and-continue the rest of the archive is
		// still worth inventorying, and the entry says what is missing.
		it.status, it.gone = hashUnavailable, err
		it.limits = append(it.limits, "Its bytes are missing from the archive's .unpacked companion directory; nothing was read or verified.")
		return nil
	}
	if err != nil {
		return err
	}
	defer rc.Close()
	hw := b.newHashWriter(ctx, it, sc)
	defer hw.charged.done()
	if err := hw.sizeContent(); err != nil {
		return err
	}
	// Read in 1 MiB chunks (an *os.File's WriteTo would copy in 32 KiB ones),
	// or straight into the content buffer while it has room.
	for {
		buf := sc.buf
		if room := hw.content[len(hw.content):cap(hw.content)]; len(room) > 0 {
			buf = room
		}
		k, rerr := rc.Read(buf)
		if k > 0 {
			if _, err := hw.Write(buf[:k]); err != nil {
				return err
			}
		}
		if rerr == io.EOF {
			break
		}
		if rerr != nil {
			return withPath(rerr, it.Path)
		}
	}
	b.finishItem(it, hw)
	return nil
}

// newHashWriter starts taking it's bytes with sc's hasher and head buffer;
// the caller calls hw.charged.done when it is finished with it.
func (b *graphBuilder) newHashWriter(ctx context.Context, it *Item, sc *hashScratch) *hashWriter {
	hw := &hashWriter{b: b, ctx: ctx, it: it, h: sc.h, head: sc.head[:0], keep: -1, sliceAt: -1, ratioMax: -1}
	if isJSName(it.name) {
		hw.tail = sc.tail[:0]
	}
	hw.h.Reset()
	l := b.req.Limits
	if it.compressedSize != nil {
		hw.ratioMax = max(*it.compressedSize, 1) * l.MaxCompressionRatio
	}
	hw.wanted = b.req.Content != nil && b.req.Wants != nil && it != b.root && b.req.Wants(it.Path, artSize(it))
	if hw.wanted {
		hw.charged.what = "the content of " + it.Path
		if it.box != nil {
			// Declared sizes are the container's word: start small and
			// charge the buffer as the bytes actually arrive.
			hw.content = make([]byte, 0, min(artSize(it), l.MaxEntryBytes, 1<<20)+1)
		}
	}
	return hw
}

// sizeContent makes the content buffer of a wanted file-system item, whose
// size the file system gave (and the total was checked against before any
// read): it is charged first and made once, one byte larger so that the
// end of the file is read into it too; a file that grew since is appended.
func (w *hashWriter) sizeContent() error {
	if !w.wanted || w.content != nil {
		return nil
	}
	n := min(artSize(w.it), w.b.req.Limits.MaxEntryBytes) + 1
	if err := w.charged.to(w.ctx, n); err != nil {
		return err
	}
	w.content = make([]byte, 0, n)
	return nil
}

// finishItem records what hw saw of every byte of it.
func (b *graphBuilder) finishItem(it *Item, hw *hashWriter) {
	var sum [sha256.Size]byte
	it.SHA256, it.Size, it.Hashed = hex.EncodeToString(hw.h.Sum(sum[:0])), hw.n, true
	it.status = hashVerified
	it.class = classifyArtifact(it.name, hw.head, hw.tail, it.slice, b.req.Openers)
	if b.recognizeHead(hw.head, it.name) != nil {
		it.head = slices.Clone(hw.head) // kept for expansion
	}
	if hw.wanted && (it.declared == "" || it.declared == it.SHA256) {
		b.req.Content(it.Path, it.SHA256, hw.content)
	}
}

// hashWriter takes an item's bytes in order.
type hashWriter struct {
	b        *graphBuilder
	ctx      context.Context
	it       *Item
	h        hash.Hash
	head     []byte
	tail     []byte // the last tailBytes so far; nil unless the item is JavaScript
	n        int64
	ratioMax int64
	keep     int // undecided -1; 0 no; 1 yes
	sliceAt  int64
	wanted   bool
	content  []byte
	charged  growth
	err      error // the error Write returned
}

func (w *hashWriter) Write(chunk []byte) (int, error) {
	if err := w.write(chunk); err != nil {
		w.err = err
		return 0, err
	}
	return len(chunk), nil
}

func (w *hashWriter) write(chunk []byte) error {
	b, it, l := w.b, w.it, w.b.req.Limits
	k := len(chunk)
	if w.wanted {
		if err := w.charged.to(w.ctx, int64(len(w.content)+k)); err != nil {
			return err
		}
		if n := len(w.content); k > 0 && k <= cap(w.content)-n && &w.content[:n+1][n] == &chunk[0] {
			w.content = w.content[:n+k] // read into the buffer's room (hashItem)
		} else {
			w.content = append(w.content, chunk...)
		}
	}
	prev := w.n
	if len(w.head) < headBytes {
		w.head = append(w.head, chunk[:min(k, headBytes-len(w.head))]...)
	}
	if w.tail != nil {
		w.tail = keepTail(w.tail, chunk)
	}
	if w.sliceAt < 0 && len(w.head) >= 28 {
		w.sliceAt = universalSliceOffset(w.head)
	}
	if w.sliceAt > 0 && len(it.slice) < 16 {
		it.slice = artCapture(it.slice, chunk, w.n, w.sliceAt, 16)
	}
	w.h.Write(chunk)
	w.n += int64(k)
	total := b.total.Add(int64(k))
	if total > l.MaxTotalBytes {
		return limitFailure("max_total_bytes", it.Path, total, l.MaxTotalBytes)
	}
	if total/progressBytes != (total-int64(k))/progressBytes {
		// One large file takes seconds; say so as its bytes go by, so a
		// client's request timeout is reset.
		at := it.Path
		if it == b.root {
			at = filepath.Base(b.req.Path)
		}
		b.req.Observe(fmt.Sprintf("read %d MiB (%s)", total>>20, at))
	}
	// The root is the archive itself, not an entry: an ASAR or ZIP larger
	// than max_entry_bytes opens, and its entries are held to the limit
	// (max_total_bytes still bounds the whole read).
	if w.n > l.MaxEntryBytes && it != b.root {
		return limitFailure("max_entry_bytes", it.Path, w.n, l.MaxEntryBytes)
	}
	if w.ratioMax >= 0 && w.n > w.ratioMax {
		return limitFailure("max_compression_ratio", it.Path, w.n/max(*it.compressedSize, 1), l.MaxCompressionRatio)
	}
	switch {
	case w.keep == 1:
		if err := it.spill.write(chunk); err != nil {
			return &Failure{Reason: "io", Path: it.Path, Err: err}
		}
	case w.keep < 0 && len(w.head) >= 17:
		// Decided on the chunk that completes the first 17 bytes; the
		// earlier bytes are all in head.
		w.keep = 0
		if it.box != nil && b.expandable(it) == "" && b.recognizeHead(w.head, it.name) != nil {
			w.keep = 1
			if err := b.reserve(w.ctx, "a nested archive held in memory ("+it.Path+")", artSpillMem); err != nil {
				return err
			}
			it.spill = b.newSpill()
			if err := it.spill.write(w.head[:prev]); err != nil {
				return &Failure{Reason: "io", Path: it.Path, Err: err}
			}
			if err := it.spill.write(chunk); err != nil {
				return &Failure{Reason: "io", Path: it.Path, Err: err}
			}
		}
	}
	return w.ctx.Err()
}

// keepTail is tail (a buffer of capacity tailBytes) holding the last
// tailBytes of its bytes followed by chunk.
func keepTail(tail, chunk []byte) []byte {
	if len(chunk) >= tailBytes {
		return append(tail[:0], chunk[len(chunk)-tailBytes:]...)
	}
	if over := len(tail) + len(chunk) - tailBytes; over > 0 {
		tail = tail[:copy(tail, tail[over:])]
	}
	return append(tail, chunk...)
}

// isJSName reports a JavaScript file's name (classifyArtifact's test).
func isJSName(name string) bool {
	ext := strings.ToLower(path.Ext(name))
	return ext == ".js" || ext == ".mjs" || ext == ".cjs"
}

// artCapture appends to dst the bytes of chunk (which starts at stream offset
// base) that fall in [at, at+n).
func artCapture(dst, chunk []byte, base, at int64, n int) []byte {
	from := at + int64(len(dst))
	end := base + int64(len(chunk))
	if from < base || from >= end {
		return dst
	}
	want := min(int64(n-len(dst)), end-from)
	return append(dst, chunk[from-base:from-base+want]...)
}

// applyPolicy compares declared and observed hashes. Under fail the first
// mismatch in path order is an error; under record-and-continue every
// mismatch is marked and later recorded as a contradiction.
func (b *graphBuilder) applyPolicy(items []*Item) error {
	var mism []*Item
	for _, it := range items {
		if it.Hashed && it.declared != "" && it.declared != it.SHA256 {
			mism = append(mism, it)
		}
	}
	if len(mism) == 0 {
		return nil
	}
	slices.SortFunc(mism, func(x, y *Item) int { return strings.Compare(x.Path, y.Path) })
	if b.req.Policy != integrityRecord {
		return integrityMismatch(b.req.Op, mism[0])
	}
	for _, it := range mism {
		it.Mismatch, it.status = true, hashMismatched
		it.limits = append(it.limits, fmt.Sprintf("Declared sha256 %s differs from the observed bytes (%s); the content is observed-untrusted.", it.declared, it.SHA256))
	}
	return nil
}

// expandable returns "" when a recognised container at it may be expanded,
// or why not.
func (b *graphBuilder) expandable(it *Item) string {
	switch {
	case it == b.root:
		return "root"
	case it.box == nil && b.isDir:
		return ""
	case it.box != nil && it.box.root && it.box.format != "asar":
		return ""
	case it.box != nil && it.box.format == "asar" && it.box.root:
		return "it is inside an ASAR archive; only root ASARs and ASARs in directories or a root ZIP are expanded"
	}
	return "it is inside a nested container; only one level of nesting is expanded"
}

func (b *graphBuilder) recognize(it *Item) ports.ContainerOpener {
	return b.recognizeHead(it.head, it.name)
}

func (b *graphBuilder) recognizeHead(head []byte, name string) ports.ContainerOpener {
	for _, o := range b.req.Openers {
		if _, ok := o.Recognize(head, name); ok {
			return o
		}
	}
	return nil
}

// expandNested opens the ASARs found in a directory or a root ZIP (never a
// contradicted one) and records why other containers stay opaque.
func (b *graphBuilder) expandNested(ctx context.Context, hashed []*Item) ([]*Item, error) {
	var added []*Item
	for _, it := range hashed {
		if it == b.root || !it.Hashed {
			continue
		}
		o := b.recognize(it)
		if o == nil {
			noteMisnamed(it)
			continue
		}
		format, _ := o.Recognize(it.head, it.name)
		why := b.expandable(it)
		switch {
		case format != "asar":
			why = "nested " + format + " containers are recorded, not expanded"
		case it.Mismatch:
			why = "its bytes contradict the declared integrity, so they are quarantined"
		}
		if why != "" {
			it.opaque = why
			it.limits = append(it.limits, fmt.Sprintf("Nested %s container not expanded: %s.", format, why))
			continue
		}
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		b.req.Observe("expanding " + it.Path)
		var ra io.ReaderAt
		var size int64
		var companion func(context.Context, string) (io.ReadCloser, error)
		if it.box == nil {
			f, err := b.openRegular(it.fsRel)
			if err != nil {
				return nil, &Failure{Reason: "io", Path: it.Path, Err: err}
			}
			st, err := f.Stat()
			if err != nil || st.Size() != it.Size {
				f.Close()
				return nil, ChangedError(b.req.Op, b.req.Path, "nested archive "+it.Path+" changed while it was read")
			}
			ra, size, companion = f, st.Size(), b.fsCompanion(it.fsRel)
		} else {
			ra, size = it.spill.readerAt()
			companion = boxCompanion(it.box, it.inner)
		}
		before := len(b.items)
		bx, err := b.openBox(ctx, o, format, it, ra, size, companion)
		if err != nil {
			if c, ok := ra.(io.Closer); ok {
				c.Close()
			}
			return nil, err
		}
		if err := b.addEntries(bx, it.Path); err != nil {
			return nil, err
		}
		it.spill = nil // the box owns its reader now
		added = append(added, b.items[before:]...)
	}
	return added, nil
}

// recheck fails when the root changed while it was read: a directory's
// tree is listed again and its entries' stat fingerprints compared
// (recheckDirs); a file's stat is compared. (The reference hashes the root twice; a stat comparison catches
// the same edits without reading the bytes again.)
func (b *graphBuilder) recheck(ctx context.Context, st os.FileInfo) error {
	now, err := os.Stat(b.req.Path)
	if err != nil {
		return ChangedError(b.req.Op, b.req.Path, "the root disappeared while it was read")
	}
	if !b.isDir {
		if artStamp(now) != artStamp(st) || !os.SameFile(now, st) {
			return ChangedError(b.req.Op, b.req.Path, "the root file changed while it was read")
		}
		return nil
	}
	return b.recheckDirs(ctx)
}

// seal classifies the content, computes the content IDs bottom-up and
// assembles the sorted records. The per-item work (classification, IDs,
// the graph's canonical text) runs on every core; every choice that
// depends on order is made in the same order as on one core.
func (b *graphBuilder) seal() (*Graph, error) {
	items := b.items
	g, nodes, sorted := b.sealRoot(items)
	if err := b.sealRest(g, nodes, items, sorted); err != nil {
		return nil, err
	}
	return g, nil
}

// sealRoot does what the root's digest needs (the content IDs, children
// before parents) and returns the graph with its root, items and
// limitations, the nodes by content ID, and the items in occurrence order.
func (b *graphBuilder) sealRoot(items []*Item) (*Graph, map[string]*Node, []*Item) {
	// Files and links first, on every core: their IDs depend on their
	// bytes (or target) alone.
	parallel(len(items), digestChunk, func(lo, hi int, d *digester) {
		for _, it := range items[lo:hi] {
			switch {
			case it.Kind == ports.EntryFile && it.Hashed:
				it.artifactID = d.artifactID(it.SHA256) // classified when hashed
			case it.Kind == ports.EntrySymlink:
				it.linkSHA = fastDigest(jcsField{"kind", "symlink"}, jcsField{"target", it.link})
				it.artifactID = d.artifactID(it.linkSHA)
			}
		}
	})
	// Then the nodes, children before parents (deepest paths first): a
	// directory's ID needs its children's, and the first occurrence of a
	// content in this order describes its node.
	// A JavaScript file whose source map sits beside it (x.js.map) was
	// built: its node says javascript-bundle whatever its bytes showed.
	for _, it := range items {
		if it.Kind == ports.EntryFile && it.class.kind == "source-map" && len(it.name) > 4 && strings.HasSuffix(it.name, ".map") {
			if js, ok := b.byPath[strings.TrimSuffix(it.Path, ".map")]; ok && js.class.kind == "javascript" {
				js.class.format = "javascript-bundle"
			}
		}
	}
	order := deepestFirst(items)
	nodes := make(map[string]*Node, len(items))
	addNode := func(it *Item, n func() Node) {
		if _, ok := nodes[it.artifactID]; !ok {
			nn := n()
			nodes[it.artifactID] = &nn
		}
	}
	var d digester
	for _, it := range order {
		switch {
		case it.Kind == ports.EntryFile && it.Hashed:
			addNode(it, func() Node {
				state := "materialized"
				if it.box != nil {
					state = "embedded"
				}
				return Node{ArtifactID: it.artifactID, Kind: it.class.kind, Format: it.class.format, SHA256: it.SHA256, Size: it.Size,
					MediaType: core.OptString(it.class.media), Architecture: core.OptString(it.class.arch), Executable: it.class.executable,
					ContentState: state, Limitations: []string{}}
			})
		case it.Kind == ports.EntrySymlink:
			addNode(it, func() Node {
				return Node{ArtifactID: it.artifactID, Kind: "unknown", Format: "file", SHA256: it.linkSHA, Size: int64(len(it.link)),
					ContentState: "virtual", Limitations: []string{fmt.Sprintf(symlinkNote, it.link)}}
			})
		case it.Kind == ports.EntryDirectory && it != b.root:
			sum := d.dirDigest(it)
			it.artifactID = d.artifactID(sum)
			addNode(it, func() Node {
				return Node{ArtifactID: it.artifactID, Kind: "container", Format: "directory", SHA256: sum, Size: it.treeBytes,
					ContentState: "virtual", Limitations: []string{}}
			})
		}
	}
	root := b.root
	// The occurrences' order (the root, then by path), which is also the
	// order of the root directory's children in its digest.
	sorted := slices.Clone(items)
	slices.SortFunc(sorted, func(x, y *Item) int {
		if x == root {
			return -1
		}
		if y == root {
			return 1
		}
		return strings.Compare(x.Path, y.Path)
	})
	var rootSHA, rootFormat string
	if b.isDir {
		var children []*Item
		var size int64
		for _, it := range sorted[1:] {
			if it.box == nil {
				children = append(children, it)
				if it.Kind == ports.EntryFile {
					size += it.Size
				}
			}
		}
		n := 64
		for _, c := range children {
			n += 2*len(c.Path) + 128
		}
		d.buf = append(make([]byte, 0, n), `{"children":[`...) // written once, into one buffer
		for i, c := range children {
			if i > 0 {
				d.buf = append(d.buf, ',')
			}
			d.buf = append(d.buf, `{"artifact_id":`...)
			d.buf = appendOptID(d.buf, c.artifactID)
			d.buf = append(d.buf, `,"logical_path":`...)
			d.buf = appendStr(d.buf, c.Path)
			d.buf = append(d.buf, '}')
		}
		d.buf = append(d.buf, `],"kind":"directory-root"}`...)
		rootSHA = d.id("", d.buf)
		rootFormat = "directory"
		root.artifactID = d.artifactID(rootSHA)
		addNode(root, func() Node {
			return Node{ArtifactID: root.artifactID, Kind: "container", Format: "directory", SHA256: rootSHA, Size: size,
				ContentState: "virtual", Limitations: []string{}}
		})
	} else {
		rootSHA, rootFormat = root.SHA256, root.class.format
	}
	rootID := root.artifactID
	g := &Graph{Manifest: InventoryArtifactResultManifest{SchemaVersion: artifactSchemaVersion, RootArtifactID: rootID, RootSHA256: rootSHA, RootFormat: rootFormat},
		Items: sorted, b: b, Limitations: sealLimitations(sorted)}
	for _, it := range sorted {
		for _, e := range it.leftOut {
			g.LeftOut = append(g.LeftOut, LeftOut{Container: it.Path, Entry: e})
		}
		g.leftOutTotal += it.rejected
	}
	return g, nodes, sorted
}

// sealLimitations are the graph's limitations, from its items alone.
func sealLimitations(sorted []*Item) []string {
	lims := []string{}
	contradictions, opaque, unavailable, misnamed := 0, 0, 0, 0
	for _, it := range sorted {
		if it.Mismatch {
			contradictions++
		}
		if it.misnamed {
			misnamed++
		}
		if it.opaque != "" {
			opaque++
		}
		if it.status == hashUnavailable {
			unavailable++
		}
	}
	if contradictions > 0 {
		lims = append(lims, fmt.Sprintf("%d integrity contradiction(s) were recorded; mismatched content is observed-untrusted.", contradictions))
	}
	if opaque > 0 {
		lims = append(lims, fmt.Sprintf("%d nested container(s) were recorded without being expanded; see the occurrences' limitations.", opaque))
	}
	if misnamed > 0 {
		lims = append(lims, fmt.Sprintf("%d file(s) named .asar are not ASAR archives; see the occurrences' limitations.", misnamed))
	}
	if unavailable > 0 {
		lims = append(lims, fmt.Sprintf("%d file(s) could not be read (encrypted, not regular, or missing from an ASAR's .unpacked companion); their hash_status is unavailable.", unavailable))
	}
	if l := leftOut(sorted, ""); l != "" {
		lims = append(lims, l)
	}
	return lims
}

// sealRest completes g (sealRoot): the occurrences, edges and nodes, then
// the graph's digest, or its text.
func (b *graphBuilder) sealRest(g *Graph, nodes map[string]*Node, items, sorted []*Item) error {
	root, rootID := b.root, g.Manifest.RootArtifactID
	parallel(len(sorted), digestChunk, func(lo, hi int, d *digester) {
		for _, it := range sorted[lo:hi] {
			if it == root {
				it.occurrenceID = "occ_" + fastDigest(jcsField{"root", rootID})
			} else {
				it.occurrenceID = d.occurrenceID(rootID, it.Path, string(it.Kind))
			}
		}
	})
	occs := make([]Occurrence, 0, len(items))
	byOcc := make(map[string]*Item, len(items))
	var contradictions []Contradiction
	for i, it := range sorted {
		it.ord = i
		o := Occurrence{OccurrenceID: it.occurrenceID, ArtifactID: core.OptString(it.artifactID), LogicalPath: it.Path,
			EntryKind: string(it.Kind), DeclaredSize: it.declaredSize, CompressedSize: it.compressedSize, Executable: it.exec,
			Encrypted: it.encrypted, HashStatus: cmp.Or(it.status, hashVerified), SourceLocation: it.loc, Limitations: artStrings(it.limits)}
		if it.parent != nil {
			// The records point into each other (occs never grows past its
			// capacity), not into the items, which need not outlive them.
			o.ParentOccurrenceID = &occs[it.parent.ord].OccurrenceID
		}
		if it.unpacked {
			o.Limitations = append(o.Limitations, "Stored outside the archive, in its .unpacked companion directory.")
		}
		if it.Kind == ports.EntrySymlink && linkLeaves(it.Path, it.link) {
			o.Limitations = append(o.Limitations, fmt.Sprintf("Its target %q leads outside the inventoried root; rea records links and never follows or writes them.", it.link))
			g.LinksOut = append(g.LinksOut, LinkOut{Path: it.Path, Target: it.link})
		}
		occs = append(occs, o)
		byOcc[it.occurrenceID] = it
		if it.Mismatch {
			contradictions = append(contradictions, Contradiction{
				ContradictionID: "ic_" + fastDigest(jcsField{"root_artifact_id", rootID}, jcsField{"logical_path", it.Path},
					jcsField{"declared_sha256", it.declared}, jcsField{"observed_sha256", it.SHA256}),
				OccurrenceID: it.occurrenceID, ParentArtifactID: it.parent.artifactID, LogicalPath: it.Path,
				DeclaredSHA256: it.declared, ObservedSHA256: it.SHA256, EntryKind: "file", Unpacked: it.unpacked,
				Trust: contradictionTrust, Provenance: contradictionSource,
				Limitations: []string{contradictionLimitation(it)}})
		}
	}
	if len(contradictions) > maxContradictions {
		return limitFailure("max_integrity_contradictions", contradictions[maxContradictions].LogicalPath,
			int64(len(contradictions)), maxContradictions)
	}
	slices.SortFunc(contradictions, func(x, y Contradiction) int { return strings.Compare(x.ContradictionID, y.ContradictionID) })

	nEdges := len(sorted)
	for _, it := range sorted {
		if it.Kind == ports.EntryFile && strings.HasSuffix(it.name, ".map") {
			nEdges++ // a maps-source edge, perhaps
		}
	}
	edges := make([]Edge, 0, nEdges)
	addEdge := func(parent, child, relation string, occ *Item) {
		o := &occs[occ.ord]
		edges = append(edges, Edge{ParentArtifactID: parent, ChildArtifactID: child, Relation: relation, OccurrenceID: o.OccurrenceID,
			LogicalPath: &o.LogicalPath})
	}
	for _, it := range sorted {
		if it == root || it.artifactID == "" || it.parent == nil || it.parent.artifactID == "" {
			continue
		}
		addEdge(it.parent.artifactID, it.artifactID, "contains", it)
		if it.Kind == ports.EntryFile && strings.HasSuffix(it.name, ".map") && len(it.name) > 4 {
			target := it.parent.Path + "/" + strings.TrimSuffix(it.name, ".map")
			if it.parent == root {
				target = strings.TrimSuffix(it.name, ".map")
			}
			if js, ok := b.byPath[target]; ok && js.Kind == ports.EntryFile && js.artifactID != "" {
				addEdge(it.artifactID, js.artifactID, "maps-source", it)
			}
		}
	}
	parallel(len(edges), digestChunk, func(lo, hi int, d *digester) {
		for i := lo; i < hi; i++ {
			edges[i].EdgeID = d.edgeID(&edges[i])
		}
	})
	slices.SortFunc(edges, func(x, y Edge) int { return strings.Compare(x.EdgeID, y.EdgeID) })
	for i := range edges {
		edges[i].Ordinal = i
	}
	ids := make([]string, 0, len(nodes))
	for id := range nodes {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	nodeList := make([]Node, len(ids))
	nodeOf := make(map[string]*Node, len(ids))
	for i, id := range ids {
		nodeList[i] = *nodes[id]
		nodeOf[id] = &nodeList[i]
	}
	if contradictions == nil {
		contradictions = []Contradiction{}
	}
	g.Manifest.NodeCount, g.Manifest.OccurrenceCount, g.Manifest.EdgeCount = len(nodeList), len(occs), len(edges)
	g.Nodes, g.Occurrences, g.Edges, g.Contradictions = nodeList, occs, edges, contradictions
	g.byOcc, g.nodeOf = byOcc, nodeOf
	if b.req.ResultOnly && !b.req.KeepOpen {
		// Nothing reads the graph's items again: let them go before the
		// text is written (the records hold what the result needs).
		g.Items, g.byOcc, g.nodeOf = nil, nil, nil
		b.items, b.byPath, b.root = nil, nil, nil
		if len(items) >= collectBeforeTextItems && collect.Load() {
			// The containers' directories and the items are garbage now:
			// collect them so the text (about 1.5 KB an item) reuses their
			// memory instead of growing the heap past both (peak RSS on a
			// 37k-entry ASAR: 205 MB without, 152 MB with, for about 30 ms
			// of marking the records).
			runtime.GC()
		}
	}
	manifestID := func(graphSHA string) string {
		return "agm_" + fastDigest(jcsField{"schema_version", artifactSchemaVersion}, jcsField{"root_artifact_id", rootID}, jcsField{"graph_sha256", graphSHA})
	}
	if b.req.NoText {
		g.Manifest.GraphSHA256, _ = graphDigest(g.Nodes, g.Occurrences, g.Edges, g.Contradictions)
		g.Manifest.ManifestID = manifestID(g.Manifest.GraphSHA256)
		return nil
	}
	// The inventory's canonical text, written once: graph_sha256 is the
	// digest of its four lists, and the text is the Evidence's result.
	g.text, g.Manifest.GraphSHA256, g.Manifest.ManifestID = g.inventory().sealText(manifestID)
	return nil
}

func contradictionLimitation(it *Item) string {
	if it.unpacked {
		return "The unpacked companion file differs from the hash declared in the archive header; packagers commonly sign or strip .asar.unpacked binaries after writing the header."
	}
	return "The bytes differ from the hash declared by the container; they are recorded as observed and not trusted."
}

// deepestFirst orders items by depth, deepest first, keeping their order
// within a depth (a stable sort by depth, counting each path's depth once).
func deepestFirst(items []*Item) []*Item {
	depth := make([]int32, len(items))
	var count []int
	for i, it := range items {
		d := artDepth(it)
		depth[i] = int32(d)
		if d >= len(count) {
			count = append(count, make([]int, d+1-len(count))...)
		}
		count[d]++
	}
	// start[d] is where depth d begins: after every deeper item.
	start := make([]int, len(count))
	at := 0
	for d := len(count) - 1; d >= 0; d-- {
		start[d] = at
		at += count[d]
	}
	order := make([]*Item, len(items))
	for i, it := range items {
		order[start[depth[i]]] = it
		start[depth[i]]++
	}
	return order
}

func artDepth(it *Item) int {
	if it.Path == "." {
		return 0
	}
	return strings.Count(it.Path, "/") + 1
}

// appendOptID writes an ID, or null for none.
func appendOptID(b []byte, id string) []byte {
	if id == "" {
		return append(b, "null"...)
	}
	return appendStr(b, id)
}

// dirDigest is Digest({kind:"directory", children:[{name, artifact_id,
// entry_kind}] sorted by name}); it also sets it.treeBytes, the total bytes
// of the files beneath, from its subdirectories' (sealed first).
func (d *digester) dirDigest(it *Item) string {
	children := it.children
	byName := func(x, y *Item) int { return strings.Compare(x.name, y.name) }
	if !slices.IsSortedFunc(children, byName) { // a walked directory's are
		children = slices.Clone(children)
		slices.SortFunc(children, byName)
	}
	var size int64
	d.buf = append(d.buf[:0], `{"children":[`...)
	for i, c := range children {
		switch c.Kind {
		case ports.EntryFile:
			size += c.Size
		case ports.EntryDirectory:
			size += c.treeBytes
		}
		if i > 0 {
			d.buf = append(d.buf, ',')
		}
		d.buf = append(d.buf, `{"artifact_id":`...)
		d.buf = appendOptID(d.buf, c.artifactID)
		d.buf = append(d.buf, `,"entry_kind":`...)
		d.buf = appendStr(d.buf, string(c.Kind))
		d.buf = append(d.buf, `,"name":`...)
		d.buf = appendStr(d.buf, c.name)
		d.buf = append(d.buf, '}')
	}
	d.buf = append(d.buf, `],"kind":"directory"}`...)
	it.treeBytes = size
	return d.id("", d.buf)
}

func artStrings(s []string) []string {
	if s == nil {
		return []string{}
	}
	return slices.Clone(s)
}

type artBytes []byte

func (b artBytes) ReadAt(p []byte, off int64) (int, error) {
	if off < 0 || off > int64(len(b)) {
		return 0, io.EOF
	}
	n := copy(p, b[off:])
	if n < len(p) {
		return n, io.EOF
	}
	return n, nil
}

func artReaderAt(b []byte) io.ReaderAt { return artBytes(b) }
