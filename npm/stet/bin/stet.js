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

let bin;
try {
  bin = path.join(path.dirname(require.resolve(`${pkg}/package.json`)), "bin", exe);
} catch {
  fail(
    `the package ${pkg} is not installed, so there is no stet binary for ${platform}. ` +
      `It is an optional dependency of ${main.name}: reinstall without --omit=optional ` +
      `(or --no-optional), or install it yourself: npm install ${pkg}@${main.version}`,
  );
}
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
