// Stages the npm packages of a release for npm pack (run by
// scripts/release.sh):
//
//   node npm/stage.mjs VERSION OUTDIR OS/CPU=BINDIR ...
//
// OUTDIR/stet is @stet-dev/stet (npm/stet with VERSION filled in, its
// optionalDependencies pinned to VERSION), and OUTDIR/stet-OS-CPU is the
// package of each given platform (npm/platform filled in), holding the
// binary found in BINDIR as bin/stet or bin/stet.exe. OS and CPU are Node's
// names (process.platform, process.arch).
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const here = path.dirname(fileURLToPath(import.meta.url));
const [version, out, ...plats] = process.argv.slice(2);
if (!version || !out) {
  console.error("usage: node npm/stage.mjs VERSION OUTDIR OS/CPU=BINDIR ...");
  process.exit(2);
}

const readJSON = (p) => JSON.parse(fs.readFileSync(p, "utf8"));
const writeJSON = (p, v) => fs.writeFileSync(p, JSON.stringify(v, null, 2) + "\n");

// The launcher package.
const main = readJSON(path.join(here, "stet", "package.json"));
main.version = version;
for (const dep of Object.keys(main.optionalDependencies)) main.optionalDependencies[dep] = version;
const mainDir = path.join(out, "stet");
fs.mkdirSync(path.join(mainDir, "bin"), { recursive: true });
writeJSON(path.join(mainDir, "package.json"), main);
fs.copyFileSync(path.join(here, "stet", "README.md"), path.join(mainDir, "README.md"));
fs.copyFileSync(path.join(here, "..", "LICENSE"), path.join(mainDir, "LICENSE"));
fs.copyFileSync(path.join(here, "stet", "bin", "stet.js"), path.join(mainDir, "bin", "stet.js"));
fs.chmodSync(path.join(mainDir, "bin", "stet.js"), 0o755);

// One package per platform.
const template = fs.readFileSync(path.join(here, "platform", "package.json"), "utf8");
const readme = fs.readFileSync(path.join(here, "platform", "README.md"), "utf8");
for (const arg of plats) {
  const m = /^([a-z0-9]+)\/([a-z0-9]+)=(.+)$/.exec(arg);
  if (!m) {
    console.error(`stage.mjs: ${JSON.stringify(arg)} is not OS/CPU=BINDIR (e.g. linux/x64=/tmp/bin)`);
    process.exit(2);
  }
  const [, os, cpu, binDir] = m;
  const platform = `${os}-${cpu}`;
  const name = `@stet-dev/stet-${platform}`;
  if (!(name in main.optionalDependencies)) {
    console.error(`stage.mjs: ${name} is not among the optionalDependencies of npm/stet/package.json; add it there`);
    process.exit(2);
  }
  const fill = (s) => s.replaceAll("PLATFORM", platform).replaceAll('"OS"', JSON.stringify(os)).replaceAll('"CPU"', JSON.stringify(cpu));
  const pkg = JSON.parse(fill(template));
  pkg.version = version;
  const exe = os === "win32" ? "stet.exe" : "stet";
  const dir = path.join(out, `stet-${platform}`);
  fs.mkdirSync(path.join(dir, "bin"), { recursive: true });
  writeJSON(path.join(dir, "package.json"), pkg);
  fs.writeFileSync(path.join(dir, "README.md"), readme.replaceAll("PLATFORM", platform));
  fs.copyFileSync(path.join(here, "..", "LICENSE"), path.join(dir, "LICENSE"));
  fs.copyFileSync(path.join(binDir, exe), path.join(dir, "bin", exe));
  fs.chmodSync(path.join(dir, "bin", exe), 0o755);
}
