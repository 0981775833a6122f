#!/usr/bin/env bash
# The partitioned pass under several settings, from one kept checkpoint: each
# setting in turn, ROUNDS rounds, each run solving in parts every ply below the
# checkpoint's lowest solved ply down to PLY, in a fresh copy of the checkpoint
# (hard links: a pass writes new files by renaming and changes none in place),
# timed, its rows compared with the first run's.
#
# usage: experiments/parts/settings.sh OUT_DIR BIN WxH CUT CHECKPOINT PLY ROUNDS SETTING...
#   CUT: what `solve --parts` takes (the cut of the checkpoint's parts, if any).
#   CHECKPOINT: a `solve --checkpoint` folder (the forward layers and the last
#     plies solved, whole or in parts), with no part of PLY saved; not changed.
#   SETTING: one argument of extra `solve` options, e.g. "--gc-growth 1.5".
# Writes into OUT_DIR: meta.txt (command, binary, machine, load), for each run
# `run-R-S.log` (its console and `/usr/bin/time` line) and `run-R-S.csv` (its
# rows), and summary.csv (a row per run: round, setting, wall and CPU seconds,
# peak RSS, its parts' seconds and most peak live nodes (from their lines) and
# whether its rows equal the first run's).
set -euo pipefail
# shellcheck source=../meta.sh
. "$(dirname "$0")/../meta.sh"
[ $# -ge 8 ] || { echo "usage: $0 OUT_DIR BIN WxH CUT CHECKPOINT PLY ROUNDS SETTING..." >&2; exit 2; }
command="$0$(printf ' %q' "$@")"
out=$1; bin=$2; board=$3; cut=$4; base=$5; ply=$6; rounds=$7; shift 7
[ -x "$bin" ] || { echo "not an executable: '$bin'" >&2; exit 2; }
[[ $board =~ ^([0-9]+)x([0-9]+)$ ]] || { echo "board is WxH: '$board'" >&2; exit 2; }
w=${BASH_REMATCH[1]}; h=${BASH_REMATCH[2]}
[ -f "$base/solve-checkpoint.json" ] || { echo "not a checkpoint folder: '$base'" >&2; exit 2; }
[[ $ply =~ ^[0-9]+$ ]] || { echo "PLY is a number: '$ply'" >&2; exit 2; }
[[ $rounds =~ ^[1-9][0-9]*$ ]] || { echo "ROUNDS is a number: '$rounds'" >&2; exit 2; }
[ -e "$base/parts/ply-$(printf %03d "$ply")" ] && { echo "the checkpoint has parts of ply $ply already" >&2; exit 2; }
mkdir -p "$out"
meta_header "$command" "$bin" > "$out/meta.txt"
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT

echo "round,setting,wall_s,cpu_s,peak_rss_kb,parts_s,peak_live_nodes,rows_equal" > "$out/summary.csv"
for r in $(seq 1 "$rounds"); do
  s=0
  for setting in "$@"; do
    s=$((s + 1))
    name="run-$r-$s"
    cp -al "$base" "$scratch/ck"
    # shellcheck disable=SC2086 # a setting is a list of options
    /usr/bin/time -f "wall %e s, user %U s, system %S s, peak RSS %M KB" -o "$scratch/time" \
      "$bin" solve -W "$w" -H "$h" --threads 1 --checkpoint "$scratch/ck" --down-to "$ply" \
      --parts "$cut" --csv "$out/$name.csv" $setting > "$out/$name.log" 2>&1
    cat "$scratch/time" >> "$out/$name.log"
    rm -rf "$scratch/ck"
    python3 - "$out" "$name" "$r" "$setting" <<'PY' >> "$out/summary.csv"
import csv, re, sys
out, name, r, setting = sys.argv[1:]
log = open(f"{out}/{name}.log").read()
t = re.search(r"wall ([\d.]+) s, user ([\d.]+) s, system ([\d.]+) s, peak RSS (\d+) KB", log)
key = lambda x: (x["ply"], x["won"], x["drawn"], x["lost"])
rows = [key(x) for x in csv.DictReader(open(f"{out}/{name}.csv"))]
first = [key(x) for x in csv.DictReader(open(f"{out}/run-1-1.csv"))]
# The parts' lines: each part's seconds and the process's peak live nodes
# (the closing summary carries figures of earlier processes).
parts = re.findall(r"part \d+ of \d+: \d+ nodes, ([\d.]+) s, .*?peak live nodes (\d+)", log)
print(",".join(map(str, [r, f'"{setting}"', t[1], round(float(t[2]) + float(t[3]), 2), t[4],
                         round(sum(float(p[0]) for p in parts), 1), max((int(p[1]) for p in parts), default=""),
                         rows == first and len(rows) > 0])))
PY
  done
done
cat "$out/summary.csv"
