// Calls every tool's first advertised example through the official MCP
// TypeScript client, which validates each success against the tool's output
// schema. Usage: node examples.mjs /path/to/rea /path/to/binary [full|compact] [DIR]
//
// With DIR, every path under /tmp an example names (export_evidence_bundle
// writes /tmp/rea-evidence-bundle.json, import_evidence_bundle reads it) is
// replayed under DIR instead: /tmp is the whole machine's, and two runs of
// the tests at once would write, read and remove each other's file.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";

const [rea, target, profile = "full", dir] = process.argv.slice(2);
const local = (v) =>
  typeof v === "string" ? (dir && v.startsWith("/tmp/") ? dir + v.slice("/tmp".length) : v)
  : Array.isArray(v) ? v.map(local)
  : v && typeof v === "object" ? Object.fromEntries(Object.entries(v).map(([k, x]) => [k, local(x)]))
  : v;
const env = { ...process.env, REA_MCP_INPUT_SCHEMA_PROFILE: profile };
const summary = { profile, calls: [], thrown: [] };

async function connect(env) {
  const client = new Client({ name: "rea-examples", version: "1.0.0" });
  await client.connect(new StdioClientTransport({ command: rea, args: ["serve"], env, stderr: "inherit" }));
  return client;
}

// Examples come from the full profile (compact strips them); they are
// replayed against the server of the selected profile.
const full = await connect({ ...process.env, REA_MCP_INPUT_SCHEMA_PROFILE: "full" });
const fullTools = (await full.listTools()).tools;
await full.close();
const examples = Object.fromEntries(fullTools.map((t) => [t.name, local(t.inputSchema.examples?.[0] ?? {})]));

const client = await connect(env);
const t0 = performance.now();
const listed = await client.listTools();
summary.list_ms = performance.now() - t0;
summary.list_bytes = JSON.stringify(listed).length;
summary.tools = listed.tools.length;
summary.max_input_schema_bytes = Math.max(...listed.tools.map((t) => JSON.stringify(t.inputSchema).length));

// Open a target first so target-bound tools can succeed; close_binary last.
const order = listed.tools.map((t) => t.name).sort((a, b) =>
  (a === "open_binary" ? -1 : b === "open_binary" ? 1 : 0) || (a === "close_binary" ? 1 : b === "close_binary" ? -1 : 0));
for (const name of order) {
  const args = name === "open_binary" ? { path: target } : examples[name];
  try {
    const res = await client.callTool({ name, arguments: args });
    let code = null, reason = null;
    if (res.isError) {
      const e = JSON.parse(res.content[0].text).error;
      code = e.code;
      reason = e.details?.reason ?? null;
    }
    summary.calls.push({ name, isError: !!res.isError, code, reason, structured: res.structuredContent !== undefined,
      retained_reference: JSON.stringify(args).includes('"retained-evidence"') });
  } catch (err) {
    summary.thrown.push({ name, error: String(err?.message ?? err) });
  }
}
await client.close();
console.log(JSON.stringify(summary));
