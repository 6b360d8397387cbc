// Runs a packed extension the way Claude Desktop does, with the pinned
// @anthropic-ai/mcpb library (used by .ci/run):
//
//   node packaging/mcpb/check.mjs BUNDLE.mcpb DIR ...
//
// It unpacks the bundle, turns its manifest into the server's command line
// with the DIRs as the allowed_directories a user chose (the library's own
// variable substitution and array expansion), and runs npm/handshake.mjs on
// that command: an MCP handshake, a read of hello.txt in the first DIR, and
// a check that every DIR is served as a root.
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";

import { getMcpConfigForManifest, unpackExtension } from "@anthropic-ai/mcpb";

const here = path.dirname(fileURLToPath(import.meta.url));
const [bundle, ...dirs] = process.argv.slice(2);
if (!bundle || dirs.length === 0) {
  console.error("usage: node packaging/mcpb/check.mjs BUNDLE.mcpb DIR ...");
  process.exit(2);
}

const out = fs.mkdtempSync(path.join(os.tmpdir(), "stet-mcpb-"));
try {
  if (!(await unpackExtension({ mcpbPath: bundle, outputDir: out, silent: true }))) {
    throw new Error(`${bundle} could not be unpacked`);
  }
  const manifest = JSON.parse(fs.readFileSync(path.join(out, "manifest.json"), "utf8"));
  const config = await getMcpConfigForManifest({
    manifest,
    extensionPath: out,
    systemDirs: { HOME: os.homedir(), DESKTOP: os.homedir(), DOCUMENTS: os.homedir(), DOWNLOADS: os.homedir() },
    userConfig: { allowed_directories: dirs },
    pathSeparator: path.sep,
  });
  if (!config) throw new Error(`${bundle}: the manifest yields no server command for allowed_directories ${dirs}`);
  console.log(`check: ${bundle} runs ${[config.command, ...config.args].join(" ")}`);
  const r = spawnSync(process.execPath, [path.join(here, "..", "..", "npm", "handshake.mjs"), config.command, ...config.args], {
    stdio: "inherit",
    env: { ...process.env, ...config.env, HANDSHAKE_ROOTS: JSON.stringify(dirs) },
  });
  if (r.status !== 0) throw new Error(`the handshake with the extension's server failed (exit ${r.status})`);
} catch (err) {
  console.error(`check: ${err.message}`);
  process.exitCode = 1;
} finally {
  fs.rmSync(out, { recursive: true, force: true });
}
