#!/usr/bin/env bash
# `c4bdd best` timed on a list of positions, each under a time limit: the
# measurement of the search without tables.
#
# usage: experiments/best/run.sh OUT_DIR BIN LIMIT_S WxH:MOVES[:all]...
#   MOVES is a move string from the empty board ("" for the empty board, as
#   in 7x6:), ":all" adds --all-moves; extra options for every run go in the
#   environment variable BEST_OPTS (e.g. BEST_OPTS="--table-bits 24").
#
# Writes OUT_DIR/best.csv (board, moves, all_moves, status, value, best,
# nodes, time_s, wall_s, max_rss_kb; status ok or time-limit),
# OUT_DIR/best.jsonl (each finished search's `--json` object: with
# --all-moves, every move's value) and OUT_DIR/meta.txt (command, binary
# version and checksum, machine).
set -euo pipefail
# shellcheck source=../meta.sh
. "$(dirname "$0")/../meta.sh"
[ $# -ge 4 ] || { echo "usage: $0 OUT_DIR BIN LIMIT_S WxH:MOVES[:all]..." >&2; exit 2; }
out=$1; bin=$2; limit=$3; shift 3
[ -x "$bin" ] || { echo "not an executable: '$bin'" >&2; exit 2; }
[[ $limit =~ ^[1-9][0-9]*$ ]] || { echo "LIMIT_S must be a positive integer: '$limit'" >&2; exit 2; }
for job in "$@"; do
  [[ $job =~ ^[0-9]+x[0-9]+:[0-9a-d]*(:all)?$ ]] ||
    { echo "a job is WxH:MOVES[:all], e.g. 7x6:4453 or 7x6::all: '$job'" >&2; exit 2; }
done
mkdir -p "$out"
{
  echo "command: BEST_OPTS=\"${BEST_OPTS:-}\" $0 $out $bin $limit $*"
  meta_date
  meta_binary binary "$bin"
  meta_machine
  meta_load
} > "$out/meta.txt"
csv=$out/best.csv
echo "board,moves,all_moves,status,value,best,nodes,time_s,wall_s,max_rss_kb" > "$csv.tmp"
: > "$out/best.jsonl.tmp"
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
for job in "$@"; do
  IFS=: read -r board moves all <<< "$job"
  args=(best -W "${board%x*}" -H "${board#*x}" --moves "$moves" --json)
  every=false
  if [ "$all" = all ]; then args+=(--all-moves); every=true; fi
  # shellcheck disable=SC2086
  if /usr/bin/time -f '%e %M' -o "$scratch/time" timeout "$limit" "$bin" "${args[@]}" ${BEST_OPTS:-} > "$scratch/out"; then
    row=$(python3 -c 'import json,sys; j=json.load(open(sys.argv[1])); print("ok,{value},{best},{nodes},{time_s:.3f}".format(**j))' "$scratch/out")
    cat "$scratch/out" >> "$out/best.jsonl.tmp"
  else
    row="time-limit,,,,"
  fi
  read -r wall rss < <(tail -1 "$scratch/time")
  echo "$board,\"$moves\",$every,$row,$wall,$rss" | tee -a "$csv.tmp"
done
mv "$out/best.jsonl.tmp" "$out/best.jsonl"
mv "$csv.tmp" "$csv"
