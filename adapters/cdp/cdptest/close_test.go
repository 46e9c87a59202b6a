package cdptest_test

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/matryer/is"

	"rea/adapters/cdp/cdptest"
	"rea/adapters/cdp/internal/wsock"
)

// Close stops both fakes the same way: each socket a client opened is
// closed (its reads end), and the server no longer answers.
func TestCloseEndsTheSocketsAndTheServer(t *testing.T) {
	for name, start := range map[string]func() (url string, close func()){
		"Server": func() (string, func()) {
			s := cdptest.New(nil)
			return s.URL, s.Close
		},
		"Inspector": func() (string, func()) {
			s := cdptest.NewInspector(cdptest.InspectorOptions{Targets: []cdptest.InspectorTarget{{ID: "N1", Type: "node"}}})
			return s.URL, s.Close
		},
	} {
		t.Run(name, func(t *testing.T) {
			is := is.New(t)
			url, closeFake := start()
			ws := "ws://" + strings.TrimPrefix(url, "http://") + "/devtools/browser/B1"
			if name == "Inspector" {
				ws = "ws://" + strings.TrimPrefix(url, "http://") + "/N1"
			}
			c, err := wsock.Dial(context.Background(), ws, 1<<20)
			is.NoErr(err)
			defer c.Close()
			// A reply to a command says the fake holds the socket: Dial
			// returns once the handshake is answered, which may be before.
			is.NoErr(c.WriteMessage(wsock.OpText, []byte(`{"id":1,"method":"Runtime.evaluate","params":{}}`)))
			for {
				_, b, err := c.ReadMessage()
				is.NoErr(err)
				if strings.Contains(string(b), `"id":1`) {
					break
				}
			}
			ended := make(chan error, 1)
			go func() {
				for {
					if _, _, err := c.ReadMessage(); err != nil {
						ended <- err
						return
					}
				}
			}()
			closeFake()
			is.True(<-ended != nil) // the fake closed the socket
			_, err = http.Get(url + "/json/version")
			is.True(err != nil) // and stopped listening
		})
	}
}
