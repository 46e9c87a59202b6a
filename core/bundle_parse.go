package core

import (
	"encoding/json"
	"runtime"
	"sync"
)

// parsedRecord is one bundle record re-parsed off the reading goroutine.
type parsedRecord struct {
	raw   json.RawMessage
	ev    *Evidence
	canon []byte // AppendCanonicalEvidence(ev)
	err   error
	done  chan struct{}
}

// recordParser re-parses records (ParseEvidence re-derives each ID, the
// dominant cost of an import) on GOMAXPROCS workers while the caller keeps
// decoding the stream; results come back in input order, and at most
// window records are in flight.
type recordParser struct {
	jobs   chan *parsedRecord
	queue  []*parsedRecord
	window int
	wg     sync.WaitGroup
}

func newRecordParser() *recordParser {
	n := runtime.GOMAXPROCS(0)
	p := &recordParser{window: 8 * n}
	p.jobs = make(chan *parsedRecord, p.window+1)
	for range n {
		p.wg.Add(1)
		go func() {
			defer p.wg.Done()
			for r := range p.jobs {
				r.ev, r.err = ParseEvidence(r.raw)
				if r.err == nil {
					r.canon, r.err = AppendCanonicalEvidence(nil, r.ev)
				}
				close(r.done)
			}
		}()
	}
	return p
}

// push queues raw and returns the oldest record once the window is full.
func (p *recordParser) push(raw json.RawMessage) *parsedRecord {
	r := &parsedRecord{raw: raw, done: make(chan struct{})}
	p.queue = append(p.queue, r)
	p.jobs <- r
	if len(p.queue) > p.window {
		return p.pop()
	}
	return nil
}

// pop returns the oldest queued record when it is parsed, or nil.
func (p *recordParser) pop() *parsedRecord {
	if len(p.queue) == 0 {
		return nil
	}
	r := p.queue[0]
	p.queue[0] = nil
	p.queue = p.queue[1:]
	<-r.done
	return r
}

// close stops the workers after the queued work.
func (p *recordParser) close() {
	close(p.jobs)
	p.wg.Wait()
}
