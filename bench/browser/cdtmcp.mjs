// Drives chrome-devtools-mcp (pinned in package.json) over stdio against a
// running browser: list_pages, select_page for PAGE_URL, then take_snapshot
// RUNS times. Prints {"snapshot_ms":[...],"total_ms":[...],"bytes":N}.
// Usage statistics, update checks and CrUX lookups are turned off: nothing leaves loopback.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";

const [endpoint, pageURL, runsArg] = process.argv.slice(2);
const runs = Number(runsArg || 3);
const text = (r) => (r.content || []).filter((c) => c.type === "text").map((c) => c.text).join("\n");

const snapshotMS = [], totalMS = [];
let bytes = 0;
for (let i = 0; i < runs; i++) {
  const t0 = performance.now();
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: ["node_modules/chrome-devtools-mcp/build/src/bin/chrome-devtools-mcp.js", "--browserUrl", endpoint,
      "--no-usage-statistics", "--no-performance-crux"],
    env: { ...process.env, CHROME_DEVTOOLS_MCP_NO_USAGE_STATISTICS: "1", CHROME_DEVTOOLS_MCP_NO_UPDATE_CHECKS: "1" },
    stderr: "ignore",
  });
  const client = new Client({ name: "rea-bench", version: "1" });
  await client.connect(transport);
  const pages = text(await client.callTool({ name: "list_pages", arguments: {} }));
  const line = pages.split("\n").find((l) => l.includes(pageURL));
  const m = line && line.match(/(\d+):/);
  if (!m) throw new Error("page not listed: " + pages);
  const sel = await client.callTool({ name: "select_page", arguments: { pageId: Number(m[1]) } });
  if (sel.isError) throw new Error("select_page: " + text(sel));
  const t1 = performance.now();
  const snap = await client.callTool({ name: "take_snapshot", arguments: { pageId: Number(m[1]) } });
  const t2 = performance.now();
  if (snap.isError) throw new Error("take_snapshot: " + text(snap));
  bytes = Buffer.byteLength(JSON.stringify(snap));
  snapshotMS.push(t2 - t1);
  totalMS.push(t2 - t0);
  await client.close();
}
process.stdout.write(JSON.stringify({ snapshot_ms: snapshotMS, total_ms: totalMS, bytes }));
