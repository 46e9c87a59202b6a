package native_test

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"strings"
	"sync"
	"testing"

	"github.com/matryer/is"

	"rea/adapters/native"
	"rea/ports"
)

// observed records what a progress receiver is told.
type observed struct {
	mu   sync.Mutex
	seen []string
}

func (o *observed) Observe(phase, message string) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.seen = append(o.seen, phase+": "+message)
}

// A debuginfod download reports itself to the caller's progress receiver:
// which server it asks, each retry and why, and the bytes received every
// 4 MiB and at the end, so an agent waiting on a large debug file sees it
// come.
func TestDebuginfodProgress(t *testing.T) {
	is := is.New(t)
	b := buildDebug(t, "", "-Wl,--build-id")
	s, srv := serveDebug(t, b, false)
	pad := make([]byte, 9<<20) // an ELF file may carry bytes past its sections
	s.serve = func(w http.ResponseWriter, r *http.Request, file []byte) {
		if s.hits.Load() == 1 {
			http.Error(w, "busy", http.StatusServiceUnavailable)
			return
		}
		w.Header().Set("Content-Length", fmt.Sprint(len(file)+len(pad)))
		w.Write(file)
		w.(http.Flusher).Flush()
		for i := 0; i < len(pad); i += 1 << 20 {
			w.Write(pad[i : i+1<<20])
			w.(http.Flusher).Flush()
		}
	}
	rec := &observed{}
	d := &native.Debuginfod{URLs: []string{srv.URL}, CacheDir: t.TempDir()}
	a, err := openDebuginfod(ports.WithProgress(context.Background(), rec), b.stripped, d)
	is.NoErr(err)
	defer a.Close(context.Background())
	is.True(debugParam(a) != nil) // the padded file was used
	u := srv.URL + "/buildid/" + b.id + "/debuginfo"
	st, err := os.Stat(b.byID)
	is.NoErr(err)
	total := int64(len(pad)) + st.Size()
	want := []string{
		"debuginfod: asking " + u,
		"debuginfod: asking " + u + " again (2 of 3) after: HTTP status 503 Service Unavailable",
		"debuginfod: asking " + u,
	}
	rec.mu.Lock()
	defer rec.mu.Unlock()
	is.True(len(rec.seen) > len(want))
	is.Equal(rec.seen[:len(want)], want)
	var got []string
	for _, m := range rec.seen[len(want):] {
		n, ok := strings.CutSuffix(strings.TrimPrefix(m, "debuginfod: "), fmt.Sprintf(" of %d bytes received from %s", total, u))
		is.True(ok) // every later observation is a byte count of this download
		got = append(got, n)
	}
	// At least every 4 MiB, then the end (the reads' sizes decide the exact
	// counts in between).
	is.Equal(len(got), 3)
	is.Equal(got[2], fmt.Sprint(total))
}
