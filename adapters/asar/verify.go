package asar

import (
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"io"
	"runtime"
	"slices"
	"sync"
)

// Status is the outcome of verifying one file.
type Status string

const (
	StatusVerified    Status = "verified"     // hash, every block and size agree
	StatusMismatched  Status = "mismatched"   // some declared value disagrees with the bytes
	StatusNoIntegrity Status = "no-integrity" // nothing declared; the hash is still calculated
	StatusUnsupported Status = "unsupported"  // an algorithm other than SHA256 is declared
	StatusUnavailable Status = "unavailable"  // the bytes could not be read; see Err
)

// VerifyResult compares a file's declared integrity with its bytes.
// Mismatches are results, not errors.
type VerifyResult struct {
	Path             string
	Unpacked         bool
	Status           Status
	Algorithm        string // declared
	DeclaredSHA256   string // declared whole-file hash, as written in the header
	CalculatedSHA256 string // lowercase hex over the bytes read; empty when unavailable
	DeclaredSize     int64
	ObservedSize     int64 // bytes read
	BlockSize        int64
	DeclaredBlocks   int
	CalculatedBlocks int
	FailedBlocks     []BlockMismatch // blocks whose hashes differ or exist on one side only
	Err              error           // why the bytes were unavailable
}

// BlockMismatch is one failed block. An empty Declared or Calculated hash
// means the block exists only on the other side.
type BlockMismatch struct {
	Index      int
	Declared   string
	Calculated string
}

// emptySHA256 is the hash @electron/asar records for the final, empty block of
// a file whose size is a multiple of the block size.
const emptySHA256 = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"

const chunkSize = 1 << 20

var bufPool = sync.Pool{New: func() any { b := make([]byte, chunkSize); return &b }}

// Verify hashes one file (following links; the result names the file, not
// the link) and checks the whole-file hash and
// every block hash against its declared integrity. When the bytes cannot be
// read the result has StatusUnavailable and the error is returned as well.
func (r *Reader) Verify(ctx context.Context, name string) (VerifyResult, error) {
	n, err := r.fileNode(name, "verify")
	if err != nil {
		return VerifyResult{}, err
	}
	buf := bufPool.Get().(*[]byte)
	defer bufPool.Put(buf)
	res, err := r.verifyNode(ctx, n, *buf)
	if err == nil && res.Err != nil {
		err = res.Err
	}
	return res, err
}

// VerifyAll verifies every file with a pool of workers (runtime.NumCPU() when
// workers <= 0), largest files first for throughput. It returns one result
// per file, in Entries order. Per-file read failures are results with StatusUnavailable; the
// error is non-nil only when ctx ends, which is checked between files and
// between blocks.
func (r *Reader) VerifyAll(ctx context.Context, workers int) ([]VerifyResult, error) {
	if workers <= 0 {
		workers = runtime.NumCPU()
	}
	var files []*node
	for _, n := range r.entries {
		if n.typ == TypeFile {
			files = append(files, n)
		}
	}
	order := make([]int, len(files))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(files[b].size, files[a].size) })

	results := make([]VerifyResult, len(files))
	jobs := make(chan int)
	var wg sync.WaitGroup
	errs := make([]error, workers)
	for w := range workers {
		wg.Go(func() {
			buf := bufPool.Get().(*[]byte)
			defer bufPool.Put(buf)
			for i := range jobs {
				if errs[w] != nil {
					continue
				}
				res, err := r.verifyNode(ctx, files[i], *buf)
				results[i], errs[w] = res, err
			}
		})
	}
feed:
	for _, i := range order {
		select {
		case jobs <- i:
		case <-ctx.Done():
			break feed
		}
	}
	close(jobs)
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("asar: verify: %w", err)
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	return results, nil
}

// verifyNode returns an error only when ctx ends.
func (r *Reader) verifyNode(ctx context.Context, n *node, buf []byte) (VerifyResult, error) {
	res := VerifyResult{Path: n.path, Unpacked: n.unpacked, DeclaredSize: n.size, Status: StatusNoIntegrity}
	in := n.integ
	var blockSize int64
	if in != nil {
		res.Algorithm = in.Algorithm
		res.DeclaredSHA256 = in.Hash
		res.DeclaredBlocks = len(in.Blocks)
		res.Status = StatusUnsupported
		if in.Algorithm == "SHA256" {
			blockSize = in.BlockSize
			res.BlockSize = blockSize
			res.Status = StatusVerified
		}
	}
	if err := ctx.Err(); err != nil {
		return res, fmt.Errorf("asar: verify %s: %w", n.path, err)
	}
	rc, err := r.openNode(n, n.path)
	if err != nil {
		res.Status, res.Err = StatusUnavailable, err
		return res, nil
	}
	defer rc.Close()

	whole := sha256.New()
	var blk hash.Hash
	// A packed file shorter than one block has a single block equal to the
	// whole file, so hash it once.
	shortcut := !n.unpacked && blockSize > 0 && n.size < blockSize
	if blockSize > 0 && !shortcut {
		blk = sha256.New()
	}
	var blocks []string
	var inBlock, total int64
	for {
		want := int64(len(buf))
		if blk != nil && blockSize-inBlock < want {
			want = blockSize - inBlock
		}
		k, err := rc.Read(buf[:want])
		if k > 0 {
			whole.Write(buf[:k])
			total += int64(k)
			if blk != nil {
				blk.Write(buf[:k])
				inBlock += int64(k)
				if inBlock == blockSize {
					blocks = append(blocks, hex.EncodeToString(blk.Sum(nil)))
					blk.Reset()
					inBlock = 0
				}
			}
			if err := ctx.Err(); err != nil {
				return res, fmt.Errorf("asar: verify %s: %w", n.path, err)
			}
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			res.Status, res.Err = StatusUnavailable, &readError{path: n.path, err: err}
			return res, nil
		}
	}
	res.ObservedSize = total
	res.CalculatedSHA256 = hex.EncodeToString(whole.Sum(nil))
	if blk != nil {
		blocks = append(blocks, hex.EncodeToString(blk.Sum(nil)))
	} else if shortcut {
		blocks = []string{res.CalculatedSHA256}
	}
	res.CalculatedBlocks = len(blocks)
	if res.Status != StatusVerified {
		return res, nil
	}
	declared := in.Blocks
	// @electron/asar records a final empty block when the size is a multiple
	// of the block size; accept archives from writers that omit it.
	if len(declared) == len(blocks)-1 && blocks[len(blocks)-1] == emptySHA256 && total%blockSize == 0 {
		blocks = blocks[:len(blocks)-1]
	}
	for i := range max(len(declared), len(blocks)) {
		var d, c string
		if i < len(declared) {
			d = declared[i]
		}
		if i < len(blocks) {
			c = blocks[i]
		}
		if d != c {
			res.FailedBlocks = append(res.FailedBlocks, BlockMismatch{Index: i, Declared: d, Calculated: c})
		}
	}
	if res.CalculatedSHA256 != in.Hash || len(res.FailedBlocks) > 0 || total != n.size {
		res.Status = StatusMismatched
	}
	return res, nil
}

type readError struct {
	path string
	err  error
}

func (e *readError) Error() string { return fmt.Sprintf("asar: read %s: %v", e.path, e.err) }
func (e *readError) Unwrap() error { return e.err }
