// The reference server's example flows, driven by the official MCP
// TypeScript SDK client against `stet mcp --tools reference`: a client
// configured for @modelcontextprotocol/server-filesystem works by changing
// its command alone. Over stdio (the directory given as the reference
// server takes it, as an argument) and over streamable HTTP with a token.
//
//   npm ci --prefix clients/ts
//   STET_BIN=/path/to/stet node clients/ts/reference.mjs
//
// cmd/stet's TestTSReference builds stet and runs this. Each run makes its
// own temporary workspace and state directory and removes them. Exit status
// 0 means every check passed; on a failure it prints the step, what came
// back and the server's stderr, and exits 1.

import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

import { cleanups, envWithoutStet, freePort, killPid, run, setStep, show, step, tempDir, watchServer } from './harness.mjs';

const BIN = process.env.STET_BIN;
if (!BIN) {
  console.error('reference.mjs: set STET_BIN to the stet binary to test');
  process.exit(2);
}

// The reference server's tools, in its order (read_file: its deprecated alias).
const TOOLS = [
  'read_text_file', 'read_media_file', 'read_multiple_files', 'write_file', 'edit_file', 'create_directory',
  'list_directory', 'list_directory_with_sizes', 'directory_tree', 'move_file', 'search_files', 'get_file_info',
  'list_allowed_directories', 'read_file',
];

// ok asserts a successful result whose structured content is its text, and
// returns the text.
function ok(res, what) {
  assert.ok(!res.isError, `${what}: expected success, got ${show(res)}`);
  assert.equal(res.content?.[0]?.type, 'text', `${what}: ${show(res)}`);
  const t = res.content[0].text;
  assert.equal(res.structuredContent?.content, t, `${what}: structuredContent.content is not the text`);
  return t;
}

// refused asserts a refusal (isError) of kind and returns its text.
function refused(res, kind, what) {
  assert.equal(res.isError, true, `${what}: expected isError: ${show(res)}`);
  assert.equal(res.structuredContent?.refused, kind, `${what}: ${show(res.structuredContent)}`);
  return res.content[0].text;
}

async function flow(client, root, label) {
  const onDisk = (p) => fs.readFileSync(path.join(root, p), 'utf8');
  const callTool = (name, args) => client.callTool({ name, arguments: args });

  await step(`${label}: tools/list has the reference server's tools`, async () => {
    const { tools } = await client.listTools();
    assert.deepEqual(tools.map((t) => t.name), TOOLS);
    const edit = tools.find((t) => t.name === 'edit_file');
    assert.deepEqual(Object.keys(edit.inputSchema.properties).sort(), ['dryRun', 'edits', 'path']);
    assert.equal(edit.annotations.destructiveHint, true);
    assert.equal(tools.find((t) => t.name === 'read_text_file').annotations.readOnlyHint, true);
  });

  await step(`${label}: instructions carry the persona line and the allowed directory`, async () => {
    const i = client.getInstructions() ?? '';
    assert.ok(i.startsWith("Files that existed before this turn are the user's"), i);
    assert.ok(i.includes(root), i);
  });

  await step(`${label}: list_allowed_directories`, async () => {
    assert.equal(ok(await callTool('list_allowed_directories', {}), 'allowed'), `Allowed directories:\n${root}`);
  });

  await step(`${label}: edit_file of an unread file is refused once, showing the file`, async () => {
    const t = refused(await callTool('edit_file', { path: 'notes.txt', edits: [{ oldText: 'beta', newText: 'BETA' }] }), 'not_read', 'unread edit');
    // As read_text_file shows text: the lines without stet's numbers.
    assert.ok(t.includes('its text follows') && t.endsWith('\n\nalpha\nbeta\ngamma\n'), t);
    assert.equal(onDisk('notes.txt'), 'alpha\nbeta\ngamma\n');
  });

  await step(`${label}: read_text_file (whole, head, tail) by relative and absolute path`, async () => {
    assert.equal(ok(await callTool('read_text_file', { path: 'notes.txt' }), 'read'), 'alpha\nbeta\ngamma\n');
    assert.equal(ok(await callTool('read_text_file', { path: path.join(root, 'notes.txt'), head: 2 }), 'head'), 'alpha\nbeta');
    assert.equal(ok(await callTool('read_text_file', { path: 'notes.txt', tail: 1 }), 'tail'), 'gamma\n');
  });

  await step(`${label}: read_multiple_files reads each and reports a missing one in its place`, async () => {
    const t = ok(await callTool('read_multiple_files', { paths: ['notes.txt', 'src/main.go', 'missing.txt'] }), 'multi');
    const parts = t.split('\n---\n');
    assert.equal(parts.length, 3, t);
    assert.equal(parts[0], 'notes.txt:\nalpha\nbeta\ngamma\n\n');
    assert.equal(parts[1], 'src/main.go:\npackage main\n\n');
    assert.ok(parts[2].startsWith('missing.txt: Error - '), parts[2]);
  });

  const edits = [{ oldText: 'beta', newText: 'BETA' }];
  await step(`${label}: edit_file with dryRun returns the diff and writes nothing`, async () => {
    const t = ok(await callTool('edit_file', { path: 'notes.txt', edits, dryRun: true }), 'dry run');
    assert.ok(t.startsWith('```diff\n'), t);
    assert.ok(t.includes('-beta\n+BETA\n'), t);
    assert.equal(onDisk('notes.txt'), 'alpha\nbeta\ngamma\n');
  });

  await step(`${label}: edit_file applies the edit`, async () => {
    const t = ok(await callTool('edit_file', { path: 'notes.txt', edits }), 'edit');
    assert.ok(t.includes('-beta\n+BETA\n'), t);
    assert.equal(onDisk('notes.txt'), 'alpha\nBETA\ngamma\n');
  });

  await step(`${label}: edit_file matches literally and says what differs`, async () => {
    const t = refused(await callTool('edit_file', { path: 'notes.txt', edits: [{ oldText: '  gamma', newText: 'G' }] }), 'no_match', 'fuzzy');
    assert.ok(t.includes('matches literally'), t);
    assert.equal(onDisk('notes.txt'), 'alpha\nBETA\ngamma\n');
  });

  await step(`${label}: write_file creates a file`, async () => {
    assert.equal(ok(await callTool('write_file', { path: 'draft.md', content: '# Draft\n' }), 'write'), 'Successfully wrote to draft.md');
    assert.equal(onDisk('draft.md'), '# Draft\n');
  });

  await step(`${label}: create_directory and move_file`, async () => {
    assert.equal(ok(await callTool('create_directory', { path: 'docs/archive' }), 'mkdir'), 'Successfully created directory docs/archive');
    assert.equal(ok(await callTool('move_file', { source: 'draft.md', destination: 'docs/archive/draft.md' }), 'move'),
      'Successfully moved draft.md to docs/archive/draft.md');
    assert.equal(onDisk('docs/archive/draft.md'), '# Draft\n');
    assert.equal(fs.existsSync(path.join(root, 'draft.md')), false);
  });

  await step(`${label}: list_directory and list_directory_with_sizes`, async () => {
    assert.equal(ok(await callTool('list_directory', { path: '.' }), 'list'), '[DIR] docs\n[FILE] notes.txt\n[DIR] src');
    const t = ok(await callTool('list_directory_with_sizes', { path: '.', sortBy: 'size' }), 'sizes');
    assert.ok(t.startsWith('[FILE] notes.txt'), t);
    assert.ok(t.endsWith('\nTotal: 1 files, 2 directories\nCombined size: 17 B'), t);
  });

  await step(`${label}: directory_tree with excludePatterns`, async () => {
    const tree = JSON.parse(ok(await callTool('directory_tree', { path: '.', excludePatterns: ['src'] }), 'tree'));
    assert.deepEqual(tree, [
      { name: 'docs', type: 'directory', children: [{ name: 'archive', type: 'directory', children: [{ name: 'draft.md', type: 'file' }] }] },
      { name: 'notes.txt', type: 'file' },
    ]);
  });

  await step(`${label}: search_files returns full paths`, async () => {
    assert.equal(ok(await callTool('search_files', { path: '.', pattern: '**/*.go' }), 'search'), path.join(root, 'src', 'main.go'));
    assert.equal(ok(await callTool('search_files', { path: '.', pattern: '*.rs' }), 'no match'), 'No matches found');
  });

  await step(`${label}: get_file_info`, async () => {
    const t = ok(await callTool('get_file_info', { path: 'notes.txt' }), 'info');
    for (const line of ['size: 17', 'isDirectory: false', 'isFile: true', 'permissions: ']) assert.ok(t.includes(line), t);
  });

  await step(`${label}: a path outside the allowed directories is refused`, async () => {
    const t = refused(await callTool('read_text_file', { path: path.join(os.tmpdir(), 'elsewhere.txt') }), 'outside', 'outside');
    assert.ok(t.includes('allowed directories'), t);
  });
}

function workspace() {
  const root = tempDir('stet-ts-ref-root-');
  fs.writeFileSync(path.join(root, 'notes.txt'), 'alpha\nbeta\ngamma\n');
  fs.mkdirSync(path.join(root, 'src'));
  fs.writeFileSync(path.join(root, 'src', 'main.go'), 'package main\n');
  return { root, state: tempDir('stet-ts-ref-state-') };
}

const client = () => new Client({ name: 'stet-ts-reference', version: '0.0.0' });

async function overStdio() {
  const { root, state } = workspace();
  // The reference server's configuration, {"command": "npx", "args": ["-y",
  // "@modelcontextprotocol/server-filesystem", DIR]}, with stet's command.
  const transport = new StdioClientTransport({
    command: BIN,
    args: ['mcp', '--tools', 'reference', root],
    env: { ...envWithoutStet(), STET_STATE: state },
    stderr: 'pipe',
  });
  let stderr = '';
  transport.stderr?.on('data', (d) => (stderr += d));
  watchServer(() => stderr);
  const c = client();
  setStep('stdio: connect');
  const connected = c.connect(transport);
  const pid = transport.pid;
  cleanups.push(() => killPid(pid));
  await connected;
  await flow(c, root, 'stdio');
  await c.close();
}

async function startHTTP(root, state, token) {
  for (let attempt = 1; ; attempt++) {
    const addr = `127.0.0.1:${await freePort()}`;
    const p = spawn(BIN, ['mcp', '--tools', 'reference', '--root', root, '--http', addr, '--token', token], {
      env: { ...envWithoutStet(), STET_STATE: state },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    p.stderr.on('data', (d) => (stderr += d));
    watchServer(() => stderr);
    let alive = true;
    p.on('exit', () => (alive = false));
    const kill = () => {
      if (alive) p.kill('SIGKILL');
    };
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
  setStep('http: start the server');
  const srv = await startHTTP(root, state, token);
  const c = client();
  setStep('http: connect');
  await c.connect(new StreamableHTTPClientTransport(new URL(srv.url), {
    requestInit: { headers: { Authorization: `Bearer ${token}` } },
  }));
  await flow(c, root, 'http');
  await c.close();
  srv.kill();
}

await run(async () => {
  await overStdio();
  await overHTTP();
});
