package cdptest

import (
	"net/http"
	"net/http/httptest"
	"sync"

	"rea/adapters/cdp/internal/wsock"
)

// sockets is what Server and Inspector share: the HTTP server and the
// WebSocket connections it upgraded, which Close closes. A handler adds
// its connection after the handshake is answered, so one upgraded while
// Close runs is closed when it is added (closed).
type sockets struct {
	srv    *httptest.Server
	connMu sync.Mutex
	conns  []*wsock.Conn
	closed bool
}

// listen starts the HTTP server with h and returns its URL.
func (s *sockets) listen(h http.Handler) string {
	s.srv = httptest.NewServer(h)
	return s.srv.URL
}

// add keeps c, an upgraded connection, for Close, or closes it when
// Close has begun.
func (s *sockets) add(c *wsock.Conn) {
	s.connMu.Lock()
	defer s.connMu.Unlock()
	if s.closed {
		c.Close()
		return
	}
	s.conns = append(s.conns, c)
}

// open returns the connections upgraded so far.
func (s *sockets) open() []*wsock.Conn {
	s.connMu.Lock()
	defer s.connMu.Unlock()
	return append([]*wsock.Conn(nil), s.conns...)
}

// Close stops the server and its sockets.
func (s *sockets) Close() {
	s.connMu.Lock()
	s.closed = true
	conns := s.conns
	s.connMu.Unlock()
	for _, c := range conns {
		c.Close()
	}
	s.srv.CloseClientConnections()
	s.srv.Close()
}
