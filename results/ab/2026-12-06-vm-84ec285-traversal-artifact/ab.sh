#!/bin/bash
# 6x4 solve, one thread: the paper's artifact (compressed encoding, its column-wise order)
# against c4bdd depth-first and breadth-first in the same order, alternating, ROUNDS rounds.
# usage: ab.sh C4BDD ROUNDS OUT.csv
set -euo pipefail
c4bdd=$1; rounds=$2; csv=$3
here=$(cd "$(dirname "$0")" && pwd)
echo "round,program,traversal,wall_s,cpu_s,peak_rss_kb" > "$csv"
for r in $(seq 1 "$rounds"); do
  rm -rf "$here/work" && mkdir -p "$here/work"
  (cd "$here/work" && /usr/bin/time -f '%e %U %S %M' -o t "$here/build/solve-1.out" 24 6 4 > artifact.log 2>&1)
  read -r wall user sys rss < "$here/work/t"
  echo "$r,artifact,,$wall,$(awk -v u=$user -v s=$sys 'BEGIN{printf "%.2f", u+s}'),$rss" >> "$csv"
  for t in depth-first breadth-first; do
    rm -rf "$here/work/sol"
    (cd "$here/work" && /usr/bin/time -f '%e %U %S %M' -o t "$c4bdd" solve -W 6 -H 4 --encoding compressed \
      --order column-wise --threads 1 --traversal $t --csv rows-$t.csv --out sol > c4bdd-$t.log 2>&1)
    read -r wall user sys rss < "$here/work/t"
    echo "$r,c4bdd,$t,$wall,$(awk -v u=$user -v s=$sys 'BEGIN{printf "%.2f", u+s}'),$rss" >> "$csv"
  done
done
