// Measures tools/list size and the official TypeScript client's listTools()
// time (which includes compiling every output schema validator).
// Usage: node listtools.mjs /path/to/rea full|compact [runs]
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";

const [rea, profile = "full", runsArg = "10"] = process.argv.slice(2);
const times = [];
let bytes = 0, tools = 0, maxInput = 0;
for (let i = 0; i < Number(runsArg); i++) {
  const client = new Client({ name: "bench", version: "1" });
  await client.connect(new StdioClientTransport({
    command: rea, args: ["serve"], env: { ...process.env, REA_MCP_INPUT_SCHEMA_PROFILE: profile },
  }));
  const t0 = performance.now();
  const res = await client.listTools();
  times.push(performance.now() - t0);
  bytes = JSON.stringify(res).length;
  tools = res.tools.length;
  maxInput = Math.max(...res.tools.map((t) => JSON.stringify(t.inputSchema).length));
  await client.close();
}
times.sort((a, b) => a - b);
console.log(JSON.stringify({ profile, tools, tools_list_bytes: bytes, bytes_per_tool: Math.round(bytes / tools),
  max_input_schema_bytes: maxInput, listTools_ms_median: +times[times.length >> 1].toFixed(1), listTools_ms_min: +times[0].toFixed(1) }));
