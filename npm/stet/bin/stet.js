#!/usr/bin/env node
// The stet command of the @stet-dev/stet npm package: it finds the binary in
// the package for this platform (an optional dependency, so npm installs only
// the one that fits) and runs it with this process's arguments and standard
// streams, passing signals on and exiting as the binary exits.
"use strict";

const { spawn } = require("node:child_process");
const path = require("node:path");
const fs = require("node:fs");

const main = require("../package.json");

const platform = `${process.platform}-${process.arch}`;
const pkg = `@stet-dev/stet-${platform}`;
const exe = process.platform === "win32" ? "stet.exe" : "stet";

function fail(msg) {
  process.stderr.write(`stet: ${msg}\n`);
  process.exit(1);
}

const known = Object.keys(main.optionalDependencies || {});
if (!known.includes(pkg)) {
  const have = known.map((p) => p.replace("@stet-dev/stet-", "")).join(", ");
  fail(
    `no stet binary is published for ${platform} (there are: ${have}); ` +
      "build one from source with: go install github.com/stet-dev/stet/cmd/stet@latest",
  );
}

// The platform package is looked for from this package's own directory: its
// node_modules, then those of the directories above it, where npm hoists
// dependencies. Never from the current directory: a client starts stet in a
// project, and that project's node_modules is not this install. It must be
// this launcher's version, as the release pins it.
const self = path.join(__dirname, "..");
let dir;
try {
  dir = path.dirname(require.resolve(`${pkg}/package.json`, { paths: [self] }));
} catch {
  // The command that adds it where npm would have put it: a global install
  // (PREFIX/lib/node_modules on Unix, PREFIX/node_modules with stet.cmd beside
  // it on Windows), else the project whose node_modules holds this package.
  const owner = path.dirname(path.dirname(path.dirname(self)));
  const global =
    process.platform === "win32"
      ? fs.existsSync(path.join(owner, "stet.cmd"))
      : path.basename(owner) === "lib" && fs.existsSync(path.join(owner, "..", "bin", "stet"));
  const add = global
    ? `npm install -g ${pkg}@${main.version}`
    : `npm install --prefix ${/\s/.test(owner) ? `"${owner}"` : owner} ${pkg}@${main.version}`;
  fail(
    `the package ${pkg}@${main.version}, which holds the stet binary for ${platform}, is not installed ` +
      `(npm installs it as an optional dependency of ${main.name}, and did not here). Add it with: ${add}`,
  );
}
let found;
try {
  found = JSON.parse(fs.readFileSync(path.join(dir, "package.json"), "utf8"));
} catch (err) {
  fail(`could not read ${path.join(dir, "package.json")}: ${err.message}; reinstall ${main.name}@${main.version}`);
}
if (found.name !== pkg || found.version !== main.version) {
  fail(
    `${dir} holds ${found.name}@${found.version}, but this launcher (${main.name}@${main.version}, in ${self}) ` +
      `runs only ${pkg}@${main.version}; reinstall ${main.name}@${main.version}`,
  );
}
const bin = path.join(dir, "bin", exe);
if (!fs.existsSync(bin)) {
  fail(`${pkg} is installed but holds no ${path.join("bin", exe)} (looked at ${bin}); reinstall ${pkg}@${main.version}`);
}

const child = spawn(bin, process.argv.slice(2), { stdio: "inherit", windowsHide: true });

// Signals this process gets go to the binary, which decides what they mean;
// this process exits when the binary does.
const forwarded = ["SIGINT", "SIGTERM", "SIGHUP", "SIGQUIT"];
const handlers = {};
for (const sig of forwarded) {
  handlers[sig] = () => {
    try {
      child.kill(sig);
    } catch {
      // the binary has already exited
    }
  };
  try {
    process.on(sig, handlers[sig]);
  } catch {
    // a signal this platform does not have
  }
}

child.on("error", (err) => {
  fail(`could not start ${bin}: ${err.message}`);
});

child.on("exit", (code, signal) => {
  for (const sig of forwarded) process.removeListener(sig, handlers[sig]);
  if (signal) {
    // End the way the binary ended, so a caller sees the same signal.
    process.kill(process.pid, signal);
    return;
  }
  process.exit(code === null ? 1 : code);
});
