package jsapp

import (
	"fmt"
	"runtime"
	"sync"
)

// Observations and edges are most of the graph's building cost: each is
// bounded and digested into its ID. That work depends on the record alone,
// so the builder queues records as it makes them and other cores prepare
// them meanwhile; settle prepares what is left on every core and then adds
// them all in the order they were made. The graph is therefore the same
// whatever the number of cores (dedup and limits see the same order as a
// builder adding each record at once).

// pendingChunk is how many records one background job prepares.
const pendingChunk = 256

type pendingObs struct {
	n     *Node
	label string
	props map[string]any
	ev    GraphEvidence
	o     Observation // set once prepared
}

type pending struct {
	obs   []*pendingObs
	edges []*Edge // prepared in place
	// sent counts the records handed to the background workers.
	sentObs, sentEdges int
	work               chan func()
	wg                 sync.WaitGroup
	mu                 sync.Mutex
	failure            any // a worker's panic, raised again by settle
}

func (p *pending) observation(n *Node, label string, props map[string]any, ev GraphEvidence) {
	p.obs = append(p.obs, &pendingObs{n: n, label: label, props: props, ev: ev})
	if len(p.obs)-p.sentObs >= pendingChunk {
		batch := p.obs[p.sentObs:]
		p.sentObs = len(p.obs)
		p.dispatch(func() { prepareObs(batch) })
	}
}

func (p *pending) edge(e *Edge) {
	p.edges = append(p.edges, e)
	if len(p.edges)-p.sentEdges >= pendingChunk {
		batch := p.edges[p.sentEdges:]
		p.sentEdges = len(p.edges)
		p.dispatch(func() { prepareEdges(batch) })
	}
}

func prepareObs(batch []*pendingObs) {
	for _, q := range batch {
		q.o = prepareObservation(q.n, q.label, q.props, q.ev)
	}
}

func prepareEdges(batch []*Edge) {
	for _, e := range batch {
		prepareEdge(e)
	}
}

// dispatch runs job on a background worker; with one core the job runs at
// once, as there is no other core to overlap with.
func (p *pending) dispatch(job func()) {
	if p.work == nil {
		workers := runtime.GOMAXPROCS(0) - 1
		if workers < 1 {
			job()
			return
		}
		p.work = make(chan func(), 1024)
		for range workers {
			p.wg.Go(func() {
				for job := range p.work {
					p.run(job)
				}
			})
		}
	}
	p.work <- job
}

// run runs job, keeping its panic for settle (rea's own values always
// encode, so a panic is a bug that must reach the call's recovery).
func (p *pending) run(job func()) {
	defer func() {
		if r := recover(); r != nil {
			p.mu.Lock()
			if p.failure == nil {
				p.failure = r
			}
			p.mu.Unlock()
		}
	}()
	job()
}

// settle prepares every queued record and adds them to the graph in the
// order they were made.
func (g *graphBuild) settle() {
	p := &g.pend
	restObs, restEdges := p.obs[p.sentObs:], p.edges[p.sentEdges:]
	p.sentObs, p.sentEdges = len(p.obs), len(p.edges)
	// The rest, split across every core (the background workers included).
	var rest sync.WaitGroup
	parts := max(1, runtime.GOMAXPROCS(0))
	for i := range parts {
		o := restObs[i*len(restObs)/parts : (i+1)*len(restObs)/parts]
		e := restEdges[i*len(restEdges)/parts : (i+1)*len(restEdges)/parts]
		if i == parts-1 {
			p.run(func() { prepareObs(o); prepareEdges(e) })
			continue
		}
		rest.Go(func() { p.run(func() { prepareObs(o); prepareEdges(e) }) })
	}
	rest.Wait()
	if p.work != nil {
		close(p.work)
		p.wg.Wait()
		p.work = nil
	}
	if p.failure != nil {
		panic(fmt.Sprint(p.failure))
	}
	for _, q := range p.obs {
		g.addObservation(q.n, q.o)
	}
	for _, e := range p.edges {
		g.addEdge(e)
	}
	*p = pending{}
}

// propsWithinBounds reports whether boundProps would return a copy of p
// equal to p (nothing cut, truncated or converted), so p itself can stand
// for it: most properties are a few short values, and the copies were a
// large part of the graph's memory. It errs towards false.
func propsWithinBounds(p map[string]any) bool {
	budget := jagMaxPropNodes
	// A budget left over means no list element met an exhausted budget,
	// whatever order the keys are visited in.
	return p != nil && withinBounds(p, 0, &budget) && budget > 0
}

func withinBounds(v any, depth int, budget *int) bool {
	if *budget--; *budget < 0 {
		return false
	}
	switch x := v.(type) {
	case string:
		return len(x) <= jagMaxPropString
	case map[string]any:
		if depth >= jagMaxPropDepth || len(x) > jagMaxPropKeys {
			return false
		}
		for _, e := range x {
			if !withinBounds(e, depth+1, budget) {
				return false
			}
		}
	case []any:
		if depth >= jagMaxPropDepth {
			return false
		}
		for _, e := range x {
			if !withinBounds(e, depth+1, budget) {
				return false
			}
		}
	case []string: // bounding makes it a []any
		return false
	}
	return true
}
