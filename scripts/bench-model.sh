#!/usr/bin/env bash
# The speed of `ostio model` (issue 18, docs/model.md "Speed"): wall time and
# peak memory for 1,024 ranks x 128 OSTs and for 100,000 ranks, all five
# strategies per run. A benchmark, not a test: nothing is asserted.
#   scripts/bench-model.sh [BUILD_DIR]      (default build/test)
set -euo pipefail
case "${1:-}" in -h|--help) sed -n '2,5p' "$0"; exit 0 ;; esac
build=${1:-build/test}
ostio="$build/ostio"
[ -x "$ostio" ] || { echo "bench-model.sh: $ostio not found; build first (cmake --build $build)" >&2; exit 2; }
here=$(cd "$(dirname "$0")/.." && pwd)
big=$(mktemp --suffix=.json)
trap 'rm -f "$big"' EXIT
# Ranger's description with enough nodes for 100,000 ranks (16 per node).
sed 's/"nodes": [0-9]*/"nodes": 8192/' "$here/systems/ranger.json" > "$big"
run() {
  echo "== ostio model $*"
  /usr/bin/time -f "wall %e s, peak RSS %M KiB" "$ostio" model --system "$big" "$@" | tail -n +3
}
run --ranks 1024 --stripe-count 128 -b 1m -t 1m
run --ranks 1024 --stripe-count 128 -p strided -b 64k -t 4k -s 64
run --ranks 100000 --stripe-count 128 -b 1m -t 1m
run --ranks 100000 --stripe-count 128 -p strided -b 64k -t 4k -s 4
