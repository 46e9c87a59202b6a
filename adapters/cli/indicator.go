package cli

import (
	"fmt"
	"io"
	"sync"
	"time"
)

// indicator draws one status line on a terminal's stderr, only for work that
// has run longer than a second, and erases it when the work ends.
type indicator struct {
	w     io.Writer
	start time.Time
	mu    sync.Mutex
	drawn bool
	last  time.Time
}

func newIndicator(w io.Writer) *indicator { return &indicator{w: w, start: time.Now()} }

func (i *indicator) Observe(phase, message string) {
	i.mu.Lock()
	defer i.mu.Unlock()
	now := time.Now()
	if now.Sub(i.start) < time.Second || now.Sub(i.last) < 100*time.Millisecond {
		return
	}
	i.last, i.drawn = now, true
	fmt.Fprintf(i.w, "\r\033[K%s: %s (%.1fs)", phase, message, now.Sub(i.start).Seconds())
}

func (i *indicator) Finish(phase, message string) {
	i.mu.Lock()
	defer i.mu.Unlock()
	if i.drawn {
		fmt.Fprint(i.w, "\r\033[K")
	}
}
