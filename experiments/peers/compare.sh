#!/usr/bin/env bash
# Interleaved timing of c4bdd against other BDD packages on the same counts.
#
# usage: [THREADS=1,2] experiments/peers/compare.sh OUT_DIR ROUNDS PACKAGES JOB...
#   PACKAGES: comma-separated, of oxidd, buddy (needs Debian's libbdd-dev),
#   cudd (needs CUDD_DIR, CUDD 3.0.0's source tree built by its own
#   configure and make) and sylvan (needs SYLVAN_DIR, where Sylvan 1.8.1
#   with Lace 1.4.1 is installed); a JOB is a board, WxH, to count (7x4) or
#   solve:WxH to solve it strongly (solve:6x4). THREADS (default 1): the
#   thread counts to run; above one, only c4bdd and Sylvan run (the others
#   have one thread). The packages run with
#   GLIBC_TUNABLES=glibc.malloc.hugetlb=1 (malloc's memory in huge pages,
#   which c4bdd's allocator asks for itself; oxidd runs with it too).
#
# Builds c4bdd and c4bdd-peers (release, with the packages' features). Then,
# per job, checks that every package builds c4bdd's BDDs: each ply's
# positions and BDD nodes (counted without complement edges) equal those of
# `c4bdd count --image monolithic`, or each ply's won, drawn and lost
# positions those of `c4bdd solve`, before any time is taken (Sylvan: with
# each image and thread count). Then, round after round, job by job and
# thread count by thread count, one after another: c4bdd's default (in-place
# image), c4bdd with the paper's monolithic relation over alternating frames
# (--image monolithic), each package with that same strategy and Sylvan with
# c4bdd's default too (its relnext and relprev). Writes
# OUT_DIR/times.csv (round, pass, board, program, image, threads, positions,
# wall_s, cpu_s, max_rss_kb, peak_nodes: c4bdd's peak live nodes or the
# package's "figures:" line, gc_s: seconds of collection, empty where not
# counted; a solve's positions are those of all its plies), OUT_DIR/reports.txt (each package's
# own figures of each run: live nodes, collections) and OUT_DIR/meta.txt
# (command, commits, package versions, machine); stops with an error if two
# programs count different totals.
set -euo pipefail
# shellcheck source=../meta.sh
. "$(dirname "$0")/../meta.sh"
[ $# -ge 4 ] || { echo "usage: $0 OUT_DIR ROUNDS PACKAGES JOB..." >&2; exit 2; }
out=$1; rounds=$2; packages=$3; shift 3
[[ $rounds =~ ^[1-9][0-9]*$ ]] || { echo "ROUNDS must be a positive integer: '$rounds'" >&2; exit 2; }
IFS=, read -r -a pkgs <<< "$packages"
for p in "${pkgs[@]}"; do
  [[ $p =~ ^(oxidd|buddy|cudd|sylvan)$ ]] || { echo "a package is oxidd, buddy, cudd or sylvan: '$p'" >&2; exit 2; }
  [[ $p != cudd || -f ${CUDD_DIR:-}/cudd/.libs/libcudd.a ]] ||
    { echo "cudd needs CUDD_DIR, a built CUDD 3.0.0 source tree (no cudd/.libs/libcudd.a under '${CUDD_DIR:-}')" >&2; exit 2; }
  [[ $p != sylvan || -f ${SYLVAN_DIR:-}/lib/libsylvan.a ]] ||
    { echo "sylvan needs SYLVAN_DIR, where Sylvan 1.8.1 is installed (no lib/libsylvan.a under '${SYLVAN_DIR:-}')" >&2; exit 2; }
done
IFS=, read -r -a threads <<< "${THREADS:-1}"
for t in "${threads[@]}"; do
  [[ $t =~ ^[1-9][0-9]*$ ]] || { echo "THREADS is a comma-separated list of positive integers: '${THREADS:-}'" >&2; exit 2; }
done
for j in "$@"; do
  [[ $j =~ ^(solve:)?[0-9]+x[0-9]+$ ]] || { echo "a job is WxH (a count) or solve:WxH, e.g. 7x4: '$j'" >&2; exit 2; }
done

# split JOB: set pass (count or solve), board, w and h.
split() {
  if [[ $1 == solve:* ]]; then pass=solve; board=${1#solve:}; else pass=count; board=$1; fi
  w=${board%x*}; h=${board#*x}
}
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
(cd "$root" && cargo build --release -q)
(cd "$here" && cargo build --release -q --features "$packages")
c4bdd=$root/target/release/c4bdd
peers=$here/target/release/c4bdd-peers
mkdir -p "$out"
{
  echo "command: $0 $out $rounds $packages $*"
  meta_date
  echo "c4bdd commit: $(git -C "$root" rev-parse HEAD)$(git -C "$root" diff --quiet HEAD -- src crates Cargo.toml Cargo.lock experiments/peers || echo ' (with uncommitted changes)')"
  echo "oxidd: $(grep -A1 '^name = "oxidd"$' "$here/Cargo.lock" | sed -n 's/^version = "\(.*\)"/\1/p')"
  echo "buddy: $(dpkg-query -W -f '${Version}' libbdd-dev 2>/dev/null || echo 'not installed')"
  echo "cudd: $( [ -n "${CUDD_DIR:-}" ] && sed -n 's/^PACKAGE_VERSION = //p' "$CUDD_DIR/Makefile" || echo 'not used') (CUDD_DIR ${CUDD_DIR:-unset})"
  echo "sylvan: $( [ -n "${SYLVAN_DIR:-}" ] && sed -n 's/^Version: //p' "$SYLVAN_DIR/lib/pkgconfig/sylvan.pc" || echo 'not used'), lace (the version its cmake files declare; its tag v1.4.1 says 1.3.1): $( [ -n "${SYLVAN_DIR:-}" ] && sed -n 's/^set(PACKAGE_VERSION "\(.*\)")/\1/p' "$SYLVAN_DIR/lib/cmake/lace/lace-config-version.cmake" || echo 'not used') (SYLVAN_DIR ${SYLVAN_DIR:-unset})"
  echo "threads: ${THREADS:-1}"
  meta_machine
  meta_load
} > "$out/meta.txt"
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT

# jobs_of PACKAGE: the runs of a package as IMAGE:THREADS words: the
# monolithic image on one thread; Sylvan also in place, and both on every
# thread count.
jobs_of() {
  for t in "${threads[@]}"; do
    if [ "$1" = sylvan ]; then echo "monolithic:$t in-place:$t"; elif [ "$t" = 1 ]; then echo "monolithic:1"; fi
  done
}

# The per-ply check: every package's lines "ply positions nodes" against
# c4bdd's monolithic count of the same board, or "ply won drawn lost"
# against c4bdd's solve.
for job in "$@"; do
  split "$job"
  if [ "$pass" = count ]; then
    "$c4bdd" count -W "$w" -H "$h" --image monolithic --csv "$scratch/c4bdd.csv" > /dev/null
    cols=ply,states,bdd_nodes; line='^[0-9]+ [0-9]+ [0-9]+$'
  else
    "$c4bdd" solve -W "$w" -H "$h" --csv "$scratch/c4bdd.csv" > /dev/null
    cols=ply,won,drawn,lost; line='^[0-9]+ [0-9]+ [0-9]+ [0-9]+$'
  fi
  awk -v cols=$cols -f "$here/../columns.awk" "$scratch/c4bdd.csv" | tr , ' ' > "$scratch/want"
  for p in "${pkgs[@]}"; do
    for spec in $(jobs_of "$p"); do
      IFS=: read -r image t <<< "$spec"
      "$peers" --package "$p" --pass "$pass" -W "$w" -H "$h" --image "$image" --threads "$t" | grep -E "$line" > "$scratch/got"
      cmp -s "$scratch/want" "$scratch/got" ||
        { echo "$p $job ($image, $t threads): a ply's ${cols#ply,} differ from c4bdd's" >&2; diff "$scratch/want" "$scratch/got" | head -5 >&2; exit 1; }
      echo "$job $p ($image, $t threads): every ply's ${cols#ply,} equal c4bdd's"
    done
  done
done

csv=$out/times.csv
echo "round,pass,board,program,image,threads,positions,wall_s,cpu_s,max_rss_kb,peak_nodes,gc_s" > "$csv.tmp"
: > "$out/reports.txt.tmp"

# figures PROGRAM LOG: set peak (peak nodes) and gc (seconds of collection,
# empty when the program does not count them) from a run's output: c4bdd's
# "time T s[ (forward F s)], GC P% ..., peak live nodes N" line, a
# package's "figures:" line.
figures() {
  if [ "$1" = c4bdd ]; then
    peak=$(sed -n 's/^time .*peak live nodes \([0-9]*\).*/\1/p' "$2")
    gc=$(sed -n 's/^time \([0-9.]*\) s\( (forward [0-9.]* s)\)\{0,1\}, GC \([0-9.]*\)%.*/\1 \3/p' "$2" | awk '{ printf "%.3f", $1 * $2 / 100 }')
  else
    peak=$(sed -n 's/^figures: peak nodes \([0-9]*\), .*/\1/p' "$2")
    gc=$(sed -n 's/^figures: .*, GC s \([0-9.]*\)$/\1/p' "$2")
  fi
  [ -n "$peak" ] || { echo "$1: no peak nodes in its output" >&2; exit 1; }
}

# run ROUND JOB PROGRAM IMAGE THREADS COMMAND...: time one run and append its row.
run() {
  local round=$1 job=$2 program=$3 image=$4 t=$5 pass board w h; shift 5
  split "$job"
  /usr/bin/time -f '%e %U %S %M' -o "$scratch/time" "$@" > "$scratch/log" 2>&1 ||
    { echo "$program $job failed:" >&2; tail -3 "$scratch/log" >&2; exit 1; }
  local positions wall user sys rss cpu peak gc
  positions=$(sed -n 's/^total positions: \([0-9]*\)$/\1/p' "$scratch/log")
  [ -n "$positions" ] || { echo "$program $job: no total in its output" >&2; exit 1; }
  read -r wall user sys rss < "$scratch/time"
  cpu=$(awk -v u="$user" -v s="$sys" 'BEGIN { printf "%.3f", u + s }')
  figures "$program" "$scratch/log"
  echo "$round,$pass,$board,$program,$image,$t,$positions,$wall,$cpu,$rss,$peak,$gc" >> "$csv.tmp"
  echo "$round $job $program $image $t: $(grep '^time ' "$scratch/log")" >> "$out/reports.txt.tmp"
  grep '^figures: ' "$scratch/log" | sed "s/^/$round $job $program $image $t: /" >> "$out/reports.txt.tmp" || true
  echo "round $round $job $program $image $t threads: $positions positions, wall $wall s, CPU $cpu s, max RSS $rss kB"
}

for round in $(seq "$rounds"); do
  for job in "$@"; do
    split "$job"
    for t in "${threads[@]}"; do
      run "$round" "$job" c4bdd in-place "$t" "$c4bdd" "$pass" -W "$w" -H "$h" --threads "$t"
      run "$round" "$job" c4bdd monolithic "$t" "$c4bdd" "$pass" -W "$w" -H "$h" --image monolithic --threads "$t"
      for p in "${pkgs[@]}"; do
        for spec in $(jobs_of "$p"); do
          IFS=: read -r image jt <<< "$spec"
          [ "$jt" = "$t" ] || continue
          run "$round" "$job" "$p" "$image" "$t" env GLIBC_TUNABLES=glibc.malloc.hugetlb=1 \
            "$peers" --package "$p" --pass "$pass" -W "$w" -H "$h" --image "$image" --threads "$t"
        done
      done
    done
    totals=$(awk -F, -v r="$round" -v p="$pass" -v b="$board" '$1 == r && $2 == p && $3 == b {print $7}' "$csv.tmp" | sort -u | wc -l)
    [ "$totals" -eq 1 ] || { echo "$job: the programs count different totals" >&2; exit 1; }
  done
done
mv "$csv.tmp" "$csv"
mv "$out/reports.txt.tmp" "$out/reports.txt"
echo "load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)" >> "$out/meta.txt"
