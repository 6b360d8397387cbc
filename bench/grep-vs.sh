#!/usr/bin/env bash
# grep, ripgrep and stet side by side on one tree, round-robin: each round
# runs every command once, in turn, so that a machine whose load changes
# slows them all alike; medians of the rounds. Usage:
#   bench/grep-vs.sh [-n ROUNDS] [-d DIR] [STET_BINARY...]
# DIR defaults to the Go source tree; each STET_BINARY (default bin/stet,
# built) is run as `stet grep --limit 100000` in a new session of one
# state directory per binary. Prints a Markdown table: many matches
# (`err != nil`) and none.
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=11
dir="$(go env GOROOT)/src"
while getopts "n:d:" o; do
  case $o in
    n) rounds=$OPTARG ;;
    d) dir=$OPTARG ;;
    *) exit 2 ;;
  esac
done
shift $((OPTIND - 1))
bins=("$@")
if [ ${#bins[@]} = 0 ]; then
  mkdir -p bin && go build -o bin/stet ./cmd/stet
  bins=("$PWD/bin/stet")
fi
for i in "${!bins[@]}"; do bins[$i]=$(realpath "${bins[$i]}"); done
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export LC_ALL=C.UTF-8
cd "$dir"
ms() { # ms LABEL CMD...: run once, append the wall time in ms to $work/LABEL
  local label=$1; shift
  local t0 t1
  t0=$(date +%s%N)
  "$@" >/dev/null 2>&1 || true
  t1=$(date +%s%N)
  echo $(( (t1 - t0) / 1000000 )) >>"$work/$label"
}
median() { sort -n "$work/$1" | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
echo "| scenario | command | median | × grep -rn |"
echo "| --- | --- | --- | --- |"
for sc in "many:err != nil" "none:zzqqxnomatch"; do
  name=${sc%%:*} pat=${sc#*:}
  labels=(grep rg1 rg2)
  for i in "${!bins[@]}"; do labels+=("stet$i"); mkdir -p "$work/state$i"; done
  for r in $(seq 0 "$rounds"); do # round 0 warms the cache
    ms "$name.grep" grep -rn "$pat" .
    ms "$name.rg1" rg -j1 -n --no-ignore "$pat" .
    ms "$name.rg2" rg -j2 -n --no-ignore "$pat" .
    for i in "${!bins[@]}"; do
      ms "$name.stet$i" "${bins[$i]}" --state "$work/state$i" --session "$name$r" grep --limit 100000 "$pat"
    done
    if [ "$r" = 0 ]; then rm -f "$work/$name".*; fi
  done
  base=$(median "$name.grep")
  for l in "${labels[@]}"; do
    case $l in
      grep) cmd="grep -rn" ;;
      rg1) cmd="rg -j1 -n --no-ignore" ;;
      rg2) cmd="rg -j2 -n --no-ignore" ;;
      stet*) cmd="stet grep --limit 100000 ($(basename "${bins[${l#stet}]}"))" ;;
    esac
    m=$(median "$name.$l")
    echo "| $name: \`$pat\` | $cmd | $m ms | $(awk -v a="$m" -v b="$base" 'BEGIN {printf "%.2f×", a/b}') |"
  done
done
