// An MCP handshake and one read through an installed stet command, as a
// client would run it (used by .ci/run on the npm packages it installed):
//
//   node npm/handshake.mjs COMMAND [ARG ...]
//
// It starts COMMAND ARG... (e.g. PREFIX/node_modules/.bin/stet mcp DIR),
// speaks JSON-RPC over its stdin and stdout (initialize,
// notifications/initialized, tools/list, tools/call read of hello.txt in the
// served directory) and checks that the read returns the file's text, and,
// given HANDSHAKE_ROOTS (a JSON list of directories), that roots lists each.
// Exits 0 when all holds, 1 with the reason otherwise.
import { spawn } from "node:child_process";
import fs from "node:fs";
import readline from "node:readline";

const [cmd, ...args] = process.argv.slice(2);
if (!cmd) {
  console.error("usage: node npm/handshake.mjs COMMAND [ARG ...]");
  process.exit(2);
}

const child = spawn(cmd, args, { stdio: ["pipe", "pipe", "inherit"] });
const pending = new Map();
let nextID = 1;

function fail(msg) {
  console.error(`handshake: ${msg}`);
  child.kill();
  process.exit(1);
}

const timer = setTimeout(() => fail("no answer within 60 s"), 60_000);

child.on("error", (err) => fail(`could not start ${cmd}: ${err.message}`));
child.on("exit", (code, signal) => {
  if (pending.size > 0) fail(`${cmd} exited (code ${code}, signal ${signal}) with ${pending.size} request(s) unanswered`);
});

readline.createInterface({ input: child.stdout }).on("line", (line) => {
  let msg;
  try {
    msg = JSON.parse(line);
  } catch {
    fail(`not JSON-RPC on stdout: ${line.slice(0, 200)}`);
  }
  const waiter = pending.get(msg.id);
  if (!waiter) return; // a notification
  pending.delete(msg.id);
  if (msg.error) fail(`${waiter.method}: error ${JSON.stringify(msg.error)}`);
  waiter.resolve(msg.result);
});

function send(msg) {
  child.stdin.write(JSON.stringify(msg) + "\n");
}

function request(method, params) {
  const id = nextID++;
  return new Promise((resolve) => {
    pending.set(id, { method, resolve });
    send({ jsonrpc: "2.0", id, method, params });
  });
}

const init = await request("initialize", {
  protocolVersion: "2025-06-18",
  capabilities: {},
  clientInfo: { name: "stet-handshake", version: "1.0.0" },
});
if (init?.serverInfo?.name === undefined) fail(`initialize returned no serverInfo: ${JSON.stringify(init)}`);
send({ jsonrpc: "2.0", method: "notifications/initialized" });

const list = await request("tools/list", {});
const names = (list?.tools ?? []).map((t) => t.name);
if (!names.includes("read")) fail(`tools/list has no read tool: ${names.join(", ")}`);

const read = await request("tools/call", { name: "read", arguments: { path: "hello.txt" } });
const text = (read?.content ?? []).map((c) => c.text ?? "").join("");
if (read?.isError || !text.includes("hello from the npm package")) {
  fail(`read hello.txt returned ${JSON.stringify(read).slice(0, 500)}`);
}

// HANDSHAKE_ROOTS (a JSON list of directories): each must be served.
const wantRoots = JSON.parse(process.env.HANDSHAKE_ROOTS || "[]");
if (wantRoots.length > 0) {
  const roots = await request("tools/call", { name: "roots", arguments: {} });
  const served = JSON.stringify(roots);
  for (const dir of wantRoots) {
    const real = fs.realpathSync(dir);
    if (!served.includes(JSON.stringify(real).slice(1, -1)) && !served.includes(JSON.stringify(dir).slice(1, -1))) {
      fail(`roots does not list ${dir}: ${served.slice(0, 500)}`);
    }
  }
}

clearTimeout(timer);
console.log(
  `handshake: ${init.serverInfo.name} ${init.serverInfo.version} (protocol ${init.protocolVersion}), ` +
    `${names.length} tools, read hello.txt ok` + (wantRoots.length ? `, ${wantRoots.length} roots served` : ""),
);
child.stdin.end();
child.on("exit", () => process.exit(0));
setTimeout(() => {
  child.kill();
  process.exit(0);
}, 5_000).unref();
