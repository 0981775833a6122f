#!/usr/bin/env bash
# `c4bdd query` and `c4bdd best --solution` timed on a stored solution, each
# position once cold (the page cache dropped first, when run as root) and
# three times warm: the measurement of solutions read in place.
#
# usage: experiments/queries/run.sh OUT_DIR BIN SOLUTION_DIR MOVES...
#   MOVES is a move string from the empty board ("" for the empty board).
#
# Writes OUT_DIR/queries.csv (command, moves, ply, answer, cold, wall_s,
# max_rss_kb; cold is true when the page cache was dropped before the run),
# OUT_DIR/files.txt (the solution's files and sizes) and OUT_DIR/meta.txt
# (command, binary version and checksum, machine).
set -euo pipefail
# shellcheck source=../meta.sh
. "$(dirname "$0")/../meta.sh"
[ $# -ge 4 ] || { echo "usage: $0 OUT_DIR BIN SOLUTION_DIR MOVES..." >&2; exit 2; }
out=$1; bin=$2; sol=$3; shift 3
[ -x "$bin" ] || { echo "not an executable: '$bin'" >&2; exit 2; }
[ -d "$sol" ] || { echo "not a folder: '$sol'" >&2; exit 2; }
for moves in "$@"; do
  [[ $moves =~ ^[0-9a-d]*$ ]] || { echo "MOVES are columns 1..9, a..d: '$moves'" >&2; exit 2; }
done
mkdir -p "$out"
{
  echo "command: $0 $out $bin $sol $*"
  meta_date
  meta_binary binary "$bin"
  meta_machine
  meta_load
} > "$out/meta.txt"
ls -l "$sol" > "$out/files.txt"
csv=$out/queries.csv
echo "command,moves,ply,answer,cold,wall_s,max_rss_kb" > "$csv.tmp"
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
drop_cache() {
  sync
  if [ -w /proc/sys/vm/drop_caches ]; then echo 3 > /proc/sys/vm/drop_caches; echo true; else echo false; fi
}
for moves in "$@"; do
  for command in query best; do
    args=("$command" --solution "$sol" --moves "$moves")
    for run in cold warm warm warm; do
      cold=false
      if [ "$run" = cold ]; then cold=$(drop_cache); fi
      /usr/bin/time -f '%e %M' -o "$scratch/time" "$bin" "${args[@]}" > "$scratch/out"
      case $command in
        query) answer=$(grep -o ': [a-z]* for the [a-z]* player' "$scratch/out" | head -1 | cut -d' ' -f2-) ;;
        best) answer=$(grep -o '^value: [^(]*' "$scratch/out" | cut -d' ' -f2- | sed 's/ *$//') ;;
      esac
      read -r wall rss < <(tail -1 "$scratch/time")
      echo "$command,\"$moves\",${#moves},\"$answer\",$cold,$wall,$rss" | tee -a "$csv.tmp"
    done
  done
done
mv "$csv.tmp" "$csv"
