#!/usr/bin/env bash
# cat, md5sum and cp of a container through libostio-preload.so against the
# same programs on a plain file (issue 7's target: <= 1.05x, median of 5,
# same run). Writes OUTDIR/bench-preload.md (table) and OUTDIR/times.csv.
#
#   scripts/bench-preload.sh [--size-mib N] [--iters N] [--build DIR]
#                            [--objects K] [--keep] OUTDIR
#
# --size-mib N  file size (default 1024: the issue's 1 GiB; use 64 to try it)
# --iters N     timed runs of each program and variant (default 5)
# --build DIR   build directory, relative to the source tree (default
#               build-meas; configured Release and built when needed)
# --objects K   objects of the striped container (default 4, stripes 1 MiB)
# --keep        keep the data files (OUTDIR/data)
#
# Variants, run interleaved (plain, plain+preload, log, striped) in every
# iteration after one untimed warm-up pass: plain = the file without the
# preload; plain+preload = the same plain file with LD_PRELOAD set (the
# interposer's cost on a path outside OSTIO_PRELOAD_PATHS); log, striped =
# containers made through the preload (cp of the plain file into a
# directory of OSTIO_PRELOAD_PATHS). Programs: cat F > /dev/null, md5sum F,
# cp F OUT (container -> plain file: "cp out") and cp PLAIN F2 (plain ->
# new container: "cp in"; plain -> plain for the plain variants). Caches are
# never dropped: every run reads from a warm page cache (the output says so).
set -euo pipefail
usage() { sed -n '2,23p' "$0" | sed 's/^# \{0,1\}//'; }
size=1024 iters=5 build=build-meas objects=4 keep=0 out=
while [ $# -gt 0 ]; do
  case "$1" in
    -h|--help) usage; exit 0 ;;
    --size-mib) size="$2"; shift 2 ;;
    --iters) iters="$2"; shift 2 ;;
    --build) build="$2"; shift 2 ;;
    --objects) objects="$2"; shift 2 ;;
    --keep) keep=1; shift ;;
    -*) echo "bench-preload: unknown flag $1 (see --help)" >&2; exit 2 ;;
    *) out="$1"; shift ;;
  esac
done
[ -n "$out" ] || { echo "bench-preload: give OUTDIR (see --help)" >&2; exit 2; }
case "$size$iters$objects" in *[!0-9]*) echo "bench-preload: sizes and counts are integers" >&2; exit 2 ;; esac
[ "$iters" -ge 1 ] && [ "$size" -ge 1 ] || { echo "bench-preload: --size-mib and --iters must be >= 1" >&2; exit 2; }
here="$(cd "$(dirname "$0")/.." && pwd)"
case "$build" in /*) bdir="$build" ;; *) bdir="$here/$build" ;; esac
if [ -f "$bdir/CMakeCache.txt" ]; then   # refresh: targets added since it was made
  cmake -S "$here" -B "$bdir" >/dev/null
else
  cmake -S "$here" -B "$bdir" -DCMAKE_BUILD_TYPE=Release -DOSTIO_TESTS=OFF >/dev/null
fi
cmake --build "$bdir" -j2 --target ostio_preload >/dev/null
LIB="$bdir/libostio-preload.so"
[ -f "$LIB" ] || { echo "bench-preload: $LIB was not built" >&2; exit 1; }

mkdir -p "$out"
out="$(cd "$out" && pwd)"
D="$out/data"
rm -rf "$D"
mkdir -p "$D/plain" "$D/log" "$D/striped" "$D/scratch"
export LC_ALL=C
unset OSTIO_HINTS OSTIO_PRELOAD_PATHS LD_PRELOAD
STRIPED_HINTS="*:ostio_container=striped:ostio_objects=$objects:striping_unit=1048576"
say() { echo "bench-preload: $*" >&2; }

# run VARIANT CMD...: the command with the variant's environment
run() {
  local v="$1"; shift
  case "$v" in
    plain) "$@" ;;
    plain+preload) LD_PRELOAD="$LIB" OSTIO_PRELOAD_PATHS="$D/log" "$@" ;;
    log) LD_PRELOAD="$LIB" OSTIO_PRELOAD_PATHS="$D/log" "$@" ;;
    striped) LD_PRELOAD="$LIB" OSTIO_PRELOAD_PATHS="$D/striped" OSTIO_HINTS="$STRIPED_HINTS" "$@" ;;
  esac
}
file_of() { case "$1" in plain|plain+preload) echo "$D/plain/f.bin" ;; log) echo "$D/log/f.bin" ;;
                         striped) echo "$D/striped/f.bin" ;; esac; }
# where "cp in" writes: a new file in the variant's directory
dest_of() { case "$1" in plain|plain+preload) echo "$D/plain/in.bin" ;; log) echo "$D/log/in.bin" ;;
                         striped) echo "$D/striped/in.bin" ;; esac; }

say "making a ${size} MiB plain file and its log and striped (K=$objects) containers"
head -c $((size * 1048576)) /dev/urandom > "$D/plain/f.bin"
run log cp "$D/plain/f.bin" "$D/log/f.bin"
run striped cp "$D/plain/f.bin" "$D/striped/f.bin"
for k in log striped; do
  [ -f "$D/$k/f.bin/ostio.manifest" ] ||
    { say "the preload did not make a container at $D/$k/f.bin"; exit 1; }
done
want=$(md5sum < "$D/plain/f.bin" | cut -c1-32)
for k in log striped; do
  got=$(run "$k" md5sum "$D/$k/f.bin" | cut -c1-32)
  [ "$got" = "$want" ] || { say "$k container reads back wrong ($got, want $want)"; exit 1; }
done
say "containers verified (md5 $want)"

variants=(plain plain+preload log striped)
programs=(cat md5sum cp-out cp-in)
CSV="$out/times.csv"
echo "iter,program,variant,seconds" > "$CSV"

one() { # program variant -> seconds on stdout
  local p="$1" v="$2" f t0 t1
  f=$(file_of "$v")
  case "$p" in
    cp-out) rm -f "$D/scratch/out.bin" ;;
    cp-in) rm -rf "$(dest_of "$v")" ;;
  esac
  t0=$(date +%s%N)
  case "$p" in
    cat) run "$v" cat "$f" > /dev/null ;;
    md5sum) run "$v" md5sum "$f" > /dev/null ;;
    cp-out) run "$v" cp "$f" "$D/scratch/out.bin" ;;
    cp-in) run "$v" cp "$D/plain/f.bin" "$(dest_of "$v")" ;;
  esac
  t1=$(date +%s%N)
  awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.4f\n", (b - a) / 1e9 }'
}

say "warm-up pass (untimed): page cache warm, nothing is dropped"
for p in "${programs[@]}"; do for v in "${variants[@]}"; do one "$p" "$v" > /dev/null; done; done
for i in $(seq 1 "$iters"); do
  for p in "${programs[@]}"; do
    line=""
    for v in "${variants[@]}"; do
      s=$(one "$p" "$v")
      echo "$i,$p,$v,$s" >> "$CSV"
      line="$line $v=${s}s"
    done
    say "iter $i/$iters $p:$line (load $(cut -d' ' -f1 /proc/loadavg))"
  done
done

median() { # program variant
  awk -F, -v p="$1" -v v="$2" '$2 == p && $3 == v { print $4 }' "$CSV" | sort -g |
    awk '{ a[NR] = $1 } END { if (NR % 2) print a[(NR + 1) / 2]; else printf "%.4f\n", (a[NR / 2] + a[NR / 2 + 1]) / 2 }'
}
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.3f", a / b; else print "-" }'; }

MD="$out/bench-preload.md"
{
  echo "# libostio-preload.so: ${size} MiB, median of $iters (same run, interleaved)"
  echo
  echo "$(date -u +%Y-%m-%dT%H:%M:%SZ), $(uname -n), $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg)," \
       "git $(git -C "$here" rev-parse --short HEAD 2>/dev/null || echo '?'), library $LIB"
  echo "Page cache: warm (nothing dropped; one untimed warm-up pass). Striped: K=$objects, 1 MiB stripes;" \
       "log: the preload's default hints. Target: container / plain <= 1.05."
  echo
  echo "| program | plain (s) | plain+preload (s) | log (s) | striped (s) | plain+preload / plain | log / plain | striped / plain |"
  echo "|---|---|---|---|---|---|---|---|"
  for p in "${programs[@]}"; do
    mp=$(median "$p" plain) mq=$(median "$p" plain+preload) ml=$(median "$p" log) ms=$(median "$p" striped)
    echo "| $p | $mp | $mq | $ml | $ms | $(ratio "$mq" "$mp") | $(ratio "$ml" "$mp") | $(ratio "$ms" "$mp") |"
  done
  echo
  echo "cat: \`cat F > /dev/null\`; md5sum: \`md5sum F\`; cp-out: \`cp F plain-file\` (reads the container);"
  echo "cp-in: \`cp plain-file NEW\` (plain variants: a new plain file; log/striped: a new container)."
} > "$MD"
cat "$MD"
if [ "$keep" = 1 ]; then say "data kept in $D"; else rm -rf "$D"; fi
