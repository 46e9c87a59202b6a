package artifact

import (
	"bytes"
	"testing"
)

// TestShortMinified: a file under 128 bytes reads as minified when at
// least three places where hand-written code puts a blank have none and
// none has one. Minifiers' output of small modules (esbuild --minify and
// terser -c -m on this machine) does; hand-written files, and minified
// ones too short to show three such places, do not.
func TestShortMinified(t *testing.T) {
	for src, want := range map[string]bool{
		// esbuild --minify --format=esm
		"const t=(d,o)=>d+o;export{t as add};\n":                      true,
		`function r(e){return"Hello, "+e}export{r as greet};` + "\n":  true,
		`var e={name:"x",version:2,enabled:!0};export{e as default};`: true,
		`typeof window<"u"?window.foo=1:global.foo=2;`:                true,
		`export*from"./x.js";`:                                        true,
		// terser -c -m --module
		"export const add=(d,o)=>d+o;":                                        true,
		`export function greet(e){return"Hello, "+e}`:                         true,
		"module.exports=function(e,n){return e*n};":                           true,
		`"undefined"!=typeof window?window.foo=1:global.foo=2;`:               true,
		`Object.defineProperty(exports,"__esModule",{value:!0}),exports.a=1;`: true,
		// Too few places to tell a minifier from a terse hand.
		`module.exports=require("./lib/index.js");`: false,
		"console.log(1);\n":                         false,
		`"use strict";`:                             false,
		"for(;;){}":                                 false,
		"module.exports=f(a)||b;":                   false, // two places
		// Data a generator wrote without blanks (caniuse-lite's modules):
		// its lists' commas and colons are not code.
		`module.exports={A:"x y",B:1,C:"z",D:true,E:[1,2,3]};`: false,
		// Hand-written: at least one place has its blank.
		"export const add = (a, b) => a + b;\n":                          false,
		"export const add=(a, b)=>a+b;\n":                                false,
		"const { app } = require('electron');\napp.whenReady();\n":       false,
		`export * from "./x.js";`:                                        false,
		"if (x) {\n  y();\n} else {\n  z();\n}\n":                        false,
		`export default { name: "x", version: 2, enabled: true };`:       false,
		"function f(a,b){return a+b}f(1,2); // add a, b\n":               true, // the comment is not code
		`const s="a, b: c = d";f(s)&&g(s);`:                              true, // nor a string's blanks
		"export function area(width, height) { return width * height; }": false,
	} {
		if len(src) >= minLineBytes {
			t.Fatalf("%q is %d bytes, want under %d", src, len(src), minLineBytes)
		}
		if got := shortMinified([]byte(src)); got != want {
			t.Errorf("shortMinified(%q) = %v, want %v", src, got, want)
		}
	}
	// At 128 bytes the line's ratios decide (minifiedLine), not this.
	long := "function u(n,e){let t=null;return function(...o){t!==null&&clearTimeout(t),t=setTimeout(()=>{t=null,n.apply(this,o)},e)}}const l=1;"
	if shortMinified([]byte(long)) || !minifiedLine([]byte(long)) || len(long) < minLineBytes {
		t.Errorf("a %d-byte minified line: shortMinified %v, minifiedLine %v", len(long), shortMinified([]byte(long)), minifiedLine([]byte(long)))
	}
}

// TestBundleMarksFoundAsContains: each bundle mark is found, searched for
// at its rare byte, exactly where bytes.Contains finds it: at the start and
// the end of the head, after a first occurrence of its rare byte that is
// not the mark's, and not when the head cuts it.
func TestBundleMarksFoundAsContains(t *testing.T) {
	for _, m := range bundleMarks {
		mark, c := string(m.mark), string(m.mark[m.rare])
		for _, head := range []string{
			mark, "x" + mark, mark + "x", "/* " + c + c + " */\n" + mark, c + mark, mark[:len(mark)-1], mark[1:],
			mark[:m.rare] + c + mark[m.rare:], c + mark[m.rare+1:] + mark[:len(mark)-1], "",
		} {
			if got, want := containsAt([]byte(head), m.mark, m.rare), bytes.Contains([]byte(head), m.mark); got != want {
				t.Errorf("%q in %q: %v, bytes.Contains says %v", mark, head, got, want)
			}
		}
	}
}

// TestObjectFiles: an ELF relocatable file and a Mach-O MH_OBJECT (what
// gcc -c writes, and a static library's members) are objects, not
// unknown bytes.
func TestObjectFiles(t *testing.T) {
	elf := make([]byte, 64)
	copy(elf, "\x7fELF\x02\x01\x01")
	elf[16], elf[18] = 1, 62 // ET_REL, x86-64
	macho := make([]byte, 32)
	copy(macho, "\xcf\xfa\xed\xfe")               // MH_MAGIC_64, little-endian
	macho[4], macho[7], macho[12] = 0x0c, 0x01, 1 // arm64, MH_OBJECT
	for name, tc := range map[string]struct {
		head         []byte
		format, arch string
	}{"a.o": {elf, "elf", "x86_64"}, "b.o": {macho, "mach-o", "arm64"}} {
		c := classifyArtifact(name, tc.head, nil, nil, nil)
		if c.kind != "object" || c.format != tc.format || c.arch != tc.arch || c.executable {
			t.Errorf("%s: kind %q format %q arch %q executable %v", name, c.kind, c.format, c.arch, c.executable)
		}
	}
}
