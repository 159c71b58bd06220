#!/usr/bin/env bash
# Parallel HDF5 through libostio-mpiio.so against ROMIO (issue 16; CTest
# h5_cov.plain.npN, h5_cov.log.npN from tests/mpiio/h5_tests.cmake).
#
#   h5_compare.sh --mpiexec MPIEXEC --np N --prog H5_HYPERSLAB --lib LIBOSTIO_MPIIO
#                 --ostio OSTIO_CLI --dir DIR --mode plain|log
#                 [--preload LIBOSTIO_PRELOAD] [--h5dump H5DUMP]
#
# 1. H5_HYPERSLAB runs natively (ROMIO) twice, DIR/native/f.h5 and f2.h5; both
#    pass. Two identical files mean HDF5 wrote deterministically here, so the
#    interposed file is compared byte for byte; otherwise by h5dump output.
# 2. It runs under LD_PRELOAD=LIBOSTIO_MPIIO OSTIO_MPIIO_PATHS=DIR/ostio
#    (mode log: also OSTIO_HINTS='*:ostio_container=log') to DIR/ostio/f.h5;
#    it must pass (its own read-back goes through the interposer too), and
#    OSTIO_STATS=json must name the file (ostio served it, not ROMIO).
# 3. Mode plain: DIR/ostio/f.h5 must be a plain file; mode log: a container
#    directory, flattened with `OSTIO_CLI container flatten` to DIR/flat.h5.
# 4. The (flat) file is compared with the native one: cmp when step 1 found
#    the output deterministic, and h5dump output (the first line, which names
#    the file, left out) whenever h5dump is there.
# 5. h5dump reads the container itself: through the MPI-IO interposer only if
#    h5dump is linked with parallel HDF5 on MPICH (ldd) -- Debian's hdf5-tools
#    is serial HDF5 (POSIX I/O, the sec2 driver), which no MPI-IO interposer
#    sees, and the script says so; with --preload, through libostio-preload.so
#    (OSTIO_PRELOAD_PATHS), which serves POSIX reads of containers.
# Exit 0: all passed; 1: a failure (the step is named); 2: usage.
set -uo pipefail

mpiexec="" np=2 prog="" lib="" cli="" dir="" mode="" preload="" h5dump=""
usage() { sed -n '2,30p' "$0"; }
while [ $# -gt 0 ]; do
  case "$1" in
    --mpiexec) mpiexec=$2; shift 2 ;;
    --np) np=$2; shift 2 ;;
    --prog) prog=$2; shift 2 ;;
    --lib) lib=$2; shift 2 ;;
    --ostio) cli=$2; shift 2 ;;
    --dir) dir=$2; shift 2 ;;
    --mode) mode=$2; shift 2 ;;
    --preload) preload=$2; shift 2 ;;
    --h5dump) h5dump=$2; shift 2 ;;
    -h|--help) usage; exit 0 ;;
    *) echo "h5_compare.sh: unknown argument '$1' (see --help)" >&2; exit 2 ;;
  esac
done
for v in mpiexec prog lib cli dir mode; do
  [ -n "${!v}" ] || { echo "h5_compare.sh: --$v is required (see --help)" >&2; exit 2; }
done
case "$mode" in plain|log) ;; *) echo "h5_compare.sh: --mode plain or log, not '$mode'" >&2; exit 2 ;; esac
[ -n "$h5dump" ] || h5dump=$(command -v h5dump || true)

fail() { echo "h5_compare.sh: FAIL: $*" >&2; exit 1; }
rm -rf "$dir"
mkdir -p "$dir/native" "$dir/ostio" || fail "cannot create $dir"
dir=$(cd "$dir" && pwd -P)

echo "== native (ROMIO), twice"
"$mpiexec" -n "$np" "$prog" "$dir/native/f.h5" || fail "native run 1"
"$mpiexec" -n "$np" "$prog" "$dir/native/f2.h5" || fail "native run 2"
bytes=0
if cmp -s "$dir/native/f.h5" "$dir/native/f2.h5"; then
  bytes=1
  echo "two native runs wrote identical files: the interposed one is compared byte for byte"
else
  echo "two native runs differ ($(cmp "$dir/native/f.h5" "$dir/native/f2.h5" | head -1)):" \
       "comparing h5dump output only"
  [ -n "$h5dump" ] || fail "no byte comparison possible and no h5dump (scripts/deps.sh)"
fi

hints=()
[ "$mode" = log ] && hints=(OSTIO_HINTS='*:ostio_container=log')
echo "== through libostio-mpiio.so (mode $mode)"
"$mpiexec" -n "$np" env LD_PRELOAD="$lib" OSTIO_MPIIO_PATHS="$dir/ostio" "${hints[@]}" \
  OSTIO_STATS="json:$dir/stats.json" "$prog" "$dir/ostio/f.h5" ||
  fail "the run under $lib (OSTIO_MPIIO_PATHS=$dir/ostio ${hints[*]})"
# ostio's statistics name the file: ostio served it, not ROMIO behind the interposer.
grep -q "$dir/ostio/f.h5" "$dir/stats.json" 2>/dev/null ||
  fail "no ostio statistics for $dir/ostio/f.h5 in $dir/stats.json: the interposer passed it to ROMIO"
echo "served by ostio (OSTIO_STATS names the file)"

out="$dir/ostio/f.h5"
if [ "$mode" = log ]; then
  [ -d "$out" ] || fail "$out is not a log container: the interposer did not serve the file"
  "$cli" container flatten "$out" "$dir/flat.h5" || fail "$cli container flatten $out"
  out="$dir/flat.h5"
else
  [ -f "$out" ] || fail "$out is not a plain file"
fi

if [ "$bytes" = 1 ]; then
  cmp "$dir/native/f.h5" "$out" || fail "$out differs from the native file"
  echo "byte-identical to the native file"
fi
# h5dump FILE with optional VAR=VALUE first (for h5dump only), without its first line.
dump() {
  local vars=()
  while [ "$1" != -- ]; do vars+=("$1"); shift; done
  shift
  env "${vars[@]}" "$h5dump" "$@" 2>&1 | sed 1d
}
if [ -n "$h5dump" ]; then
  dump -- "$dir/native/f.h5" >"$dir/native.dump" || fail "h5dump of the native file"
  dump -- "$out" >"$dir/ostio.dump" || fail "h5dump $out"
  diff -u "$dir/native.dump" "$dir/ostio.dump" >"$dir/dump.diff" ||
    { head -40 "$dir/dump.diff" >&2; fail "h5dump of $out differs from the native file's"; }
  echo "h5dump output identical to the native file's"

  if ldd "$h5dump" 2>/dev/null | grep -q -E 'libmpich|hdf5/mpich|libhdf5_mpich'; then
    echo "== h5dump (parallel HDF5 on MPICH) under libostio-mpiio.so"
    dump LD_PRELOAD="$lib" OSTIO_MPIIO_PATHS="$dir/ostio" -- "$dir/ostio/f.h5" >"$dir/direct.dump" ||
      fail "h5dump of $dir/ostio/f.h5 under $lib"
    diff -u "$dir/native.dump" "$dir/direct.dump" >/dev/null ||
      fail "h5dump under $lib differs from the native file's"
    echo "identical"
  else
    echo "note: $h5dump is serial HDF5 ($(ldd "$h5dump" | grep -o 'libhdf5[^ ]*' | head -1));" \
         "it reads with POSIX calls, which libostio-mpiio.so does not see, so it cannot read" \
         "the container through the MPI-IO interposer"
  fi
  if [ "$mode" = log ] && [ -n "$preload" ]; then
    echo "== h5dump of the container through libostio-preload.so"
    dump LD_PRELOAD="$preload" OSTIO_PRELOAD_PATHS="$dir/ostio" -- "$dir/ostio/f.h5" \
      >"$dir/preload.dump" || fail "h5dump of the container under $preload"
    diff -u "$dir/native.dump" "$dir/preload.dump" >"$dir/preload.diff" ||
      { head -40 "$dir/preload.diff" >&2; fail "h5dump through $preload differs from the native file's"; }
    echo "identical"
  fi
else
  echo "note: no h5dump (Debian: hdf5-tools), h5dump comparisons skipped"
fi
echo "h5_compare.sh: PASS ($mode)"
