#!/bin/bash
set -e
S="/work/ab-bins/c4bdd-6160e82 solve -W 6 -H 5 --threads 1"
$S --checkpoint base --down-to 30 > base.log 2>&1
for g in 2 3 2 3; do
  rm -rf ck; cp -r base ck
  /usr/bin/time -f "growth $g wall %e user %U sys %S rss %M" -a -o times.txt $S --checkpoint ck --down-to 0 --parts c3r1,c3r2,c3r3,c4r1,c4r2 --gc-growth $g --csv plies-$g.csv > log-$g.txt 2>&1
  grep "time by phase" log-$g.txt >> times.txt
done
rm -rf ck base
