#!/usr/bin/env bash
# Interleaved timing of c4bdd against the oxidd crate on the same counts.
#
# usage: experiments/oxidd/compare.sh OUT_DIR ROUNDS BOARD...   (boards as 7x4)
#
# Builds both programs (release), then runs, round after round and board by
# board, one after another on one thread: c4bdd's default count (in-place
# image), c4bdd with the paper's monolithic relation over alternating frames
# (--image monolithic), and oxidd with that same strategy. Writes
# OUT_DIR/times.csv (round, board, program, image, positions, wall_s, cpu_s)
# and OUT_DIR/meta.txt (command, commits, machine); stops with an error if
# two programs count different totals.
set -euo pipefail
# shellcheck source=../meta.sh
. "$(dirname "$0")/../meta.sh"
[ $# -ge 3 ] || { echo "usage: $0 OUT_DIR ROUNDS BOARD..." >&2; exit 2; }
out=$1; rounds=$2; shift 2
[[ $rounds =~ ^[1-9][0-9]*$ ]] || { echo "ROUNDS must be a positive integer: '$rounds'" >&2; exit 2; }
for b in "$@"; do
  [[ $b =~ ^[0-9]+x[0-9]+$ ]] || { echo "a board is WxH, e.g. 7x4: '$b'" >&2; exit 2; }
done
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
(cd "$root" && cargo build --release -q)
(cd "$here" && cargo build --release -q)
c4bdd=$root/target/release/c4bdd
oxidd=$here/target/release/c4bdd-oxidd
mkdir -p "$out"
{
  echo "command: $0 $out $rounds $*"
  meta_date
  echo "c4bdd commit: $(git -C "$root" rev-parse HEAD)$(git -C "$root" diff --quiet HEAD -- src Cargo.toml Cargo.lock || echo ' (with uncommitted changes)')"
  echo "oxidd: $(grep -A1 '^name = "oxidd"$' "$here/Cargo.lock" | sed -n 's/^version = "\(.*\)"/\1/p')"
  meta_machine
} > "$out/meta.txt"
csv=$out/times.csv
echo "round,board,program,image,positions,wall_s,cpu_s" > "$csv.tmp"

# run ROUND BOARD PROGRAM IMAGE COMMAND...: time one run and append its row.
run() {
  local round=$1 board=$2 program=$3 image=$4; shift 4
  local log times positions
  log=$(mktemp)
  TIMEFORMAT='%R %U %S'
  { time "$@" > "$log" 2>&1; } 2> "$log.time"
  times=$(tail -1 "$log.time")
  positions=$(sed -n 's/^total positions: \([0-9]*\)$/\1/p' "$log")
  rm -f "$log" "$log.time"
  [ -n "$positions" ] || { echo "$program $board: no total in its output" >&2; exit 1; }
  set -- $times
  local cpu
  cpu=$(awk -v u="$2" -v s="$3" 'BEGIN { printf "%.3f", u + s }')
  echo "$round,$board,$program,$image,$positions,$1,$cpu" >> "$csv.tmp"
  echo "round $round $board $program $image: $positions positions, wall $1 s, CPU $cpu s"
}

for round in $(seq "$rounds"); do
  for board in "$@"; do
    w=${board%x*}; h=${board#*x}
    run "$round" "$board" c4bdd in-place "$c4bdd" count -W "$w" -H "$h"
    run "$round" "$board" c4bdd monolithic "$c4bdd" count -W "$w" -H "$h" --image monolithic
    run "$round" "$board" oxidd monolithic "$oxidd" -W "$w" -H "$h"
    totals=$(awk -F, -v r="$round" -v b="$board" '$1 == r && $2 == b {print $5}' "$csv.tmp" | sort -u | wc -l)
    [ "$totals" -eq 1 ] || { echo "$board: the programs count different totals" >&2; exit 1; }
  done
done
mv "$csv.tmp" "$csv"
