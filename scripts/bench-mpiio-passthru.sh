#!/usr/bin/env bash
# Pass-through cost of libostio-mpiio.so (issue 16; docs/mpiio.md, docs/benchmarks.md):
# the same MPI-IO program (ostio_bench_mpiio_passthru: small write_at, read_at,
# write_at_all, read_at_all calls, then N/50 opens and closes) on a file outside
# OSTIO_MPIIO_PATHS, run with and
# without LD_PRELOAD, alternating, ROUNDS times; prints each run and the ratio of the
# medians per phase (preloaded / plain: 1.00 = no cost).
#   scripts/bench-mpiio-passthru.sh [BUILD_DIR [DIR [ROUNDS [N [S]]]]]
# Defaults: build/test, /dev/shm, 7 rounds, 20000 calls of 64 bytes per rank, 2 ranks
# (NP=... to change).
# TAKEN=1: the file lies inside OSTIO_MPIIO_PATHS, so the interposer serves every call
# (the per-call cost of ostio's own path against native ROMIO; issue 29).
# BEFORE=<other build dir>: a third variant, that build's libostio-mpiio.so, in the same
# alternation (before / after a change).
set -euo pipefail
case "${1:-}" in -h|--help) sed -n '2,16p' "$0"; exit 0 ;; esac
build=${1:-build/test}; dir=${2:-/dev/shm}; rounds=${3:-7}; n=${4:-20000}; s=${5:-64}
np=${NP:-2}
prog=$build/ostio_bench_mpiio_passthru; lib=$build/libostio-mpiio.so
mpiexec=$(command -v mpiexec.mpich || command -v mpiexec)
for f in "$prog" "$lib"; do
  [ -e "$f" ] || { echo "bench-mpiio-passthru: $f not found: build first (cmake --build $build)" >&2; exit 1; }
done
before=${BEFORE:+$BEFORE/libostio-mpiio.so}
[ -z "$before" ] || [ -e "$before" ] || { echo "bench-mpiio-passthru: $before not found" >&2; exit 1; }
paths=/nonexistent-ostio-prefix
[ "${TAKEN:-0}" = 1 ] && paths=$(readlink -f "$dir")
out=$(mktemp -d); trap 'rm -rf "$out"' EXIT
file="$dir/ostio-passthru.$$"
for r in $(seq 1 "$rounds"); do
  echo "round $r/$rounds" >&2
  "$mpiexec" -n "$np" "$prog" "$file" "$n" "$s" > "$out/plain.$r"
  env LD_PRELOAD="$(readlink -f "$lib")" OSTIO_MPIIO_PATHS="$paths" \
    "$mpiexec" -n "$np" "$prog" "$file" "$n" "$s" > "$out/pre.$r"
  [ -z "$before" ] || env LD_PRELOAD="$(readlink -f "$before")" OSTIO_MPIIO_PATHS="$paths" \
    "$mpiexec" -n "$np" "$prog" "$file" "$n" "$s" > "$out/before.$r"
done
python3 - "$out" "$rounds" "$n" "$s" "$np" "${TAKEN:-0}" "${before:+1}" <<'PY'
import sys, statistics
out, rounds, n, s, np = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4], sys.argv[5]
taken, has_before = sys.argv[6] == "1", sys.argv[7] == "1"
def load(kind):
    d = {}
    for r in range(1, rounds + 1):
        for line in open(f"{out}/{kind}.{r}"):
            k, v = line.split(); d.setdefault(k, []).append(float(v))
    return d
p, q = load("plain"), load("pre")
o = load("before") if has_before else None
print(f"{np} ranks, {n} calls of {s} B per rank and phase, {rounds} alternating rounds, "
      f"file {'taken by' if taken else 'not taken by'} the interposer")
print(f"{'phase':14s} {'plain median s':>15s} {'preloaded median s':>19s} {'ratio':>7s}  (us/call plain / preloaded)"
      + ("  before: ratio (us/call)" if o else ""))
for k in p:
    a, b = statistics.median(p[k]), statistics.median(q[k])
    calls = int(n) // 50 if k == "open+close" else int(n)
    line = f"{k:14s} {a:15.4f} {b:19.4f} {b/a:7.3f}  ({a/calls*1e6:.2f} / {b/calls*1e6:.2f})"
    if o:
        c = statistics.median(o[k])
        line += f"  {c/a:7.3f} ({c/calls*1e6:.2f})"
    print(line)
PY
