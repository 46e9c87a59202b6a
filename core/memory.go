package core

import (
	"fmt"
	"os"
	"runtime/debug"
	"strconv"
	"sync"
	"sync/atomic"

	"rea/ports"
)

// Memory budgets. Engines and families reserve their large buffers (whole
// string tables, source maps, archive members held in memory, the native
// engine's cached lists and cross-reference index, inventories, container
// indexes) through ports.Reserve, before allocating them where the size is
// known and as they grow where it is not; a call past its budget, or past
// what the whole process (the MCP server with all its connections) may
// hold, is refused with resource_constraint naming the setting to raise.
// debug.SetMemoryLimit is set to the process budget as a backstop: the
// garbage collector works harder as the heap nears it.
const (
	MaxMemoryEnv     = "REA_MAX_MEMORY_BYTES"      // the process (server) budget
	MaxCallMemoryEnv = "REA_MAX_CALL_MEMORY_BYTES" // one call's budget

	DefaultMaxMemory     = 4 << 30
	DefaultMaxCallMemory = 1 << 30
)

type memoryBudget struct {
	call, server int64
	used         atomic.Int64
}

var (
	memOnce sync.Once
	memory  *memoryBudget
	memErr  error
)

// processMemory is the process's budget, read from the environment once.
func processMemory() (*memoryBudget, error) {
	memOnce.Do(func() {
		memory = &memoryBudget{call: DefaultMaxCallMemory, server: DefaultMaxMemory}
		for _, e := range []struct {
			env string
			to  *int64
		}{{MaxMemoryEnv, &memory.server}, {MaxCallMemoryEnv, &memory.call}} {
			v, ok := os.LookupEnv(e.env)
			if !ok {
				continue
			}
			n, err := strconv.ParseInt(v, 10, 64)
			if err != nil || n < 1<<20 {
				memErr = fmt.Errorf("%s=%q: want a whole number of bytes, at least %d (1 MiB)", e.env, v, 1<<20)
				return
			}
			*e.to = n
		}
	})
	return memory, memErr
}

// ApplyMemoryLimit validates the memory settings and sets the garbage
// collector's soft limit to the process budget, unless GOMEMLIMIT is set.
// Front ends call it at start-up and fail on its error.
func ApplyMemoryLimit() error {
	b, err := processMemory()
	if err != nil {
		return err
	}
	if _, set := os.LookupEnv("GOMEMLIMIT"); !set {
		debug.SetMemoryLimit(b.server)
	}
	return nil
}

// callMemory is one call's account over the process budget.
type callMemory struct {
	b    *memoryBudget
	used atomic.Int64
}

func newCallMemory() ports.MemoryAccount {
	b, err := processMemory()
	if err != nil {
		b = &memoryBudget{call: DefaultMaxCallMemory, server: DefaultMaxMemory}
	}
	return &callMemory{b: b}
}

func (c *callMemory) Reserve(what string, n int64) (func(), error) {
	if n <= 0 {
		return func() {}, nil
	}
	if in := c.used.Add(n); in > c.b.call {
		c.used.Add(-n)
		return nil, &ports.LimitError{What: what, Limit: MaxCallMemoryEnv, Max: c.b.call, InUse: in - n, Requested: n}
	}
	if in := c.b.used.Add(n); in > c.b.server {
		c.b.used.Add(-n)
		c.used.Add(-n)
		return nil, &ports.LimitError{What: what, Limit: MaxMemoryEnv, Max: c.b.server, InUse: in - n, Requested: n}
	}
	var once sync.Once
	return func() {
		once.Do(func() {
			c.b.used.Add(-n)
			c.used.Add(-n)
		})
	}, nil
}
