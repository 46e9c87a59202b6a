package cdptest

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"rea/adapters/cdp/internal/wsock"
)

// A socket upgraded while Close runs, and added after it (its handler
// had answered the handshake but not yet kept the socket), is closed when
// it is added rather than left open for good.
func TestSocketAddedAfterCloseIsClosed(t *testing.T) {
	s := &sockets{}
	proceed := make(chan struct{})
	url := s.listen(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c, err := wsock.Upgrade(w, r, 1<<20)
		if err != nil {
			return
		}
		<-proceed
		s.add(c)
		for {
			if _, _, err := c.ReadMessage(); err != nil {
				return
			}
		}
	}))
	c, err := wsock.Dial(context.Background(), "ws://"+strings.TrimPrefix(url, "http://")+"/x", 1<<20)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	ended := make(chan error, 1)
	go func() {
		for {
			if _, _, err := c.ReadMessage(); err != nil {
				ended <- err
				return
			}
		}
	}()
	s.Close()
	close(proceed)
	select {
	case <-ended:
	case <-time.After(time.Minute): // a failure's bound, not a performance check
		t.Fatal("the socket upgraded while Close ran was left open")
	}
}
