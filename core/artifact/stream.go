package artifact

import (
	"cmp"
	"context"
	"crypto/sha256"
	"errors"
	"io"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
)

// A root archive and the entries it stores as they are (an ASAR's packed
// files) are hashed in one sequential read of the archive: each chunk read
// goes to the archive's hasher and to the entries' hashers, which take the
// entries' byte ranges from it in offset order. Opening every entry on its
// own would read each byte twice, with one read call per entry (37,000 on a
// large app.asar), and hash the archive and its entries one after the
// other. A memory mapping of the archive would avoid the copies but count
// every page touched in the process's resident set (the whole archive by the
// end), where the chunks here stay at streamChunks × streamChunkBytes.
const (
	streamChunkBytes = 512 << 10
	streamChunks     = 8
)

// streamChunk is one piece of the archive, shared by every hasher until the
// last one releases it.
type streamChunk struct {
	buf  []byte
	n    int
	base int64 // offset in the archive of buf[0]
	refs atomic.Int32
}

// splitStream picks the items hashStream reads: the root file, when it
// opened as a container, and that container's entries whose stored bytes are
// the file's bytes (Offset and Length given, Length equal to the declared
// size; not compressed, unpacked or encrypted), in offset order and not
// overlapping. An entry overlapping an earlier one, and every other item,
// is left to be opened on its own.
func (b *graphBuilder) splitStream(items []*Item) (root *Item, stream, rest []*Item) {
	if b.isDir || b.root == nil || b.root.nested == nil || !b.root.nested.root || b.root.fsRel == "" {
		return nil, nil, items
	}
	bx := b.root.nested
	for _, it := range items {
		switch {
		case it == b.root:
			root = it
		case it.box == bx && it.loc != nil && it.declaredSize != nil && it.compressedSize == nil && !it.unpacked && !it.encrypted &&
			it.loc.Offset >= 0 && it.loc.Length >= 0 && it.loc.Length == *it.declaredSize:
			stream = append(stream, it)
		default:
			rest = append(rest, it)
		}
	}
	if root == nil {
		return nil, nil, items
	}
	slices.SortStableFunc(stream, func(x, y *Item) int { return cmp.Compare(x.loc.Offset, y.loc.Offset) })
	kept := stream[:0]
	var end int64
	for _, it := range stream {
		if it.loc.Offset < end {
			rest = append(rest, it)
			continue
		}
		kept = append(kept, it)
		end = satAdd(it.loc.Offset, it.loc.Length)
	}
	return root, kept, rest
}

// hashStream reads the root file once from its start to its end, hashing it
// on one goroutine and the entries (split by bytes between the other CPUs)
// on the others. An entry the file ends before is a changed root.
func (b *graphBuilder) hashStream(ctx context.Context, stop func(), root *Item, entries []*Item) {
	f, err := b.openRegular(root.fsRel)
	if err != nil {
		root.err = &Failure{Reason: "io", Path: root.Path, Err: err}
		stop()
		return
	}
	defer f.Close()

	k := max(1, min(runtime.NumCPU()-1, len(entries)))
	parts := make([][]*Item, k)
	sizes := make([]int64, k)
	for _, it := range entries {
		j := 0
		for i := range sizes {
			if sizes[i] < sizes[j] {
				j = i
			}
		}
		parts[j] = append(parts[j], it)
		sizes[j] += it.loc.Length
	}

	free := make(chan *streamChunk, streamChunks)
	for range streamChunks {
		free <- &streamChunk{buf: make([]byte, streamChunkBytes)}
	}
	release := func(c *streamChunk) {
		if c.refs.Add(-1) == 0 {
			free <- c
		}
	}
	consumers := make([]chan *streamChunk, 1+k)
	for i := range consumers {
		consumers[i] = make(chan *streamChunk, streamChunks) // never full: there are only streamChunks chunks
	}
	var wg sync.WaitGroup
	var readErr error // set before the consumers' channels close
	wg.Go(func() {
		sc := &hashScratch{head: make([]byte, 0, headBytes), h: sha256.New()}
		hw := b.newHashWriter(ctx, root, sc)
		defer hw.charged.done()
		for c := range consumers[0] {
			if root.err == nil {
				if _, err := hw.Write(c.buf[:c.n]); err != nil {
					root.err = err
					if !errors.Is(err, context.Canceled) {
						stop()
					}
				}
			}
			release(c)
		}
		switch {
		case root.err != nil:
		case readErr != nil:
			root.err = &Failure{Reason: "io", Path: root.Path, Err: readErr}
			stop()
		case ctx.Err() != nil:
			root.err = ctx.Err()
		default:
			b.finishItem(root, hw)
			b.hashed()
		}
	})
	for j := range k {
		s := &streamSweep{b: b, ctx: ctx, stop: stop, items: parts[j],
			sc: &hashScratch{head: make([]byte, 0, headBytes), h: sha256.New()}}
		wg.Go(func() {
			for c := range consumers[1+j] {
				s.feed(c.buf[:c.n], c.base)
				release(c)
			}
			s.end(readErr)
		})
	}

	var base int64
read:
	for {
		var c *streamChunk
		select {
		case c = <-free:
		case <-ctx.Done():
			break read
		}
		n, err := io.ReadFull(f, c.buf)
		if n > 0 {
			c.n, c.base = n, base
			base += int64(n)
			c.refs.Store(int32(len(consumers)))
			for _, ch := range consumers {
				ch <- c
			}
		}
		if err == io.EOF || err == io.ErrUnexpectedEOF {
			break
		}
		if err != nil {
			readErr = err
			break
		}
	}
	for _, ch := range consumers {
		close(ch)
	}
	wg.Wait()
}

// streamSweep hashes entries, sorted by offset and not overlapping, from the
// archive's chunks in order.
type streamSweep struct {
	b     *graphBuilder
	ctx   context.Context
	stop  func()
	items []*Item
	i     int         // the next entry not finished
	hw    *hashWriter // items[i]'s, once its first byte arrived
	sc    *hashScratch
	done  bool // an entry failed: the rest is not read
}

// feed gives the sweep the chunk at archive offset base.
func (s *streamSweep) feed(chunk []byte, base int64) {
	end := base + int64(len(chunk))
	for !s.done && s.i < len(s.items) {
		it := s.items[s.i]
		off, n := it.loc.Offset, it.loc.Length
		if n > 0 && off >= end {
			return
		}
		if s.hw == nil {
			s.hw = s.b.newHashWriter(s.ctx, it, s.sc)
		}
		if n > 0 {
			lo, hi := max(off, base), min(off+n, end)
			if _, err := s.hw.Write(chunk[lo-base : hi-base]); err != nil {
				s.fail(it, err)
				return
			}
			if off+n > end {
				return
			}
		}
		s.finish(it)
	}
}

func (s *streamSweep) finish(it *Item) {
	s.b.finishItem(it, s.hw)
	s.hw.charged.done()
	s.hw = nil
	s.i++
	s.b.hashed()
}

func (s *streamSweep) fail(it *Item, err error) {
	it.err = err
	if !errors.Is(err, context.Canceled) {
		s.stop()
	}
	if s.hw != nil {
		s.hw.charged.done()
		s.hw = nil
	}
	s.done = true
}

// end is called once the archive is read: an entry still waiting for bytes
// lies past the end of the file, which the container checked against the
// archive's size when it opened, so the file changed since.
func (s *streamSweep) end(readErr error) {
	for !s.done && s.i < len(s.items) {
		it := s.items[s.i]
		switch {
		case readErr != nil:
			s.fail(it, &Failure{Reason: "io", Path: it.Path, Err: readErr})
		case s.ctx.Err() != nil:
			s.fail(it, s.ctx.Err())
		case it.loc.Length == 0:
			if s.hw == nil {
				s.hw = s.b.newHashWriter(s.ctx, it, s.sc)
			}
			s.finish(it)
		default:
			s.fail(it, ChangedError(s.b.req.Op, s.b.req.Path, "the root file ended before the bytes of "+it.Path))
		}
	}
}
