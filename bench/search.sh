#!/usr/bin/env bash
# stet's search benchmark: grep and find on the Go source tree and on a
# generated tree of 200,000 small files, stet (CLI and in-process) side by
# side with grep -rn, find and ripgrep (when installed), warm cache. Prints
# a Markdown section; with --write, puts it into docs/benchmarks.md between
# the search markers. Extra arguments go to searchbench (-n runs, -files N,
# -tree DIR). The generated tree is made once under $TMPDIR.
set -euo pipefail
cd "$(dirname "$0")/.."
write=0
if [ "${1:-}" = "--write" ]; then write=1; shift; fi
mkdir -p bin
go build -o bin/stet ./cmd/stet
go build -o bin/searchbench ./internal/cmd/searchbench
section=$(bin/searchbench -stet "$PWD/bin/stet" "$@")
echo "$section"
if [ "$write" = 1 ]; then
  on='<!-- search: begin generated section; bench/search.sh --write rewrites it -->'
  off='<!-- search: end generated section -->'
  SECTION="$section" ON="$on" OFF="$off" python3 - docs/benchmarks.md <<'PY'
import os, sys
p = sys.argv[1]
doc = open(p).read()
on, off, sec = os.environ["ON"], os.environ["OFF"], os.environ["SECTION"]
if on in doc and off in doc:
    doc = doc[:doc.index(on) + len(on)] + "\n" + sec + "\n" + doc[doc.index(off):]
else:
    doc = doc.rstrip("\n") + "\n\n" + on + "\n" + sec + "\n" + off + "\n"
open(p, "w").write(doc)
PY
fi
