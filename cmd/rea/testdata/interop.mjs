// Drives `rea serve` with the official MCP TypeScript client and prints one
// JSON summary line. Usage: node interop.mjs /path/to/rea /path/to/binary
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";

const [rea, target] = process.argv.slice(2);
const client = new Client({ name: "rea-interop", version: "1.0.0" });
const transport = new StdioClientTransport({ command: rea, args: ["serve"], env: { ...process.env }, stderr: "inherit" });
const summary = {};
try {
  let t0 = performance.now();
  await client.connect(transport);
  summary.connect_ms = performance.now() - t0;
  t0 = performance.now();
  const tools = await client.listTools();
  summary.list_ms = performance.now() - t0;
  summary.tools = tools.tools.map((t) => t.name);
  summary.protocol = client.getServerVersion();

  const session = await client.callTool({ name: "binary_session", arguments: {} });
  summary.session = {
    isError: !!session.isError,
    combined: session.structuredContent?.result?.server_identity?.catalog?.combined_sha256,
    client: session.structuredContent?.result?.server_identity?.client,
  };

  const opened = await client.callTool({ name: "open_binary", arguments: { path: target } });
  summary.open = { isError: !!opened.isError, format: opened.structuredContent?.result?.format };

  let progress = 0;
  const overview = await client.callTool(
    { name: "binary_overview", arguments: { detail: "detailed", limit: 3 } },
    undefined,
    { onprogress: () => { progress++; } },
  );
  summary.overview = {
    isError: !!overview.isError,
    evidence_id: overview.structuredContent?.evidence_id,
    procedure_count: overview.structuredContent?.normalized_result?.procedure_count,
    progress,
  };

  const failed = await client.callTool({ name: "open_binary", arguments: { path: "/nonexistent/rea-interop" } });
  summary.error = {
    isError: !!failed.isError,
    structured: failed.structuredContent === undefined ? null : failed.structuredContent,
    code: JSON.parse(failed.content[0].text).error.code,
  };
  const invalid = await client.callTool({ name: "list_procedures", arguments: { limit: "many" } });
  summary.invalid = { isError: !!invalid.isError, code: JSON.parse(invalid.content[0].text).error.code };

  const prompts = await client.listPrompts();
  summary.prompts = prompts.prompts.map((p) => p.name);
  const prompt = await client.getPrompt({ name: "triage_binary", arguments: { path: target } });
  summary.prompt = { messages: prompt.messages.length, role: prompt.messages[0]?.role, mentions_target: prompt.messages[0]?.content?.text?.includes(target) };
  const resources = await client.listResources();
  summary.resources = resources.resources.map((r) => r.uri);
  const templates = await client.listResourceTemplates();
  summary.resource_templates = templates.resourceTemplates.map((r) => r.uriTemplate);
  const identity = await client.readResource({ uri: "rea://server/identity" });
  const catalog = await client.readResource({ uri: "rea://catalog" });
  const section = await client.readResource({ uri: `rea://evidence/${summary.overview.evidence_id}/operation` });
  summary.read = {
    identity_version: JSON.parse(identity.contents[0].text).package.version,
    catalog_combined: JSON.parse(catalog.contents[0].text).digests.combined_sha256,
    section: JSON.parse(section.contents[0].text),
  };
  summary.ok = true;
} catch (err) {
  summary.ok = false;
  summary.thrown = String(err?.stack ?? err);
} finally {
  await client.close().catch(() => {});
}
console.log(JSON.stringify(summary));
