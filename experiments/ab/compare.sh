#!/usr/bin/env bash
# Two c4bdd binaries side by side on the same jobs, alternating, round after
# round: the measurement that a change to the code costs no speed.
#
# usage: experiments/ab/compare.sh [--paired] OUT_DIR ROUNDS OLD_BIN NEW_BIN JOB...
#   JOB is PASS:BOARD:THREADS[:ORDER[:TRAVERSAL]], e.g. count:7x4:1,
#   solve:6x5:2:center-out or solve:6x4:1:center-out:breadth-first,
#   or parts:BOARD:THREADS:ORDER:TOP:CELLS, the partitioned pass alone, e.g.
#   parts:6x5:1:paper:22:c3r1,c3r2,c3r3,c4r1,c4r2: the whole pass down to ply
#   TOP once (by the old binary, not timed) into a checkpoint that each run
#   copies, then `solve --parts CELLS` down to ply 0 timed
#
# In odd rounds the old binary runs each job first, in even rounds the new one,
# so that the machine's drift meets both alike. With --paired, both run each
# job at the same time, each pinned to a core of its own (old on core 0 in odd
# rounds, on core 1 in even ones): a drift of the machine's speed then meets
# both in the same seconds, and the two share the last-level cache and memory. Writes OUT_DIR/times.csv
# (round, job, binary, wall_s, cpu_s, max_rss_kb, own_s: the program's own
# reported time) and OUT_DIR/meta.txt (command, both binaries' versions and
# checksums, machine), and stops with an error when the two binaries' per-ply
# results differ: states and BDD nodes per ply for a count, won, drawn, lost
# and terminal positions per ply for a solve.
set -euo pipefail
# shellcheck source=../meta.sh
. "$(dirname "$0")/../meta.sh"
paired=
[ "${1:-}" = --paired ] && { paired=1; shift; }
[ $# -ge 5 ] || { echo "usage: $0 [--paired] OUT_DIR ROUNDS OLD_BIN NEW_BIN JOB..." >&2; exit 2; }
out=$1; rounds=$2; old=$3; new=$4; shift 4
[[ $rounds =~ ^[1-9][0-9]*$ ]] || { echo "ROUNDS must be a positive integer: '$rounds'" >&2; exit 2; }
for bin in "$old" "$new"; do
  [ -x "$bin" ] || { echo "not an executable: '$bin'" >&2; exit 2; }
done
for job in "$@"; do
  [[ $job =~ ^(count|solve):[0-9]+x[0-9]+:[0-9]+(:[a-z:,0-9-]+)?$ ||
     $job =~ ^parts:[0-9]+x[0-9]+:[0-9]+:[a-z,0-9-]+:[0-9]+:[a-z0-9,]+$ ]] ||
    { echo "a job is PASS:BOARD:THREADS[:ORDER[:TRAVERSAL]], e.g. count:7x4:1, or parts:BOARD:THREADS:ORDER:TOP:CELLS: '$job'" >&2; exit 2; }
done
mkdir -p "$out"
{
  echo "command: $0 ${paired:+--paired }$out $rounds $old $new $*"
  meta_date
  meta_binary old "$old"
  meta_binary new "$new"
  meta_machine
  meta_load
} > "$out/meta.txt"
csv=$out/times.csv
echo "round,job,binary,wall_s,cpu_s,max_rss_kb,own_s" > "$csv.tmp"
here=$(cd "$(dirname "$0")" && pwd)
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT

# The per-ply columns both binaries must agree on.
results() {
  local pass=$1 file=$2
  local cols=ply,states,bdd_nodes
  [ "$pass" != count ] && cols=ply,won,drawn,lost,terminal
  awk -v cols="$cols" -f "$here/../columns.awk" "$file"
}

# seed JOB: for a parts job, its whole pass down to TOP by the old binary,
# once, in $scratch/seed-N (N the job's number).
seeds=0
seed() {
  local pass board threads order top cells
  IFS=: read -r pass board threads order top cells <<< "$1"
  seeds=$((seeds + 1))
  [ "$pass" = parts ] || return 0
  "$old" solve -W "${board%x*}" -H "${board#*x}" --threads "$threads" --order "$order" \
    --checkpoint "$scratch/seed-$seeds" --down-to "$top" > "$scratch/seed.log" 2>&1 ||
    { echo "the whole pass of $1 failed:" >&2; tail -3 "$scratch/seed.log" >&2; exit 1; }
}

# run ROUND JOB N LABEL BIN [CORE]: time one run of job number N (pinned to
# CORE when given), append its row, keep its results.
run() {
  local round=$1 job=$2 n=$3 label=$4 bin=$5 core=${6:-}
  local pass board threads order top cells w h
  IFS=: read -r pass board threads order top cells <<< "$job"
  local traversal=
  if [ "$pass" != parts ]; then
    order=${job#*:*:*:}
    [ "$order" = "$job" ] && order=
    [[ $order =~ ^(.*):((depth|breadth)-first)$ ]] && { order=${BASH_REMATCH[1]}; traversal=${BASH_REMATCH[2]}; }
  fi
  w=${board%x*}; h=${board#*x}
  local args=("$pass" -W "$w" -H "$h" --threads "$threads" --csv "$scratch/$label.csv")
  if [ "$pass" = parts ]; then
    rm -rf "$scratch/ck-$label" && cp -r "$scratch/seed-$n" "$scratch/ck-$label"
    args=(solve -W "$w" -H "$h" --threads "$threads" --csv "$scratch/$label.csv"
      --checkpoint "$scratch/ck-$label" --down-to 0 --parts "$cells")
  fi
  [ -n "$order" ] && args+=(--order "$order")
  [ -n "$traversal" ] && args+=(--traversal "$traversal")
  local pin=()
  [ -n "$core" ] && pin=(taskset -c "$core")
  /usr/bin/time -f '%e %U %S %M' -o "$scratch/$label.time" "${pin[@]}" "$bin" "${args[@]}" > "$scratch/$label.log" 2>&1 ||
    { echo "$label $job failed:" >&2; tail -3 "$scratch/$label.log" >&2; exit 1; }
  local own
  own=$(sed -n 's/^time \([0-9.]*\) s.*/\1/p' "$scratch/$label.log")
  read -r wall user sys rss < "$scratch/$label.time"
  local cpu
  cpu=$(awk -v u="$user" -v s="$sys" 'BEGIN { printf "%.2f", u + s }')
  # A parts job names its cells with commas: the field is quoted.
  echo "$round,\"$job\",$label,$wall,$cpu,$rss,$own" >> "$csv.tmp"
  echo "round $round $job $label: wall $wall s, CPU $cpu s, max RSS $rss kB, own $own s"
  results "$pass" "$scratch/$label.csv" > "$scratch/$label.results"
}

for job in "$@"; do seed "$job"; done
for round in $(seq "$rounds"); do
  n=0
  for job in "$@"; do
    n=$((n + 1))
    if [ -n "$paired" ]; then
      run "$round" "$job" $n old "$old" $((1 - round % 2)) & first=$!
      run "$round" "$job" $n new "$new" $((round % 2)) || exit 1
      wait "$first" || exit 1
    elif [ $((round % 2)) -eq 1 ]; then
      run "$round" "$job" $n old "$old"; run "$round" "$job" $n new "$new"
    else
      run "$round" "$job" $n new "$new"; run "$round" "$job" $n old "$old"
    fi
    cmp -s "$scratch/old.results" "$scratch/new.results" ||
      { echo "$job: the two binaries' per-ply results differ" >&2; exit 1; }
  done
done
mv "$csv.tmp" "$csv"
echo "load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)" >> "$out/meta.txt"
