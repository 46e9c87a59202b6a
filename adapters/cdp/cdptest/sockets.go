package cdptest

import (
	"net/http"
	"net/http/httptest"
	"sync"

	"rea/adapters/cdp/internal/wsock"
)

// sockets is what Server and Inspector share: the HTTP server and the
// WebSocket connections it upgraded, which Close closes.
type sockets struct {
	srv    *httptest.Server
	connMu sync.Mutex
	conns  []*wsock.Conn
}

// listen starts the HTTP server with h and returns its URL.
func (s *sockets) listen(h http.Handler) string {
	s.srv = httptest.NewServer(h)
	return s.srv.URL
}

// add keeps c, an upgraded connection, for Close.
func (s *sockets) add(c *wsock.Conn) {
	s.connMu.Lock()
	s.conns = append(s.conns, c)
	s.connMu.Unlock()
}

// open returns the connections upgraded so far.
func (s *sockets) open() []*wsock.Conn {
	s.connMu.Lock()
	defer s.connMu.Unlock()
	return append([]*wsock.Conn(nil), s.conns...)
}

// Close stops the server and its sockets.
func (s *sockets) Close() {
	for _, c := range s.open() {
		c.Close()
	}
	s.srv.CloseClientConnections()
	s.srv.Close()
}
