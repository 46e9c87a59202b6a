package runtime_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/matryer/is"

	"rea/core"
	"rea/ports"
	"rea/ports/portstest"
)

// reconcile_javascript_runtime lists, by default, the load states an agent
// acts on (loaded, not observed, unknown) and counts the modules simply
// resident in a loaded asset; detail complete lists those too. Before, a
// 200-module bundle gave 200 identical resident entries (94 KB).
func TestReconcileConciseCountsResidentLoadStates(t *testing.T) {
	is := is.New(t)
	dir := t.TempDir()
	bundle := "console.log(1);\n//# sourceMappingURL=app.js.map\n"
	files := map[string]string{
		"dist/app.js":     bundle,
		"dist/app.js.map": `{"version":3,"sources":["../src/a.js","../src/b.js"],"names":[],"mappings":"AAAA"}`,
		"never.js":        "export const never = 1;\n",
	}
	for p, body := range files {
		full := filepath.Join(dir, p)
		is.NoErr(os.MkdirAll(filepath.Dir(full), 0o755))
		is.NoErr(os.WriteFile(full, []byte(body), 0o644))
	}
	sum := sha256.Sum256([]byte(bundle))
	f := portstest.NewRuntimeFake(dir)
	f.Scripts = []ports.RuntimeScript{script("1", dir+"/dist/app.js", hex.EncodeToString(sum[:]))}
	reg, err := core.NewRegistry(nil, &core.RegistryOptions{JavaScript: mapJS{}, Runtime: f})
	is.NoErr(err)
	session(t, nil) // the shared catalog
	s := core.NewSession(cat, reg, nil)
	obs := mustCall(t, s, "observe_javascript_runtime", map[string]any{"inspector_endpoint": "http://127.0.0.1:9229", "target_id": "N1", "runtime_kind": "node"})
	an := mustCall(t, s, "analyze_javascript_application", map[string]any{"path": dir})
	args := map[string]any{
		"static_layers":        []any{map[string]any{"role": "application", "analysis": retained(an)}},
		"runtime_observations": []any{retained(obs)},
	}
	states := func(r map[string]any) map[string]string {
		out := map[string]string{}
		for _, st := range r["static_load_states"].([]any) {
			m := st.(map[string]any)
			out[m["path"].(string)] = m["state"].(string)
		}
		return out
	}

	concise := mustCall(t, s, "reconcile_javascript_runtime", args)
	r := result(concise)
	is.Equal(states(r), map[string]string{"dist/app.js": "loaded", "never.js": "not-observed-in-capture"})
	is.Equal(r["summary"].(map[string]any)["load_state_resident_in_loaded_asset"], 2.0)
	is.Equal(r["coverage"].(map[string]any)["omitted_static_load_states"], 0.0) // left out by choice, not cut by a limit
	said := false
	for _, l := range r["limitations"].([]any) {
		said = said || strings.Contains(l.(string), "2 resident-in-loaded-asset") && strings.Contains(l.(string), `detail "complete"`)
	}
	is.True(said)

	args["detail"] = "complete"
	full := result(mustCall(t, s, "reconcile_javascript_runtime", args))
	is.Equal(states(full), map[string]string{"dist/app.js": "loaded", "never.js": "not-observed-in-capture",
		"dist/app.js#source:../src/a.js": "resident-in-loaded-asset", "dist/app.js#source:../src/b.js": "resident-in-loaded-asset"})
	is.Equal(full["summary"], r["summary"])
}

// mapJS is FakeJS that also reports a sourceMappingURL comment, as the
// real engine does, so a bundle's map lists its original sources.
type mapJS struct{ portstest.FakeJS }

func (e mapJS) Facts(ctx context.Context, req ports.JSRequest) (*ports.JSFacts, error) {
	f, err := e.FakeJS.Facts(ctx, req)
	if err != nil {
		return nil, err
	}
	const mark = "//# sourceMappingURL="
	if i := bytes.Index(req.Source, []byte(mark)); i >= 0 {
		url := string(bytes.TrimSpace(req.Source[i+len(mark):]))
		f.SourceMap = &ports.JSSourceMapRef{URL: url, Offset: int64(i)}
	}
	return f, nil
}
