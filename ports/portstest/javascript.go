package portstest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/matryer/is"

	"rea/ports"
)

// JSSample is one JavaScript source a JavaScriptEngine must read.
type JSSample struct {
	Path   string
	Source []byte
}

// RunJavaScript checks a ports.JavaScriptEngine against its contract: a
// valid Info; facts for every sample with module types, import kinds and
// offsets that fit the source; the source left unmodified; limits honoured
// (strings, calls and modules capped, an oversized source reported as a
// limitation, not parsed); hostile sources (empty, binary, invalid UTF-8,
// unterminated literals, deep nesting) giving facts, never an error or a
// panic; a cancelled context the only error; and concurrent callers seeing
// the same facts. samples must include at least one source.
func RunJavaScript(t *testing.T, e ports.JavaScriptEngine, samples ...JSSample) {
	t.Helper()
	ctx := t.Context()
	facts := func(ctx context.Context, req ports.JSRequest) (f *ports.JSFacts, err error) {
		defer func() {
			if r := recover(); r != nil {
				err = fmt.Errorf("Facts panicked on %s: %v", req.Path, r)
			}
		}()
		return e.Facts(ctx, req)
	}

	t.Run("Info", func(t *testing.T) {
		is := is.New(t)
		is.NoErr(checkInfo(e.Info()))
	})
	if len(samples) == 0 {
		t.Fatal("RunJavaScript needs at least one sample")
	}

	want := make([]*ports.JSFacts, len(samples))
	t.Run("Samples", func(t *testing.T) {
		for i, s := range samples {
			t.Run(s.Path, func(t *testing.T) {
				is := is.New(t)
				src := bytes.Clone(s.Source)
				f, err := facts(ctx, ports.JSRequest{Path: s.Path, Source: src})
				is.NoErr(err)
				is.True(f != nil)
				is.True(bytes.Equal(src, s.Source)) // the engine modified its input
				is.NoErr(checkJSFacts(f, len(src), ports.JSLimits{}))
				want[i] = f
			})
		}
	})

	t.Run("Limits", func(t *testing.T) {
		for _, s := range samples {
			t.Run(s.Path, func(t *testing.T) {
				is := is.New(t)
				lim := ports.JSLimits{MaxStrings: 1, MaxCalls: 1, MaxModules: 1, MaxStringBytes: 4, MaxValueDepth: 1}
				f, err := facts(ctx, ports.JSRequest{Path: s.Path, Source: s.Source, Limits: lim})
				is.NoErr(err)
				is.NoErr(checkJSFacts(f, len(s.Source), lim))
				if len(s.Source) < 2 {
					return
				}
				f, err = facts(ctx, ports.JSRequest{Path: s.Path, Source: s.Source, Limits: ports.JSLimits{MaxSourceBytes: 1}})
				is.NoErr(err)
				is.True(!f.Parsed)              // a source over MaxSourceBytes is not parsed
				is.True(len(f.Limitations) > 0) // and that is reported as a limitation
			})
		}
	})

	t.Run("Hostile", func(t *testing.T) {
		for _, h := range hostileSources() {
			t.Run(h.name, func(t *testing.T) {
				is := is.New(t)
				f, err := facts(ctx, ports.JSRequest{Path: h.name + ".js", Source: h.b})
				is.NoErr(err) // bad input is a fact, not an error
				is.True(f != nil)
				is.NoErr(checkJSFacts(f, len(h.b), ports.JSLimits{}))
			})
		}
	})

	t.Run("Cancelled", func(t *testing.T) {
		is := is.New(t)
		cancelled, cancel := context.WithCancel(ctx)
		cancel()
		_, err := facts(cancelled, ports.JSRequest{Path: samples[0].Path, Source: samples[0].Source})
		is.True(errors.Is(err, context.Canceled)) // a cancelled context is the one error
	})

	t.Run("Concurrent", func(t *testing.T) {
		is := is.New(t)
		const workers = 4
		got := make([][]*ports.JSFacts, workers)
		errs := make([]error, workers)
		var wg sync.WaitGroup
		for w := range workers {
			wg.Go(func() {
				for _, s := range samples {
					f, err := facts(ctx, ports.JSRequest{Path: s.Path, Source: s.Source})
					if err != nil {
						errs[w] = err
						return
					}
					got[w] = append(got[w], f)
				}
			})
		}
		wg.Wait()
		for w := range workers {
			is.NoErr(errs[w])
			is.True(reflect.DeepEqual(got[w], want)) // concurrent facts equal the sequential ones
		}
	})
}

func hostileSources() []image {
	return []image{
		{"empty", nil},
		{"nul", []byte("var a = 1;\x00\x00\x00 require('x')")},
		{"binary", []byte("\x7fELF\x02\x01\x01\x00\xff\xfe\xfd\x00\x00\x01")},
		{"invalid-utf8", []byte("const s = \"\xff\xfe\"; import('\xc3\x28')")},
		{"unterminated-string", []byte(`require("never closed`)},
		{"unterminated-template", []byte("const t = `abc ${x")},
		{"unterminated-comment", []byte("/* open comment")},
		{"unterminated-regexp", []byte("var r = /abc")},
		{"deep-parens", []byte(strings.Repeat("(", 20000) + "1" + strings.Repeat(")", 20000))},
		{"deep-brackets", []byte("x = " + strings.Repeat("[", 20000))},
		{"deep-objects", []byte("x = " + strings.Repeat("{a:", 5000) + "1" + strings.Repeat("}", 5000))},
		{"bom-and-separators", []byte("\ufeffconst a = '\u2028\u2029';")},
		{"long-string", []byte(`module.exports = "` + strings.Repeat("a", 200000) + `"`)},
		{"many-strings", []byte(strings.Repeat(`f("s");`, 20000))},
	}
}

var (
	moduleTypes = map[string]bool{"esm": true, "commonjs": true, "script": true, "unknown": true}
	importKinds = map[string]bool{
		ports.JSImportStatic: true, ports.JSExportFrom: true, ports.JSExportAll: true, ports.JSRequire: true,
		ports.JSDynamicImport: true, ports.JSWorker: true, ports.JSSharedWorker: true, ports.JSServiceWorker: true,
		ports.JSImportScripts: true, ports.JSRequireResolved: true,
	}
)

// checkJSFacts checks facts about a source of size bytes read within lim
// (zero fields: no bound checked).
func checkJSFacts(f *ports.JSFacts, size int, lim ports.JSLimits) error {
	n := int64(size)
	off := func(o int64) bool { return o >= -1 && o <= n }
	switch {
	case !moduleTypes[f.ModuleType]:
		return fmt.Errorf("module type %q", f.ModuleType)
	case f.StringsOmitted < 0 || f.CallsOmitted < 0 || f.ModulesOmitted < 0:
		return errors.New("negative omission count")
	case lim.MaxStrings > 0 && len(f.Strings) > lim.MaxStrings:
		return fmt.Errorf("%d strings over a limit of %d", len(f.Strings), lim.MaxStrings)
	case lim.MaxCalls > 0 && len(f.Calls) > lim.MaxCalls:
		return fmt.Errorf("%d calls over a limit of %d", len(f.Calls), lim.MaxCalls)
	case lim.MaxModules > 0 && len(f.Modules) > lim.MaxModules:
		return fmt.Errorf("%d modules over a limit of %d", len(f.Modules), lim.MaxModules)
	}
	for i, im := range f.Imports {
		if !importKinds[im.Kind] {
			return fmt.Errorf("import %d: kind %q", i, im.Kind)
		}
		if !off(im.Offset) {
			return fmt.Errorf("import %d: offset %d outside the %d-byte source", i, im.Offset, n)
		}
		if im.InModule != -1 && (im.InModule < 0 || im.InModule >= len(f.Modules)) {
			return fmt.Errorf("import %d: in module %d of %d", i, im.InModule, len(f.Modules))
		}
		if im.Dynamic && im.Specifier != "" {
			return fmt.Errorf("import %d: dynamic with specifier %q", i, im.Specifier)
		}
	}
	for i, s := range f.Strings {
		if !off(s.Offset) || s.Length < 0 || (s.Offset >= 0 && s.Offset+s.Length > n) {
			return fmt.Errorf("string %d: [%d, +%d) outside the %d-byte source", i, s.Offset, s.Length, n)
		}
	}
	for i, c := range f.Calls {
		if !off(c.Offset) || !off(int64(c.CalleeOffset)) || !off(int64(c.Position)) {
			return fmt.Errorf("call %d: offset %d, callee offset %d or position %d outside the source", i, c.Offset, c.CalleeOffset, c.Position)
		}
		if c.Callee == "" {
			return fmt.Errorf("call %d: empty callee", i)
		}
	}
	for i, m := range f.Modules {
		if !off(m.Start) || !off(m.End) || (m.Start >= 0 && m.End >= 0 && m.End < m.Start) {
			return fmt.Errorf("module %d: [%d, %d) outside the source", i, m.Start, m.End)
		}
	}
	for i, r := range f.Routes {
		if !off(r.Offset) || r.Parent < -1 || r.Parent >= i {
			return fmt.Errorf("route %d: offset %d or parent %d out of range", i, r.Offset, r.Parent)
		}
	}
	for i, e := range f.Errors {
		if !off(e.Offset) || e.Message == "" {
			return fmt.Errorf("syntax error %d: offset %d, message %q", i, e.Offset, e.Message)
		}
	}
	if f.SourceMap != nil && !off(f.SourceMap.Offset) {
		return fmt.Errorf("source map comment offset %d outside the source", f.SourceMap.Offset)
	}
	return nil
}
