// The official MCP TypeScript SDK v2 client (@modelcontextprotocol/client)
// drives a real `stet mcp` over stdio and over streamable HTTP, speaking MCP
// 2026-07-28 (server/discover, no initialize, no Mcp-Session-Id) and, for
// comparison, the SDK's default legacy handshake. It checks what a user
// would check: the tool list, the results the model reads, and that one
// agent's read then edit land in one stet session, with the bytes on disk.
//
//   npm ci --prefix clients/ts2
//   STET_BIN=/path/to/stet node clients/ts2/flow.mjs
//
// cmd/stet's TestTSClient2 builds stet and runs this. It shares the step
// harness of clients/ts (which needs nothing installed).

import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';

import { cleanups, envWithoutStet, freePort, killPid, run, setStep, show, step, tempDir, watchServer } from '../ts/harness.mjs';

const BIN = process.env.STET_BIN;
if (!BIN) {
  console.error('flow.mjs: set STET_BIN to the stet binary to test');
  process.exit(2);
}

const TOOLS = ['read', 'info', 'roots', 'edit', 'write', 'patch', 'list', 'find', 'grep', 'mkdir', 'move', 'delete', 'undo'];
const MODERN = '2026-07-28';

// text is the text content a model reads from a tool result.
function text(res) {
  assert.ok(Array.isArray(res.content) && res.content.length > 0, `no content in ${show(res)}`);
  assert.equal(res.content[0].type, 'text', `content[0] is not text: ${show(res)}`);
  return res.content[0].text;
}

function landed(res, what) {
  assert.ok(!res.isError, `${what}: expected success, got isError: ${show(res)}`);
  assert.equal(res.structuredContent?.refused, undefined, `${what}: refused: ${show(res)}`);
  return res.structuredContent;
}

function workspace() {
  const root = tempDir('stet-ts2-root-');
  fs.writeFileSync(path.join(root, 'notes.txt'), 'alpha\nbeta\ngamma\n');
  return { root, state: tempDir('stet-ts2-state-') };
}

// modes: the SDK's default (legacy: initialize) and MCP 2026-07-28 pinned.
const client = (mode) =>
  new Client({ name: 'stet-ts2-flow', version: '0.0.0' }, mode === 'legacy' ? {} : { versionNegotiation: { mode: { pin: MODERN } } });

// listed checks the tool list; withSession: every tool declares the
// session argument (stateless HTTP) or none does.
async function listed(c, where, withSession) {
  await step(`${where}: tools/list has stet's tools${withSession ? ', each with the session argument' : ''}`, async () => {
    const { tools } = await c.listTools();
    assert.deepEqual(tools.map((t) => t.name), TOOLS);
    for (const t of tools) {
      assert.equal('session' in (t.inputSchema.properties ?? {}), withSession, `${t.name}: ${show(t.inputSchema)}`);
    }
  });
}

// readThenEdit reads notes.txt and edits it in the same stet session
// (passing args, e.g. the session handle, on the edit), and checks the
// bytes on disk.
async function readThenEdit(c, root, where, extra = (r) => ({})) {
  let read;
  await step(`${where}: read`, async () => {
    read = await c.callTool({ name: 'read', arguments: { path: 'notes.txt' } });
    assert.match(text(read), /^00001\|alpha\n00002\|beta\n/);
    landed(read, 'read');
  });
  const from = where.replace(/[^a-z0-9]+/g, '-');
  await step(`${where}: edit after the read lands`, async () => {
    const res = await c.callTool({
      name: 'edit',
      arguments: { path: 'notes.txt', old_string: 'beta', new_string: `beta ${from}`, ...extra(read) },
    });
    const sc = landed(res, 'edit');
    assert.match(text(res), /^edited notes\.txt: 1 replacement/);
    assert.equal(fs.readFileSync(path.join(root, 'notes.txt'), 'utf8'), `alpha\nbeta ${from}\ngamma\n`);
    fs.writeFileSync(path.join(root, 'notes.txt'), 'alpha\nbeta\ngamma\n'); // for the next mode
    return sc;
  });
  return read;
}

async function overStdio(mode) {
  const where = `stdio ${mode}`;
  const { root, state } = workspace();
  const transport = new StdioClientTransport({ command: BIN, args: ['mcp', '--root', root], env: { STET_STATE: state }, stderr: 'pipe' });
  let stderr = '';
  transport.stderr?.on('data', (d) => (stderr += d));
  watchServer(() => stderr);
  const c = client(mode);
  setStep(`${where}: connect`);
  await c.connect(transport);
  if (transport.pid) {
    const pid = transport.pid;
    cleanups.push(() => killPid(pid));
  }
  await step(`${where}: the negotiated protocol`, async () => {
    const v = c.getNegotiatedProtocolVersion?.() ?? transport.protocolVersion;
    if (mode === 'modern') assert.equal(v, MODERN);
    else assert.notEqual(v, MODERN);
  });
  await listed(c, where, false);
  // One process is one agent: the read and the edit share a session
  // without anything passed back.
  await readThenEdit(c, root, where);
  await c.close();
}

// startHTTP starts `stet mcp --http` with a token file and waits until it
// listens.
async function startHTTP(root, state, tokenFile) {
  for (let attempt = 1; ; attempt++) {
    const addr = `127.0.0.1:${await freePort()}`;
    const p = spawn(BIN, ['mcp', '--root', root, '--http', addr, '--token-file', tokenFile], {
      env: { ...envWithoutStet(), STET_STATE: state },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    p.stderr.on('data', (d) => (stderr += d));
    watchServer(() => stderr);
    let alive = true;
    p.on('exit', () => (alive = false));
    const kill = () => alive && p.kill('SIGKILL');
    cleanups.push(kill);
    const url = `http://${addr}/mcp`;
    const deadline = Date.now() + 15000;
    while (alive && Date.now() < deadline) {
      try {
        await fetch(url, { method: 'GET', signal: AbortSignal.timeout(1000) });
        return { url, kill };
      } catch {
        await new Promise((r) => setTimeout(r, 50));
      }
    }
    kill();
    if (attempt < 3 && /address already in use/i.test(stderr)) continue;
    throw new Error(`stet mcp --http did not start listening on ${addr}:\n${stderr}`);
  }
}

async function overHTTP() {
  const { root, state } = workspace();
  const token = crypto.randomBytes(24).toString('hex');
  const tokenFile = path.join(tempDir('stet-ts2-token-'), 'token');
  fs.writeFileSync(tokenFile, token + '\n', { mode: 0o600 });
  setStep('http: start the server');
  const srv = await startHTTP(root, state, tokenFile);
  const transport = (headers = {}) =>
    new StreamableHTTPClientTransport(new URL(srv.url), { requestInit: { headers: { Authorization: `Bearer ${token}`, ...headers } } });

  await step('http modern: connecting without the token is refused (401)', async () => {
    const c = client('modern');
    const t = new StreamableHTTPClientTransport(new URL(srv.url));
    await assert.rejects(c.connect(t), (err) => /401|nauthorized/.test(String(err?.message ?? err)));
  });

  // The SDK's default: initialize, then Mcp-Session-Id ties the calls.
  {
    const c = client('legacy');
    setStep('http legacy: connect');
    await c.connect(transport());
    await listed(c, 'http legacy', false);
    await readThenEdit(c, root, 'http legacy');
    await c.close();
  }

  // MCP 2026-07-28: server/discover, no session; the handle ties the calls.
  const c = client('modern');
  setStep('http modern: connect');
  await c.connect(transport());
  await step('http modern: the negotiated protocol is 2026-07-28', async () => {
    assert.equal(c.getNegotiatedProtocolVersion?.() ?? MODERN, MODERN);
  });
  await listed(c, 'http modern', true);
  let handle;
  const read = await readThenEdit(c, root, 'http modern', (r) => {
    handle = r._meta?.['stet/session'];
    return { session: handle };
  });
  await step('http modern: the read carries a handle in _meta, structuredContent and its text', async () => {
    assert.match(handle, /^s_[0-9a-f]{24}$/, show(read));
    assert.equal(read.structuredContent.session, handle, show(read));
    assert.ok(text(read).includes(`pass session: "${handle}"`), text(read));
  });
  await step('http modern: an edit without the handle is a new session, refused not_read, saying how to pass it', async () => {
    const res = await c.callTool({ name: 'edit', arguments: { path: 'notes.txt', old_string: 'gamma', new_string: 'delta' } });
    assert.ok(res.isError, show(res));
    assert.equal(res.structuredContent.refused, 'not_read', show(res));
    const other = res._meta?.['stet/session'];
    assert.match(other, /^s_/, show(res));
    assert.notEqual(other, handle);
    assert.ok(text(res).includes(`pass session: "${other}" on every later call, or the handle an earlier result gave you`), text(res));
    assert.equal(fs.readFileSync(path.join(root, 'notes.txt'), 'utf8'), 'alpha\nbeta\ngamma\n');
  });
  await step('http modern: the handle passed back as _meta stet/session works too', async () => {
    // notes.txt was reset behind the session's back: it reads it again.
    const again = await c.callTool({ name: 'read', arguments: { path: 'notes.txt' }, _meta: { 'stet/session': handle } });
    landed(again, 'read');
    assert.equal(again._meta?.['stet/session'], handle);
    assert.ok(!text(again).includes('pass session'), text(again));
    const res = await c.callTool({
      name: 'edit',
      arguments: { path: 'notes.txt', old_string: 'gamma', new_string: 'delta' },
      _meta: { 'stet/session': handle },
    });
    landed(res, 'edit');
    assert.equal(res._meta?.['stet/session'], handle);
    assert.equal(fs.readFileSync(path.join(root, 'notes.txt'), 'utf8'), 'alpha\nbeta\ndelta\n');
  });
  await step('http modern: a handle the server never gave out is refused, with a fresh one', async () => {
    const res = await c.callTool({ name: 'read', arguments: { path: 'notes.txt', session: 's_000000000000000000000000' } });
    assert.ok(res.isError, show(res));
    assert.equal(res.structuredContent.refused, 'invalid', show(res));
    assert.match(text(res), /not live on this server/);
    assert.match(res._meta?.['stet/session'], /^s_/);
  });
  await c.close();
  srv.kill();
}

run(async () => {
  await overStdio('modern');
  await overStdio('legacy');
  await overHTTP();
});
