#!/usr/bin/env bash
# The partitioned retrograde pass against the whole-ply pass on one board,
# both from one checkpoint (the forward layers and the last ply solved whole),
# both reading each ply's states back from it (`solve --down-to 0`): peak RSS,
# wall and CPU time of each, their rows compared ply by ply, and the disk a
# stored node of the parts takes.
#
# usage: experiments/parts/versus.sh OUT_DIR BIN WxH CUT [THREADS [MODE]]
#   CUT: what `solve --parts` takes (K, or cells such as c3r1,c3r2,c4r1,c4r2).
#   THREADS: for every pass (default 2).
#   MODE: `one-after-other` (default) runs the whole pass, then the parts;
#     `side-by-side` runs both at once, so that both share the machine alike
#     (with THREADS 1 on two cores, each pass has a core).
# The checkpoints go to a scratch folder ($SCRATCH, default a new one under
# /tmp), removed once both passes are done. A run stopped before that resumes
# when started again with the same arguments and $SCRATCH: the base is not
# redone, each pass resumes its checkpoint (losing at most the ply, or the
# part, in progress), and each stint appends its console and time line to the
# pass's log; the summary adds the stints' times and takes their largest RSS.
#
# Writes into OUT_DIR: meta.txt (command, binary, machine, load), base.log,
# whole-plies.csv and parts-plies.csv (the rows of `solve --csv`), whole.log and
# parts.log (each pass's console and its `/usr/bin/time` line per stint),
# parts-records.csv (a row per part), and summary.csv (a row per pass: stints,
# wall and CPU seconds and peak RSS of the stints that ended (a stint killed
# with its timer is not counted), the plies' own seconds and largest peak RSS
# (from their rows, every stint counted), rows, whether every row equals the
# other pass's, and for the parts the bytes on disk of their won and lost
# files over their nodes).
set -euo pipefail
# shellcheck source=../meta.sh
. "$(dirname "$0")/../meta.sh"
[ $# -ge 4 ] || { echo "usage: $0 OUT_DIR BIN WxH CUT [THREADS [MODE]]" >&2; exit 2; }
out=$1; bin=$2; board=$3; cut=$4; threads=${5:-2}; mode=${6:-one-after-other}
[ -x "$bin" ] || { echo "not an executable: '$bin'" >&2; exit 2; }
[[ $board =~ ^([0-9]+)x([0-9]+)$ ]] || { echo "board is WxH: '$board'" >&2; exit 2; }
w=${BASH_REMATCH[1]}; h=${BASH_REMATCH[2]}
[[ $threads =~ ^[1-9][0-9]*$ ]] || { echo "THREADS is a number: '$threads'" >&2; exit 2; }
[[ $mode =~ ^(one-after-other|side-by-side)$ ]] || { echo "MODE is one-after-other or side-by-side: '$mode'" >&2; exit 2; }
mkdir -p "$out"
scratch=${SCRATCH:-$(mktemp -d)}
mkdir -p "$scratch"
solve=("$bin" solve -W "$w" -H "$h" --threads "$threads")

if [ -f "$scratch/base.done" ]; then
  { echo "resumed: $(date -u +%Y-%m-%dT%H:%M:%SZ)"; meta_binary binary "$bin"; meta_load; } >> "$out/meta.txt"
else
  {
    echo "command: $0 $*"
    echo "passes: $mode, $threads thread(s) each"
    meta_date
    meta_binary binary "$bin"
    meta_machine
    meta_load
  } > "$out/meta.txt"
  rm -f "$out/whole.log" "$out/parts.log"
  # The forward pass and the last ply, once for both passes.
  rm -rf "$scratch/base" "$scratch/whole" "$scratch/parts"
  "${solve[@]}" --checkpoint "$scratch/base" --down-to $((w * h)) > "$out/base.log" 2>&1
  cp -r "$scratch/base" "$scratch/whole"
  cp -r "$scratch/base" "$scratch/parts"
  touch "$scratch/base.done"
fi

# run NAME ARGS...: one pass from its copy of the checkpoint, timed.
run() {
  local name=$1; shift
  /usr/bin/time -f "$name wall %e s, user %U s, system %S s, peak RSS %M KB" -o "$scratch/$name.time" \
    "${solve[@]}" --checkpoint "$scratch/$name" --down-to 0 --csv "$out/$name-plies.csv" "$@" >> "$out/$name.log" 2>&1
  cat "$scratch/$name.time" >> "$out/$name.log"
}
if [ "$mode" = side-by-side ]; then
  run whole & whole_pid=$!
  run parts --parts "$cut" & parts_pid=$!
  status=0
  wait "$whole_pid" || status=$?
  wait "$parts_pid" || status=$?
  [ "$status" -eq 0 ] || exit "$status"
else
  run whole
  run parts --parts "$cut"
fi

python3 - "$scratch" "$out" $((w * h)) <<'PY'
import csv, glob, json, os, re, sys
scratch, out, top = sys.argv[1], sys.argv[2], int(sys.argv[3])
rows, own, peak = {}, {}, {}
for name in ("whole", "parts"):
    with open(f"{out}/{name}-plies.csv") as f:
        plies = list(csv.DictReader(f))
    rows[name] = {int(r["ply"]): (r["won"], r["drawn"], r["lost"]) for r in plies}
    # The plies' own seconds (those the base solved excepted: both passes read them).
    own[name] = sum(float(r["time_s"]) for r in plies if int(r["ply"]) < top)
    peak[name] = max(int(r["peak_rss_bytes"]) for r in plies if int(r["ply"]) < top) // 1024
equal = rows["whole"] == rows["parts"] and len(rows["whole"]) > 0
records, nodes, size = [], 0, 0
for f in sorted(glob.glob(f"{scratch}/parts/parts/ply-*/part-*.json")):
    r = json.load(open(f))["record"]
    records.append([r["ply"], r["part"], r["nodes"], r["time_s"], r.get("peak_rss_bytes", "")])
for f in glob.glob(f"{scratch}/parts/parts/ply-*/*.bdd"):
    if os.path.basename(f).startswith(("won-", "lost-")):
        size += os.path.getsize(f)
nodes = sum(r[2] for r in records)
with open(f"{out}/parts-records.csv", "w", newline="") as f:
    w = csv.writer(f)
    w.writerow(["ply", "part", "nodes", "time_s", "peak_rss_bytes"])
    w.writerows(records)
with open(f"{out}/summary.csv", "w", newline="") as f:
    w = csv.writer(f)
    w.writerow(["pass", "stints", "wall_s", "cpu_s", "plies_s", "peak_rss_kb", "plies_peak_rss_kb", "rows", "rows_equal", "stored_nodes", "stored_bytes"])
    for name in ("whole", "parts"):
        stints = re.findall(r"wall ([\d.]+) s, user ([\d.]+) s, system ([\d.]+) s, peak RSS (\d+) KB", open(f"{out}/{name}.log").read())
        wall = round(sum(float(t[0]) for t in stints), 2)
        cpu = round(sum(float(t[1]) + float(t[2]) for t in stints), 2)
        rss = max(int(t[3]) for t in stints)
        stored = (nodes, size) if name == "parts" else ("", "")
        w.writerow([name, len(stints), wall, cpu, round(own[name], 2), rss, peak[name], len(rows[name]), equal, *stored])
print(open(f"{out}/summary.csv").read(), end="")
sys.exit(0 if equal else 1)
PY
rm -rf "$scratch/base" "$scratch/whole" "$scratch/parts" "$scratch/base.done" "$scratch"/*.time
