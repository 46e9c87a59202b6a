package portstest

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"unicode/utf8"

	"rea/ports"
)

// FakeJS is a working ports.JavaScriptEngine that scans instead of parsing:
// it reports string literals ('...' and "..."), require("x") and
// import/export ... "x" as imports, calls of require as calls, and an
// unterminated string as a syntax error. It honours JSLimits and never
// panics; the zero value is ready and safe for concurrent use.
type FakeJS struct{}

var _ ports.JavaScriptEngine = FakeJS{}

// Info names the fake.
func (FakeJS) Info() ports.ProviderInfo {
	return ports.ProviderInfo{ID: "fake-js", Name: "in-memory JavaScript fake", Version: "0.0.0"}
}

// Facts scans req.Source.
func (FakeJS) Facts(ctx context.Context, req ports.JSRequest) (*ports.JSFacts, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("fake-js: %s: %w", req.Path, err)
	}
	lim := req.Limits
	if lim.MaxSourceBytes <= 0 {
		lim.MaxSourceBytes = 16 << 20
	}
	if lim.MaxStrings <= 0 {
		lim.MaxStrings = 10000
	}
	if lim.MaxStringBytes <= 0 {
		lim.MaxStringBytes = 4096
	}
	if lim.MaxCalls <= 0 {
		lim.MaxCalls = 10000
	}
	src := req.Source
	f := &ports.JSFacts{ModuleType: "unknown"}
	if int64(len(src)) > lim.MaxSourceBytes {
		f.Limitations = append(f.Limitations, fmt.Sprintf("source of %d bytes over the %d-byte limit, not parsed", len(src), lim.MaxSourceBytes))
		return f, nil
	}
	f.Parsed, f.ModuleType = true, "script"
	for i := 0; i < len(src); i++ {
		q := src[i]
		if q != '"' && q != '\'' {
			continue
		}
		end := i + 1
		for end < len(src) && src[end] != q && src[end] != '\n' {
			if src[end] == '\\' {
				end++
			}
			end++
		}
		if end >= len(src) || src[end] != q {
			f.Parsed = false
			f.Errors = append(f.Errors, ports.JSSyntaxError{Message: "unterminated string", Line: 1 + bytes.Count(src[:i], []byte("\n")), Offset: int64(i)})
			break
		}
		value := strings.ToValidUTF8(string(src[i+1:end]), "\uFFFD")
		lit := ports.JSString{Value: value, Offset: int64(i), Length: int64(end + 1 - i)}
		if len(lit.Value) > lim.MaxStringBytes {
			cut := lim.MaxStringBytes
			for cut > 0 && !utf8.RuneStart(lit.Value[cut]) {
				cut--
			}
			lit.Value, lit.Truncated = lit.Value[:cut], true
		}
		if len(f.Strings) < lim.MaxStrings {
			f.Strings = append(f.Strings, lit)
		} else {
			f.StringsOmitted++
		}
		before := bytes.TrimRight(src[:i], " \t")
		switch {
		case bytes.HasSuffix(before, []byte("require(")):
			f.ModuleType = "commonjs"
			f.Imports = append(f.Imports, ports.JSImport{Kind: ports.JSRequire, Specifier: value, Offset: int64(i), InModule: -1})
			at := bytes.LastIndex(before, []byte("require("))
			call := ports.JSCall{Offset: int64(at), CalleeOffset: int32(at), Position: int32(at), Callee: "require",
				Args: []ports.JSValue{{Kind: ports.JSValString, Value: value, Offset: int64(i)}}, InModule: -1}
			if len(f.Calls) < lim.MaxCalls {
				f.Calls = append(f.Calls, call)
			} else {
				f.CallsOmitted++
			}
		case bytes.HasSuffix(before, []byte("from")) || bytes.HasSuffix(before, []byte("import")):
			f.ModuleType = "esm"
			f.Imports = append(f.Imports, ports.JSImport{Kind: ports.JSImportStatic, Specifier: value, Offset: int64(i), InModule: -1})
		}
		i = end
	}
	return f, nil
}
