// The parts of a client flow that are the same for every profile: named
// steps, clean-ups run in reverse whatever happens, temporary directories,
// free loopback ports, the failure report with the server's stderr, and the
// overall time limit. A flow script imports it and calls run(main).

import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';

const TIMEOUT_MS = Number(process.env.STET_FLOW_TIMEOUT_MS || 60000);

// Synchronous clean-ups (kill a server, remove a temporary directory), run in
// reverse at exit whatever happened, so that neither a failure nor a hang
// leaves a stet process or a directory behind.
export const cleanups = [];
let current = '(setup)'; // the step running, for the failure message
let serverErr = () => ''; // the running server's stderr so far

export const show = (v) => JSON.stringify(v, null, 2);

// step runs one named check and reports it.
export async function step(name, fn) {
  current = name;
  await fn();
  console.log(`ok - ${name}`);
}

// watchServer names the function that returns the running server's stderr,
// shown when a step fails.
export function watchServer(stderr) {
  serverErr = stderr;
}

// tempDir makes a temporary directory removed at exit.
export function tempDir(prefix) {
  const d = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), prefix)));
  cleanups.push(() => fs.rmSync(d, { recursive: true, force: true }));
  return d;
}

// envWithoutStet is the environment without STET_* variables, as a client
// configuration gives a server.
export function envWithoutStet() {
  return Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('STET_')));
}

// freePort asks the system for a free loopback port.
export function freePort() {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.on('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}

// killPid kills a process that may be gone already.
export function killPid(pid) {
  if (!pid) return;
  try {
    process.kill(pid, 'SIGKILL');
  } catch {
    // already gone
  }
}

function cleanup() {
  while (cleanups.length) {
    try {
      cleanups.pop()();
    } catch {
      // best effort
    }
  }
}

function fail(what) {
  console.error(`FAIL ${current}: ${what}`);
  const e = serverErr();
  if (e) console.error(`--- server stderr ---\n${e}`);
  cleanup();
  process.exit(1);
}

// run runs main under the time limit, reports, cleans up and exits.
export async function run(main) {
  setTimeout(() => fail(`timed out after ${TIMEOUT_MS} ms`), TIMEOUT_MS).unref();
  try {
    await main();
  } catch (err) {
    fail('\n' + (err?.stack ?? String(err)));
  }
  cleanup();
  console.log('all checks passed');
  process.exit(0);
}

// setStep names what is running, for the failure message, outside a step.
export function setStep(name) {
  current = name;
}
