package jsapp

import (
	"bytes"
	"context"
	"maps"
	"slices"
	"strings"
	"testing"

	"rea/ports/portstest"
)

func TestModuleScriptSrcs(t *testing.T) {
	for _, tc := range []struct {
		doc  string
		want []string
	}{
		{`<script type="module" src="app.js"></script>`, []string{"app.js"}},
		{`<SCRIPT SRC='./a.js' Type = ' Module '>`, []string{"./a.js"}},
		{"<script\ntype=module\nsrc=/assets/x.js?v=1#top>", []string{"/assets/x.js"}},
		{`<script src="app.js"></script><script type="text/javascript" src="b.js">`, nil},
		{`<script type="module" data-src="a.js"><script type="module">import "./c.js"</script>`, nil},
		{`<scripts type="module" src="a.js"><script-x type="module" src="b.js">`, nil},
		{`<script type="module" src="https://cdn.example.com/a.js"><script type="module" src="//cdn/b.js"><script type="module" src="data:text/javascript,1">`, nil},
		{`<script type="module" src="a.js"`, nil}, // no end of tag
		{`<script`, nil},
		// A tag in a comment is not run; one after the comment is.
		{`<!-- <script type="module" src="old.js"></script> --><script type="module" src="app.js">`, []string{"app.js"}},
		{`<!-- <script type="module" src="old.js"></script> --><script src="app.js">`, nil},
		{`<!-- -- <script type=module src=x.js> -- ---><script type=module src=a.js>`, []string{"a.js"}},
		{`<!-- a --!><script type=module src=a.js></script><!--><script type=module src=b.js></script><!---><script type=module src=c.js>`, []string{"a.js", "b.js", "c.js"}},
		{`<!----><script type=module src=a.js></script><!-- <!-- <script type=module src=x.js> --><script type=module src=b.js>`, []string{"a.js", "b.js"}},
		{`<script type=module src=a.js><!-- <script type="module" src="x.js">`, []string{"a.js"}}, // the comment runs to the end
		// <!- and <! open a bogus comment, which the first > ends.
		{`<!- <script type=module src=a.js><script type=module src=b.js></script><! x><script type=module src=c.js>`, []string{"b.js", "c.js"}},
		{`<!DOCTYPE html><script type=module src=a.js>`, []string{"a.js"}},
		// A tag in another element's text is text; one after the element is
		// a tag.
		{`<script>document.write('<script type="module" src="w.js"></scr' + 'ipt>')</script><script type=module src=a.js>`, []string{"a.js"}},
		{`<script type=module src=a.js><script type=module src=b.js></script ><script type=module src=c.js>`, []string{"a.js", "c.js"}},
		{`<script src=a.js></script><script type=module src=b.js>`, []string{"b.js"}},
		{`<script>"</scripts><script type=module src=x.js>"</SCRIPT/><script type=module src=a.js>`, []string{"a.js"}},
		{`<template><script type="module" src="x.js"></script></template><script type="module" src="a.js">`, []string{"a.js"}},
		{`<template><template></template><script type=module src=x.js></script></TEMPLATE><script type=module src=a.js>`, []string{"a.js"}},
		{`</template><script type=module src=a.js>`, []string{"a.js"}}, // no template open
		{`<textarea><script type="module" src="x.js"></script></textarea><script type="module" src="a.js">`, []string{"a.js"}},
		{`<noscript><script type="module" src="x.js"></script></noscript ><script type="module" src="a.js">`, []string{"a.js"}},
		{`<TITLE><script type=module src=x.js></title><script type=module src=a.js>`, []string{"a.js"}},
		{`<style>a::after{content:"<script type=module src=x.js>"}</style><script type=module src=a.js>`, []string{"a.js"}},
		{`<xmp><script type=module src=x.js></xmp><iframe><script type=module src=y.js></iframe><noembed><script type=module src=z.js></noembed><noframes><script type=module src=v.js></noframes><script type=module src=a.js>`, []string{"a.js"}},
		{`<style><script type=module src=x.js></styles><script type=module src=y.js>`, nil}, // the style runs to the end
		{`<plaintext></plaintext><script type=module src=x.js>`, nil},
		{`<titles></titles><script type=module src=a.js>`, []string{"a.js"}},              // not a title
		{`<textarea><!-- </textarea> --><script type=module src=a.js>`, []string{"a.js"}}, // no comment in RCDATA
		// In a script, <!-- escapes its text until -->, and a <script> in
		// the escaped text nests: its </script> does not end the script.
		{`<script><!-- <script></script><script type=module src=x.js></script> --></script><script type=module src=a.js>`, []string{"a.js"}},
		{`<script><!-- </script><script type=module src=a.js>`, []string{"a.js"}},
		{`<script><!--></script><script type=module src=a.js>`, []string{"a.js"}},
		{`<script><!--<script>--></script><script type=module src=a.js>`, []string{"a.js"}},
		{`<script><!--<scripts></script><script type=module src=a.js>`, []string{"a.js"}},
	} {
		if got := moduleScriptSrcs([]byte(tc.doc)); !slices.Equal(got, tc.want) {
			t.Errorf("%q: got %q, want %q", tc.doc, got, tc.want)
		}
	}
}

// FuzzModuleScriptSrcs: HTML documents are untrusted; scanning one never
// panics and yields only paths (no scheme, host, query or fragment).
func FuzzModuleScriptSrcs(f *testing.F) {
	for _, s := range []string{`<script type="module" src="a.js?x#y">`, `<SCRIPT type=module src=/b.js>`, `<script`, `<<script/>`, "<script\x00>",
		`<!-- <script type=module src=a.js> --!><!--->`, `<!--`,
		`<script><!--<script></script>--></script><template><textarea></textarea></template><script type=module src=a.js>`, `<plaintext`, `<title`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, doc []byte) {
		for _, s := range moduleScriptSrcs(doc) {
			if s == "" || strings.ContainsAny(s, ":?#") || strings.HasPrefix(s, "//") {
				t.Fatalf("%q yields %q", doc, s)
			}
		}
	})
}

// TestHTMLModuleScriptsReadsAStaleDocument: a document whose srcs were not
// scanned from the bytes the inventory hashed (a prefetched digest that is
// not the inventoried one, or none) is read again and scanned, not taken
// from the prefetch: its commented tag does not count, the real one does.
func TestHTMLModuleScriptsReadsAStaleDocument(t *testing.T) {
	ctx := context.Background()
	st, _ := inventoried(t, map[string]string{
		"index.html": `<!doctype html><!-- <script type="module" src="old.js"></script> --><script type="module" src="app.js"></script>`,
		"app.js":     "fetch('https://a.example.com/');\n",
		"old.js":     "fetch('https://old.example.com/');\n",
		"stale.js":   "fetch('https://stale.example.com/');\n",
	}, portstest.FakeJS{})
	defer st.g.Close()
	if err := st.parse(ctx); err != nil {
		t.Fatal(err)
	}
	pf := st.preSrc["index.html"]
	if pf == nil || pf.sha256 != st.files["index.html"].sha256 || len(pf.tags) != 1 || pf.tags[0].src != "app.js" || !pf.tags[0].module {
		t.Fatalf("prefetched %+v", pf)
	}
	for _, stale := range []*prefetchedSrcs{
		pf, // the prefetch itself
		{sha256: strings.Repeat("0", 64), tags: []scriptTag{{src: "stale.js", module: true}}},
		nil,
	} {
		st.preSrc["index.html"] = stale
		got, err := st.htmlModuleScripts(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if keys := slices.Sorted(maps.Keys(got)); !slices.Equal(keys, []string{"app.js"}) {
			t.Errorf("prefetched %+v: module scripts %q, want app.js", stale, keys)
		}
	}
}

// scriptTags gives every script a browser runs, module or not, with the
// offset of its src value (an Electron renderer's loads edge points
// there), and leaves out a tag inside a comment.
func TestScriptTags(t *testing.T) {
	doc := []byte(`<!-- <script src="old.js"></script> --><script src="r.js?v=1"></script><script type=module src='m.js'></script>`)
	got := scriptTags(doc)
	want := []scriptTag{{src: "r.js", module: false}, {src: "m.js", module: true}}
	if len(got) != len(want) {
		t.Fatalf("tags %+v, want %+v", got, want)
	}
	for i, g := range got {
		if g.src != want[i].src || g.module != want[i].module || !bytes.HasPrefix(doc[g.offset:], []byte(g.src)) {
			t.Errorf("tag %d: %+v (at %q), want %+v", i, g, doc[g.offset:min(len(doc), g.offset+8)], want[i])
		}
	}
}
