package wsock_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/matryer/is"

	"rea/adapters/cdp/internal/wsock"
)

// server runs f on the server side of each connection.
func server(t *testing.T, f func(c *wsock.Conn)) string {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c, err := wsock.Upgrade(w, r, 1<<20)
		if err != nil {
			return
		}
		defer c.Close()
		f(c)
	}))
	t.Cleanup(srv.Close)
	return "ws" + strings.TrimPrefix(srv.URL, "http") + "/x"
}

func TestEchoAndSizes(t *testing.T) {
	is := is.New(t)
	u := server(t, func(c *wsock.Conn) {
		for {
			op, b, err := c.ReadMessage()
			if err != nil {
				return
			}
			c.WriteMessage(op, b)
		}
	})
	c, err := wsock.Dial(context.Background(), u, 100000)
	is.NoErr(err)
	defer c.Close()
	for _, n := range []int{0, 1, 125, 126, 65535, 65536, 99999} {
		msg := strings.Repeat("a", n)
		is.NoErr(c.WriteMessage(wsock.OpText, []byte(msg)))
		op, b, err := c.ReadMessage()
		is.NoErr(err)
		is.Equal(op, wsock.OpText)
		is.Equal(string(b), msg)
	}
	is.NoErr(c.WriteMessage(wsock.OpText, make([]byte, 100001)))
	_, _, err = c.ReadMessage()
	is.True(errors.Is(err, wsock.ErrTooLarge))
}

func TestFragmentsPingAndViolations(t *testing.T) {
	cases := []struct {
		name string
		raw  []byte
		want error
		msg  string
	}{
		{"fragments and a ping between", []byte("\x01\x02he\x89\x00\x80\x03llo"), nil, "hello"},
		{"reserved bits", []byte("\xc1\x02hi"), wsock.ErrProtocol, ""},
		{"continuation first", []byte("\x80\x02hi"), wsock.ErrProtocol, ""},
		{"fragmented control", []byte("\x09\x00"), wsock.ErrProtocol, ""},
		{"unknown opcode", []byte("\x83\x00"), wsock.ErrProtocol, ""},
		{"huge length", []byte("\x81\x7f\xff\xff\xff\xff\xff\xff\xff\xff"), wsock.ErrTooLarge, ""},
		{"close", []byte("\x88\x02\x03\xe8"), io.EOF, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			is := is.New(t)
			u := server(t, func(s *wsock.Conn) {
				s.WriteRaw(c.raw)
				s.ReadMessage() // hold the connection open
			})
			cl, err := wsock.Dial(context.Background(), u, 1<<20)
			is.NoErr(err)
			defer cl.Close()
			_, b, err := cl.ReadMessage()
			if c.want != nil {
				is.True(errors.Is(err, c.want))
				return
			}
			is.NoErr(err)
			is.Equal(string(b), c.msg)
		})
	}
}

func TestDialRefusesNonWebSocket(t *testing.T) {
	is := is.New(t)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write([]byte("plain")) }))
	defer srv.Close()
	_, err := wsock.Dial(context.Background(), "ws"+strings.TrimPrefix(srv.URL, "http"), 1<<20)
	is.True(err != nil)
	_, err = wsock.Dial(context.Background(), "http://127.0.0.1:1/", 1<<20)
	is.True(err != nil)
}

// A message over the limit is read past, whole or fragmented with a ping
// between its fragments: ReadMessage reports it with its first bytes, and
// the next message still arrives.
func TestOverLimitMessageIsSkipped(t *testing.T) {
	is := is.New(t)
	big := `{"id":7,"result":"` + strings.Repeat("x", 3000) + `"}`
	frag := append([]byte("\x01\x7e\x03\xe8"), big[:1000]...)                 // text, not fin, 1000 bytes
	frag = append(frag, "\x89\x00"...)                                        // a ping between
	frag = append(frag, append([]byte("\x80\x7e\x07\xe4"), big[1000:]...)...) // continuation, fin, the rest
	u := server(t, func(s *wsock.Conn) {
		s.WriteMessage(wsock.OpText, []byte(big))
		s.WriteMessage(wsock.OpText, []byte(`{"id":8}`))
		s.WriteRaw(frag)
		s.WriteMessage(wsock.OpText, []byte(`{"id":9}`))
		s.ReadMessage() // hold the connection open
	})
	c, err := wsock.Dial(context.Background(), u, 2000)
	is.NoErr(err)
	defer c.Close()
	for _, next := range []string{`{"id":8}`, `{"id":9}`} {
		_, _, err = c.ReadMessage()
		var skipped *wsock.SkippedError
		is.True(errors.As(err, &skipped))
		is.True(errors.Is(err, wsock.ErrTooLarge))
		is.Equal(string(skipped.Head), big[:wsock.HeadBytes])
		_, b, err := c.ReadMessage()
		is.NoErr(err)
		is.Equal(string(b), next)
	}
}
