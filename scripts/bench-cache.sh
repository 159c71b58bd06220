#!/usr/bin/env bash
# The cooperative cache's measurements (issue 17, docs/cache.md "Measured"):
# the cache against ROMIO's independent and collective calls on interleaved
# 4 KiB blocks, short phases, the cache off, BTIO class A, and the ior shape.
#   scripts/bench-cache.sh [BUILD_DIR] [DISK_DIR] [TMPFS_DIR]
# Defaults: build/test, ./bench-cache.tmp (the file system of the checkout)
# and /dev/shm. 2 ranks (BTIO: 4); each case prints ostio-bench's summary.
set -euo pipefail
case "${1:-}" in -h|--help) sed -n '2,7p' "$0"; exit 0 ;; esac
build=${1:-build/test}
disk=${2:-./bench-cache.tmp}
tmp=${3:-/dev/shm}
B="$build/ostio-bench"
[ -x "$B" ] || { echo "bench-cache.sh: $B not found; build first (cmake --build $build)" >&2; exit 2; }
mkdir -p "$disk"
H=(-O ostio_cache=enable --stripe-count 2)
sum() { grep -E "^(ostio|mpiio)" || true; }
for fs in "$disk" "$tmp"; do
  for k in 1 2; do
    echo "== $fs: interleaved 4 KiB, independent calls, vs ROMIO independent (run $k)"
    mpiexec -n 2 "$B" -p strided -b 4k -t 4k -s 65536 -I -a mpiio,ostio "${H[@]}" -i 5 -o "$fs/cb" 2>&1 | sum
    echo "== $fs: the same vs ROMIO collective (run $k)"
    mpiexec -n 2 "$B" -p strided -b 4k -t 4k -s 65536 -I -c -a mpiio,ostio "${H[@]}" -i 5 -o "$fs/cb" 2>&1 | sum
  done
  echo "== $fs: 4,096 calls per rank (32 MiB phases: short)"
  mpiexec -n 2 "$B" -p strided -b 4k -t 4k -s 4096 -I -a mpiio,ostio "${H[@]}" -i 15 -w -o "$fs/cb" 2>&1 | sum
  echo "== $fs: the cache off"
  mpiexec -n 2 "$B" -p strided -b 4k -t 4k -s 65536 -I -a mpiio,ostio --stripe-count 2 -i 3 -o "$fs/cb" 2>&1 | sum
  echo "== $fs: BTIO class A, independent calls, 4 ranks"
  mpiexec -n 4 "$B" -p btio --btio-class A -I -a mpiio,ostio -O ostio_cache=enable -i 3 -o "$fs/bt" 2>&1 | sum
done
echo "== $disk: ior -b 16m -t 1m -s 32, striped container of 4 objects, ost, with and without the cache"
mpiexec -n 2 "$B" -p ior -b 16m -t 1m -s 32 -c --container striped --stripe-count 4 -a mpiio,ostio:ost -O ostio_cache=enable -i 3 -o "$disk/cb" 2>&1 | sum
mpiexec -n 2 "$B" -p ior -b 16m -t 1m -s 32 -c --container striped --stripe-count 4 -a mpiio,ostio:ost -i 3 -o "$disk/cb" 2>&1 | sum
