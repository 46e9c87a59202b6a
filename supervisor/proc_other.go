//go:build !linux

package supervisor

import (
	"context"
	"errors"
	"runtime"
	"time"
)

// Without /proc the process table is not inspected: lineage is unavailable,
// descendants are never signalled and only the launcher is stopped.

var errNoProcessTable = errors.New("supervisor: process table inspection is not implemented on " + runtime.GOOS)

func readTable(context.Context) (map[int]procInfo, error) { return nil, errNoProcessTable }

func readStat(int) (procInfo, error) { return procInfo{}, errNoProcessTable }

func tokenState(int, string, string) (tokenResult, error) {
	return tokenUnreadable, errNoProcessTable
}

func startTime(uint64) time.Time { return time.Time{} }

func (r *Run) closeExitFDs() {}
