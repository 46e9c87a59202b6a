//go:build linux

package supervisor

import (
	"testing"

	"github.com/matryer/is"
)

// A process whose stat a look took from an earlier look (a stranger, see
// lookTable) is read again before census proves it the run's by descent,
// and judged on that reading: one whose earlier reading names a process of
// the run as its parent, but which the kernel now shows elsewhere, is not
// the run's; one the new reading confirms is.
func TestStaleReadingIsReadAgainBeforeAProof(t *testing.T) {
	const launcher, stranger = 5000051, 5000052
	for _, tc := range []struct {
		name   string
		now    int // the stranger's parent as the kernel reports it now
		proven bool
	}{
		{"reparented elsewhere", 1, false},
		{"still the launcher's child", launcher, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			is := is.New(t)
			reads := 0
			r := &Run{pid: launcher, startTick: 100, known: map[int]uint64{launcher: 100}, id: "run"}
			r.tokenOf = func(int, string, string) (tokenResult, error) { return tokenMismatch, nil }
			r.statHook = func(pid int) (procInfo, error) {
				reads++
				return procInfo{pid: stranger, ppid: tc.now, pgid: stranger, sid: stranger, start: 200, state: 'S'}, nil
			}
			tab := map[int]procInfo{
				launcher: {pid: launcher, ppid: 1, pgid: launcher, sid: launcher, start: 100, state: 'S'},
				// The earlier reading: the launcher's child.
				stranger: {pid: stranger, ppid: launcher, pgid: stranger, sid: stranger, start: 200, state: 'S'},
			}
			c := r.census(tab, map[int]bool{stranger: true})
			_, owned := c.owned[stranger]
			is.Equal(owned, tc.proven)
			is.Equal(reads, 1)
		})
	}
}
