#!/bin/bash
# finalize_py.sh MPIEXEC NP LIB CLI KIND PYTHON
#
# An mpi4py script that raises with a file open (tests/mpiio/finalize_raise.py)
# under LD_PRELOAD=LIB (libostio-mpiio.so) writing into OSTIO_MPIIO_PATHS (KIND
# plain, or log: OSTIO_HINTS='*:ostio_container=log'). Python's exit status (1)
# and its traceback must come out, with ostio's warning line for the file and no
# abort; the bytes written before the raise must be on disk (containers
# flattened with CLI). Skips (77) when no Python (PYTHON, then /usr/bin/python3)
# imports mpi4py (Debian: python3-mpi4py; scripts/deps.sh --mpi4py) or when
# mpi4py uses another MPI library than LIB (Debian's is built on Open MPI).
set -u
if [ $# -ne 6 ]; then
    echo "usage: finalize_py.sh MPIEXEC NP LIB CLI KIND PYTHON" >&2
    exit 2
fi
MPIEXEC=$1 NP=$2 LIB=$3 CLI=$4 KIND=$5 PY=$6
HERE=$(cd "$(dirname "$0")" && pwd)
case $KIND in
plain) HINTS=() ;;
log) HINTS=("OSTIO_HINTS=*:ostio_container=log") ;;
*)
    echo "finalize_py.sh: KIND must be plain or log, not '$KIND'" >&2
    exit 2
    ;;
esac
mod=""
for p in "$PY" /usr/bin/python3; do
    mod=$("$p" -c 'import mpi4py.MPI as M; print(M.__file__)' 2>/dev/null) && { PY=$p; break; }
    mod=""
done
if [ -z "$mod" ]; then
    echo "SKIP: no Python here imports mpi4py (Debian: python3-mpi4py; scripts/deps.sh --mpi4py)"
    exit 77
fi
# The MPI library each one loads (libmpich.so.12, libmpi.so.40, ...).
mpilib() { ldd "$1" 2>/dev/null | grep -o 'lib\(mpi\|mpich\)[a-z_]*\.so[.0-9]*' | head -n 1; }
want=$(mpilib "$LIB") got=$(mpilib "$mod")
if [ -z "$want" ] || [ "$want" != "$got" ]; then
    echo "SKIP: mpi4py ($mod) uses ${got:-an unknown MPI library}, this build ${want:-?}; the test" \
        "runs in the build whose MPI is mpi4py's (Debian's: Open MPI, scripts/test.sh's third pass)"
    exit 77
fi

DIR=$(mktemp -d "${TMPDIR:-/tmp}/finalize_py.XXXXXX") || exit 1
trap 'rm -rf "$DIR"' EXIT
mkdir "$DIR/w"
fails=0
fail() {
    echo "FAIL: $*"
    fails=$((fails + 1))
}
timeout -k 10 120 "$MPIEXEC" -n "$NP" env LD_PRELOAD="$LIB" OSTIO_MPIIO_PATHS="$DIR/w" \
    ${HINTS[@]+"${HINTS[@]}"} "$PY" "$HERE/finalize_raise.py" "$DIR/w/out" \
    >"$DIR/stdout" 2>"$DIR/stderr"
rc=$?
sed 's/^/  stdout| /' "$DIR/stdout"
sed 's/^/  stderr| /' "$DIR/stderr"
[ $rc -eq 1 ] || fail "exit status $rc (want Python's 1)"
# Counted as occurrences, not lines: the ranks' tracebacks reach one stderr and
# their lines can interleave mid-line. At least one, not one per rank: Open MPI's
# mpiexec aborts the job when the first rank exits 1 and can drop another rank's
# output still in its forwarding (both seen in CI runs); the exit status above and
# the warning and bytes below are what shows there was no abort.
n=$(grep -o 'RuntimeError: raised with a file open' "$DIR/stderr" | wc -l)
[ "$n" -ge 1 ] || fail "no traceback ending in the RuntimeError"
n=$(grep -o "ostio: file $DIR/w/out was still open at MPI_Finalize; closed it: its data is kept" \
    "$DIR/stderr" | wc -l)
[ "$n" -eq 1 ] || fail "$n warning lines for the file (want 1)"
! grep -q 'Assertion\|BAD TERMINATION\|signal [0-9]\|MPI_ABORT\|core dumped' "$DIR/stdout" "$DIR/stderr" ||
    fail "an abort was reported"
flat=$DIR/w/out
if [ "$KIND" = log ]; then
    [ -d "$DIR/w/out" ] || fail "out: not a container"
    flat=$DIR/flat
    "$CLI" container flatten "$DIR/w/out" "$flat" || fail "ostio container flatten failed"
fi
"$PY" - "$flat" "$NP" <<'PYEOF' || fail "the bytes on disk differ"
import sys
want = b"".join(bytes((r * 31 + i) % 251 for i in range(1000)) for r in range(int(sys.argv[2])))
got = open(sys.argv[1], "rb").read()
if got != want:
    first = next((i for i in range(min(len(got), len(want))) if got[i] != want[i]), None)
    sys.exit(f"{len(got)} bytes (want {len(want)}), first difference at {first}")
PYEOF
if [ $fails -ne 0 ]; then
    echo "finalize_py.sh: $fails failures ($KIND, np $NP)"
    exit 1
fi
echo "finalize_py.sh: $KIND np $NP: exit 1 with the traceback, the warning, bytes as written"
