// A client that is not ours: the official MCP TypeScript SDK client drives a
// real `stet mcp` through one agent's edit loop, over stdio and over
// streamable HTTP, and checks what a user would check: the results the
// model reads, and the bytes on disk.
//
//   npm ci --prefix clients/ts
//   STET_BIN=/path/to/stet node clients/ts/flow.mjs
//
// cmd/stet's TestTSClient builds stet and runs this. Each run makes its own
// temporary workspace and state directory (STET_STATE) and removes them.
// Exit status 0 means every check passed; on a failure it prints which step
// failed, what came back, and the server's stderr, and exits 1.

import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

import { cleanups, envWithoutStet, freePort, killPid, run, setStep, show, step, tempDir, watchServer } from './harness.mjs';

const BIN = process.env.STET_BIN;
if (!BIN) {
  console.error('flow.mjs: set STET_BIN to the stet binary to test');
  process.exit(2);
}

// SPEC section 2, in order.
const TOOLS = ['read', 'info', 'roots', 'edit', 'write', 'patch', 'list', 'find', 'grep', 'mkdir', 'move', 'delete', 'undo'];
const READ_ONLY = new Set(['read', 'info', 'roots', 'list', 'find', 'grep']);
const DESTRUCTIVE = new Set(['edit', 'write', 'patch', 'move', 'delete', 'undo']);
// SPEC section 8: stet.PersonaLine, sent in the server's instructions.
const PERSONA =
  "Files that existed before this turn are the user's: edit them in place and write new files beside them; " +
  'do not regenerate a provided file from memory. If the user asked for a rewrite, say so and pass overwrite: true.';

const sha = (bytes) => 'sha256:' + crypto.createHash('sha256').update(bytes).digest('hex');

// text is the text content a model reads from a tool result.
function text(res) {
  assert.ok(Array.isArray(res.content) && res.content.length > 0, `no content in ${show(res)}`);
  assert.equal(res.content[0].type, 'text', `content[0] is not text: ${show(res)}`);
  return res.content[0].text;
}

// landed asserts a tool result is a success and returns its structured content.
function landed(res, what) {
  assert.ok(!res.isError, `${what}: expected success, got isError: ${show(res)}`);
  assert.ok(res.structuredContent && typeof res.structuredContent === 'object', `${what}: no structuredContent: ${show(res)}`);
  assert.equal(res.structuredContent.refused, undefined, `${what}: refused: ${show(res)}`);
  return res.structuredContent;
}

// checkReceipt asserts a mutation's receipt against the bytes before and
// after, and adds its id to ids.
function checkReceipt(sc, { tool, file, before, after }, ids) {
  const r = sc.receipt;
  assert.ok(r, `no receipt in ${show(sc)}`);
  ids.push(r.id);
  assert.equal(r.tool, tool, 'receipt.tool');
  assert.equal(r.path, file, 'receipt.path');
  assert.equal(r.verified, true, `receipt not verified: ${show(r)}`);
  assert.match(r.id, /^r_/, 'receipt.id');
  if (before === null) {
    assert.equal(r.before ?? null, null, `receipt.before of a created file: ${show(r)}`);
  } else {
    assert.equal(r.before?.version, sha(before), 'receipt.before.version is the hash of the bytes before');
    assert.equal(r.before?.bytes, Buffer.byteLength(before), 'receipt.before.bytes');
  }
  if (after === null) {
    assert.equal(r.after ?? null, null, `receipt.after of a removed file: ${show(r)}`);
  } else {
    assert.equal(r.after?.version, sha(after), 'receipt.after.version is the hash of the bytes on disk');
    assert.equal(r.after?.bytes, Buffer.byteLength(after), 'receipt.after.bytes');
  }
}

// flow runs the whole loop against a connected client over a fresh
// workspace, and returns the ids of the receipts it saw.
async function flow(client, root, label) {
  const ids = [];
  const file = 'notes.txt';
  const abs = path.join(root, file);
  const onDisk = () => fs.readFileSync(abs, 'utf8');
  const original = 'alpha\nbeta\ngamma\n';

  await step(`${label}: initialize names the server and sends the persona line in instructions`, async () => {
    assert.equal(client.getServerVersion()?.name, 'stet');
    const instr = client.getInstructions();
    assert.equal(typeof instr, 'string', 'no instructions');
    assert.ok(instr.includes(PERSONA), `instructions lack the persona line:\n${instr}`);
  });

  await step(`${label}: tools/list has the 13 tools with annotations and schemas`, async () => {
    const { tools } = await client.listTools();
    // The order of tools/list is the server SDK's business; the set is the contract.
    assert.deepEqual(tools.map((t) => t.name).sort(), [...TOOLS].sort());
    for (const t of tools) {
      const a = t.annotations ?? {};
      assert.equal(a.readOnlyHint ?? false, READ_ONLY.has(t.name), `${t.name}.readOnlyHint: ${show(a)}`);
      assert.equal(a.destructiveHint, DESTRUCTIVE.has(t.name), `${t.name}.destructiveHint: ${show(a)}`);
      assert.equal(a.openWorldHint, false, `${t.name}.openWorldHint: ${show(a)}`);
      assert.equal(t.inputSchema?.type, 'object', `${t.name} input schema`);
      assert.ok(t.outputSchema, `${t.name} has no output schema`);
      assert.ok(t.description && t.description.length > 40, `${t.name} description`);
    }
    const mkdir = tools.find((t) => t.name === 'mkdir');
    assert.equal(mkdir.annotations?.idempotentHint, true, 'mkdir.idempotentHint');
    const edit = tools.find((t) => t.name === 'edit');
    for (const k of ['path', 'old_string', 'new_string', 'replace_all', 'edits', 'dry_run', 'expected_version']) {
      assert.ok(k in (edit.inputSchema.properties ?? {}), `edit input schema lacks ${k}`);
    }
  });

  let seen; // the version the session observed last
  await step(`${label}: read returns the numbered frame and the file's version`, async () => {
    const res = await client.callTool({ name: 'read', arguments: { path: file } });
    const sc = landed(res, 'read');
    const frame = '00001|alpha\n00002|beta\n00003|gamma\n00004|\n(4 lines)';
    assert.equal(sc.frame, frame);
    assert.equal(text(res), frame, 'the text the model reads is the frame');
    assert.equal(sc.path, file);
    assert.equal(sc.version, sha(original));
    assert.equal(sc.lines, 4);
    assert.equal(sc.from, 1);
    assert.equal(sc.to, 4);
    seen = sc.version;
  });

  const afterEdit1 = 'alpha\nBETA\ngamma\n';
  await step(`${label}: edit lands, verified, with a diff; the file on disk changed`, async () => {
    const res = await client.callTool({ name: 'edit', arguments: { path: file, old_string: 'beta', new_string: 'BETA' } });
    const sc = landed(res, 'edit');
    checkReceipt(sc, { tool: 'edit', file, before: original, after: afterEdit1 }, ids);
    assert.deepEqual(sc.receipt.matches?.map((m) => [m.line, m.old_bytes, m.new_bytes]), [[2, 4, 4]]);
    assert.match(sc.diff, /^-beta$/m);
    assert.match(sc.diff, /^\+BETA$/m);
    assert.ok(text(res).includes(sc.message), 'text carries the message');
    assert.ok(text(res).includes('+BETA'), 'text carries the diff');
    assert.equal(onDisk(), afterEdit1);
  });

  const theirs = afterEdit1 + 'delta (added by someone else)\n';
  await step(`${label}: someone else changes the file; the next edit is refused as changed`, async () => {
    fs.writeFileSync(abs, theirs);
    const res = await client.callTool({ name: 'edit', arguments: { path: file, old_string: 'gamma', new_string: 'GAMMA' } });
    assert.equal(res.isError, true, `expected isError: ${show(res)}`);
    assert.equal(res.structuredContent?.refused, 'changed', `refusal kind: ${show(res.structuredContent)}`);
    const t = text(res);
    assert.match(t, /^refused: /);
    assert.ok(t.includes(file), `the refusal names the file: ${t}`);
    assert.ok(t.includes('read it again'), `the refusal names the next step: ${t}`);
    const then = Buffer.byteLength(afterEdit1);
    const now = Buffer.byteLength(theirs);
    assert.ok(t.includes(`then ${then} bytes`) && t.includes(`now ${now} bytes`), `the refusal says what changed: ${t}`);
    assert.equal(res.structuredContent.message, t, 'structured message is the text');
    assert.equal(onDisk(), theirs, 'a refused call changes nothing on disk');
  });

  await step(`${label}: re-read sees the other writer's bytes`, async () => {
    const res = await client.callTool({ name: 'read', arguments: { path: file } });
    const sc = landed(res, 're-read');
    assert.equal(sc.version, sha(theirs));
    assert.notEqual(sc.version, seen);
    assert.ok(sc.frame.includes('00004|delta (added by someone else)\n'), sc.frame);
    assert.equal(sc.lines, 5);
  });

  const afterEdit2 = 'alpha\nBETA\nGAMMA\ndelta (added by someone else)\n';
  await step(`${label}: the same edit now lands and keeps the other writer's line`, async () => {
    const res = await client.callTool({ name: 'edit', arguments: { path: file, old_string: 'gamma', new_string: 'GAMMA' } });
    const sc = landed(res, 'edit after re-read');
    checkReceipt(sc, { tool: 'edit', file, before: theirs, after: afterEdit2 }, ids);
    assert.equal(onDisk(), afterEdit2);
  });

  await step(`${label}: list shows the root's entries with type and size`, async () => {
    const res = await client.callTool({ name: 'list', arguments: {} });
    const sc = landed(res, 'list');
    const e = sc.entries.find((x) => x.name === file);
    assert.ok(e, `no ${file} in ${show(sc.entries)}`);
    assert.equal(e.type, 'file');
    assert.equal(e.size, Buffer.byteLength(afterEdit2));
    assert.equal(sc.truncated, false);
    assert.ok(text(res).includes(file), 'the text lists the file');
  });

  const fresh = 'a new file\n';
  const created = 'fresh.txt';
  await step(`${label}: write creates a new file beside it`, async () => {
    const res = await client.callTool({ name: 'write', arguments: { path: created, content: fresh } });
    const sc = landed(res, 'write');
    checkReceipt(sc, { tool: 'write', file: created, before: null, after: fresh }, ids);
    assert.equal(fs.readFileSync(path.join(root, created), 'utf8'), fresh);
  });

  await step(`${label}: undo of the created file removes it`, async () => {
    const res = await client.callTool({ name: 'undo', arguments: { path: created } });
    const sc = landed(res, 'undo create');
    checkReceipt(sc, { tool: 'undo', file: created, before: fresh, after: null }, ids);
    assert.equal(fs.existsSync(path.join(root, created)), false, `${created} still exists`);
  });

  await step(`${label}: undo of the edited file restores the exact previous bytes`, async () => {
    const res = await client.callTool({ name: 'undo', arguments: { path: file } });
    const sc = landed(res, 'undo edit');
    checkReceipt(sc, { tool: 'undo', file, before: afterEdit2, after: theirs }, ids);
    assert.equal(fs.readFileSync(abs).equals(Buffer.from(theirs)), true, `on disk: ${show(onDisk())}`);
  });
  return ids;
}

// checkJournal asserts that the journal in the state directory records
// every receipt the client was given.
async function checkJournal(state, ids, label) {
  await step(`${label}: the journal in STET_STATE records every receipt`, async () => {
    const journal = fs.readFileSync(path.join(state, 'journal.jsonl'), 'utf8');
    assert.equal(ids.length, 5, `receipts seen: ${ids}`);
    for (const id of ids) assert.ok(journal.includes(`"${id}"`), `${id} is not in the journal`);
  });
}

function workspace() {
  const root = tempDir('stet-ts-root-');
  fs.writeFileSync(path.join(root, 'notes.txt'), 'alpha\nbeta\ngamma\n');
  return { root, state: tempDir('stet-ts-state-') };
}

const client = () => new Client({ name: 'stet-ts-flow', version: '0.0.0' });

async function overStdio() {
  const { root, state } = workspace();
  const transport = new StdioClientTransport({
    command: BIN,
    args: ['mcp', '--root', root],
    env: { STET_STATE: state },
    stderr: 'pipe',
  });
  let stderr = '';
  transport.stderr?.on('data', (d) => (stderr += d));
  watchServer(() => stderr);
  const c = client();
  setStep('stdio: connect');
  const connected = c.connect(transport);
  const pid = transport.pid; // set once the transport has spawned stet
  cleanups.push(() => killPid(pid));
  await connected;
  const ids = await flow(c, root, 'stdio');
  await step('stdio: closing stdin ends the server', async () => {
    // The SDK ends stdin, waits 2 s for the process to exit, then sends
    // SIGTERM: a close well under 2 s means stet exited on end of input.
    const t0 = Date.now();
    await c.close();
    const ms = Date.now() - t0;
    assert.throws(() => process.kill(pid, 0), { code: 'ESRCH' }, `stet (pid ${pid}) still runs`);
    assert.ok(ms < 1900, `stet took ${ms} ms to exit after its stdin closed (it needed the SDK's SIGTERM)`);
  });
  await checkJournal(state, ids, 'stdio');
}

// startHTTP starts `stet mcp --http` and waits until it listens.
async function startHTTP(root, state, token) {
  for (let attempt = 1; ; attempt++) {
    const port = await freePort();
    const addr = `127.0.0.1:${port}`;
    const p = spawn(BIN, ['mcp', '--root', root, '--http', addr, '--token', token], {
      env: { ...envWithoutStet(), STET_STATE: state },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    p.stderr.on('data', (d) => (stderr += d));
    watchServer(() => stderr);
    const exited = new Promise((resolve) => p.on('exit', (code, signal) => resolve({ code, signal })));
    let alive = true;
    exited.then(() => (alive = false));
    const kill = () => {
      if (alive) p.kill('SIGKILL');
    };
    cleanups.push(kill);
    const url = `http://${addr}/mcp`;
    const deadline = Date.now() + 15000;
    while (alive && Date.now() < deadline) {
      try {
        await fetch(url, { method: 'GET', signal: AbortSignal.timeout(1000) });
        return { p, url, exited, stderr: () => stderr };
      } catch {
        await new Promise((r) => setTimeout(r, 50));
      }
    }
    kill();
    // The port can be taken between freePort and stet's listen; try another.
    if (attempt < 3 && /address already in use/i.test(stderr)) continue;
    throw new Error(`stet mcp --http did not start listening on ${addr}:\n${stderr}`);
  }
}

async function overHTTP() {
  const { root, state } = workspace();
  const token = crypto.randomBytes(24).toString('hex');
  setStep('http: start the server');
  const srv = await startHTTP(root, state, token);
  const initialize = JSON.stringify({
    jsonrpc: '2.0',
    id: 1,
    method: 'initialize',
    params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'no-token', version: '0' } },
  });
  const headers = { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' };

  await step('http: a request without the token gets 401 and says which header is missing', async () => {
    const res = await fetch(srv.url, { method: 'POST', headers, body: initialize });
    assert.equal(res.status, 401);
    assert.match(res.headers.get('www-authenticate') ?? '', /^Bearer/);
    const body = await res.json();
    assert.equal(body.jsonrpc, '2.0');
    assert.match(body.error?.message ?? '', /Authorization: Bearer/);
  });

  await step('http: a request with a wrong token gets 401', async () => {
    const res = await fetch(srv.url, { method: 'POST', headers: { ...headers, Authorization: 'Bearer not-the-token' }, body: initialize });
    assert.equal(res.status, 401);
    await res.arrayBuffer();
  });

  const transport = new StreamableHTTPClientTransport(new URL(srv.url), {
    requestInit: { headers: { Authorization: `Bearer ${token}` } },
  });
  const c = client();
  setStep('http: connect');
  await c.connect(transport);
  assert.ok(transport.sessionId, 'the server gave no Mcp-Session-Id');
  const ids = await flow(c, root, 'http');
  await checkJournal(state, ids, 'http');

  await step('http: a second connection is another session and must read before it edits', async () => {
    const other = client();
    await other.connect(new StreamableHTTPClientTransport(new URL(srv.url), {
      requestInit: { headers: { Authorization: `Bearer ${token}` } },
    }));
    const res = await other.callTool({ name: 'edit', arguments: { path: 'notes.txt', old_string: 'alpha', new_string: 'ALPHA' } });
    assert.equal(res.isError, true, `expected isError: ${show(res)}`);
    assert.equal(res.structuredContent?.refused, 'not_read', show(res.structuredContent));
    await other.close();
  });

  await c.close();
  if (process.platform === 'win32') return; // no SIGTERM to send there; cleanup kills it
  await step('http: SIGTERM stops the server cleanly', async () => {
    srv.p.kill('SIGTERM');
    const { code, signal } = await srv.exited;
    assert.equal(signal, null, `killed by ${signal}`);
    assert.equal(code, 0, `exit code ${code}`);
  });
}

await run(async () => {
  await overStdio();
  await overHTTP();
});
