#!/usr/bin/env bash
# Run the criterion benchmarks and archive their medians with the exact
# command, commit and machine under results/bench/<date>-<host>-<sha>/.
# Usage: benches/record.sh [criterion filter]
set -euo pipefail
cd "$(dirname "$0")/.."
sha=$(git rev-parse --short HEAD)
dirty=$(git diff --quiet HEAD -- src crates benches Cargo.toml && echo clean || echo dirty)
out="results/bench/$(date -u +%Y-%m-%d)-$(hostname -s)-$sha"
mkdir -p "$out"
cmd=(cargo bench --workspace --bench ops --bench connect4 -- "$@")
"${cmd[@]}" 2>&1 | tee "$out/criterion.log"
{
  echo "command: ${cmd[*]}"
  echo "commit: $sha ($dirty)"
  echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
  echo "rustc: $(rustc --version)"
  echo "cpu: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ //')"
  echo "cores: $(nproc)"
  echo "memory: $(free -b | awk '/^Mem:/ {print $2}') bytes"
  echo "load average (1/5/15 min) at the end: $(cut -d' ' -f1-3 /proc/loadavg); above 1 another process shared the cores"
} > "$out/machine.txt"
python3 - "$out" <<'PY'
import json, pathlib, sys
out = pathlib.Path(sys.argv[1])
# Only the benchmarks of this run (target/criterion also keeps older ones).
ran = {l.split()[1] for l in (out / "criterion.log").read_text().splitlines() if l.startswith("Benchmarking ")}
rows = []
for est in sorted(pathlib.Path("target/criterion").glob("**/new/estimates.json")):
    bench = json.loads((est.parent / "benchmark.json").read_text())
    if bench["full_id"] not in ran:
        continue
    median = json.loads(est.read_text())["median"]
    rows.append((bench["full_id"], median["point_estimate"] / 1e6,
                 median["confidence_interval"]["lower_bound"] / 1e6,
                 median["confidence_interval"]["upper_bound"] / 1e6))
with open(out / "medians.csv", "w") as f:
    f.write("benchmark,median_ms,ci_low_ms,ci_high_ms\n")
    for r in rows:
        f.write("%s,%.4f,%.4f,%.4f\n" % r)
print((out / "medians.csv").read_text())
PY
