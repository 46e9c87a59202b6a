package artifact

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"rea/ports"

	"rea/core"
)

// extractHook, when set by a test, runs right after the output directory is
// created, so a test can plant what an attacker racing the extraction would.
var extractHook func(outputRoot string)

// ExtractArtifactResultArtifact is one file extract_artifact wrote.
type ExtractArtifactResultArtifact struct {
	ArtifactID   string `json:"artifact_id"`
	RelativePath string `json:"relative_path"`
	SHA256       string `json:"sha256"`
	BytesWritten int64  `json:"bytes_written"`
	Created      bool   `json:"created"`
}

// ExtractArtifactResultExtractionManifest identifies an extraction.
type ExtractArtifactResultExtractionManifest struct {
	ExtractionID          string   `json:"extraction_id"`
	SourceManifestID      string   `json:"source_manifest_id"`
	SelectedOccurrenceIDs []string `json:"selected_occurrence_ids"`
	FilesSHA256           string   `json:"files_sha256"`
	OutputRootAlias       string   `json:"output_root_alias"`
}

// ExtractArtifactResultCleanup reports the removal of a failed extraction's directory.
type ExtractArtifactResultCleanup struct {
	Attempted     bool     `json:"attempted"`
	Verified      bool     `json:"verified"`
	ResidualPaths []string `json:"residual_paths"`
}

// ExtractArtifactResult is extract_artifact's result.
type ExtractArtifactResult struct {
	Manifest                InventoryArtifactResultManifest         `json:"manifest"`
	ExtractionManifest      ExtractArtifactResultExtractionManifest `json:"extraction_manifest"`
	OutputRoot              string                                  `json:"output_root"`
	Artifacts               []ExtractArtifactResultArtifact         `json:"artifacts"`
	ContainmentVerified     bool                                    `json:"containment_verified"`
	Cleanup                 ExtractArtifactResultCleanup            `json:"cleanup"`
	Provenance              InventoryArtifactResultProvenance       `json:"provenance"`
	Limitations             []string                                `json:"limitations"`
	IntegrityContradictions []Contradiction                         `json:"integrity_contradictions"`
	ParentEvidenceID        *string                                 `json:"parent_evidence_id,omitempty"` // when the lists were cut (conciseExtraction)
}

// extractionPath is where an item is written under the output root: its
// logical path, except that the entries of a nested container go under
// "<container path>.contents/" so the container's own bytes keep their path.
func (g *Graph) extractionPath(it *Item) string {
	if it == g.b.root {
		return it.name
	}
	if it.box != nil && !it.box.root {
		return it.box.item.Path + ".contents/" + it.inner
	}
	return it.Path
}

// selectExtraction returns the items to write: the named occurrences, or
// every readable regular file (the root itself only when it is a plain file).
func (g *Graph) selectExtraction(op string, ids []string) ([]*Item, []string, error) {
	var out []*Item
	var limitations []string
	if len(ids) == 0 {
		skipped, links := 0, 0
		for _, it := range g.Items {
			if it.Kind == ports.EntrySymlink {
				links++
			}
			if it.Kind != ports.EntryFile || (it == g.b.root && it.nested != nil) {
				continue
			}
			if it.gone != nil {
				// Extraction fails for a missing unpacked file whatever the
				// policy (CONTRACTS.md §15): what was asked for cannot be
				// written.
				return nil, nil, &Failure{Reason: "unavailable", Path: it.Path, Err: it.gone}
			}
			if !it.Hashed {
				skipped++
				continue
			}
			out = append(out, it)
		}
		if skipped > 0 {
			limitations = append(limitations, fmt.Sprintf("%d file(s) whose bytes could not be read (encrypted or not regular) were not extracted.", skipped))
		}
		if links > 0 {
			limitations = append(limitations, fmt.Sprintf("%d symbolic link(s) were not extracted: rea writes regular files only (the inventory records each link's target).", links))
		}
		return out, limitations, nil
	}
	for i, id := range ids {
		it, ok := g.byOcc[id]
		switch {
		case !ok:
			return nil, nil, core.InvalidRequest(op, core.Issue{Path: []any{"occurrence_ids", i}, Reason: core.ReasonInvalidValue,
				Message: "no occurrence " + id + " in the inventory of this artifact (ids come from inventory_artifact on the same bytes)"})
		case it.Kind != ports.EntryFile:
			return nil, nil, core.InvalidRequest(op, core.Issue{Path: []any{"occurrence_ids", i}, Reason: core.ReasonInvalidValue,
				Message: fmt.Sprintf("occurrence %s is a %s, not a regular file", it.Path, it.Kind)})
		case it.gone != nil:
			return nil, nil, &Failure{Reason: "unavailable", Path: it.Path, Err: it.gone}
		case !it.Hashed:
			return nil, nil, &Failure{Reason: "unavailable", Path: it.Path, Err: errors.New("the bytes of this entry cannot be read (" + strings.Join(it.limits, " ") + ")")}
		}
		out = append(out, it)
	}
	return out, nil, nil
}

// extract writes items into a fresh directory chosen here, verifies that
// nothing but those files exists under it, and removes it on any failure or
// cancellation.
func (g *Graph) extract(ctx context.Context, op string, items []*Item, observe func(string)) (res *ExtractArtifactResult, err error) {
	out, err := os.MkdirTemp("", "rea-extract-")
	if err != nil {
		return nil, &Failure{Reason: "io", Err: fmt.Errorf("create the output directory: %w", err)}
	}
	defer func() {
		if err != nil {
			err = extractionFailed(ctx, op, out, err)
		}
	}()
	if extractHook != nil {
		extractHook(out)
	}
	root, err := os.OpenRoot(out)
	if err != nil {
		return nil, &Failure{Reason: "io", Err: err}
	}
	defer root.Close()
	type job struct {
		it  *Item
		rel string
	}
	jobs := make([]job, len(items))
	for i, it := range items {
		jobs[i] = job{it, g.extractionPath(it)}
	}
	slices.SortFunc(jobs, func(a, b job) int { return strings.Compare(a.rel, b.rel) })
	// Directories first, one at a time, refusing anything planted on the
	// way; then the files in parallel, each created exclusively.
	dirs := map[string]bool{}
	for _, j := range jobs {
		for d := path.Dir(j.rel); d != "." && !dirs[d]; d = path.Dir(d) {
			dirs[d] = true
		}
	}
	dirList := make([]string, 0, len(dirs))
	for d := range dirs {
		dirList = append(dirList, d)
	}
	slices.Sort(dirList) // a parent sorts before its children
	for _, d := range dirList {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if err := ensureDir(root, d); err != nil {
			return nil, err
		}
	}
	arts := make([]ExtractArtifactResultArtifact, len(jobs))
	work, stop := context.WithCancel(ctx)
	defer stop()
	errs := make([]error, len(jobs))
	next := make(chan int)
	var done atomic.Int64
	var wg sync.WaitGroup
	for range min(runtime.NumCPU(), max(len(jobs), 1)) {
		wg.Go(func() {
			buf := make([]byte, 1<<20)
			for i := range next {
				j := jobs[i]
				if work.Err() != nil {
					continue
				}
				n, sum, err := g.writeOne(work, root, j.rel, j.it, buf)
				if err == nil && sum != j.it.SHA256 {
					err = ChangedError(op, g.b.req.Path, j.it.Path+" changed between inventory and extraction")
				}
				if err != nil {
					errs[i] = err
					stop()
					continue
				}
				arts[i] = ExtractArtifactResultArtifact{ArtifactID: j.it.artifactID, RelativePath: j.rel, SHA256: sum, BytesWritten: n, Created: true}
				if k := done.Add(1); k%500 == 0 {
					observe(fmt.Sprintf("extracted %d of %d files", k, len(jobs)))
				}
			}
		})
	}
feed:
	for i := range jobs {
		select {
		case next <- i:
		case <-work.Done():
			break feed
		}
	}
	close(next)
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	for _, err := range errs { // the first failure in path order
		if err != nil && !errors.Is(err, context.Canceled) {
			return nil, err
		}
	}
	if err := verifyContainment(ctx, out, arts); err != nil {
		return nil, err
	}
	selected := make([]string, len(items))
	inSel := map[string]bool{}
	for i, it := range items {
		selected[i] = it.occurrenceID
		inSel[it.occurrenceID] = true
	}
	slices.Sort(selected)
	selected = slices.Compact(selected)
	files := filesDigest(arts)
	contradictions := []Contradiction{}
	for _, c := range g.Contradictions {
		if inSel[c.OccurrenceID] {
			contradictions = append(contradictions, c)
		}
	}
	res = &ExtractArtifactResult{
		Manifest: g.Manifest,
		ExtractionManifest: ExtractArtifactResultExtractionManifest{
			ExtractionID: "aex_" + fastDigest(jcsField{"source_manifest_id", g.Manifest.ManifestID},
				jcsField{"selected_occurrence_ids", selected}, jcsField{"files_sha256", files}),
			SourceManifestID: g.Manifest.ManifestID, SelectedOccurrenceIDs: selected, FilesSHA256: files, OutputRootAlias: "$OUTPUT_ROOT"},
		OutputRoot: out, Artifacts: arts, ContainmentVerified: true,
		Cleanup:                 ExtractArtifactResultCleanup{ResidualPaths: []string{}},
		Limitations:             []string{"The output directory belongs to the caller; rea does not remove it after a successful extraction."},
		IntegrityContradictions: contradictions,
	}
	if n := len(contradictions); n > 0 {
		res.Limitations = append(res.Limitations, fmt.Sprintf("%d integrity contradiction(s) were recorded; mismatched content is observed-untrusted.", n),
			"The observed bytes of contradicted entries were written as found.")
	}
	if l := leftOut(g.Items, " and not extracted"); l != "" {
		res.Limitations = append(res.Limitations, strings.Replace(l, LeftOutNamed, leftOutInExtraction, 1))
	}
	return res, nil
}

// ensureDir creates the directory d under root one component at a time,
// refusing a symbolic link or a file planted where a directory belongs.
func ensureDir(root *os.Root, d string) error {
	p := ""
	for c := range strings.SplitSeq(d, "/") {
		p = path.Join(p, c)
		fi, err := root.Lstat(p)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			if err := root.Mkdir(p, 0o755); err != nil {
				return &Failure{Reason: "path", Path: d, Err: fmt.Errorf("create %s: %w", p, err)}
			}
		case err != nil:
			return &Failure{Reason: "io", Path: d, Err: err}
		case fi.Mode()&fs.ModeSymlink != 0:
			return &Failure{Reason: "path", Path: d, Err: fmt.Errorf("a symbolic link was planted at %s in the output directory", p)}
		case !fi.IsDir():
			return &Failure{Reason: "path", Path: d, Err: fmt.Errorf("%s in the output directory is not a directory", p)}
		}
	}
	return nil
}

// writeOne creates rel exclusively (its directories exist; os.Root keeps
// every step inside the output) and copies the item's bytes into it,
// hashing them.
func (g *Graph) writeOne(ctx context.Context, root *os.Root, rel string, it *Item, buf []byte) (int64, string, error) {
	if !fs.ValidPath(rel) || rel == "." {
		return 0, "", &Failure{Reason: "path", Path: it.Path, Err: fmt.Errorf("unsafe output path %q", rel)}
	}
	perm := os.FileMode(0o644)
	if it.exec {
		perm = 0o755
	}
	f, err := root.OpenFile(rel, os.O_WRONLY|os.O_CREATE|os.O_EXCL, perm)
	if err != nil {
		return 0, "", &Failure{Reason: "path", Path: it.Path, Err: fmt.Errorf("create %s exclusively: %w", rel, err)}
	}
	rc, err := g.b.open(ctx, it)
	if err != nil {
		f.Close()
		return 0, "", err
	}
	defer rc.Close()
	h := sha256.New()
	var n int64
	for {
		k, rerr := rc.Read(buf)
		if k > 0 {
			if _, err := f.Write(buf[:k]); err != nil {
				f.Close()
				return 0, "", &Failure{Reason: "io", Path: it.Path, Err: err}
			}
			h.Write(buf[:k])
			n += int64(k)
			if total := g.extracted.Add(int64(k)); total > g.b.req.Limits.MaxTotalBytes {
				f.Close()
				return 0, "", limitFailure("max_total_bytes", it.Path, total, g.b.req.Limits.MaxTotalBytes)
			}
			if n > g.b.req.Limits.MaxEntryBytes {
				f.Close()
				return 0, "", limitFailure("max_entry_bytes", it.Path, n, g.b.req.Limits.MaxEntryBytes)
			}
			if err := ctx.Err(); err != nil {
				f.Close()
				return 0, "", err
			}
		}
		if rerr == io.EOF {
			break
		}
		if rerr != nil {
			f.Close()
			return 0, "", withPath(rerr, it.Path)
		}
	}
	if err := f.Close(); err != nil {
		return 0, "", &Failure{Reason: "io", Path: it.Path, Err: err}
	}
	return n, hex.EncodeToString(h.Sum(nil)), nil
}

// verifyContainment walks the output without following links: every entry
// must be a directory or one of the files written, and no symbolic link may
// exist anywhere under it.
func verifyContainment(ctx context.Context, out string, arts []ExtractArtifactResultArtifact) error {
	want := make(map[string]bool, len(arts))
	for _, a := range arts {
		want[filepath.FromSlash(a.RelativePath)] = true
	}
	seen := 0
	err := filepath.WalkDir(out, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		rel, err := filepath.Rel(out, p)
		if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			return fmt.Errorf("%s is outside the output directory", p)
		}
		switch t := d.Type(); {
		case t.IsDir():
			return nil
		case t.IsRegular() && want[rel]:
			seen++
			return nil
		default:
			return fmt.Errorf("unexpected %v at %s in the output directory", t, rel)
		}
	})
	if errors.Is(err, context.Canceled) {
		return err
	}
	if err == nil && seen != len(want) {
		err = fmt.Errorf("%d of %d extracted files are missing from the output directory", len(want)-seen, len(want))
	}
	if err != nil {
		return &Failure{Reason: "path", Err: fmt.Errorf("containment check failed: %w", err)}
	}
	return nil
}

// extractionFailed removes the output directory and reports whether it is
// gone: cleanup_incomplete when anything remains.
func extractionFailed(ctx context.Context, op, out string, cause error) error {
	rmErr := os.RemoveAll(out)
	_, statErr := os.Lstat(out)
	gone := rmErr == nil && errors.Is(statErr, fs.ErrNotExist)
	e := core.AsError(op, artifactError(ctx, op, cause))
	if e.Details == nil {
		e.Details = map[string]any{}
	}
	if gone {
		e.Details["cleanup"] = "complete"
		return e
	}
	underlying := e.Code
	reason := "the output directory could not be removed"
	if rmErr != nil {
		reason += ": " + rmErr.Error()
	}
	return &core.Error{Code: core.CodeCleanupIncomplete, Category: core.CategoryExecutionFailure, Err: cause,
		Message:     op + ": " + e.Message + "; " + reason,
		Remediation: "Remove " + out + " by hand; rea created it for this extraction.",
		Details: map[string]any{"operation": op, "cleanup": "incomplete", "cleanup_reason": reason,
			"resources": []string{"extraction-output-directory"}, "residual_paths": []string{out}, "execution_failure": string(underlying)}}
}
