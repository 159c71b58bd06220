#!/usr/bin/env bash
# The main job, short version: builds ostio, then on a local directory
# creates striped layouts (a directory default and a PFL file), shows them,
# maps extents to stripes, objects and OSTs, lists effective hints, and runs
# a 2-rank MPI program that reads the layout once and broadcasts it.
#   scripts/demo.sh [WORKDIR]     (default: a fresh directory under /tmp)
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/deps.sh

echo "== building ostio (build/release)"
cmake -S . -B build/release -DCMAKE_BUILD_TYPE=Release -DOSTIO_TESTS=OFF >/dev/null
cmake --build build/release -j"$(nproc 2>/dev/null || echo 2)" >/dev/null
ostio=$PWD/build/release/ostio
example=$PWD/build/release/ostio_example_layout_query
bench=$PWD/build/release/ostio_bench_coll
obench=$PWD/build/release/ostio-bench

work=${1:-$(mktemp -d /tmp/ostio-demo-XXXXXX)}
mkdir -p "$work"
cd "$work"
echo "== working in $work (off Lustre, layouts are emulated in user.ostio.layout xattrs)"

run() { printf '\n$ %s\n' "$*"; "$@"; }

mkdir -p striped
run "$ostio" setstripe -c 4 -S 1m striped
run "$ostio" getstripe striped
printf 'checkpoint data\n' > striped/ckpt.dat
run "$ostio" getstripe striped/ckpt.dat
run "$ostio" setstripe -E 4m -c 1 -S 1m -E eof -c 4 -S 4m -i 2 pfl.dat
run "$ostio" getstripe pfl.dat
run "$ostio" map striped/ckpt.dat 1048000 3m
run "$ostio" map --max-pieces 6 pfl.dat 3m 10m
run env OSTIO_HINTS='*.dat:cb_nodes=4:cb_buffer_size=32m' "$ostio" hints striped/ckpt.dat
run mpiexec -n 2 "$example" striped/ckpt.dat 3145728

# The collective engine: ostio-bench drives one interleaved pattern (4 KiB
# transfers) through ostio's strategies, ROMIO's MPI-IO and POSIX in the same
# run, verifies every byte, and prints the summary with ratios to MPI-IO.
printf '\n$ mpiexec -n 2 ostio-bench -a ostio:ost,ostio:even,ostio:independent,mpiio,posix -p strided -s 2048 -c -W -R -i 3 ...\n'
mpiexec -n 2 "$obench" -a ostio:ost,ostio:even,ostio:independent,mpiio,posix -p strided \
  -s 2048 -c -W -R -i 3 -o "$work/bench" --stripe-count 4 --stripe-size 1m | sed -n '/^Summary/,$p'
# Then the statistics of one run (ost, 2 ranks, stripe_count 4).
printf '\n$ OSTIO_STATS=1 ... (ost, 2 ranks, stripe_count 4)\n'
OSTIO_STATS=1 mpiexec -n 2 "$bench" --dir "$work" --blocks 64 --reps 1 --only ost >/dev/null
printf '\nDemo finished; files are in %s\n' "$work"
