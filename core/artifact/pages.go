package artifact

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"syscall"

	"rea/core"
)

// Later pages of a concise inventory are cut from the complete inventory
// this connection retains instead of rebuilding the graph (about 4 s a
// page on a 20k-file ASAR). A session keeps what every page of its last
// concise inventory of a file shares (the summary, the entries, the
// retained complete record's ID) under the record's parameters and
// the root's path. A page is cut from it only while the retained record is
// still in the ledger and the bytes the inventory read are unchanged: the
// root file's SHA-256 and that of each companion file its opener asked
// for (an ASAR's .unpacked files, or their absence) are computed again
// and compared. A directory root is rebuilt for every page: its digest
// is the whole walk and hashing that the rebuild does.

// inventoryPagesKey is the session state holding the last paged inventory.
const inventoryPagesKey = "artifact.inventory-pages"

// inventoryPages is a session's last concise inventory of a file.
type inventoryPages struct {
	mu   sync.Mutex
	last *pagedInventory
}

// pagedInventory is what every page of one concise inventory shares.
type pagedInventory struct {
	key        string // the root's path and the complete record's parameters
	parent     core.EvidenceID
	companions []string              // companion files asked for, by path beside the root
	rootSHA    string                // the root's SHA-256 the build read
	stamps     map[string]*fileStamp // each companion's stamp when the build opened it (nil: absent)
	digest     string                // sourceDigest of the root and companions, from the first page cut ("" before)
	base       InventoryArtifactResult
	views      []Entry
	locations  []core.Location
}

func pagesOf(c *core.Call) *inventoryPages {
	return c.State(inventoryPagesKey, func() any { return &inventoryPages{} }).(*inventoryPages)
}

// pageKey names a concise inventory's complete record: the root's
// absolute path (a call without path inventories the open target) and the
// record's parameters.
func pageKey(c *core.Call, root string) (string, bool) {
	params, err := core.CanonicalJSON(completeParams(c.Args))
	if err != nil {
		return "", false
	}
	return root + "\x00" + string(params), true
}

// cachedPage returns the page p of the concise inventory req names, and
// its locations, when this session keeps it, its complete record is still
// retained and the bytes it was built from are unchanged; nil otherwise.
func cachedPage(ctx context.Context, c *core.Call, req Request, p pageInput) (*InventoryArtifactResult, []core.Location) {
	key, ok := pageKey(c, req.Path)
	if !ok {
		return nil, nil
	}
	pages := pagesOf(c)
	pages.mu.Lock()
	last := pages.last
	pages.mu.Unlock()
	if last == nil || last.key != key {
		return nil, nil
	}
	if _, err := c.Resolve(last.parent); err != nil {
		return nil, nil
	}
	digest, now, err := sourceDigest(ctx, req.Path, last.companions)
	if err != nil {
		return nil, nil
	}
	pages.mu.Lock()
	defer pages.mu.Unlock()
	if last.digest == "" {
		// The first page cut: the bytes are the build's when the root's
		// digest is the one it read and each companion is as it opened it.
		if digestRoot(digest) != last.rootSHA || !sameStamps(last.stamps, now) {
			return nil, nil
		}
		last.digest = digest
	}
	if digest != last.digest {
		return nil, nil
	}
	return cutPage(&last.base, last.views, p), last.locations
}

// keepPages keeps base (the concise inventory of g, without its page) and
// views (its entries) for later pages, when g's root is a regular file,
// with what the build read of it (the root's SHA-256, the companions'
// stamps): the first later page checks the bytes against them
// (cachedPage), so the root is not read again here, right after the build
// read it. parent is the retained complete record base names.
func keepPages(c *core.Call, req Request, g *Graph, parent core.EvidenceID, base *InventoryArtifactResult, views []Entry, locs []core.Location) {
	key, ok := pageKey(c, req.Path)
	if !ok || g.b == nil || g.Manifest.RootFormat == "directory" {
		return
	}
	g.b.mu.Lock()
	read := maps.Clone(g.b.companions)
	g.b.mu.Unlock()
	pages := pagesOf(c)
	pages.mu.Lock()
	pages.last = &pagedInventory{key: key, parent: parent, companions: slices.Sorted(maps.Keys(read)), rootSHA: g.Manifest.RootSHA256,
		stamps: read, base: *base, views: views, locations: locs}
	pages.mu.Unlock()
}

// sameStamps reports whether each companion is as it was when the build
// opened it (present with the same stamp, or still absent).
func sameStamps(read, now map[string]*fileStamp) bool {
	for name, st := range read {
		n := now[name]
		if (st == nil) != (n == nil) || (st != nil && *st != *n) {
			return false
		}
	}
	return true
}

// sourceDigest fingerprints the bytes an inventory of the regular file
// root reads: its SHA-256, then each companion (a path beside root) with
// its SHA-256 or "absent". It returns the stamps it saw too, the root's
// under "" (nil when a companion is absent or not a regular file).
func sourceDigest(ctx context.Context, root string, companions []string) (string, map[string]*fileStamp, error) {
	dir, err := os.OpenRoot(filepath.Dir(root))
	if err != nil {
		return "", nil, err
	}
	defer dir.Close()
	stamps := map[string]*fileStamp{}
	sum, st, err := hashRegular(ctx, dir, filepath.Base(root))
	if err != nil {
		return "", nil, err
	}
	stamps[""] = st
	digest := sum
	for _, name := range companions {
		sum, st, err := hashRegular(ctx, dir, name)
		switch {
		case err == nil:
			digest += "\x00" + name + "\x00" + sum
		case ctx.Err() != nil:
			return "", nil, ctx.Err()
		default:
			st = nil
			digest += "\x00" + name + "\x00absent"
		}
		stamps[name] = st
	}
	return digest, stamps, nil
}

// digestRoot is the root file's SHA-256 in a sourceDigest.
func digestRoot(digest string) string {
	if len(digest) < sha256.Size*2 {
		return ""
	}
	return digest[:sha256.Size*2]
}

// hashRegular returns the SHA-256 and stamp of the regular file name
// under dir, without blocking on a FIFO put in its place.
func hashRegular(ctx context.Context, dir *os.Root, name string) (string, *fileStamp, error) {
	f, err := dir.OpenFile(name, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return "", nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return "", nil, err
	}
	if !st.Mode().IsRegular() {
		return "", nil, fmt.Errorf("%s is not a regular file", name)
	}
	h := sha256.New()
	buf := make([]byte, 1<<20)
	for {
		if err := ctx.Err(); err != nil {
			return "", nil, err
		}
		n, err := f.Read(buf)
		h.Write(buf[:n])
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return "", nil, err
		}
	}
	stamp := artStamp(st)
	return hex.EncodeToString(h.Sum(nil)), &stamp, nil
}
