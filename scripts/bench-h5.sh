#!/usr/bin/env bash
# Parallel HDF5 write bandwidth through ROMIO and through libostio-mpiio.so
# (issue 16): the same ostio_h5_bench (bench/h5_bench.c: a 3-D dataset, one
# block per rank, collective hyperslab writes, open+create+write+close timed,
# max over ranks, median of -n iterations), unmodified, in three variants:
#   romio      plain mpiexec: MPICH's ROMIO
#   ostio      LD_PRELOAD=libostio-mpiio.so OSTIO_MPIIO_PATHS=DIR/ostio
#   ostio-log  the same plus OSTIO_HINTS='*:ostio_container=log' (a log container)
# run alternately (romio, ostio, ostio-log, romio, ...) for --rounds rounds,
# then the median over rounds of each variant and its ratio to romio.
#
#   scripts/bench-h5.sh [--np N] [--rounds R] [-n N] [--size MIB] [--dir DIR]
#                       [--build DIR] [--no-log] [-V]
#
# --np N       ranks (default 2)
# --rounds R   alternating rounds (default 3)
# -n N         timed iterations per run, plus one warm-up (default 5)
# --size MIB   dataset size (default 256)
# --dir DIR    where the files go (default /tmp/ostio-h5bench; removed after)
# --build DIR  build directory, relative to the source tree or absolute
#              (default build-meas; configured Release with MPICH and built
#              when needed: ostio_h5_bench needs parallel HDF5 on MPICH,
#              scripts/deps.sh installs it)
# --no-log     leave out the ostio-log variant
# -V           ostio_h5_bench -V: read back and check after each write
set -euo pipefail
usage() { sed -n '2,25p' "$0" | sed 's/^# \{0,1\}//'; }
np=2 rounds=3 iters=5 size=256 dir=/tmp/ostio-h5bench build=build-meas log=1 verify=()
while [ $# -gt 0 ]; do
  case "$1" in
    -h|--help) usage; exit 0 ;;
    --np) np="$2"; shift 2 ;;
    --rounds) rounds="$2"; shift 2 ;;
    -n) iters="$2"; shift 2 ;;
    --size) size="$2"; shift 2 ;;
    --dir) dir="$2"; shift 2 ;;
    --build) build="$2"; shift 2 ;;
    --no-log) log=0; shift ;;
    -V) verify=(-V); shift ;;
    *) echo "bench-h5: unknown argument $1 (see --help)" >&2; exit 2 ;;
  esac
done
case "$np$rounds$iters$size" in
  *[!0-9]*|'') echo "bench-h5: --np, --rounds, -n and --size are integers" >&2; exit 2 ;;
esac
[ "$np" -ge 1 ] && [ "$rounds" -ge 1 ] && [ "$iters" -ge 1 ] && [ "$size" -ge 1 ] ||
  { echo "bench-h5: --np, --rounds, -n and --size must be >= 1" >&2; exit 2; }

here="$(cd "$(dirname "$0")/.." && pwd)"
case "$build" in /*) bdir="$build" ;; *) bdir="$here/$build" ;; esac
if [ -f "$bdir/CMakeCache.txt" ]; then   # refresh: targets added since it was made
  cmake -S "$here" -B "$bdir" >/dev/null
else
  mpich=()
  if command -v mpicc.mpich >/dev/null 2>&1 && command -v mpiexec.mpich >/dev/null 2>&1; then
    mpich=(-DMPI_C_COMPILER="$(command -v mpicc.mpich)"
           -DMPIEXEC_EXECUTABLE="$(command -v mpiexec.mpich)")
  fi
  cmake -S "$here" -B "$bdir" -DCMAKE_BUILD_TYPE=Release -DOSTIO_TESTS=OFF "${mpich[@]}" >/dev/null
fi
if ! grep -q '^OSTIO_HDF5_PARALLEL_LINKS:INTERNAL=1' "$bdir/CMakeCache.txt"; then
  echo "bench-h5: no parallel HDF5 on MPICH in $bdir (scripts/deps.sh installs" \
       "libhdf5-mpich-dev; the build must use MPICH's mpicc)" >&2
  exit 1
fi
cmake --build "$bdir" -j2 --target ostio_h5_bench ostio_mpiio >/dev/null
prog="$bdir/ostio_h5_bench" lib="$bdir/libostio-mpiio.so"
mpiexec=$(sed -n 's/^MPIEXEC_EXECUTABLE:[A-Z]*=//p' "$bdir/CMakeCache.txt")
[ -n "$mpiexec" ] || mpiexec=mpiexec
[ -x "$prog" ] && [ -f "$lib" ] || { echo "bench-h5: $prog or $lib missing" >&2; exit 1; }

variants=(romio ostio)
[ "$log" = 1 ] && variants+=(ostio-log)
mkdir -p "$dir"
dir=$(cd "$dir" && pwd -P)
trap 'rm -rf "$dir"/romio "$dir"/ostio "$dir"/ostio-log' EXIT
declare -A results

run() { # variant -> prints the run's median MiB/s
  local v="$1" env=()
  rm -rf "${dir:?}/$v"
  mkdir -p "$dir/$v"
  case "$v" in
    ostio) env=(LD_PRELOAD="$lib" OSTIO_MPIIO_PATHS="$dir/ostio") ;;
    ostio-log) env=(LD_PRELOAD="$lib" OSTIO_MPIIO_PATHS="$dir/ostio-log"
                    OSTIO_HINTS='*:ostio_container=log') ;;
  esac
  local out
  out=$("$mpiexec" -n "$np" env "${env[@]}" "$prog" --file "$dir/$v/f.h5" -n "$iters" \
        --size "$size" "${verify[@]}") || { echo "$out" >&2; echo "bench-h5: $v failed" >&2; return 1; }
  echo "$out" | sed -n '1p;$p' | sed "s/^/  $v: /" >&2
  echo "$out" | awk '/^h5_bench: .*median/ { for (i = 2; i <= NF; i++) if ($i == "MiB/s") print $(i - 1) }'
}

median() { sort -g | awk '{ v[NR] = $1 } END { if (NR % 2) print v[(NR + 1) / 2];
                                              else printf "%.1f\n", (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

echo "bench-h5: $np ranks, $size MiB, $rounds round(s) of ${variants[*]}, $iters iterations each" \
     "(load $(cut -d' ' -f1 /proc/loadavg))"
for r in $(seq 1 "$rounds"); do
  echo "== round $r" >&2
  for v in "${variants[@]}"; do
    bw=$(run "$v")
    results[$v]+="$bw "
  done
done

romio=$(echo "${results[romio]}" | tr ' ' '\n' | grep . | median)
printf '\n%-10s %12s %10s   %s\n' variant "MiB/s(med)" "vs romio" "per round"
for v in "${variants[@]}"; do
  med=$(echo "${results[$v]}" | tr ' ' '\n' | grep . | median)
  ratio=$(awk -v a="$med" -v b="$romio" 'BEGIN { if (b > 0) printf "%.2fx", a / b; else print "-" }')
  printf '%-10s %12s %10s   %s\n' "$v" "$med" "$ratio" "${results[$v]}"
done
