#!/usr/bin/env bash
# grep, ripgrep and stet side by side on one tree, round-robin: each round
# runs every command once, in turn, so that a machine whose load changes
# slows them all alike; medians of the rounds. Usage:
#   bench/grep-vs.sh [-n ROUNDS] [-d DIR] [-j THREADS] [STET_BINARY...]
# DIR defaults to the Go source tree; each STET_BINARY (default bin/stet,
# built) is run as `stet grep --limit 100000` in a new session of one
# state directory per binary, with GOMAXPROCS=THREADS, against `rg -j
# THREADS` (THREADS defaults to the number of CPUs). Prints a Markdown
# table: many matches (`err != nil`) and none, each command's median, and
# its ratio to grep -rn and to ripgrep with the same number of threads.
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=11
dir="$(go env GOROOT)/src"
threads=$(nproc)
while getopts "n:d:j:" o; do
  case $o in
    n) rounds=$OPTARG ;;
    d) dir=$OPTARG ;;
    j) threads=$OPTARG ;;
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
export LC_ALL=C.UTF-8 GOMAXPROCS=$threads # stet's threads; grep and rg ignore it
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
echo "| scenario | command | median | × grep -rn | × rg -j$threads |"
echo "| --- | --- | --- | --- | --- |"
for sc in "many:err != nil" "none:zzqqxnomatch"; do
  name=${sc%%:*} pat=${sc#*:}
  labels=(grep rg1 rgN)
  if [ "$threads" = 1 ]; then labels=(grep rgN); fi
  for i in "${!bins[@]}"; do labels+=("stet$i"); mkdir -p "$work/state$i"; done
  for r in $(seq 0 "$rounds"); do # round 0 warms the cache
    ms "$name.grep" grep -rn "$pat" .
    if [ "$threads" != 1 ]; then ms "$name.rg1" rg -j1 -n --no-ignore "$pat" .; fi
    ms "$name.rgN" rg -j"$threads" -n --no-ignore "$pat" .
    for i in "${!bins[@]}"; do
      ms "$name.stet$i" "${bins[$i]}" --state "$work/state$i" --session "$name$r" grep --limit 100000 "$pat"
    done
    if [ "$r" = 0 ]; then rm -f "$work/$name".*; fi
  done
  base=$(median "$name.grep") rg=$(median "$name.rgN")
  for l in "${labels[@]}"; do
    case $l in
      grep) cmd="grep -rn" ;;
      rg1) cmd="rg -j1 -n --no-ignore" ;;
      rgN) cmd="rg -j$threads -n --no-ignore" ;;
      stet*) cmd="stet grep --limit 100000 ($(basename "${bins[${l#stet}]}"), GOMAXPROCS=$threads)" ;;
    esac
    m=$(median "$name.$l")
    echo "| $name: \`$pat\` | $cmd | $m ms | $(awk -v a="$m" -v b="$base" 'BEGIN {printf "%.2f×", a/b}') | $(awk -v a="$m" -v b="$rg" 'BEGIN {printf "%.2f×", a/b}') |"
  done
done
