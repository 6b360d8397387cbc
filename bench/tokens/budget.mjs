// budget.mjs measures what an MCP client receives from stet: the JSON of
// each result (tools/list; a default read, grep, list and find), in bytes
// and in tokens of Anthropic's tokenizer. It speaks newline-delimited
// JSON-RPC over stdio to each server it starts and prints one JSON report.
//
//   STET_BIN=path/to/stet node budget.mjs WORKSPACE [PEER_DIR]
//
// WORKSPACE must hold http.go and types.go (large Go files), many/ (a
// directory of more entries than one list page) and Go files for grep and
// find to page through; PEER_DIR,
// when given, is a directory whose node_modules holds the pinned reference
// server (@modelcontextprotocol/server-filesystem), measured for its
// tools/list. cmd/stet's TestContextBudget prepares the workspace, runs
// this script and asserts the caps.

import { spawn } from "node:child_process";
import { createInterface } from "node:readline";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { countTokens } from "@anthropic-ai/tokenizer";

const [workspace, peerDir] = process.argv.slice(2);
const bin = process.env.STET_BIN;
if (!workspace || !bin) {
  console.error("usage: STET_BIN=path/to/stet node budget.mjs WORKSPACE [PEER_DIR]");
  process.exit(2);
}

// server starts cmd with args and returns call(method, params), which
// resolves to the raw result JSON (as received) of one request.
function server(cmd, args, opts = {}) {
  const child = spawn(cmd, args, { stdio: ["pipe", "pipe", "inherit"], ...opts });
  const waiting = new Map();
  let next = 1;
  createInterface({ input: child.stdout }).on("line", (line) => {
    let msg;
    try {
      msg = JSON.parse(line);
    } catch {
      return;
    }
    const w = waiting.get(msg.id);
    if (!w) return;
    waiting.delete(msg.id);
    if (msg.error) w.reject(new Error(`${cmd}: ${JSON.stringify(msg.error)}`));
    else w.resolve(JSON.stringify(msg.result));
  });
  const send = (m) => child.stdin.write(JSON.stringify(m) + "\n");
  const call = (method, params) =>
    new Promise((resolve, reject) => {
      const id = next++;
      waiting.set(id, { resolve, reject });
      send({ jsonrpc: "2.0", id, method, params });
    });
  const start = async () => {
    await call("initialize", {
      protocolVersion: "2025-06-18",
      capabilities: {},
      clientInfo: { name: "stet-budget", version: "0" },
    });
    send({ jsonrpc: "2.0", method: "notifications/initialized" });
  };
  const stop = () => child.kill();
  return { call, start, stop };
}

// measure counts a result as the client receives it (the whole result
// JSON) and in each form a client may hand its model: the text content,
// and the structured content as JSON (Claude Code sends the model
// JSON.stringify(structuredContent) when a result carries one).
function measure(name, json) {
  const m = { name, bytes: Buffer.byteLength(json), tokens: countTokens(json) };
  const res = JSON.parse(json);
  if (Array.isArray(res.content)) {
    const text = res.content.filter((c) => c.type === "text").map((c) => c.text).join("");
    m.text_bytes = Buffer.byteLength(text);
    m.text_tokens = countTokens(text);
    if (res.isError) m.error = text.slice(0, 200);
  }
  if (res.structuredContent !== undefined) {
    const sc = JSON.stringify(res.structuredContent);
    m.structured_bytes = Buffer.byteLength(sc);
    m.structured_tokens = countTokens(sc);
  }
  return m;
}

const report = [];

const stet = server(bin, ["mcp", "--root", workspace], { env: { ...process.env, STET_STATE: join(workspace, "..", "state-native") } });
await stet.start();
report.push(measure("native tools/list", await stet.call("tools/list", {})));
const tool = async (label, name, args) =>
  report.push(measure(label, await stet.call("tools/call", { name, arguments: args })));
await tool("read http.go (net/http source)", "read", { path: "http.go" });
await tool("read types.go (go/types source)", "read", { path: "types.go" });
await tool("grep func (rows)", "grep", { pattern: "func" });
await tool("grep package (files_with_matches)", "grep", { pattern: "package", output_mode: "files_with_matches" });
await tool("list many", "list", { path: "many" });
await tool("find **/*.go", "find", { pattern: "**/*.go" });
stet.stop();

const ref = server(bin, ["mcp", "--tools", "reference", workspace], { env: { ...process.env, STET_STATE: join(workspace, "..", "state-reference") } });
await ref.start();
report.push(measure("reference profile tools/list", await ref.call("tools/list", {})));
ref.stop();

if (peerDir) {
  const main = join(peerDir, "node_modules", "@modelcontextprotocol", "server-filesystem", "dist", "index.js");
  if (!existsSync(main)) {
    console.error(`no reference server at ${main}; run npm ci in ${peerDir}`);
    process.exit(2);
  }
  const peer = server(process.execPath, [main, workspace]);
  await peer.start();
  report.push(measure("reference server tools/list", await peer.call("tools/list", {})));
  peer.stop();
}

console.log(JSON.stringify(report));
