#!/usr/bin/env bash
# PnetCDF's benchmarks/C/aggregation (issue 28 item 11; docs/mpiio.md, "Measured"):
# the same program run natively (ROMIO) and under LD_PRELOAD=libostio-mpiio.so with
# OSTIO_MPIIO_PATHS=DIR (ostio serves the file, a plain file), alternating, ROUNDS
# times; prints the median of each phase (the benchmark's "open-to-close" seconds of
# its write and its read) and the ratio ostio / ROMIO (below 1 = ostio faster).
#   scripts/bench-pnetcdf-aggregation.sh [BUILD_DIR [DIR [ROUNDS [LEN]]]]
# Defaults: build/test, a fresh directory under /tmp, 5 rounds, LEN 1000 (each rank's
# 2-D variables are LEN x LEN: 5 variables, one of them written and read one element
# per request, *-cyclic); 2 ranks (NP=... to change). PnetCDF: PNETCDF=PREFIX of an
# installed PnetCDF built with MPICH (default /work/deps/pnetcdf) and PNETCDF_SRC=its
# source tree (default /work/deps/pn/pnetcdf-1.12.3); the program is compiled into
# the output directory. BEFORE=OTHER_BUILD also runs OTHER_BUILD's libostio-mpiio.so
# in each round and prints its median and ratio: a before/after comparison under the
# same load. Every run's files are compared with ROMIO's (cmp), so a fast wrong
# answer does not count.
set -euo pipefail
case "${1:-}" in -h|--help) sed -n '2,16p' "$0"; exit 0 ;; esac
build=${1:-build/test}; dir=${2:-}; rounds=${3:-5}; len=${4:-1000}
np=${NP:-2}
pn=${PNETCDF:-/work/deps/pnetcdf}; src=${PNETCDF_SRC:-/work/deps/pn/pnetcdf-1.12.3}
lib=$(readlink -f "$build/libostio-mpiio.so")
mpiexec=$(command -v mpiexec.mpich || command -v mpiexec)
mpicc=$(command -v mpicc.mpich || command -v mpicc)
before=${BEFORE:-}
[ -z "$before" ] || before=$(readlink -f "$before/libostio-mpiio.so")
for f in "$lib" ${before:+"$before"} "$pn/include/pnetcdf.h" "$src/benchmarks/C/aggregation.c"; do
  [ -e "$f" ] || { echo "bench-pnetcdf-aggregation: $f not found (build ostio first; PNETCDF, PNETCDF_SRC)" >&2; exit 1; }
done
out=$(mktemp -d); trap 'rm -rf "$out"' EXIT
"$mpicc" -O2 -o "$out/aggregation" "$src/benchmarks/C/aggregation.c" -I"$pn/include" \
  -L"$pn/lib" -lpnetcdf -lm
[ -n "$dir" ] || dir="$out/files"
mkdir -p "$dir"; dir=$(readlink -f "$dir")
# run KIND [VAR=VALUE...]: one run into DIR/KIND.nc; keeps its report as OUT/KIND.R
run() {
  local kind=$1; shift
  rm -f "$dir/$kind.nc"
  env "$@" "$mpiexec" -n "$np" "$out/aggregation" -l "$len" "$dir/$kind.nc" > "$out/$kind.$r"
  if [ "$kind" != romio ] && ! cmp -s "$dir/romio.nc" "$dir/$kind.nc"; then
    echo "bench-pnetcdf-aggregation: $kind.nc differs from ROMIO's (round $r)" >&2; exit 1
  fi
}
for r in $(seq 1 "$rounds"); do
  echo "round $r/$rounds" >&2
  run romio
  [ -z "$before" ] || run before LD_PRELOAD="$before" OSTIO_MPIIO_PATHS="$dir"
  run ostio LD_PRELOAD="$lib" OSTIO_MPIIO_PATHS="$dir"
  echo "load $(cut -d' ' -f1 /proc/loadavg)" >> "$out/load"
done
python3 - "$out" "$rounds" "$len" "$np" "${before:+1}" <<'PY'
import sys, statistics, re
out, rounds, length, np = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
has_before = sys.argv[5] == "1"
def load(kind):
    d = {"write": [], "read": []}
    for r in range(1, rounds + 1):
        t = [float(m) for m in re.findall(r"open-to-close +time = +([0-9.]+)", open(f"{out}/{kind}.{r}").read())]
        d["write"].append(t[0]); d["read"].append(t[1])
    return d
a, b = load("romio"), load("ostio")
c = load("before") if has_before else None
print(f"{np} ranks, aggregation -l {length}, {rounds} alternating rounds (open-to-close seconds)")
print(f"{'phase':6s} {'ROMIO median s':>15s} {'ostio median s':>15s} {'ratio':>7s}" +
      (f" {'before median s':>16s} {'ratio':>7s}" if c else ""))
for k in a:
    x, y = statistics.median(a[k]), statistics.median(b[k])
    extra = f" {statistics.median(c[k]):16.4f} {statistics.median(c[k])/x:7.2f}" if c else ""
    print(f"{k:6s} {x:15.4f} {y:15.4f} {y/x:7.2f}{extra}")
print("load average (1 min) after each round:",
      " ".join(l.split()[1] for l in open(f"{out}/load")))
PY
