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

// TestExposedConstObjectMembers: a const object literal the exposed
// argument names, declared before the call, is that object: its function
// members are known by their keys and bodies, one passed by name too. A
// let binding, a const whose member the file assigns (after the call), a
// const declared after the call, and any under direct eval are not.
func TestExposedConstObjectMembers(t *testing.T) {
	props := func(src string) map[string]int {
		f := facts(t, src)
		got := map[string]int{}
		for _, fn := range f.Functions {
			if fn.Prop != "" && f.Calls[fn.Call].Callee == "contextBridge.exposeInMainWorld" {
				got[f.Calls[fn.Call].Args[0].Value+"."+fn.Prop] = fn.End - fn.First
			}
		}
		return got
	}
	is := is.New(t)
	pre := "const { contextBridge, ipcRenderer } = require(\"electron\");\n"
	got := props(pre + `const open = (p) => ipcRenderer.invoke("open", p);
const api = {
  save: (n) => ipcRenderer.invoke("save", n),
  list() { log(); return ipcRenderer.invoke("list"); },
  get count() { return ipcRenderer.sendSync("count"); },
  open,
};
contextBridge.exposeInMainWorld("api", api);
let loose = { ping: () => ipcRenderer.send("ping") };
contextBridge.exposeInMainWorld("loose", loose);
const changed = { go: () => ipcRenderer.send("go") };
contextBridge.exposeInMainWorld("changed", changed);
function f() { changed.go = null; }
function early() { contextBridge.exposeInMainWorld("early", later); }
const later = { run: () => ipcRenderer.send("run") };
`)
	is.Equal(got, map[string]int{"api.save": 1, "api.list": 2, "api.open": 1})
	got = props(pre + `const api = { save: (n) => ipcRenderer.invoke("save", n) };
contextBridge.exposeInMainWorld("api", api);
eval("x");
`)
	is.Equal(len(got), 0)
}
