// Command asarbench times rea's ASAR reader for bench/asar/run.sh.
//
//	asarbench -mode verify  -archive app.asar            list, read and verify every file (whole and block hashes)
//	asarbench -mode rawsha  -archive app.asar            one SHA-256 pass over every file's bytes, all cores
//	asarbench -mode extract -archive app.asar -out dir   extract every entry
//
// Each prints "<mode> <bytes> <seconds>".
package main

import (
	"context"
	"crypto/sha256"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"time"

	"rea/adapters/asar"
)

func main() {
	mode := flag.String("mode", "verify", "verify, rawsha or extract")
	archive := flag.String("archive", "", "archive path")
	out := flag.String("out", "", "extraction directory")
	workers := flag.Int("workers", runtime.NumCPU(), "parallel workers")
	flag.Parse()
	if err := run(*mode, *archive, *out, *workers); err != nil {
		fmt.Fprintln(os.Stderr, "asarbench:", err)
		os.Exit(1)
	}
}

func run(mode, archive, out string, workers int) error {
	start := time.Now()
	r, err := asar.Open(archive)
	if err != nil {
		return err
	}
	defer r.Close()
	var files []asar.Entry
	var total int64
	for _, e := range r.Entries() {
		if e.Type == asar.TypeFile {
			files = append(files, e)
			total += e.Size
		}
	}
	switch mode {
	case "verify":
		results, err := r.VerifyAll(context.Background(), workers)
		if err != nil {
			return err
		}
		for _, res := range results {
			if res.Status != asar.StatusVerified {
				return fmt.Errorf("%s: %s", res.Path, res.Status)
			}
		}
	case "rawsha":
		err = parallel(files, workers, func(e asar.Entry, buf []byte) error {
			rc, err := r.Open(e.Path)
			if err != nil {
				return err
			}
			defer rc.Close()
			h := sha256.New()
			_, err = io.CopyBuffer(h, rc, buf)
			return err
		})
	case "extract":
		err = extract(r, out, files, workers)
	default:
		err = errors.New("unknown mode " + mode)
	}
	if err != nil {
		return err
	}
	fmt.Printf("%s %d %.6f\n", mode, total, time.Since(start).Seconds())
	return nil
}

func parallel(files []asar.Entry, workers int, fn func(asar.Entry, []byte) error) error {
	jobs := make(chan asar.Entry)
	errs := make(chan error, workers)
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			buf := make([]byte, 1<<20)
			for e := range jobs {
				if err := fn(e, buf); err != nil {
					errs <- err
					for range jobs {
					}
					return
				}
			}
		})
	}
	for _, e := range files {
		jobs <- e
	}
	close(jobs)
	wg.Wait()
	close(errs)
	return <-errs
}

// extract writes the tree under out: directories first, then files in
// parallel, then links as relative symlinks.
func extract(r *asar.Reader, out string, files []asar.Entry, workers int) error {
	fsys := r.FS()
	var links []asar.Entry
	for _, e := range r.Entries() {
		switch e.Type {
		case asar.TypeDir:
			if err := os.MkdirAll(filepath.Join(out, filepath.FromSlash(e.Path)), 0o755); err != nil {
				return err
			}
		case asar.TypeLink:
			links = append(links, e)
		}
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		return err
	}
	err := parallel(files, workers, func(e asar.Entry, buf []byte) error {
		rc, err := r.Open(e.Path)
		if err != nil {
			return err
		}
		defer rc.Close()
		mode := os.FileMode(0o644)
		if e.Executable {
			mode = 0o755
		}
		f, err := os.OpenFile(filepath.Join(out, filepath.FromSlash(e.Path)), os.O_WRONLY|os.O_CREATE|os.O_EXCL, mode)
		if err != nil {
			return err
		}
		_, err = io.CopyBuffer(f, rc, buf)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		return err
	})
	if err != nil {
		return err
	}
	for _, l := range links {
		target, err := fs.ReadLink(fsys, l.Path)
		if err != nil {
			return err
		}
		if err := os.Symlink(filepath.FromSlash(target), filepath.Join(out, filepath.FromSlash(l.Path))); err != nil {
			return err
		}
	}
	return nil
}
