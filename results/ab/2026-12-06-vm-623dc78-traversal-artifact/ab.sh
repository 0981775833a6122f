#!/bin/bash
# 6x4 solve, one thread: the paper's artifact (compressed encoding, its column-wise order)
# against c4bdd in the same order, alternating, ROUNDS rounds: depth-first, breadth-first,
# and breadth-first with a quarter of the computed cache (--cache-ratio 4). Stops when a
# c4bdd run's won/drawn/lost table per ply differs from the artifact's of the same round.
# usage: ab.sh C4BDD ARTIFACT_SOLVE ROUNDS OUT.csv
#   ARTIFACT_SOLVE: the artifact's solve program for the compressed encoding, built as
#   experiments/artifact/compare.sh builds it (solve-1.out).
set -euo pipefail
c4bdd=$1; artifact=$2; rounds=$3; csv=$4
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
echo "round,program,setting,wall_s,cpu_s,peak_rss_kb" > "$csv"
for r in $(seq 1 "$rounds"); do
  (cd "$work" && /usr/bin/time -f '%e %U %S %M' -o t "$artifact" 24 6 4 > artifact.log 2>&1)
  read -r wall user sys rss < "$work/t"
  echo "$r,artifact,,$wall,$(awk -v u=$user -v s=$sys 'BEGIN{printf "%.2f", u+s}'),$rss" >> "$csv"
  # The artifact's table in the first player's view (it writes the player to move's): "ply won drawn lost".
  awk -F', *' 'NR > 1 { if ($3 % 2 == 0) print $3, $4, $5, $6; else print $3, $6, $5, $4 }'     "$work"/results_solve_w6_h4*.csv | sort -n > "$work/artifact.table"
  for setting in depth-first:1 breadth-first:1 breadth-first:4; do
    t=${setting%:*}; ratio=${setting#*:}
    rm -rf "$work/sol"
    (cd "$work" && /usr/bin/time -f '%e %U %S %M' -o t "$c4bdd" solve -W 6 -H 4 --encoding compressed \
      --order column-wise --threads 1 --traversal "$t" --cache-ratio "$ratio" --csv "rows-$t-$ratio.csv" \
      --out sol > "c4bdd-$t-$ratio.log" 2>&1)
    read -r wall user sys rss < "$work/t"
    echo "$r,c4bdd,$t cache-ratio $ratio,$wall,$(awk -v u=$user -v s=$sys 'BEGIN{printf "%.2f", u+s}'),$rss" >> "$csv"
    python3 -c 'import csv, sys
for r in sorted(csv.DictReader(open(sys.argv[1])), key=lambda r: int(r["ply"])): print(r["ply"], r["won"], r["drawn"], r["lost"])'       "$work/rows-$t-$ratio.csv" > "$work/c4bdd.table"
    cmp -s "$work/c4bdd.table" "$work/artifact.table" ||
      { echo "round $r, $setting: c4bdd's won/drawn/lost table differs from the artifact's" >&2; exit 1; }
  done
done
