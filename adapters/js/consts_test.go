package js_test

import (
	"context"
	"strings"
	"testing"

	"github.com/matryer/is"

	"rea/adapters/js"
	"rea/ports"
)

// TestConstStringsAreFollowed: a const bound to a string literal is that
// string where a call's argument reads it, alone, in a template or in a
// concatenation, located at the literal; a let binding is not followed,
// nor is a const bound to anything else.
func TestConstStringsAreFollowed(t *testing.T) {
	is := is.New(t)
	src := `const BASE = "https://api.example.com";
const CH = 'get-user';
const OBJ = {};
let mutable = "/maybe";
function f(id) {
  fetch(` + "`${BASE}/users/${id}`" + `);
  fetch(BASE + "/items/" + id);
  fetch(mutable);
  fetch(OBJ);
  ipcMain.handle(CH, () => {});
}
`
	f, err := js.New().Facts(context.Background(), ports.JSRequest{Path: "t.js", Source: []byte(src),
		Calls: &ports.JSCallSelector{LastNames: []string{"fetch", "handle"}}})
	is.NoErr(err)
	var got []string
	for _, c := range f.Calls {
		a := c.Args[0]
		got = append(got, c.Callee+" "+a.Kind+" "+a.Value)
		if c.Callee == "ipcMain.handle" {
			is.Equal(a.Offset, int64(strings.Index(src, `'get-user'`))) // the declaration's literal
		}
		if a.Kind == ports.JSValTemplate {
			is.Equal(len(a.Parts), 1) // id alone is still a substitution
		}
	}
	is.Equal(got, []string{
		"fetch template https://api.example.com/users/${}",
		"fetch template https://api.example.com/items/${}",
		"fetch name mutable",
		"fetch name OBJ",
		"ipcMain.handle string get-user",
	})
}
