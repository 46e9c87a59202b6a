// Drives `rea serve` with the official MCP TypeScript client through a
// result larger than its 10 MiB stdio receive buffer: the server must answer
// resource_constraint (a small error the client receives without throwing),
// keep the Evidence retained, and serve it through summary discovery and
// paged views on the same connection. Prints one JSON summary line.
// Usage: node budget.mjs /path/to/rea /path/to/large.elf
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";

const [rea, elf] = process.argv.slice(2);
const client = new Client({ name: "rea-budget", version: "1.0.0" });
// The default receive buffer (10 MiB) is kept on purpose.
const transport = new StdioClientTransport({ command: rea, args: ["serve"], env: { ...process.env }, stderr: "inherit" });
const summary = {};
try {
  await client.connect(transport);
  const big = await client.callTool({ name: "inspect_binary_layout", arguments: { path: elf } });
  const env = JSON.parse(big.content[0].text).error;
  const limits = env.details.reported_limits;
  summary.layout = {
    isError: !!big.isError,
    structured: big.structuredContent === undefined ? null : big.structuredContent,
    code: env.code,
    resource: env.details.resource,
    evidence_id: limits.evidence_id,
    reference: limits.evidence_reference,
    text_bytes: big.content[0].text.length,
  };

  const found = await client.callTool({
    name: "get_evidence_bundle",
    arguments: { detail: "summary", filters: { operation: "inspect_binary_layout" } },
  });
  summary.found = {
    isError: !!found.isError,
    ids: found.structuredContent?.result?.records?.map((r) => r.evidence_id),
  };

  const view = await client.callTool({
    name: "inspect_analysis_view",
    arguments: { source: limits.evidence_reference, view: { kind: "page", collection: "symbols", offset: 0, limit: 100 } },
  });
  summary.page = {
    isError: !!view.isError,
    items: view.structuredContent?.normalized_result?.items?.length,
    next_offset: view.structuredContent?.normalized_result?.coverage?.next_offset,
    parent: view.structuredContent?.normalized_result?.parent_evidence_id,
  };

  const session = await client.callTool({ name: "binary_session", arguments: {} });
  summary.session = { isError: !!session.isError };
  summary.ok = true;
} catch (err) {
  summary.ok = false;
  summary.thrown = String(err?.stack ?? err);
} finally {
  await client.close().catch(() => {});
}
console.log(JSON.stringify(summary));
