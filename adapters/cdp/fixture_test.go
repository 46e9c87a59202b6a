package cdp_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"rea/adapters/cdp/cdptest"
)

// The fixture site of the live tests: a module script that logs a bearer
// line, POSTs JSON, throws from its click handler, talks over a WebSocket, writes localStorage and
// IndexedDB and pushes history entries; a source map; an accessibility
// label; an agent link.
const fixtureHTML = `<!doctype html>
<html><head><title>rea fixture</title>
<link rel="mcp" href="/mcp.json">
<script type="module" src="/app/app.js"></script>
</head><body>
<main><h1>Fixture</h1>
<button id="go" aria-label="ax-private-label-value">Go</button>
<input id="name" type="text" aria-label="name-field">
<a href="/app/other">other</a> <a href="https://elsewhere.example/x">away</a>
<img src="/app/pixel.png" alt="">
<div id="out"></div></main>
</body></html>`

const fixtureJS = `let n = 0;
localStorage.setItem("fixture-key", "fixture-secret-value");
sessionStorage.setItem("session-key", "s");
const open = indexedDB.open("fixture-db", 1);
open.onupgradeneeded = () => open.result.createObjectStore("things", { keyPath: "id" });
open.onsuccess = () => {
  const tx = open.result.transaction("things", "readwrite");
  tx.objectStore("things").put({ id: 1, secret: "idb-secret" });
};
caches.open("fixture-cache").then((c) => c.put("/app/cached", new Response("cached-body")));
let ws = null;
// Chromium 156.0.8078.114 moved the API from navigator to document, and
// its registerTool returns a promise.
const mc = navigator.modelContext || document.modelContext;
if (mc && mc.registerTool) {
  try {
    const p = mc.registerTool({ name: "fixture_tool", description: "A fixture tool",
      inputSchema: { type: "object", properties: { q: { type: "string" } } }, execute: async () => ({}) });
    if (p && p.catch) p.catch(() => {});
  } catch (e) {}
}
function tick() {
  if (n % 4 === 0) {
    if (ws) ws.close();
    ws = new WebSocket("ws://" + location.host + "/ws");
    ws.onopen = () => ws.send(JSON.stringify({ kind: "hello", n }));
  }
  n++;
  console.log("Authorization: Bearer fixture-bearer-token", n);
  fetch("/api?token=query-secret", { method: "POST", headers: { "content-type": "application/json" },
    body: JSON.stringify({ user: "u", items: [1, 2], nested: { ok: true } }) });
  if (ws.readyState === 1) ws.send(JSON.stringify({ kind: "ping", n }));
  if (n <= 3) history.pushState({ n }, "", "/app/session-" + n);
  setTimeout(tick, 150);
}
tick();
document.getElementById("name").addEventListener("input", (e) => {
  document.getElementById("out").textContent = "typed:" + e.target.value;
  console.log("typed " + e.target.value);
});
document.getElementById("go").addEventListener("click", () => {
  document.getElementById("out").textContent = "clicked";
  console.log("clicked");
  setTimeout(() => { throw new TypeError("fixture click failure"); }, 0);
});
//# sourceMappingURL=app.js.map
`

const fixtureMap = `{"version":3,"file":"app.js","sources":["src/app.ts"],"names":[],"mappings":"AAAA"}`

// fixtureSite serves the fixture on 127.0.0.1.
func fixtureSite(t *testing.T) *httptest.Server {
	t.Helper()
	mux := http.NewServeMux()
	page := func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Header().Set("Content-Security-Policy", "default-src 'self'; connect-src 'self' ws:; img-src 'self'")
		w.Header().Set("X-Content-Type-Options", "nosniff")
		fmt.Fprint(w, fixtureHTML)
	}
	mux.HandleFunc("/app", page)
	mux.HandleFunc("/app/", func(w http.ResponseWriter, r *http.Request) {
		switch {
		case r.URL.Path == "/app/app.js":
			w.Header().Set("Content-Type", "text/javascript")
			fmt.Fprint(w, fixtureJS)
		case r.URL.Path == "/app/app.js.map":
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprint(w, fixtureMap)
		case strings.HasPrefix(r.URL.Path, "/app/session-"):
			page(w, r)
		case r.URL.Path == "/app/other":
			fmt.Fprint(w, `<!doctype html><title>other</title><p>other page</p>`)
		default:
			http.NotFound(w, r)
		}
	})
	mux.HandleFunc("/foreign", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `<!doctype html><title>foreign</title><script>
const p = new URLSearchParams(location.search);
const own = new WebSocket("ws://" + location.host + "/ws");
own.onopen = () => own.send("own");
const other = new WebSocket("ws://127.0.0.1:" + p.get("port") + "/ws");
other.onopen = () => other.send("other");
</script>`)
	})
	mux.HandleFunc("/frames", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `<!doctype html><title>frames</title><script>
const s = new WebSocket("ws://" + location.host + "/ws");
s.onopen = () => { s.send('{"kind":"hello","n":1}'); s.send(new Uint8Array([1, 2, 3])); };
</script>`)
	})
	mux.HandleFunc("/stream", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `<!doctype html><title>stream</title><script>
const s = new WebSocket("ws://" + location.host + "/ws");
s.onopen = () => { document.title = "streaming"; setInterval(() => s.send('{"tick":1}'), 50); };
</script>`)
	})
	mux.HandleFunc("/debugger", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `<!doctype html><title>debugger</title><script>
setInterval(() => { debugger; fetch("/api?n=" + Date.now()); }, 2);
</script>`)
	})
	mux.HandleFunc("/tall", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `<!doctype html><body style="margin:0"><div style="height:20000px;background:linear-gradient(red,blue)">tall</div></body>`)
	})
	mux.HandleFunc("/large", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `<!doctype html><title>large</title><body><button aria-label="first-button">b</button>`+strings.Repeat("<div>x</div>", 20000)+`</body>`)
	})
	mux.HandleFunc("/api", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, `{"ok":true,"count":2,"items":[{"id":1}]}`)
	})
	mux.HandleFunc("/mcp.json", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, `{}`)
	})
	mux.HandleFunc("/ws", cdptest.EchoWebSocket)
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv
}
