#!/usr/bin/env bash
# Node-local staging's measurements (issue 19, docs/staging.md "Measured"): a
# 1 GiB checkpoint (2 ranks x 512 MiB) to a log container, written straight to
# the file system with ostio_sync before close, against the same checkpoint
# staged on tmpfs with a compute phase before close; and the drain's busy
# bandwidth against cp + fsync of the same bytes between the two.
#   scripts/bench-stage.sh [BUILD_DIR] [DISK_DIR] [STAGE_DIR] [REPS]
# Defaults: build/test, ./bench-stage.tmp (the file system of the checkout,
# standing in for the parallel file system), /dev/shm/ostio-stage (for the
# node-local SSD), 5 repetitions; then once more with ostio_stage_bandwidth
# (200 MiB/s) and once with a compute phase shorter than the drain.
set -euo pipefail
case "${1:-}" in -h|--help) sed -n '2,11p' "$0"; exit 0 ;; esac
build=${1:-build/test}
disk=${2:-./bench-stage.tmp}
stage=${3:-/dev/shm/ostio-stage}
reps=${4:-5}
B="$build/ostio_bench_stage"
[ -x "$B" ] || { echo "bench-stage.sh: $B not found; build first (cmake --build $build)" >&2; exit 2; }
mkdir -p "$disk" "$stage"
disk=$(cd "$disk" && pwd)
echo "== 1 GiB checkpoint, compute phase 1.5x the direct run, $reps repetitions"
mpiexec -n 2 "$B" --dir "$disk" --stage "$stage" --reps "$reps"
echo "== the same, drain paced at 200 MiB/s (ostio_stage_bandwidth)"
mpiexec -n 2 "$B" --dir "$disk" --stage "$stage" --reps 1 --bandwidth 200m --compute 8
echo "== a compute phase of 0.5 s: close waits for the rest of the drain"
mpiexec -n 2 "$B" --dir "$disk" --stage "$stage" --reps 1 --compute 0.5
rmdir "$stage" 2>/dev/null || true
