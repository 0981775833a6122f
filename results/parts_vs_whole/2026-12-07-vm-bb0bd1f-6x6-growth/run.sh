#!/usr/bin/env bash
# 6x6 in parts with --gc-growth 1.25 (bb0bd1f), from a base checkpoint of the forward layers and ply 36.
set -e
B=/work/runs/bin/c4bdd-bb0bd1f
cd /work/main
[ -f /work/runs/base-6x6.done ] || { $B solve -W 6 -H 6 --threads 1 --checkpoint /work/runs/base-6x6 --down-to 36 > /work/runs/base-6x6.log 2>&1; touch /work/runs/base-6x6.done; }
/work/runs/exp2/parts/settings.sh /work/runs/g125-6x6 $B 6x6 c3r1,c3r2,c3r3,c4r1,c4r2 /work/runs/base-6x6 0 1 "--gc-growth 1.25"
