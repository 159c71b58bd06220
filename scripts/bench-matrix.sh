#!/usr/bin/env bash
# Runs the measured matrix of docs/benchmarks.md (and docs/containers.md)
# and writes one JSON document per case plus tables.md (markdown tables of
# the medians and ratios, made by scripts/bench-table.py).
#
#   scripts/bench-matrix.sh [--group G]... [--only GLOB] [--iters N] [--build DIR] OUTDIR
#
# --only GLOB runs only the cases whose name matches (e.g. 'ior_*', 'flash_disk').
# Groups: plain (ior, strided 4 KiB and 47,008 B, flash; 2 ranks), ior-long
#         (ior writes only, 2 GiB per phase: phases >= 0.3 s; 2 ranks),
#         over (the same with 4 ranks, oversubscribed), btio (class A,
#         4 ranks), striped (striped containers K = 2, 4 vs MPI-IO: ior,
#         strided 1 MiB), striped-btio (the same for btio class A, 4 ranks),
#         log (log containers vs MPI-IO: strided 4 KiB (32 and 128 MiB) and 47,008 B).
# Default: plain. Disk = /tmp, tmpfs = /dev/shm (override DISK=, TMPFS=).
set -euo pipefail
usage() { sed -n '2,16p' "$0" | sed 's/^# \{0,1\}//'; }
groups=() iters=5 build=build-meas out= only='*'
while [ $# -gt 0 ]; do
  case "$1" in
    -h|--help) usage; exit 0 ;;
    --group) groups+=("$2"); shift 2 ;;
    --iters) iters="$2"; shift 2 ;;
    --only) only="$2"; shift 2 ;;
    --build) build="$2"; shift 2 ;;
    -*) echo "bench-matrix: unknown flag $1 (see --help)" >&2; exit 2 ;;
    *) out="$1"; shift ;;
  esac
done
[ -n "$out" ] || { echo "bench-matrix: give OUTDIR (see --help)" >&2; exit 2; }
[ ${#groups[@]} -gt 0 ] || groups=(plain)
here="$(cd "$(dirname "$0")/.." && pwd)"
B="$here/$build/ostio-bench"
if [ -f "$here/$build/CMakeCache.txt" ]; then   # refresh: targets added since it was made
  cmake -S "$here" -B "$here/$build" >/dev/null
else
  cmake -S "$here" -B "$here/$build" -DCMAKE_BUILD_TYPE=Release -DOSTIO_TESTS=OFF >/dev/null
fi
cmake --build "$here/$build" -j2 --target ostio_bench >/dev/null
mkdir -p "$out"
DISK="${DISK:-/tmp}" TMPFS="${TMPFS:-/dev/shm}"
A=ostio:ost,ostio:even,ostio:aligned,ostio:independent,mpiio,posix
L="--stripe-count 4 --stripe-size 1m"

one() { # name np args...
  local name="$1" np="$2"; shift 2
  # shellcheck disable=SC2053
  [[ $name == $only ]] || return 0
  echo "== $name (np $np, load $(cut -d' ' -f1 /proc/loadavg))" >&2
  local t0=$SECONDS
  mpiexec -n "$np" "$B" "$@" --json "$out/$name.json" > "$out/$name.txt" 2> "$out/$name.err"
  echo "   $((SECONDS - t0)) s" >&2
  echo "$name np=$np load=$(cut -d' ' -f1 /proc/loadavg) seconds=$((SECONDS - t0)) args: $*" >> "$out/cases.txt"
}

plain_cases() { # np suffix
  local np="$1" sfx="$2" fs dir
  for fs in disk tmpfs; do
    dir=$DISK; [ $fs = tmpfs ] && dir=$TMPFS
    mkdir -p "$dir/obmeas"
    one "ior_${fs}$sfx" "$np" -a $A -c -W -R -p ior -b 16m -t 1m -s 4 -i "$iters" $L -o "$dir/obmeas/f"
    one "s4k_${fs}$sfx" "$np" -a $A -c -W -R -p strided -t 4k -b 4k -s 4096 -i "$iters" $L -o "$dir/obmeas/f"
    one "s47_${fs}$sfx" "$np" -a $A -c -W -R -p strided -t 47008 -b 47008 -s 1024 -i "$iters" $L -o "$dir/obmeas/f"
    one "flash_${fs}$sfx" "$np" -a $A -c -W -R -p flash -i "$iters" $L -o "$dir/obmeas/f"
  done
}

for g in "${groups[@]}"; do
  case "$g" in
    plain) plain_cases 2 "" ;;
    over) plain_cases 4 "_np4" ;;
    ior-long)   # ior writes, 2 GiB per phase, so that every phase lasts >= 0.3 s (no -W: time)
      for fs in disk tmpfs; do
        dir=$DISK; [ $fs = tmpfs ] && dir=$TMPFS
        mkdir -p "$dir/obmeas"
        one "iorL_${fs}" 2 -a $A -c -w -p ior -b 16m -t 1m -s 64 -i "$iters" $L -o "$dir/obmeas/f"
      done ;;
    btio)
      for fs in disk tmpfs; do
        dir=$DISK; [ $fs = tmpfs ] && dir=$TMPFS
        mkdir -p "$dir/obmeas"
        one "btio_${fs}" 4 -a $A -c -W -R -p btio --btio-class A -i "$iters" $L -o "$dir/obmeas/f"
      done ;;
    striped)
      for fs in disk tmpfs; do
        dir=$DISK; [ $fs = tmpfs ] && dir=$TMPFS
        mkdir -p "$dir/obmeas"
        for k in 2 4; do
          S="-a ostio:ost,ostio:even,mpiio --container striped --stripe-count $k --stripe-size 1m"
          one "ctr_ior_k${k}_${fs}" 2 $S -c -W -R -p ior -b 16m -t 1m -s 4 -i "$iters" -o "$dir/obmeas/f"
          one "ctr_iorb1_k${k}_${fs}" 2 $S -c -W -R -p ior -b 1m -t 1m -s 64 -i "$iters" -o "$dir/obmeas/f"
          one "ctr_s1m_k${k}_${fs}" 2 $S -c -W -R -p strided -t 1m -b 1m -s 64 -i "$iters" -o "$dir/obmeas/f"
        done
      done ;;
    striped-btio)
      for fs in disk tmpfs; do
        dir=$DISK; [ $fs = tmpfs ] && dir=$TMPFS
        mkdir -p "$dir/obmeas"
        for k in 2 4; do
          S="-a ostio:ost,ostio:even,mpiio --container striped --stripe-count $k --stripe-size 1m"
          one "ctr_btio_k${k}_${fs}" 4 $S -c -W -R -p btio --btio-class A -i "$iters" -o "$dir/obmeas/f"
        done
      done ;;
    log)
      for fs in disk tmpfs; do
        dir=$DISK; [ $fs = tmpfs ] && dir=$TMPFS
        mkdir -p "$dir/obmeas"
        G="-a ostio,mpiio --container log -c -W -R -i $iters"
        one "log_s4k_${fs}" 2 $G -p strided -t 4k -b 4k -s 4096 -o "$dir/obmeas/f"
        one "log_s47_${fs}" 2 $G -p strided -t 47008 -b 47008 -s 1024 -o "$dir/obmeas/f"
        one "log_s4k128_${fs}" 2 $G -p strided -t 4k -b 4k -s 16384 -o "$dir/obmeas/f"
      done ;;
    *) echo "bench-matrix: unknown group $g (plain, ior-long, over, btio, striped, striped-btio, log)" >&2; exit 2 ;;
  esac
done
python3 "$here/scripts/bench-table.py" "$out"/*.json > "$out/tables.md"
echo "tables: $out/tables.md" >&2
