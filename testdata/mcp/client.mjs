// End-to-end test of `ctx mcp` with the official MCP TypeScript SDK
// client: node client.mjs CTX_BINARY PROJECT_DIR. It spawns the server in
// PROJECT_DIR (a project with a ctx store and its Go code ingested),
// drives it through initialize, tools/list, tool calls and resources, and
// exits non-zero at the first failed check. mcp/e2e_test.go runs it.
import assert from "node:assert/strict";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { ResourceListChangedNotificationSchema } from "@modelcontextprotocol/sdk/types.js";

const [ctxBin, project] = process.argv.slice(2);
if (!ctxBin || !project) {
  console.error("usage: node client.mjs CTX_BINARY PROJECT_DIR");
  process.exit(2);
}

let checks = 0;
function check(cond, msg) {
  assert.ok(cond, msg);
  checks++;
}

const transport = new StdioClientTransport({
  command: ctxBin,
  args: ["mcp"],
  cwd: project,
  env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "" },
  stderr: "inherit",
});
const client = new Client({ name: "ctx-e2e", version: "1.0.0" });
// The server tells of new narrative files after a tool that writes them.
let listChanged = 0;
client.setNotificationHandler(ResourceListChangedNotificationSchema, () => {
  listChanged++;
});
await client.connect(transport);

// initialize: the server says who it is and what it offers.
const info = client.getServerVersion();
check(info?.name === "ctx", `server name ${JSON.stringify(info)}`);
const caps = client.getServerCapabilities();
check(caps?.tools && caps?.resources, `capabilities ${JSON.stringify(caps)}`);
check((client.getInstructions() ?? "").includes("ctx"), "instructions");

// tools/list: every tool, each with an object schema.
const { tools } = await client.listTools();
const names = tools.map((t) => t.name).sort();
for (const want of ["activate", "deactivate", "query", "recall", "relate", "remember", "search", "show", "stage_compact", "stage_start", "status"]) {
  check(names.includes(want), `tool ${want} missing from ${names}`);
}
for (const t of tools) {
  check(t.inputSchema?.type === "object", `${t.name}: input schema ${JSON.stringify(t.inputSchema)}`);
}
const remember = tools.find((t) => t.name === "remember");
check(remember.inputSchema.required?.includes("content"), "remember requires content");

// call runs a tool and returns its text, failing on isError unless wanted.
async function call(name, args, wantError = false) {
  const res = await client.callTool({ name, arguments: args });
  check(Array.isArray(res.content) && res.content[0]?.type === "text", `${name}: content ${JSON.stringify(res.content)}`);
  const text = res.content[0].text;
  check(Boolean(res.isError) === wantError, `${name}(${JSON.stringify(args)}): isError ${res.isError}: ${text}`);
  return text;
}

// remember → recall → search → query → relate → show → status → stage
const rem = JSON.parse(await call("remember", {
  type: "decision",
  content: "Retry with exponential backoff\n\nThe upstream API drops one call in fifty.",
  tags: ["tier:reference", "area:net"],
}));
const id = rem.node.id;
check(/^[0-9a-z]+$/.test(id) && rem.node.type === "decision", `remember: ${JSON.stringify(rem)}`);
check(listChanged === 1, `notifications/resources/list_changed after remember: ${listChanged}`);

const recall = JSON.parse(await call("recall", { query: "type:decision AND tag:area:net" }));
check(recall.nodes.length === 1 && recall.nodes[0].id === id, `recall: ${JSON.stringify(recall)}`);

const search = JSON.parse(await call("search", { query: "backoff" }));
check(search.hits.some((h) => h.path === "retry/retry.go"), `search: no code hit: ${JSON.stringify(search)}`);
check(search.hits.some((h) => h.node.includes(id)), `search: no narrative hit: ${JSON.stringify(search)}`);

const pack = await call("query", { query: "how do we retry failed calls?", budget: 3000 });
check(pack.includes("# Task") && pack.includes("Backoff"), `query: ${pack}`);

const rel = JSON.parse(await call("relate", { from: id, label: "RELATES_TO", to: "retry/retry.go", evidence: "the decision is about this file" }));
check(Array.isArray(rel.added) && rel.added.length === 1, `relate: ${JSON.stringify(rel)}`);

const shown = JSON.parse(await call("show", { id }));
check(shown.title === "Retry with exponential backoff" && shown.tier === "reference", `show: ${JSON.stringify(shown)}`);

const status = JSON.parse(await call("status", {}));
check(status.nodes?.active >= 1 && status.index, `status: ${JSON.stringify(status)}`);

// A staging session: a node remembered in it is a step; compaction ends it.
const started = JSON.parse(await call("stage_start", { task: "tune retries", id: "tune" }));
check(started.session === "tune" && started.current, `stage_start: ${JSON.stringify(started)}`);
const inSession = JSON.parse(await call("remember", { type: "fact", content: "Three retries are enough" }));
check(inSession.step?.session === "tune", `remember in a session: ${JSON.stringify(inSession)}`);
const compacted = JSON.parse(await call("stage_compact", { message: "Tune retries" }));
check(compacted.session === "tune" && compacted.ended, `stage_compact: ${JSON.stringify(compacted)}`);
const noSession = await call("stage_compact", {}, true);
check(noSession.includes("no session"), `stage_compact without a session: ${noSession}`);

// The working set: activate a file (read from disk: the session had not
// met it), then deactivate it by the id activate returned.
const act = JSON.parse(await call("activate", { ids: ["retry/retry.go"], agent: "ts" }));
check(act.agent === "ts" && act.changes.length === 1 && act.changes[0].path.endsWith("/retry/retry.go"), `activate: ${JSON.stringify(act)}`);
const deact = JSON.parse(await call("deactivate", { ids: [act.changes[0].id], agent: "ts" }));
check(deact.changes[0]?.id === act.changes[0].id, `deactivate: ${JSON.stringify(deact)}`);
await call("activate", { ids: ["ffffffffffff"], agent: "ts" }, true);

// Errors: bad arguments are an isError result, an unknown tool a JSON-RPC error.
const bad = await call("remember", { type: "poem", content: "x" }, true);
check(bad.includes("poem"), `bad type: ${bad}`);
const fraction = await call("search", { query: "Backoff", limit: 2.5 }, true);
check(fraction.includes("limit") && fraction.includes("whole number"), `fractional limit: ${fraction}`);
const unknownArg = await call("status", { verbose: true }, true);
check(unknownArg.includes("verbose"), `unknown argument: ${unknownArg}`);
await assert.rejects(client.callTool({ name: "no_such_tool", arguments: {} }), (err) => err.code === -32602);
checks++;

// resources/list and resources/read: the narrative files.
const { resources } = await client.listResources();
const file = shown.file.replace(/^\.ctx\/narrative\//, "");
const uri = `ctx://narrative/${file}`;
check(resources.some((r) => r.uri === uri), `resources/list lacks ${uri}: ${resources.map((r) => r.uri)}`);
const read = await client.readResource({ uri });
check(read.contents[0]?.text.includes("Retry with exponential backoff"), `resources/read: ${JSON.stringify(read)}`);
check(read.contents[0]?.mimeType === "text/markdown", "resource MIME type");
await assert.rejects(client.readResource({ uri: "ctx://narrative/no-such.md" }), (err) => err.code === -32602);
checks++;
const templates = await client.listResourceTemplates();
check(templates.resourceTemplates.some((t) => t.uriTemplate === "ctx://narrative/{+path}"), "resource template");

await client.ping();
await client.close();
console.log(`ok: ${checks} checks`);
