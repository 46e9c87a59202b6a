package js_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/matryer/is"

	"rea/adapters/js"
	"rea/ports"
)

// TestConstObjectsAreFollowed: a const bound to an object literal is that
// literal where a recorded call's argument, or a property of one, names
// it, located at the declaration's tokens; a let, a const declared after
// the call in the walk, and a const whose members the file changes in
// place (before or after the call, by assignment, delete or
// Object.assign) stay names, and so does a const past the reads one call
// may expand.
func TestConstObjectsAreFollowed(t *testing.T) {
	is := is.New(t)
	src := `const prefs = { sandbox: false, contextIsolation: true };
const opts = { width: 800, webPreferences: prefs };
let lopts = { webPreferences: { sandbox: false } };
const changed = { webPreferences: { sandbox: false } };
const deleted = { webPreferences: { sandbox: false } };
const assigned = { webPreferences: { sandbox: false } };
const a1 = { x: 1 }, a2 = { a: a1, b: a1 }, a3 = { a: a2, b: a2 };
new BrowserWindow(opts);
new BrowserWindow({ webPreferences: prefs });
new BrowserWindow(lopts);
new BrowserWindow(changed);
new BrowserWindow(deleted);
new BrowserWindow(assigned);
new BrowserWindow(later);
new BrowserWindow(a3);
const later = { webPreferences: { sandbox: false } };
changed.webPreferences.sandbox = true;
delete deleted.webPreferences;
Object.assign(assigned.webPreferences, { sandbox: true });
`
	f, err := js.New().Facts(context.Background(), ports.JSRequest{Path: "t.js", Source: []byte(src),
		Calls: &ports.JSCallSelector{LastNames: []string{"BrowserWindow"}}})
	is.NoErr(err)
	var got []string
	for _, c := range f.Calls {
		got = append(got, render(c.Args[0]))
	}
	is.Equal(got, []string{
		"{width:800 webPreferences:{sandbox:false contextIsolation:true}}",
		"{webPreferences:{sandbox:false contextIsolation:true}}",
		"lopts",
		"changed",
		"deleted",
		"assigned",
		"later",
		"{a:{a:{x:1} b:{x:1}} b:a2}", // four reads: a3, a2, a1, a1
	})
	sb := f.Calls[0].Args[0].Props[1].Value.Props[0].Value
	is.Equal(sb.Offset, int64(strings.Index(src, "false"))) // at the declaration's literal
}

func render(v ports.JSValue) string {
	switch v.Kind {
	case ports.JSValObject:
		var ps []string
		for _, p := range v.Props {
			ps = append(ps, p.Key+":"+render(p.Value))
		}
		return "{" + strings.Join(ps, " ") + "}"
	case ports.JSValName, ports.JSValBool, ports.JSValNumber, ports.JSValString:
		return v.Value
	}
	return fmt.Sprintf("<%s>", v.Kind)
}
