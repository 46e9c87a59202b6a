package js

import (
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"
	"unsafe"

	"github.com/tdewolff/parse/v2"
	tjs "github.com/tdewolff/parse/v2/js"

	"rea/ports"
)

// corpusFile is a JavaScript file of a benchmark corpus, with room for the
// parser's NUL (as the application analysis reads it).
type corpusFile struct {
	path, moduleType string
	src              []byte
}

// corpusFiles reads the .js, .mjs and .cjs files under $REA_JS_CORPUS (a
// directory of packages), or skips tb when it names none.
func corpusFiles(tb testing.TB) []corpusFile {
	dir := os.Getenv("REA_JS_CORPUS")
	if dir == "" {
		tb.Skip("REA_JS_CORPUS names no directory of JavaScript to analyse")
	}
	var files []corpusFile
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || !d.Type().IsRegular() {
			return err
		}
		mt := ""
		switch {
		case strings.HasSuffix(p, ".mjs"):
			mt = "esm"
		case strings.HasSuffix(p, ".cjs"):
			mt = "commonjs"
		case strings.HasSuffix(p, ".js"):
		default:
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		src := make([]byte, len(b), len(b)+1)
		copy(src, b)
		files = append(files, corpusFile{p, mt, src})
		return nil
	})
	if err != nil {
		tb.Fatal(err)
	}
	return files
}

// BenchmarkFactsCorpus analyses every file of the corpus as the
// application analysis does, once per iteration.
func BenchmarkFactsCorpus(b *testing.B) {
	files := corpusFiles(b)
	var n int64
	for _, f := range files {
		n += int64(len(f.src))
	}
	b.SetBytes(n)
	b.ReportAllocs()
	for b.Loop() {
		for _, f := range files {
			if _, err := New().Facts(context.Background(), ports.JSRequest{Path: f.path, Source: f.src, Calls: corpusCalls, ModuleType: f.moduleType, SourceOwned: true}); err != nil {
				b.Fatal(err)
			}
		}
	}
}

// BenchmarkExtractCorpus measures the engine's own part of Facts, the walk
// and what follows it, over the corpus files that parse: each file is
// parsed afresh (as Facts does, so its tree is as warm in the caches) and
// only extract is timed, in the thread's CPU time (extract-cpu-ms/op,
// steadier than wall time on a loaded machine) and in wall time
// (extract-ms/op). The parser's cost, most of Facts', is left out.
func BenchmarkExtractCorpus(b *testing.B) {
	var files []corpusFile
	var n int64
	for _, f := range corpusFiles(b) {
		if binaryReason(f.src) != "" {
			continue
		}
		if _, err := tjs.Parse(parse.NewInputBytes(f.src), tjs.Options{}); err != nil {
			continue
		}
		files = append(files, f)
		n += int64(len(f.src))
	}
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	b.SetBytes(n)
	b.ReportAllocs()
	lim := limitsOf(ports.JSLimits{})
	var cpu, wall time.Duration
	for b.Loop() {
		for _, f := range files {
			ast, _ := tjs.Parse(parse.NewInputBytes(f.src), tjs.Options{})
			req := ports.JSRequest{Path: f.path, Source: f.src, Calls: corpusCalls, ModuleType: f.moduleType, SourceOwned: true}
			c0, w0 := threadCPU(), time.Now()
			extract(context.Background(), f.src, req, lim, &ports.JSFacts{ModuleType: "unknown"}, ast)
			cpu += threadCPU() - c0
			wall += time.Since(w0)
		}
	}
	b.ReportMetric(float64(cpu.Microseconds())/1e3/float64(b.N), "extract-cpu-ms/op")
	b.ReportMetric(float64(wall.Microseconds())/1e3/float64(b.N), "extract-ms/op")
}

// threadCPU is the CPU time of the calling thread.
func threadCPU() time.Duration {
	var ts syscall.Timespec
	const clockThreadCPUTimeID = 3
	syscall.Syscall(syscall.SYS_CLOCK_GETTIME, clockThreadCPUTimeID, uintptr(unsafe.Pointer(&ts)), 0)
	return time.Duration(ts.Nano())
}

// corpusCalls is the call selector the application analysis passes
// (core/jsapp's jsappCallSelector).
var corpusCalls = &ports.JSCallSelector{
	LastNames: []string{
		"handle", "handleOnce", "on", "once", "invoke", "send", "sendSync", "sendToHost", "postMessage",
		"BrowserWindow", "BrowserView", "WebContentsView", "loadFile", "loadURL", "fork", "exposeInMainWorld",
		"fetch", "open", "WebSocket", "EventSource", "XMLHttpRequest",
		"setItem", "getItem", "removeItem", "clear",
		"readFile", "readFileSync", "writeFile", "writeFileSync", "appendFile", "appendFileSync", "existsSync",
		"mkdir", "mkdirSync", "readdir", "readdirSync", "unlink", "unlinkSync", "createReadStream", "createWriteStream",
		"rm", "rmSync", "stat", "statSync", "rename", "renameSync", "copyFile", "copyFileSync", "whenReady", "register",
		"openExternal", "openPath", "showItemInFolder",
	},
	ModuleSuffixes:      []string{".node", "child_process"},
	Roots:               []string{"window", "globalThis"},
	ModuleLastNames:     []string{"fs:cp", "fs:cpSync", "fs/promises:cp", "original-fs:cp", "original-fs:cpSync"},
	RelativeInArguments: true,
}
