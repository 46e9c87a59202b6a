package js_test

import (
	"testing"

	"github.com/matryer/is"

	"rea/ports"
)

// TestExposedMemberBodies: the functions written as members of the object
// a preload exposes (an arrow, a method) are known by their keys and the
// calls their bodies hold; a getter, and another call's object, are not.
func TestExposedMemberBodies(t *testing.T) {
	is := is.New(t)
	src := `const { contextBridge, ipcRenderer } = require("electron");
contextBridge.exposeInMainWorld("notes", {
  open: (p) => ipcRenderer.invoke("notes:open", p),
  save(doc) { log(doc); return ipcRenderer.send("notes:save", doc); },
  get count() { return ipcRenderer.sendSync("notes:count"); },
});
other({ run: () => ipcRenderer.send("x") });
`
	f := facts(t, src)
	var got []ports.JSFunction
	for _, fn := range f.Functions {
		if fn.Prop != "" {
			got = append(got, fn)
		}
	}
	callee := func(i int) string { return f.Calls[i].Callee }
	is.Equal(len(got), 2)
	is.Equal(callee(got[0].Call), "contextBridge.exposeInMainWorld")
	is.Equal(got[0].Prop, "open")
	is.Equal(got[0].End-got[0].First, 1)
	is.Equal(callee(got[0].First), "ipcRenderer.invoke")
	is.Equal(got[1].Prop, "save")
	is.Equal(got[1].End-got[1].First, 2)
	is.Equal(callee(got[1].First+1), "ipcRenderer.send")
}
