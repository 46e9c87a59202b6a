package portstest

import (
	"sync"

	"rea/ports"
)

// MemoryAccount is a bounded ports.MemoryAccount for engine and family
// tests: a reservation past Max is refused with a *ports.LimitError whose
// Limit is "TEST_MEMORY"; it records the bytes held, their peak and what
// was charged under each name. Safe for concurrent use.
type MemoryAccount struct {
	Max int64

	mu         sync.Mutex
	used, peak int64
	charged    map[string]int64
}

var _ ports.MemoryAccount = (*MemoryAccount)(nil)

// Reserve charges n bytes for what, or refuses past Max.
func (a *MemoryAccount) Reserve(what string, n int64) (func(), error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.used+n > a.Max {
		return nil, &ports.LimitError{What: what, Limit: "TEST_MEMORY", Max: a.Max, InUse: a.used, Requested: n}
	}
	a.used += n
	a.peak = max(a.peak, a.used)
	if a.charged == nil {
		a.charged = map[string]int64{}
	}
	a.charged[what] += n
	var once sync.Once
	return func() {
		once.Do(func() {
			a.mu.Lock()
			a.used -= n
			a.mu.Unlock()
		})
	}, nil
}

// InUse is the bytes reserved and not yet released.
func (a *MemoryAccount) InUse() int64 {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.used
}

// Peak is the most bytes held at once.
func (a *MemoryAccount) Peak() int64 {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.peak
}

// Charged is the bytes ever reserved under what (refusals not counted).
func (a *MemoryAccount) Charged(what string) int64 {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.charged[what]
}
