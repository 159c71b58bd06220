#!/usr/bin/env bash
# romio-tests.sh: ROMIO's own test programs (src/mpi/romio/test of MPICH
# 4.0.2's source release) natively, through libostio-mpiio.so into plain files
# and into log containers; each run must print "No Errors" and exit 0, and
# every file the program leaves must be byte-identical to ROMIO's (containers
# flattened).
#
#   scripts/romio-tests.sh [options]
#
# Source (first found): --source PATH, $MPICH_SOURCE (mpich_4.0.2.orig.tar.xz,
# a directory holding it, or an extracted ROMIO test directory), a tarball in
# the cache, or Debian's source package (`apt-get source --download-only
# mpich`; as root with a deb-src entry of the script's own when apt has none).
# Only src/mpi/romio/test is extracted. Each program is built with mpicc.mpich
# (the .c.in files get ROMIO's configure substitutions here).
#
# Options:
#   --source PATH        MPICH's source (see above)
#   --ostio-build DIR    ostio build tree (default: build/test, else build)
#   --cache DIR          build and output cache (default OSTIO_BUILD/suites/romio)
#   --np N               ranks for the programs runtests runs on 4 (default 2)
#   --only REGEX         only programs whose name matches (egrep)
#   --large              also large_file, large_array and big_extents (files of
#                        4-8 GiB, sparse where the file system allows) and
#                        coll_perf (minutes on 2 cores)
#   --timeout S          per run (default 300)
#   -h, --help           this text
# The programs and their arguments follow ROMIO's runtests.in; programs it runs
# on 1 or 2 ranks keep that count; hindexed and darray_read always run on 4. The Fortran programs (fcoll_test, fmisc,
# pfcoll_test) are not built: issue 28 item 4 covers Fortran with tests of its
# own. perf and coll_perf are timing programs without a pass/fail line; they
# run (a pass is exit 0). Exit 0 when every program that passes natively passes
# and gives ROMIO's bytes both ways, or is a known failure below; 1 otherwise;
# 2 on a usage error; 77 when the source cannot be had (CTest: skipped).
set -uo pipefail

SUITE_NAME=romio-tests
MPICH_VERSION=4.0.2
HERE=$(cd "$(dirname "$0")" && pwd)
SUITE_LIBDIR=$HERE
# shellcheck source=scripts/suite-lib.sh
. "$HERE/suite-lib.sh"

# Known differences (docs/suites.md): "program pattern|mode (plain, log or
# *)|why". Measured 2026-11-28 at np 2 after issue 28's items (psimple, syshints
# and file_info were here before them: items 8, 5 and 6).
SUITE_KNOWN=(
    "atomicity|log|documented: atomic mode is refused for log containers (docs/mpiio.md)"
    "misc|log|documented: atomic mode is refused for log containers (docs/mpiio.md)"
    "external32|*|documented: the native data representation only (docs/mpiio.md)"
    # error.c checks ROMIO's own message text (the word "displacement" for a
    # negative displacement). ostio's message says it ("file view: displacement -1
    # is negative"), but MPICH 4.0 cannot carry a text in a code added to a
    # predefined class, so the program gets MPI_ERR_ARG with MPICH's generic
    # "Invalid argument" (OSTIO_MPIIO_VERBOSE=1 prints ostio's line; docs/mpiio.md).
    "error|*|documented: MPICH 4.0 gives ostio's errors its generic class text"
)

# name|ranks (runtests.in; "4" means --np, "4!" exactly 4: the program
# refuses other counts)|arguments (FILE: the output file)|what: noerr (no
# "No Errors" line: exit 0 is a pass), cwd (writes a fixed name in its working
# directory), nocmp (bytes not compared: atomicity's first writer leaves gaps
# that ROMIO's data sieving fills with uninitialised memory, status writes an
# uninitialised buffer; shared_fp's ranks take the shared pointer in any
# order), large (--large only), hintfile (syshints reads the
# hints file it names, also as ROMIO_HINTS: a copy in each run's directory)
PROGRAMS=(
    "simple|4|-fname FILE|"
    "async|4|-fname FILE|"
    "async-multiple|4|-fname FILE|"
    "atomicity|4|-fname FILE|nocmp"
    "coll_test|4|-fname FILE|"
    "excl|4|-fname FILE|"
    "file_info|4|-fname FILE|"
    "i_noncontig|2|-fname FILE|"
    "noncontig|2|-fname FILE|"
    "noncontig_coll|2|-fname FILE|"
    "noncontig_coll2|4|-fname FILE|"
    "aggregation1|4|-h -f FILE|"
    "aggregation2|4|FILE|"
    "hindexed|4!|FILE|"
    "misc|4|-fname FILE|"
    "shared_fp|4|-fname FILE|nocmp"
    "ordered_fp|4|-fname FILE|"
    "split_coll|4|-fname FILE|"
    "psimple|4|-fname FILE|"
    "error|1|-fname FILE|"
    "status|1|-fname FILE|nocmp"
    "types_with_zeros|2|FILE|"
    "darray_read|4!|FILE|"
    "syshints|1|FILEDIR/test_hintfile|hintfile"
    "external32|4||cwd,noerr"
    "creat_excl|4|-fname FILE|"
    "perf|4|-fname FILE|noerr"
    "coll_perf|4|-fname FILE|noerr,large"
    "large_file|4|-fname FILE|large"
    "large_array|4|-fname FILE|large"
    "big_extents|4|FILE|large"
)

usage() { sed -n '2,/^set -uo/p' "$0" | sed '$d; s/^# \{0,1\}//'; }
SOURCE=${MPICH_SOURCE:-} OSTIO_BUILD="" CACHE="" NP=2 ONLY="" LARGE=0 TIMEOUT=300
while [ $# -gt 0 ]; do
    case $1 in
    --source) SOURCE=${2:?--source needs a path}; shift 2 ;;
    --ostio-build) OSTIO_BUILD=${2:?--ostio-build needs a directory}; shift 2 ;;
    --cache) CACHE=${2:?--cache needs a directory}; shift 2 ;;
    --np) NP=${2:?--np needs a number}; shift 2 ;;
    --only) ONLY=${2:?--only needs a regex}; shift 2 ;;
    --large) LARGE=1; shift ;;
    --timeout) TIMEOUT=${2:?--timeout needs seconds}; shift 2 ;;
    -h | --help) usage; exit 0 ;;
    *) echo "$SUITE_NAME: unknown argument '$1' (see --help)" >&2; exit 2 ;;
    esac
done
case $NP in '' | *[!0-9]*) suite_die "--np must be a number of ranks, not '$NP'" ;; esac
say() { echo "$SUITE_NAME: $*" >&2; }

ROOTDIR=$(cd "$HERE/.." && pwd)
if [ -z "$OSTIO_BUILD" ]; then
    for b in "$ROOTDIR/build/test" "$ROOTDIR/build"; do
        [ -e "$b/libostio-mpiio.so" ] && OSTIO_BUILD=$b && break
    done
    [ -n "$OSTIO_BUILD" ] || suite_die "no ostio build with libostio-mpiio.so in build/test or build: give --ostio-build DIR"
fi
OSTIO_BUILD=$(cd "$OSTIO_BUILD" && pwd) || suite_die "--ostio-build: no such directory"
suite_check_ostio "$OSTIO_BUILD"
CACHE=${CACHE:-$OSTIO_BUILD/suites/romio}
mkdir -p "$CACHE" && CACHE=$(cd "$CACHE" && pwd) || suite_die "cannot make $CACHE"
SUITE_MPIEXEC=$(command -v mpiexec.mpich) || suite_die "mpiexec.mpich not found (scripts/deps.sh installs MPICH)"
MPICC=$(command -v mpicc.mpich) || suite_die "mpicc.mpich not found (scripts/deps.sh installs MPICH)"

TESTDIR=$CACHE/romio-test # ROMIO's test directory, the programs built in it
SUB=mpich-$MPICH_VERSION/src/mpi/romio/test

fetch_source() {
    if [ -n "$SOURCE" ]; then
        [ -d "$SOURCE" ] && [ -f "$SOURCE/runtests.in" ] && { echo "$SOURCE"; return 0; }
        [ -d "$SOURCE" ] && [ -d "$SOURCE/$SUB" ] && { echo "$SOURCE/$SUB"; return 0; }
        if [ -d "$SOURCE" ] && [ -f "$SOURCE/mpich_$MPICH_VERSION.orig.tar.xz" ]; then
            echo "$SOURCE/mpich_$MPICH_VERSION.orig.tar.xz"; return 0
        fi
        [ -f "$SOURCE" ] && { echo "$SOURCE"; return 0; }
        suite_die "--source $SOURCE: neither mpich_$MPICH_VERSION.orig.tar.xz, a directory holding it, nor a source tree"
    fi
    suite_debian_source mpich "$MPICH_VERSION" "$CACHE/src" MPICH_SOURCE
}

# build NAME: TESTDIR/NAME from NAME.c or NAME.c.in (ROMIO's @LL@ -> lld).
build() {
    local n=$1 src=$TESTDIR/$1.c
    if [ ! -f "$src" ] && [ -f "$src.in" ]; then
        sed 's/@LL@/lld/g' "$src.in" >"$src"
    fi
    [ -x "$TESTDIR/$n" ] && [ "$TESTDIR/$n" -nt "$src" ] && return 0
    "$MPICC" -O2 -o "$TESTDIR/$n" "$src" >"$TESTDIR/$n.build.log" 2>&1
}

if [ ! -f "$TESTDIR/runtests.in" ]; then
    src=$(fetch_source) || exit $?
    rm -rf "$TESTDIR" && mkdir -p "$TESTDIR"
    if [ -d "$src" ]; then
        cp -a "$src"/. "$TESTDIR"/ || suite_die "cannot copy $src"
    else
        say "extracting $SUB from $src"
        tar -xJf "$src" -C "$CACHE" "$SUB" || suite_die "cannot extract $SUB from $src"
        cp -a "$CACHE/$SUB"/. "$TESTDIR"/ && rm -rf "${CACHE:?}/mpich-$MPICH_VERSION"
    fi
fi

SUITE_ROOT=$CACHE/run SUITE_NP=$NP SUITE_TIMEOUT=$TIMEOUT
SUITE_OK_REGEX='No Errors' SUITE_OK_TEXT='No Errors'
suite_setup "$SUITE_ROOT"
say "np $NP, ostio from $OSTIO_BUILD, ROMIO's tests in $TESTDIR, outputs in $SUITE_ROOT"
t0=$SECONDS
for e in "${PROGRAMS[@]}"; do
    IFS='|' read -r name np args what <<<"$e"
    [ -n "$ONLY" ] && ! echo "$name" | grep -qE "$ONLY" && continue
    if [ "${what%large}" != "$what" ] && [ $LARGE = 0 ]; then
        say "$name: left out (large files or slow; --large runs it)"
        continue
    fi
    if ! build "$name"; then
        say "$name: build failed ($TESTDIR/$name.build.log)"
        row=$SUITE_ROOT/rows/b_$name # sorts after the numbered rows
        printf '%s\t%s\t-\t-\t-\t-\n' "$name" "FAIL-build" >"$row"
        continue
    fi
    [ "$np" = 4 ] && np=$NP
    [ "$np" = '4!' ] && np=4
    out=$SUITE_ROOT/native/$name
    mkdir -p "$out" "$SUITE_ROOT/plain/$name" "$SUITE_ROOT/log/$name"
    if [ "$what" = hintfile ]; then # read through ostio: a copy in each mode's directory
        for m in native plain log; do cp "$TESTDIR/test_hintfile" "$SUITE_ROOT/$m/$name/"; done
    fi
    args=${args//FILEDIR/$out}
    args=${args//FILE/$out/testfile}
    args=${args//SRC/$TESTDIR}
    # shellcheck disable=SC2086
    (
        SUITE_NP=$np
        case ,$what, in *,noerr,*) SUITE_OK_REGEX='' ;; esac
        case ,$what, in *,cwd,*) SUITE_RUNDIR=$out ;; esac
        case ,$what, in *,nocmp,*) SUITE_NOCMP=1 ;; esac
        suite_run3 mpi "$name" "$name" "$TESTDIR/$name" $args >/dev/null
    )
done
say "ran in $((SECONDS - t0)) s"
suite_report
