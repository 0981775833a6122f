#!/usr/bin/env bash
# Interleaved timing of c4bdd against the paper's C artifact on the same machine.
#
# usage: experiments/artifact/compare.sh ARTIFACT_DIR OUT_DIR ROUNDS JOB...
#
# ARTIFACT_DIR is a checkout of the paper's artifact
# (https://github.com/markus7800/Connect4-Strong-Solver); its src/bdd and
# src/connect4/search are compiled here as its makefile does (clang -O3 -flto,
# FULLBDD=0, IN_OP_GC=0, WRITE_TO_FILE=1), plus two compatibility flags for
# snapshots whose headers lag their sources (-fgnu89-inline, and shim.h:
# IN_OP_GC_THRES and an external declaration of reassign_and_keepalive).
#
# A JOB is PASS:ENCODING:BOARD[:LOG2], e.g. count:compressed:7x4,
# count:standard:6x5 or solve:compressed:6x5:26. PASS is count or solve,
# ENCODING compressed or standard, LOG2 the artifact's preallocated table
# (2^LOG2 nodes; default 26 for counts, 3.4 GB, and 24 for solves, 0.85 GB).
#
# Round after round, job by job, one run at a time: the artifact, then c4bdd
# in the artifact's variable order (column-wise) on one thread, then c4bdd's
# best configuration (two threads; a solve also orders the columns
# centre-out). Writes
# OUT_DIR/times.csv (round, job, program, threads, order, positions, wall_s,
# cpu_s, peak_rss_kb, own_s: the time the program reports itself, which leaves
# out the artifact's table initialisation) and OUT_DIR/meta.txt (command, commits, machine, the
# artifact's source digest). Stops with an error if a count's total or a
# solve's per-ply won/drawn/lost table differs between the programs.
set -euo pipefail
# shellcheck source=../meta.sh
. "$(dirname "$0")/../meta.sh"
[ $# -ge 4 ] || { echo "usage: $0 ARTIFACT_DIR OUT_DIR ROUNDS JOB..." >&2; exit 2; }
invocation="$0 $*"
art=$(cd "$1" && pwd); out=$2; rounds=$3; shift 3
[[ $rounds =~ ^[1-9][0-9]*$ ]] || { echo "ROUNDS must be a positive integer: '$rounds'" >&2; exit 2; }
for job in "$@"; do
  [[ $job =~ ^(count|solve):(compressed|standard):[0-9]+x[0-9]+(:[0-9]+)?$ ]] ||
    { echo "a job is PASS:ENCODING:BOARD[:LOG2], e.g. count:compressed:7x4: '$job'" >&2; exit 2; }
done
[ -d "$art/src/bdd" ] && [ -f "$art/src/connect4/search/count.c" ] ||
  { echo "not a checkout of the artifact (no src/bdd, src/connect4/search/count.c): '$art'" >&2; exit 2; }
command -v clang > /dev/null || { echo "the artifact builds with clang, which is not installed" >&2; exit 2; }
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
(cd "$root" && cargo build --release -q)
c4bdd=$root/target/release/c4bdd
mkdir -p "$out/build" "$out/work"
out=$(cd "$out" && pwd)

# Build the artifact's four programs (pass x encoding).
bddfiles=$(for f in caches counts memorypool node ops uniquetable save nodeindexmap; do echo "$art/src/bdd/$f.c"; done)
for pass in count solve; do
  for enc in 1 0; do
    # shellcheck disable=SC2086
    clang "$art/src/connect4/search/$pass.c" $bddfiles -O3 -flto -w -fgnu89-inline -include "$here/shim.h" \
      -DFULLBDD=0 -DENTER_TO_CONTINUE=0 -DWRITE_TO_FILE=1 -DIN_OP_GC=0 -DALLOW_ROW_ORDER=0 \
      -DCOMPRESSED_ENCODING=$enc -o "$out/build/$pass-$enc.out"
  done
done
{
  echo "command: $invocation"
  meta_date
  echo "c4bdd commit: $(git -C "$root" rev-parse HEAD)$(git -C "$root" diff --quiet HEAD -- src crates Cargo.toml Cargo.lock || echo ' (with uncommitted changes)')"
  echo "artifact commit: $(git -C "$art" rev-parse HEAD 2> /dev/null || echo 'not a git checkout')"
  echo "artifact sources sha256: $(cat "$art"/src/bdd/*.[ch] "$art"/src/connect4/search/*.c | sha256sum | cut -d' ' -f1)"
  echo "artifact compiler: $(clang --version | head -1)"
  meta_machine
} > "$out/meta.txt"
csv=$out/times.csv
echo "round,job,program,threads,order,positions,wall_s,cpu_s,peak_rss_kb,own_s" > "$csv.tmp"

# timed LOG COMMAND...: run COMMAND in the work directory, its output to LOG;
# sets wall, cpu (user + system) and rss (peak KB) for the caller's row.
timed() {
  local log=$1; shift
  (cd "$out/work" && /usr/bin/time -f '%e %U %S %M' -o "$log.time" "$@" > "$log" 2>&1)
  read -r wall user sys rss < "$log.time"
  cpu=$(awk -v u="$user" -v s="$sys" 'BEGIN { printf "%.2f", u + s }')
}

# The won/drawn/lost table of a solve, first player's view: "ply won drawn lost".
artifact_table() { # the artifact reports the view of the player to move
  awk -F', *' 'NR > 1 { if ($3 % 2 == 0) print $3, $4, $5, $6; else print $3, $6, $5, $4 }' "$1" | sort -n
}
c4bdd_table() { awk -v cols=ply,won,drawn,lost -f "$here/../columns.awk" "$1" | sort -n; }
# written NAME: the artifact's results file NAME.csv in the work folder; its
# later versions add the table's size, NAME_ls<LOG2>.csv.
written() {
  local f=$out/work/$1.csv
  [ -e "$f" ] || f=$out/work/$1_ls$log2.csv
  echo "$f"
}
# The positions of all plies of such a table (printed as an integer).
table_total() { awk '{ s += $2 + $3 + $4 } END { printf "%.0f\n", s }' "$1"; }

for round in $(seq "$rounds"); do
  for job in "$@"; do
    IFS=: read -r pass enc board log2 <<< "$job"
    w=${board%x*}; h=${board#*x}
    [ -n "$log2" ] || log2=$([ "$pass" = count ] && echo 26 || echo 24)
    encflag=$([ "$enc" = compressed ] && echo 1 || echo 0)
    c4enc=$([ "$enc" = compressed ] && echo compressed || echo cellwise)
    rm -rf "$out/work" && mkdir -p "$out/work"
    log=$out/work/artifact.log
    timed "$log" "$out/build/$pass-$encflag.out" "$log2" "$w" "$h"
    if [ "$pass" = count ]; then
      positions=$(sed -n 's/^Total number of positions .*: \([0-9]*\)$/\1/p' "$log")
      own=$(awk -F', *' 'NR == 2 { print $4 }' "$(written "results_w${w}_h${h}")")
    else
      own=$(sed -n 's/^Finished in \([0-9.]*\) seconds.$/\1/p' "$log")
      artifact_table "$(written "results_solve_w${w}_h${h}")" > "$out/work/artifact.table"
      positions=$(table_total "$out/work/artifact.table")
    fi
    [ -n "$positions" ] && [ -n "$own" ] || { echo "artifact $job: no total or time in its output (see $log)" >&2; exit 1; }
    echo "$round,$job,artifact,1,column-wise,$positions,$wall,$cpu,$rss,$own" >> "$csv.tmp"
    echo "round $round $job artifact: $positions positions, wall $wall s, CPU $cpu s, $rss KB"
    expected=$positions
    for threads in 1 2; do
      order=column-wise
      [ "$pass" = solve ] && [ "$threads" = 2 ] && order=center-out
      log=$out/work/c4bdd-$threads.log
      args=(--encoding "$c4enc" --order "$order" --threads "$threads" --csv "$out/work/c4bdd-$threads.csv")
      [ "$pass" = solve ] && args+=(--out "$out/work/solution-$threads")
      timed "$log" "$c4bdd" "$pass" -W "$w" -H "$h" "${args[@]}"
      if [ "$pass" = count ]; then
        positions=$(sed -n 's/^total positions: \([0-9]*\)$/\1/p' "$log")
      else
        c4bdd_table "$out/work/c4bdd-$threads.csv" > "$out/work/c4bdd.table"
        cmp -s "$out/work/c4bdd.table" "$out/work/artifact.table" ||
          { echo "$job: c4bdd's won/drawn/lost table differs from the artifact's" >&2; exit 1; }
        positions=$(table_total "$out/work/c4bdd.table")
      fi
      [ "$positions" = "$expected" ] || { echo "$job: c4bdd counts $positions, the artifact $expected" >&2; exit 1; }
      own=$(sed -n 's/^time \([0-9.]*\) s.*$/\1/p' "$log")
      echo "$round,$job,c4bdd,$threads,$order,$positions,$wall,$cpu,$rss,$own" >> "$csv.tmp"
      echo "round $round $job c4bdd ($threads threads, $order): wall $wall s, CPU $cpu s, $rss KB"
    done
  done
done
rm -rf "$out/work"
mv "$csv.tmp" "$csv"
