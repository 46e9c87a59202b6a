package rea_test

import (
	"encoding/json"
	"io"
	"os/exec"
	"strings"
	"testing"

	"github.com/matryer/is"
)

// The direction of dependencies (STYLE.md, ARCHITECTURE.md). This is policy:
// a failure means the import is wrong, not the table.
//
//	ports              standard library only
//	ports/portstest    ports + github.com/matryer/is
//	ports/libc         standard library only: the C library's prototypes,
//	                   which core/process and adapters/native may import
//	core               the kernel: ports + its JSON libraries + core/present
//	                   + core/internal/jcs + core/internal/identify
//	core/internal/jcs  standard library only: RFC 8785 canonical JSON
//	core/internal/srcmap  standard library only: a source map's mappings
//	                   decoded, for core/jsapp and core/browser alike
//	core/internal/identify  standard library only: format, kind and
//	                   architecture from a target's headers (open_binary)
//	core/internal/gentest  standard library only: the generated files of
//	                   constant text that families' tests write and check
//	core/present       standard library only: the kernel's presentation of
//	                   schemas (advertised inputs, output projections, cache)
//	core/product       core + ports: the product catalog (rea catalog)
//	core/typecheck     standard library only: the check that an operation's
//	                   Go types and schemas agree; tests import it
//	core/codeloc       core + ports: the one code-location resolver, which
//	                   core/binary and core/annotate (and core/diff's
//	                   unknown-name refusal) share; it imports no family
//	core/<family>      core + ports + the JSON libraries (core/jsapp and
//	                   core/browser also core/internal/srcmap); core/jsapp also
//	                   core/artifact (the application graph is built over the
//	                   artifact graph's inventory), go-json-experiment/json
//	                   (source maps decoded in one pass) and internal/hugeheap;
//	                   no other family imports
//	                   a sibling; core/browser also core/web (its capture
//	                   results are the shapes compare_web_captures accepts,
//	                   so their result schemas are that operation's);
//	                   core/runtime also core/jsapp (reconciliation reads
//	                   the application graph through its decoder)
//	core/standard      core + the families (the one place they are listed)
//	supervisor         ports only (the process supervisor); core never
//	                   imports it
//	adapters/<eng>     ports + that engine's libraries (+ supervisor); never
//	                   core, never another adapter
//	adapters/internal/ndjson  standard library only: bounded NDJSON line
//	                   reading shared by the engines spoken to over a
//	                   socket (ghidra, hopper); not an adapter of its own
//	adapters/internal/lazyengine  ports + snapshot: the lazily started owned
//	                   engine and its analysis snapshots (ghidra,
//	                   hopper); not an adapter of its own
//	adapters/internal/arfile  standard library only: the ar archive walk
//	                   that adapters/native (signature libraries) and
//	                   adapters/ar (containers) share; not an adapter of its own
//	adapters/internal/fakeproc  standard library only: process behaviour of
//	                   the fake engines the ghidra and hopper tests build
//	adapters/hosts     ports + go-toml (agent hosts' configuration files)
//	internal/hugeheap  standard library only: the heap's fresh memory in
//	                   transparent huge pages, which core/jsapp and
//	                   adapters/native ask for in a process rea owns
//	adapters/pty       ports + supervisor + creack/pty + charmbracelet/x/vt (process capture)
//	adapters/gdbremote ports + supervisor (native call tracing under gdbserver)
//	adapters/mcp       core + ports + go-sdk (and jsonschema-go, its Tool's schema type)
//	adapters/cli       core + ports + kong + go-json-experiment/json (a
//	                   result read for its text in one pass)
//	cmd/               wiring only: rea's own packages (no go-sdk, no kong)
//	examples/          core, its families and standard, ports, adapters
//	bench/             anything in rea
//
// Test files are checked too, against the row plus its test allowance.
// Production code never imports rea/ports/portstest.
var policy = []struct {
	prefix  string
	allowed []string // import path prefixes beyond the standard library
	tests   []string // further prefixes test files may import
}{
	{"rea/ports/portstest", []string{"rea/ports", "github.com/matryer/is"}, nil},
	{"rea/ports/libc", nil, []string{"github.com/matryer/is"}},
	{"rea/ports", nil, []string{"github.com/matryer/is"}},
	{"rea/core/standard", []string{"rea/core", "rea/core/annotate", "rea/core/artifact", "rea/core/binary", "rea/core/browser", "rea/core/diff", "rea/core/jsapp", "rea/core/process", "rea/core/runtime", "rea/core/web"}, []string{"rea/core/typecheck", "rea/ports", "rea/ports/portstest", "github.com/matryer/is"}},
	{"rea/core/browser", append([]string{"rea/core/web", "rea/core/internal/srcmap"}, familyAllowed...), familyTests},
	{"rea/core/jsapp", append([]string{"rea/core/artifact", "rea/core/internal/srcmap", "rea/internal/hugeheap", fastJSON}, familyAllowed...), familyTests},
	{"rea/core/artifact", familyAllowed, familyTests},
	{"rea/core/binary", append([]string{"github.com/ianlancetaylor/demangle", "rea/core/codeloc"}, familyAllowed...), familyTests},
	{"rea/core/web", familyAllowed, familyTests},
	{"rea/core/process", append([]string{"rea/ports/libc"}, familyAllowed...), familyTests},
	{"rea/core/diff", append([]string{"rea/core/codeloc"}, familyAllowed...), familyTests},
	{"rea/core/present", nil, []string{"github.com/matryer/is"}},
	{"rea/core/product", []string{"rea/core", "rea/ports"}, []string{"github.com/matryer/is"}},
	{"rea/core/typecheck", nil, []string{"github.com/matryer/is"}},
	{"rea/core/runtime", append([]string{"rea/core/jsapp"}, familyAllowed...), familyTests},
	{"rea/core/annotate", append([]string{"rea/core/codeloc"}, familyAllowed...), familyTests},
	{"rea/core/codeloc", []string{"rea/core", "rea/ports"}, []string{"github.com/matryer/is"}},
	{"rea/core/internal/jcs", nil, []string{"github.com/matryer/is"}},
	{"rea/core/internal/identify", nil, []string{"github.com/matryer/is"}},
	{"rea/core/internal/srcmap", nil, nil},
	{"rea/internal/hugeheap", nil, nil},
	{"rea/core/internal/gentest", nil, nil},
	{"rea/core/", nil, nil}, // a new family needs its own row
	{"rea/core", append([]string{"rea/core/present", "rea/core/internal/jcs", "rea/core/internal/identify"}, kernelAllowed...), []string{"rea/core/standard", "rea/ports/portstest", "github.com/matryer/is"}},
	{"rea/supervisor", []string{"rea/ports"}, []string{"github.com/matryer/is"}},
	{"rea/snapshot", nil, []string{"github.com/matryer/is"}}, // stdlib only: engines share it
	{"rea/adapters/mcp", []string{"rea/core", "rea/ports", "github.com/modelcontextprotocol/go-sdk/", "github.com/google/jsonschema-go/jsonschema"},
		[]string{"rea/core/standard", "github.com/santhosh-tekuri/jsonschema/v6", "github.com/matryer/is"}},
	{"rea/adapters/cli", []string{"rea/core", "rea/core/product", "rea/ports", "github.com/alecthomas/kong", fastJSON}, []string{"rea/core/standard", "github.com/matryer/is"}},
	{"rea/adapters/native", []string{"rea/ports", "rea/ports/libc", "rea/adapters/native/", "golang.org/x/arch/", "rea/supervisor", "rea/snapshot", "rea/internal/hugeheap", "rea/adapters/internal/arfile"}, engineTests},
	{"rea/adapters/asar", []string{"rea/ports", "rea/adapters/asar/"}, engineTests},
	{"rea/adapters/zip", []string{"rea/ports"}, engineTests},
	{"rea/adapters/tar", []string{"rea/ports", "github.com/klauspost/compress/"}, engineTests},
	{"rea/adapters/ar", []string{"rea/ports", "rea/adapters/internal/arfile"}, engineTests},
	{"rea/adapters/js", []string{"rea/ports", "github.com/tdewolff/parse/v2", "github.com/go-sourcemap/sourcemap"}, engineTests},
	{"rea/adapters/cdp", []string{"rea/ports", "rea/adapters/cdp/", "github.com/chromedp/", "rea/supervisor"}, engineTests},
	{"rea/adapters/ghidra", []string{"rea/ports", "rea/supervisor", "rea/snapshot", "rea/adapters/ghidra/", "rea/adapters/internal/ndjson", "rea/adapters/internal/lazyengine"}, engineTests},
	{"rea/adapters/hopper", []string{"rea/ports", "rea/supervisor", "rea/snapshot", "rea/adapters/hopper/", "rea/adapters/internal/ndjson", "rea/adapters/internal/lazyengine"}, engineTests},
	{"rea/adapters/internal/ndjson", nil, []string{"github.com/matryer/is"}},
	{"rea/adapters/internal/lazyengine", []string{"rea/ports", "rea/snapshot"}, []string{"github.com/matryer/is"}},
	{"rea/adapters/internal/fakeproc", nil, nil},
	{"rea/adapters/internal/arfile", nil, nil},
	{"rea/adapters/hosts", []string{"rea/ports", "github.com/pelletier/go-toml/v2"}, engineTests},
	{"rea/adapters/pty", []string{"rea/ports", "rea/supervisor", "github.com/creack/pty", "github.com/charmbracelet/x/vt"}, engineTests},
	{"rea/adapters/gdbremote", []string{"rea/ports", "rea/ports/libc", "rea/supervisor"}, engineTests},
	{"rea/adapters/", []string{"rea/ports", "rea/supervisor"}, engineTests}, // any future engine
	// cmd/rea's end-to-end tests are MCP clients, so its tests may use go-sdk.
	{"rea/cmd/", []string{"rea/"}, []string{"github.com/modelcontextprotocol/go-sdk/", "github.com/matryer/is", "github.com/creack/pty"}}, // a PTY: rea capture's live view needs a terminal on stderr
	{"rea/examples/", []string{"rea/core", "rea/core/", "rea/ports", "rea/adapters/"}, []string{"github.com/matryer/is"}},
	{"rea/bench/", []string{"rea/"}, nil},
}

var (
	// fastJSON decodes large untrusted or bulky JSON (source maps, the
	// CLI's reading of a result) in one pass; the CDP engine's protocol
	// library links it already.
	fastJSON      = "github.com/go-json-experiment/json"
	kernelAllowed = []string{"rea/ports", "github.com/santhosh-tekuri/jsonschema/v6", "github.com/gowebpki/jcs"}
	familyAllowed = append([]string{"rea/core"}, kernelAllowed...)
	familyTests   = []string{"rea/core/standard", "rea/core/typecheck", "rea/core/internal/gentest", "rea/ports/portstest", "github.com/matryer/is"}
	engineTests   = []string{"rea/ports/portstest", "rea/ports/portstest/", "github.com/matryer/is"}
)

// forbidden holds, whatever a row allows, for production code and tests.
var forbidden = []struct {
	importer, imported, why string
	production              bool // the rule binds production code only
}{
	{"rea/core", "rea/supervisor", "core never starts processes; engines own them", false},
	{"rea/core/", "rea/supervisor", "core never starts processes; engines own them", false},
	{"rea/cmd/", "github.com/modelcontextprotocol/go-sdk/", "cmd wires adapters; go-sdk stays in adapters/mcp", true},
	{"rea/cmd/", "github.com/alecthomas/kong", "cmd wires adapters; kong stays in adapters/cli", true},
}

type pkg struct {
	ImportPath   string
	Imports      []string
	TestImports  []string
	XTestImports []string
}

// covers reports whether a policy entry covers path: an entry ending in
// "/" covers the packages below it; a rea path covers itself only; a
// third-party path covers itself and the packages of its module below it.
func covers(entry, path string) bool {
	if strings.HasSuffix(entry, "/") {
		return strings.HasPrefix(path, entry)
	}
	if strings.HasPrefix(entry, "rea/") {
		return path == entry
	}
	return path == entry || strings.HasPrefix(path, entry+"/")
}

func TestDependencyDirection(t *testing.T) {
	is := is.New(t)
	out, err := exec.Command("go", "list", "-json", "./...").Output()
	is.NoErr(err)
	dec := json.NewDecoder(strings.NewReader(string(out)))
	std := map[string]bool{}
	stdOut, err := exec.Command("go", "list", "std").Output()
	is.NoErr(err)
	for _, p := range strings.Fields(string(stdOut)) {
		std[p] = true
	}
	checked := 0
	for {
		var p pkg
		if err := dec.Decode(&p); err == io.EOF {
			break
		} else {
			is.NoErr(err)
		}
		if p.ImportPath == "rea" {
			continue
		}
		errs := checkPackage(p, std)
		if errs == nil {
			checked++
		}
		for _, e := range errs {
			t.Error(e)
		}
	}
	is.True(checked > 5)
}

// checkPackage returns the violations of p's imports.
func checkPackage(p pkg, std map[string]bool) []string {
	rule := -1
	for i, r := range policy {
		if covers(r.prefix, p.ImportPath) || !strings.HasSuffix(r.prefix, "/") && strings.HasPrefix(p.ImportPath, r.prefix+"/") {
			rule = i
			break
		}
	}
	if rule < 0 || policy[rule].prefix == "rea/core/" {
		return []string{p.ImportPath + ": no dependency rule covers this package; add it to the policy in deps_test.go and ARCHITECTURE.md"}
	}
	var errs []string
	check := func(imports []string, test bool) {
		for _, imp := range imports {
			if std[imp] || imp == p.ImportPath {
				continue
			}
			what := "imports"
			if test {
				what = "tests import"
			}
			for _, f := range forbidden {
				if (!test || !f.production) && covers(f.importer, p.ImportPath) && covers(f.imported, imp) {
					errs = append(errs, p.ImportPath+" "+what+" "+imp+": "+f.why)
				}
			}
			if !test && imp == "rea/ports/portstest" {
				errs = append(errs, p.ImportPath+" imports rea/ports/portstest: it is for tests only")
				continue
			}
			allowed := policy[rule].allowed
			if test {
				allowed = append(append([]string{p.ImportPath}, allowed...), policy[rule].tests...)
			}
			ok := false
			for _, a := range allowed {
				if covers(a, imp) {
					ok = true
				}
			}
			if !ok {
				errs = append(errs, p.ImportPath+" "+what+" "+imp+", against the direction of dependencies")
			}
		}
	}
	check(p.Imports, false)
	check(p.TestImports, true)
	check(p.XTestImports, true)
	return errs
}

// The checker itself must fail on the imports the policy forbids.
func TestDependencyPolicyRejects(t *testing.T) {
	std := map[string]bool{"fmt": true}
	for _, bad := range []pkg{
		{ImportPath: "rea/core", Imports: []string{"rea/core/binary"}},
		{ImportPath: "rea/core/binary", Imports: []string{"rea/core/artifact"}},
		{ImportPath: "rea/core/artifact", Imports: []string{"rea/core/jsapp"}},
		{ImportPath: "rea/core/web", Imports: []string{"rea/adapters/native"}},
		{ImportPath: "rea/core", Imports: []string{"rea/supervisor"}},
		{ImportPath: "rea/supervisor", Imports: []string{"rea/core"}},
		{ImportPath: "rea/adapters/native", Imports: []string{"rea/ports/portstest"}},
		{ImportPath: "rea/adapters/native", Imports: []string{"rea/core"}},
		{ImportPath: "rea/adapters/zip", TestImports: []string{"rea/adapters/asar"}},
		{ImportPath: "rea/core", XTestImports: []string{"rea/adapters/native"}},
		{ImportPath: "rea/cmd/rea", Imports: []string{"github.com/modelcontextprotocol/go-sdk/mcp"}},
		{ImportPath: "rea/cmd/rea", Imports: []string{"github.com/alecthomas/kong"}},
		{ImportPath: "rea/core/newfamily", Imports: []string{"rea/core"}},
		{ImportPath: "rea/ports/libc", Imports: []string{"rea/ports"}},
		{ImportPath: "rea/core/web", Imports: []string{"rea/ports/libc"}},
	} {
		if errs := checkPackage(bad, std); len(errs) == 0 {
			t.Errorf("%s importing %v%v%v passed the policy", bad.ImportPath, bad.Imports, bad.TestImports, bad.XTestImports)
		}
	}
	for _, good := range []pkg{
		{ImportPath: "rea/core/jsapp", Imports: []string{"rea/core", "rea/core/artifact", "fmt"}},
		{ImportPath: "rea/supervisor", Imports: []string{"rea/ports"}},
		{ImportPath: "rea/cmd/rea", Imports: []string{"rea/adapters/mcp"}, TestImports: []string{"github.com/modelcontextprotocol/go-sdk/mcp"}},
		{ImportPath: "rea/adapters/native", XTestImports: []string{"rea/ports/portstest", "rea/adapters/native"}},
	} {
		if errs := checkPackage(good, std); len(errs) != 0 {
			t.Errorf("%s: %v", good.ImportPath, errs)
		}
	}
}
