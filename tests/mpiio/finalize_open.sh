#!/bin/bash
# finalize_open.sh MPIEXEC NP LIB CLI KIND PROG CASE
#
# Files left open at MPI_Finalize through libostio-mpiio.so (issue 28 item 7;
# tests/mpiio/finalize_open.c says what each CASE writes and leaves open).
#   step 1  MPIEXEC -n NP env LD_PRELOAD=LIB OSTIO_MPIIO_PATHS=DIR [OSTIO_HINTS] PROG CASE DIR/out
#           must exit 0, and print on stderr exactly one line
#             ostio: file PATH was still open at MPI_Finalize; closed it: <how>
#           per leaked file (rank 0 of the file's communicator), in open order
#   step 2  every file it wrote is a container under KIND log (a plain file under
#           plain); containers are flattened with `CLI container flatten`; then
#           PROG check CASE NP DIR/out compares the bytes with what step 1 wrote.
# KIND: plain | log (OSTIO_HINTS='*:ostio_container=log').
# FINALIZE_OPEN_KEEP=1 keeps the directory; each run is bounded by 120 s.
set -u
if [ $# -ne 7 ]; then
    echo "usage: finalize_open.sh MPIEXEC NP LIB CLI KIND PROG CASE" >&2
    exit 2
fi
MPIEXEC=$1 NP=$2 LIB=$3 CLI=$4 KIND=$5 PROG=$6 CASE=$7
case $KIND in
plain) HINTS=() ;;
log) HINTS=("OSTIO_HINTS=*:ostio_container=log") ;;
*)
    echo "finalize_open.sh: KIND must be plain or log, not '$KIND'" >&2
    exit 2
    ;;
esac
case $CASE in
one | shared | mixed) LEAKED=(out) ;;
two) LEAKED=(out.a out.b) ;;
libattr) LEAKED=(out.b) ;;
*)
    echo "finalize_open.sh: unknown CASE '$CASE'" >&2
    exit 2
    ;;
esac
case $CASE in
two) FILES=(out.a out.b) ;;
libattr) FILES=(out out.b) ;;
*) FILES=(out) ;;
esac

DIR=$(mktemp -d "${TMPDIR:-/tmp}/finalize_open.XXXXXX") || exit 1
if [ "${FINALIZE_OPEN_KEEP:-0}" = 1 ]; then
    echo "finalize_open.sh: keeping $DIR"
else
    trap 'rm -rf "$DIR"' EXIT
fi
mkdir "$DIR/w" "$DIR/flat"
fails=0
fail() {
    echo "FAIL: $*"
    fails=$((fails + 1))
}

# Step 1: write, leave open, MPI_Finalize.
timeout -k 10 120 "$MPIEXEC" -n "$NP" env LD_PRELOAD="$LIB" OSTIO_MPIIO_PATHS="$DIR/w" \
    ${HINTS[@]+"${HINTS[@]}"} "$PROG" "$CASE" "$DIR/w/out" >"$DIR/stdout" 2>"$DIR/stderr"
rc=$?
sed 's/^/  stdout| /' "$DIR/stdout"
sed 's/^/  stderr| /' "$DIR/stderr"
[ $rc -eq 0 ] || fail "step 1 exited $rc (want 0)"

# The warning lines: one per leaked file, in open order, nothing else from ostio.
want=""
for f in "${LEAKED[@]}"; do
    want+="ostio: file $DIR/w/$f was still open at MPI_Finalize; closed it:"$'\n'
done
got=$(grep '^ostio: ' "$DIR/stderr" | sed 's/closed it:.*/closed it:/')
[ "$got"$'\n' = "$want" ] || fail "warning lines differ; want:
$want
got:
$got"

# Step 2: the bytes on disk.
for f in "${FILES[@]}"; do
    p=$DIR/w/$f
    if [ "$KIND" = log ]; then
        [ -d "$p" ] || { fail "$f: not a container"; continue; }
        if ! "$CLI" container flatten "$p" "$DIR/flat/$f" >"$DIR/flatten.log" 2>&1; then
            sed 's/^/  flatten| /' "$DIR/flatten.log"
            fail "$f: ostio container flatten failed"
        fi
    else
        [ -f "$p" ] || { fail "$f: not a plain file"; continue; }
        cp "$p" "$DIR/flat/$f"
    fi
done
"$PROG" check "$CASE" "$NP" "$DIR/flat/out" || fail "step 2: the bytes on disk differ"
if [ $fails -ne 0 ]; then
    echo "finalize_open.sh: $fails failures ($CASE, $KIND, np $NP)"
    exit 1
fi
echo "finalize_open.sh: $CASE $KIND np $NP: exit 0, warnings and bytes as expected"
