#!/usr/bin/env bash
# Runs the measured matrix of docs/benchmarks.md (and docs/containers.md)
# and writes one JSON document per case plus tables.md (markdown tables of
# the medians and ratios, made by scripts/bench-table.py).
#
#   scripts/bench-matrix.sh [--group G]... [--quick] [--scale N] [--grow M] [--only GLOB] [--iters N] [--build DIR] OUTDIR
#
# --only GLOB runs only the cases whose name matches (e.g. 'ior_*', 'flash_disk').
# Groups: plain (ior, strided 4 KiB and 47,008 B, flash; 2 ranks), ior-long
#         (ior writes only, 2 GiB per phase: phases >= 0.3 s; 2 ranks),
#         over (the same with 4 ranks, oversubscribed), btio (class A,
#         4 ranks), striped (striped containers K = 2, 4 vs MPI-IO: ior,
#         strided 1 MiB), striped-btio (the same for btio class A, 4 ranks),
#         log (log containers vs MPI-IO: strided 4 KiB (32 and 128 MiB) and 47,008 B),
#         auto (issue 29: `ostio` (auto) and each strategy it can pick against
#         the tuned ROMIO `mpiio:best` and ROMIO's defaults: ior, strided 4 KiB
#         and 64 KiB, btio, flash, random x plain file, striped and log
#         container x tmpfs and disk, 2 ranks, plus 1- and 4-rank cases;
#         37 cases, about 3 min each on the loaded 2-core VM;
#         one table, auto.md).
# --quick    with auto: a representative subset (8 cases): ior, strided 4 KiB
#            and 64 KiB on tmpfs, ior into a striped and strided 4 KiB into a
#            log container, strided 4 KiB on disk, ior with 1 rank, strided
#            4 KiB with 4 ranks.
# --scale N  with auto: sizes divided by N (1, 2, 4 or 8; for a loaded machine,
#            where phases last >= 0.3 s at a fraction of the size).
# --grow M   with auto: sizes multiplied by M (1, 2, 4 or 8; on a quiet machine
#            the default sizes give tmpfs read phases of ~0.1 s, below the 0.3 s
#            floor: --grow 4 makes them ~0.35 s; btio keeps its class).
# Default: plain. Disk = /tmp, tmpfs = /dev/shm (override DISK=, TMPFS=).
set -euo pipefail
usage() { sed -n '2,30p' "$0" | sed 's/^# \{0,1\}//'; }
groups=() iters=5 build=build-meas out= only='*' quick=0 scale=1 grow=1
while [ $# -gt 0 ]; do
  case "$1" in
    -h|--help) usage; exit 0 ;;
    --group) groups+=("$2"); shift 2 ;;
    --iters) iters="$2"; shift 2 ;;
    --only) only="$2"; shift 2 ;;
    --quick) quick=1; shift ;;
    --scale) scale="$2"; shift 2 ;;
    --grow) grow="$2"; shift 2 ;;
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
  local rc=0
  mpiexec -n "$np" "$B" "$@" --json "$out/$name.json" > "$out/$name.txt" 2> "$out/$name.err" || rc=$?
  echo "   $((SECONDS - t0)) s${rc:+ }$([ $rc = 0 ] || echo "FAILED (exit $rc, see $out/$name.err)")" >&2
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

# issue 29's matrix. Every phase should last >= 0.3 s: sizes are chosen for
# that at 2 ranks (512 MiB per phase: ior, strided, random; 480 MiB flash,
# 400 MiB btio A with 4 ranks); the table shows each case's shortest phase.
# ROMIO's hint sweep (mpiio:best) runs once per pattern, file system and
# rank count at 1/8 of the size (btio: class W), as scripts/demo.sh does, and
# every case of that pattern gets the chosen hints (--best-write/--best-read). Within one run ostio-bench alternates the
# APIs (each iteration runs every API's write and read in -a order), so a
# load change hits them alike; the table takes medians over the iterations
# and the range of the per-iteration ratios. Besides `ostio` (auto) the
# strategies auto can pick on these layouts run (ost and independent; aligned
# only on one-object files, which the matrix has none of).
AA=mpiio:best,mpiio,ostio,ostio:ost,ostio:independent
div() { local v=$(($1 * grow / $2)); echo $((v > 0 ? v : 1)); }
pat_args() { # pattern divisor -> ostio-bench flags (divisor 8: the sweep's size)
  case "$1" in
    ior) echo "-p ior -b 16m -t 1m -s $(div 16 "$2")" ;;
    s4k) echo "-p strided -t 4k -b 4k -s $(div 65536 "$2")" ;;
    s64k) echo "-p strided -t 64k -b 64k -s $(div 4096 "$2")" ;;
    btio) echo "-p btio --btio-class $([ "$2" = 1 ] && echo A || echo W)" ;;
    flash) echo "-p flash --flash-blocks $(div 320 "$2")" ;;
    random) echo "-p random -b $(div 256 "$2")m -s 1" ;;
  esac
}
best_of() { # json -> "--best-write H --best-read H" from its mpiio:best section
  python3 - "$1" <<'PY'
import json, sys
try:
    d = json.load(open(sys.argv[1]))
except (OSError, ValueError):
    sys.exit(0)
b = d.get("mpiio_best") or {}
out = []
for ph in ("write", "read"):
    h = (b.get(ph) or {}).get("hints")
    if h is not None:
        out += [f"--best-{ph}", ",".join(f"{k}={v}" for k, v in h.items()) or "defaults"]
print(" ".join(out))
PY
}
auto_case() { # np fs container pattern
  local np="$1" fs="$2" ctr="$3" pat="$4" dir a best=
  dir=$DISK; [ "$fs" = tmpfs ] && dir=$TMPFS
  mkdir -p "$dir/obauto"
  a=$AA; [ "$ctr" = log ] && a=mpiio:best,mpiio,ostio
  local name="auto_${pat}_${ctr}_${fs}_np${np}" sw="sweep/${pat}_${fs}_np${np}"
  # shellcheck disable=SC2053
  [[ $name == $only ]] || return 0
  mkdir -p "$out/sweep"
  if [ ! -f "$out/$sw.json" ]; then
    # shellcheck disable=SC2046
    only='*' one "$sw" "$np" -a mpiio:best -c $(pat_args "$pat" $((8 * scale))) --stripe-count 2 --stripe-size 1m \
      -i 1 --warmup 1 -o "$dir/obauto/f"
  fi
  best=$(best_of "$out/$sw.json")
  # shellcheck disable=SC2046,SC2086
  one "$name" "$np" -a "$a" -c -R $(pat_args "$pat" "$scale") --stripe-count 2 --stripe-size 1m \
    --container "$ctr" -i "$iters" --warmup 1 $best -o "$dir/obauto/f"
}
auto_matrix() {
  local fs ctr pat
  if [ "$quick" = 1 ]; then
    for pat in ior s4k s64k; do auto_case 2 tmpfs plain "$pat"; done
    auto_case 2 tmpfs striped ior; auto_case 2 tmpfs log s4k; auto_case 2 disk plain s4k
    auto_case 1 tmpfs plain ior; auto_case 4 tmpfs plain s4k
    return
  fi
  for fs in tmpfs disk; do
    for pat in ior s4k s64k flash random; do
      for ctr in plain striped log; do auto_case 2 "$fs" "$ctr" "$pat"; done
    done
    auto_case 4 "$fs" plain btio
  done
  for pat in ior s4k; do auto_case 1 tmpfs plain "$pat"; auto_case 4 tmpfs plain "$pat"; done
  auto_case 4 tmpfs striped btio
}

for g in "${groups[@]}"; do
  case "$g" in
    auto) auto_matrix ;;
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
    *) echo "bench-matrix: unknown group $g (plain, ior-long, over, btio, striped, striped-btio, log, auto)" >&2; exit 2 ;;
  esac
done
shopt -s nullglob
autos=("$out"/auto_*.json) others=()
for f in "$out"/*.json; do [[ $f == "$out"/auto_* ]] || others+=("$f"); done
if [ ${#others[@]} -gt 0 ]; then
  python3 "$here/scripts/bench-table.py" "${others[@]}" > "$out/tables.md"
  echo "tables: $out/tables.md" >&2
fi
if [ ${#autos[@]} -gt 0 ]; then
  python3 "$here/scripts/bench-table.py" --auto "${autos[@]}" > "$out/auto.md"
  echo "table: $out/auto.md" >&2
fi
