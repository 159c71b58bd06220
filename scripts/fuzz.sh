#!/usr/bin/env bash
# Longer runs of the container fuzz (issue 13, docs/fuzz.md): builds
# tests/test_fuzz_containers (and libostio-preload.so), then runs N seeded cases
# in-process (container check/ls/stat/map, getstripe, map, flatten, recover,
# compact, ostio_open + reads + a write) and M cases through the preload (cat,
# dd, wc, head, tail, stat, cp), with progress lines on stderr.
set -euo pipefail
cd "$(dirname "$0")/.."

usage() {
  cat <<'EOF'
Usage: scripts/fuzz.sh [--cases N] [--seed S] [--first N] [--case N]
                       [--preload-cases M] [--preload-only] [--sanitize]
                       [--timeout SEC] [--ops LIST] [--max-failures N]
                       [--keep DIR] [--strict] [--build DIR]

  --cases N          in-process cases (default 20000)
  --seed S           seed (default 1); case N of seed S is the same on every run
  --first N          first case number (default 0)
  --case N           run case N alone, show its mutations and output (what a
                     failure report tells you to run); with --keep DIR the
                     mutated container is kept in DIR
  --preload-cases M  cases read through libostio-preload.so (default N/10;
                     0 to skip)
  --preload-only     only the preload part (with --case: that case)
  --sanitize         use an ASan + UBSan build (build/fuzz-san; slower)
  --timeout SEC      a case running longer is a hang (default 5; 20 with
                     --sanitize; preload programs 10)
  --ops LIST         operations: check,ls,stat,map,flatten,open,write,repair,
                     layout (default all)
  --max-failures N   stop after N failing cases (default 50)
  --strict           also fail when a library call fails without an error detail
  --build DIR        build directory (default build/fuzz or build/fuzz-san)
  -h, --help         this help

Exit status 0 when every case passed, 1 when some failed (each printed with
its seed, case number, mutations and the command to reproduce it), 2 on a
usage or build error. Work happens in /dev/shm when it is there
(OSTIO_FUZZ_DIR to choose).
EOF
}

cases=20000 seed=1 first=0 one= pcases= ponly=0 san=0 timeout= ops=all maxf=50 keep=
strict= build=
while [ $# -gt 0 ]; do
  case "$1" in
    -h|--help) usage; exit 0 ;;
    --cases) cases=$2; shift ;;
    --seed) seed=$2; shift ;;
    --first) first=$2; shift ;;
    --case) one=$2; shift ;;
    --preload-cases) pcases=$2; shift ;;
    --preload-only) ponly=1 ;;
    --sanitize) san=1 ;;
    --timeout) timeout=$2; shift ;;
    --ops) ops=$2; shift ;;
    --max-failures) maxf=$2; shift ;;
    --keep) keep=$2; shift ;;
    --strict) strict=--strict ;;
    --build) build=$2; shift ;;
    *) echo "fuzz.sh: unknown option '$1'" >&2; usage >&2; exit 2 ;;
  esac
  shift
done
for v in "$cases" "$seed" "$first" "$maxf" ${one:+"$one"} ${pcases:+"$pcases"}; do
  case "$v" in ''|*[!0-9]*) echo "fuzz.sh: '$v' is not a number" >&2; exit 2 ;; esac
done
[ -n "$pcases" ] || pcases=$((cases / 10))

if [ "$san" = 1 ]; then
  build=${build:-build/fuzz-san}
  flags=(-DOSTIO_SANITIZE=ON -DCMAKE_BUILD_TYPE=Debug)
  export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1} UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1}
else
  build=${build:-build/fuzz}
  flags=(-DCMAKE_BUILD_TYPE=RelWithDebInfo)
fi
echo "fuzz.sh: building in $build" >&2
{ cmake -S . -B "$build" -DOSTIO_WERROR=ON "${flags[@]}" >/dev/null &&
  cmake --build "$build" -j"$(nproc 2>/dev/null || echo 2)" --target test_fuzz_containers \
        ostio_preload >/dev/null; } || { echo "fuzz.sh: build failed" >&2; exit 2; }
bin=$build/tests/test_fuzz_containers
lib=$(ls "$build"/libostio-preload.so 2>/dev/null || true)

status=0
if [ "$ponly" = 0 ]; then
  args=(--seed "$seed" --max-failures "$maxf" --ops "$ops" $strict)
  [ -n "$timeout" ] && args+=(--timeout "$timeout")
  if [ -n "$one" ]; then
    args+=(--case "$one")
    [ -n "$keep" ] && args+=(--keep "$keep")
  else
    args+=(--cases "$cases" --first "$first" --progress 10)
  fi
  echo "fuzz.sh: $bin ${args[*]}" >&2
  "$bin" "${args[@]}" || status=$?
fi
if [ -n "$one" ] && [ "$ponly" = 1 ]; then first=$one pcases=1; fi
if [ "$pcases" -gt 0 ] && { [ -z "$one" ] || [ "$ponly" = 1 ]; }; then
  if [ "$san" = 1 ]; then
    echo "fuzz.sh: the preload part runs without --sanitize (programs are not built with it)" >&2
    lib=$(ls build/fuzz/libostio-preload.so 2>/dev/null || true)
  fi
  if [ -z "$lib" ]; then
    echo "fuzz.sh: no libostio-preload.so; preload part skipped" >&2
  else
    echo "fuzz.sh: preload: $pcases cases from $first" >&2
    OSTIO_FUZZ_PROGRESS=10 bash tests/test_fuzz_preload.sh "$bin" "$lib" "$pcases" "$seed" \
      "$first" 10 || { rc=$?; [ "$status" = 0 ] && status=$rc; }
  fi
fi
exit "$status"
