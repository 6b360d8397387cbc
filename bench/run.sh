#!/usr/bin/env bash
# stet's MCP benchmark: installs the pinned reference server (bench/peer),
# builds stet and the benchmark tool, runs every scenario side by side and
# writes the tables into docs/benchmarks.md. Extra arguments go to stetbench
# (e.g. -n 50, -scenarios read_4k,edit_1m, -cli=false); see
# `go run ./internal/cmd/stetbench -h`.
# Needs Go, Node >= 20 and npm. Takes about 5 minutes.
set -euo pipefail
cd "$(dirname "$0")/.."

peer=bench/peer/node_modules/@modelcontextprotocol/server-filesystem/dist/index.js
# npm writes node_modules/.package-lock.json at install time: a lock newer
# than it means the pin changed since.
if [ ! -f "$peer" ] || [ bench/peer/package-lock.json -nt bench/peer/node_modules/.package-lock.json ]; then
  npm ci --prefix bench/peer --no-audit --no-fund
fi

rev=$(git describe --always --dirty 2>/dev/null || echo dev)
mkdir -p bin
go build -ldflags "-X main.version=$rev" -o bin/stet ./cmd/stet
go build -o bin/stetbench ./internal/cmd/stetbench

exec bin/stetbench -stet bin/stet -peer "$peer" -out docs/benchmarks.md "$@"
