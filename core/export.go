package core

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// ExportResult is export_evidence_bundle's result.
type ExportResult struct {
	Path     string `json:"path"`
	Bytes    int64  `json:"bytes"`
	Records  int    `json:"records"`
	Unknowns int    `json:"unknowns"`
}

// ExportOptions configure ExportBundleFile; nil means defaults.
type ExportOptions struct {
	// Overwrite lets the export replace an existing regular file.
	Overwrite bool
	// Progress, when set, is called after every 1000 records written.
	Progress func(records int)
}

// exportHook, when set by tests, runs after each record is written.
var exportHook func(records int)

// stagingPrefix names the staging files of an export to base: they sit
// beside the destination so the final rename stays on one file system.
func stagingPrefix(base string) string { return "." + base + ".rea-export." }

const stagingSuffix = ".tmp"

// ExportBundleFile streams the canonical bundle of src into a staging file
// created beside path (O_EXCL, mode 0600), fsyncs it, publishes it under
// path atomically and fsyncs the directory. The destination changes only
// when a complete export is published: cancellation (ctx) or any failure
// removes the staging file and leaves path as it was. An existing path is
// replaced only with Overwrite and only when it is a regular file; symlinks,
// FIFOs, directories and devices are refused without being followed or
// opened. Staging files left by an export whose process died are removed.
func ExportBundleFile(ctx context.Context, path string, src BundleSource, opts *ExportOptions) (*ExportResult, error) {
	var o ExportOptions
	if opts != nil {
		o = *opts
	}
	if strings.ContainsRune(path, 0) {
		return nil, fileError("write", FileReasonPath, path, "the path contains a NUL byte", nil)
	}
	if !filepath.IsAbs(path) {
		return nil, fileError("write", FileReasonPath, path, path+" is not an absolute path", nil)
	}
	path = filepath.Clean(path)
	dir, base := filepath.Split(path)
	if base == "" || base == "." || base == ".." {
		return nil, fileError("write", FileReasonPath, path, path+" does not name a file", nil)
	}
	if st, err := os.Stat(dir); err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, fileError("write", FileReasonMissing, path, "directory "+dir+" does not exist", err)
		}
		return nil, fileError("write", FileReasonIO, path, err.Error(), err)
	} else if !st.IsDir() {
		return nil, fileError("write", FileReasonNotFile, path, dir+" is not a directory", nil)
	}
	if err := checkDestination(path, o.Overwrite); err != nil {
		return nil, err
	}
	removeStaleStaging(dir, base)

	staging, f, err := createStaging(dir, base)
	if err != nil {
		return nil, fileError("write", FileReasonIO, path, "create staging file: "+err.Error(), err)
	}
	published := false
	defer func() {
		if !published {
			f.Close()
			os.Remove(staging)
		}
	}()
	progress := o.Progress
	if exportHook != nil {
		hook, user := exportHook, progress
		progress = func(n int) {
			hook(n)
			if user != nil {
				user(n)
			}
		}
	}
	st, err := WriteBundle(ctx, f, src, progress)
	if err != nil {
		if ctx.Err() != nil {
			return nil, AsError("export_evidence_bundle", ctx.Err())
		}
		var ce *Error
		if errors.As(err, &ce) {
			return nil, ce
		}
		return nil, fileError("write", FileReasonIO, path, "write staging file: "+err.Error(), err)
	}
	if err := f.Sync(); err != nil {
		return nil, fileError("write", FileReasonIO, path, "fsync staging file: "+err.Error(), err)
	}
	if err := f.Close(); err != nil {
		return nil, fileError("write", FileReasonIO, path, "close staging file: "+err.Error(), err)
	}
	if err := ctx.Err(); err != nil { // the last moment a cancellation leaves path unchanged
		return nil, AsError("export_evidence_bundle", err)
	}
	if err := publish(staging, path, o.Overwrite); err != nil {
		return nil, err
	}
	published = true
	if err := syncDir(dir); err != nil {
		return nil, fileError("write", FileReasonIO, path, "fsync directory: "+err.Error(), err)
	}
	return &ExportResult{Path: path, Bytes: st.Bytes, Records: st.Records, Unknowns: st.Unknowns}, nil
}

// checkDestination refuses what export must not replace, without
// following or opening it.
func checkDestination(path string, overwrite bool) error {
	st, err := os.Lstat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fileError("write", FileReasonIO, path, err.Error(), err)
	}
	if !st.Mode().IsRegular() {
		what := "not a regular file"
		switch {
		case st.Mode()&fs.ModeSymlink != 0:
			what = "a symbolic link"
		case st.Mode()&fs.ModeNamedPipe != 0:
			what = "a FIFO"
		case st.IsDir():
			what = "a directory"
		}
		return fileError("write", FileReasonNotFile, path, path+" is "+what+"; export writes regular files only", nil)
	}
	if !overwrite {
		return fileError("write", FileReasonExists, path, path+" exists; pass overwrite:true to replace it", nil)
	}
	return nil
}

func createStaging(dir, base string) (string, *os.File, error) {
	for range 8 {
		var b [8]byte
		_, _ = rand.Read(b[:])
		name := filepath.Join(dir, stagingPrefix(base)+strconv.Itoa(os.Getpid())+"."+hex.EncodeToString(b[:])+stagingSuffix)
		f, err := os.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		if err != nil {
			return "", nil, err
		}
		return name, f, nil
	}
	return "", nil, errors.New("no free staging name")
}

// publish moves the complete staging file to path. Without overwrite it
// links (which fails atomically when path exists) and then unlinks the
// staging name; with overwrite it renames over the regular file.
func publish(staging, path string, overwrite bool) error {
	if !overwrite {
		err := os.Link(staging, path)
		if err == nil {
			os.Remove(staging)
			return nil
		}
		if errors.Is(err, fs.ErrExist) {
			return fileError("write", FileReasonExists, path, path+" appeared during the export; pass overwrite:true to replace it", err)
		}
		// No hard links here: check again and rename.
		if cerr := checkDestination(path, false); cerr != nil {
			return cerr
		}
	} else if err := checkDestination(path, true); err != nil {
		return err
	}
	if err := os.Rename(staging, path); err != nil {
		return fileError("write", FileReasonIO, path, "publish: "+err.Error(), err)
	}
	return nil
}

// removeStaleStaging deletes staging files for base whose exporting process
// no longer exists; those of live processes (other exports) stay.
func removeStaleStaging(dir, base string) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	prefix := stagingPrefix(base)
	for _, e := range entries {
		name := e.Name()
		if !strings.HasPrefix(name, prefix) || !strings.HasSuffix(name, stagingSuffix) || !e.Type().IsRegular() {
			continue
		}
		pidStr, _, ok := strings.Cut(strings.TrimPrefix(name, prefix), ".")
		pid, err := strconv.Atoi(pidStr)
		if !ok || err != nil || pid == os.Getpid() || processAlive(pid) {
			continue
		}
		os.Remove(filepath.Join(dir, name))
	}
}

// Export writes this session's bundle (ledger and unknowns) to path.
func (s *Session) Export(ctx context.Context, path string, opts *ExportOptions) (*ExportResult, error) {
	return ExportBundleFile(ctx, path, s.bundleSource(), opts)
}
