#!/usr/bin/env bash
# `c4bdd parts` on a stored solution: one solved ply split on its top 1, 2,
# ... variables of cells, the sizes of the parts a solve by case split would
# hold at once (read by `c4bdd report` for the 7x6 projection).
#
# usage: experiments/parts/run.sh OUT_DIR BIN SOLUTION_DIR PLY TOP...
#   PLY "largest" takes the ply of the largest file.
#
# Writes OUT_DIR/parts.csv (the rows of every split), OUT_DIR/parts.log (the
# command's output, each split's wall time and peak RSS) and OUT_DIR/meta.txt
# (command, binary version and checksum, machine, load).
set -euo pipefail
# shellcheck source=../meta.sh
. "$(dirname "$0")/../meta.sh"
[ $# -ge 5 ] || { echo "usage: $0 OUT_DIR BIN SOLUTION_DIR PLY TOP..." >&2; exit 2; }
out=$1; bin=$2; sol=$3; ply=$4; shift 4
[ -x "$bin" ] || { echo "not an executable: '$bin'" >&2; exit 2; }
[ -d "$sol" ] || { echo "not a folder: '$sol'" >&2; exit 2; }
[[ $ply =~ ^([0-9]+|largest)$ ]] || { echo "PLY is a number or 'largest': '$ply'" >&2; exit 2; }
for top in "$@"; do
  [[ $top =~ ^[0-9]+$ ]] || { echo "TOP is a number: '$top'" >&2; exit 2; }
done
mkdir -p "$out"
meta_header "$0 $out $bin $sol $ply $*" "$bin" > "$out/meta.txt"
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
ply_args=()
[ "$ply" = largest ] || ply_args=(--ply "$ply")
: > "$out/parts.log.tmp"
for top in "$@"; do
  /usr/bin/time -f 'wall %e s, peak RSS %M KB' -o "$scratch/time" \
    "$bin" parts --solution "$sol" "${ply_args[@]}" --top "$top" --csv "$scratch/top$top.csv" | tee -a "$out/parts.log.tmp"
  tee -a "$out/parts.log.tmp" < "$scratch/time"
done
# One header, then every split's rows.
first=1
for top in "$@"; do
  if [ $first = 1 ]; then cat "$scratch/top$top.csv"; first=0; else tail -n +2 "$scratch/top$top.csv"; fi
done > "$out/parts.csv.tmp"
mv "$out/parts.csv.tmp" "$out/parts.csv"
mv "$out/parts.log.tmp" "$out/parts.log"
