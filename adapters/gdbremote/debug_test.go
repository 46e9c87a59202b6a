package gdbremote_test

import (
	"os"
	"testing"

	"rea/adapters/gdbremote"
)

func debugTap(t *testing.T, tr *gdbremote.Tracer) {
	if os.Getenv("GDBREMOTE_DEBUG") == "" {
		return
	}
	gdbremote.SetTap(tr, func(dir byte, p []byte) {
		s := string(p)
		if len(s) > 200 {
			s = s[:200] + "..."
		}
		t.Logf("%c %s", dir, s)
	})
}
