#!/usr/bin/env bash
# A file view of one-byte blocks through MPI-IO (issue 27; docs/mpiio.md): the same
# program (ostio_bench_mpiio_byteview) run plain (ROMIO) and under
# LD_PRELOAD=libostio-mpiio.so with OSTIO_MPIIO_PATHS=DIR (ostio serves the file),
# alternating, ROUNDS times; prints each phase's median seconds and the ratio
# (ostio / ROMIO: below 1 = ostio faster).
#   scripts/bench-mpiio-byteview.sh [BUILD_DIR [DIR [ROUNDS [N [REPS [coll|indep]]]]]]
# Defaults: build/test, a fresh directory under /tmp, 5 rounds, N 262144 bytes per rank,
# 4 repetitions per phase, every phase; 2 ranks (NP=... to change). BEFORE=OTHER_BUILD
# also runs OTHER_BUILD's libostio-mpiio.so in each round (the program stays BUILD_DIR's)
# and prints its median and ratio too: a before/after comparison under the same load.
set -euo pipefail
case "${1:-}" in -h|--help) sed -n '2,11p' "$0"; exit 0 ;; esac
build=${1:-build/test}; dir=${2:-}; rounds=${3:-5}; n=${4:-262144}; reps=${5:-4}; only=${6:-}
np=${NP:-2}
prog=$build/ostio_bench_mpiio_byteview; lib=$build/libostio-mpiio.so
mpiexec=$(command -v mpiexec.mpich || command -v mpiexec)
before=${BEFORE:-}
[ -z "$before" ] || before=$(readlink -f "$before/libostio-mpiio.so")
for f in "$prog" "$lib" ${before:+"$before"}; do
  [ -e "$f" ] || { echo "bench-mpiio-byteview: $f not found: build first (cmake --build $build)" >&2; exit 1; }
done
out=$(mktemp -d); trap 'rm -rf "$out"' EXIT
[ -n "$dir" ] || dir="$out/files"
mkdir -p "$dir"; dir=$(readlink -f "$dir")
for r in $(seq 1 "$rounds"); do
  echo "round $r/$rounds" >&2
  "$mpiexec" -n "$np" "$prog" "$dir/romio" "$n" "$reps" $only > "$out/romio.$r"
  if [ -n "$before" ]; then
    env LD_PRELOAD="$before" OSTIO_MPIIO_PATHS="$dir" \
      "$mpiexec" -n "$np" "$prog" "$dir/before" "$n" "$reps" $only > "$out/before.$r"
  fi
  env LD_PRELOAD="$(readlink -f "$lib")" OSTIO_MPIIO_PATHS="$dir" \
    "$mpiexec" -n "$np" "$prog" "$dir/ostio" "$n" "$reps" $only > "$out/ostio.$r"
  echo "load $(cut -d' ' -f1 /proc/loadavg)" >> "$out/load"
done
python3 - "$out" "$rounds" "$n" "$reps" "$np" "${before:+1}" <<'PY'
import sys, statistics
out, rounds, n, reps, np = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4], sys.argv[5]
has_before = sys.argv[6] == "1"
def load(kind):
    d = {}
    for r in range(1, rounds + 1):
        for line in open(f"{out}/{kind}.{r}"):
            k, v = line.split(); d.setdefault(k, []).append(float(v))
    return d
a, b = load("romio"), load("ostio")
c = load("before") if has_before else None
print(f"{np} ranks, {n} one-byte blocks per rank, {reps} calls per phase, {rounds} alternating rounds")
print(f"{'phase':10s} {'ROMIO median s':>15s} {'ostio median s':>15s} {'ratio':>7s}" +
      (f" {'before median s':>16s} {'ratio':>7s}" if c else ""))
for k in a:
    x, y = statistics.median(a[k]), statistics.median(b[k])
    extra = f" {statistics.median(c[k]):16.4f} {statistics.median(c[k])/x:7.2f}" if c else ""
    print(f"{k:10s} {x:15.4f} {y:15.4f} {y/x:7.2f}{extra}")
print("load average (1 min) after each round:",
      " ".join(l.split()[1] for l in open(f"{out}/load")))
PY
