#!/bin/bash
# pmpi_tool.sh MPIEXEC NP OSTIO_MPIIO_LIB OSTIO_CLI APP TOOL SHAPE
#
# libostio-mpiio.so with a PMPI tool (docs/mpiio.md, "Tools and Fortran").
# APP is tests/mpiio/pmpi_app.c (five MPI-IO calls per rank, "No Errors");
# TOOL a build of tests/mpiio/pmpi_tool.c of SHAPE dlsym (Darshan's: MPI_ and
# PMPI_ names, forwards through dlsym(RTLD_NEXT)) or classic (MPI_ names, calls
# PMPI_ by linking); TOOL 'none' (SHAPE none): APP alone, calling PMPI_File_*.
# The native run (no preload) gives the reference file; every other run must
# print "No Errors", exit 0, leave the same bytes (a container flattened with
# OSTIO_CLI), a container where ostio serves the file under the log hint and a
# plain file where it does not, and the tool must have counted what the table
# below says (per rank; the bytes are those the writes asked for).
#
#   case                     LD_PRELOAD      file            dlsym   classic
#   tool first, plain        tool ostio      in the paths    counts  counts
#   tool first, log          tool ostio      in the paths    counts  counts
#   ostio first, log         ostio tool      in the paths    0       0
#   ostio first, elsewhere   ostio tool      outside         counts  0
#   tool first, elsewhere    tool ostio      outside         counts  counts
#   tool first, log, PMPI    tool ostio      in the paths    counts  0   (APP calls PMPI_File_*)
set -u
if [ $# -ne 7 ]; then
    echo "usage: pmpi_tool.sh MPIEXEC NP OSTIO_MPIIO_LIB OSTIO_CLI APP TOOL SHAPE" >&2
    exit 2
fi
MPIEXEC=$1 NP=$2 LIB=$3 CLI=$4 APP=$5 TOOL=$6 SHAPE=$7
case $SHAPE in dlsym | classic | none) ;; *)
    echo "pmpi_tool.sh: SHAPE must be dlsym, classic or none, not '$SHAPE'" >&2
    exit 2
    ;;
esac
DIR=$(mktemp -d "${TMPDIR:-/tmp}/pmpi_tool.XXXXXX") || exit 1
trap 'rm -rf "$DIR"' EXIT
mkdir -p "$DIR/native" "$DIR/paths" "$DIR/elsewhere" "$DIR/counts"
FAIL=0
fail() {
    echo "FAIL: $*"
    FAIL=1
}

# run LABEL OUT MODE [VAR=VALUE...]: APP on NP ranks writing OUT.
run() {
    local label=$1 out=$2 mode=$3 rc
    shift 3
    timeout 120 "$MPIEXEC" -n "$NP" env PMPI_TOOL_OUT="$DIR/counts/$label" "$@" "$APP" "$out" \
        "$mode" >"$DIR/$label.log" 2>&1
    rc=$?
    sed "s/^/  $label| /" "$DIR/$label.log"
    [ $rc -eq 0 ] || fail "$label: exit status $rc"
    grep -qx "No Errors" "$DIR/$label.log" || fail "$label: no 'No Errors' line"
}

# bytes LABEL OUT container|plain: OUT has the native bytes, in that form.
bytes() {
    local label=$1 out=$2 form=$3 f=$2
    if [ "$form" = container ]; then
        [ -d "$out" ] || { fail "$label: $out is not a container: ostio did not serve it"; return; }
        f="$DIR/flat.$label"
        "$CLI" container flatten "$out" "$f" >/dev/null 2>&1 || { fail "$label: flatten failed"; return; }
    elif [ ! -f "$out" ]; then
        fail "$label: $out is not a plain file"
        return
    fi
    if cmp "$DIR/native/out" "$f"; then
        echo "same   $label ($(stat -c %s "$f") bytes, $form)"
    else
        fail "$label: bytes differ from the native run's"
    fi
}

# counts LABEL PER_RANK: the tool counted PER_RANK calls of each kind per rank.
counts() {
    local label=$1 k=$2 got want
    [ "$SHAPE" = none ] && return
    for key in open close write_at write_at_all read_at_all bytes; do
        got=$(cat "$DIR/counts/$label".[0-9]* 2>/dev/null | awk -v k=$key '$1 == k { s += $2 } END { print s + 0 }')
        want=$((k * NP))
        [ $key = bytes ] && want=$((k * NP * (1024 + 256)))
        [ "$got" = "$want" ] || fail "$label: the tool counted $key $got, expected $want"
    done
    [ $FAIL -eq 0 ] && echo "counts $label: $k call(s) of each per rank"
}

LOG=("OSTIO_HINTS=*:ostio_container=log")
run native "$DIR/native/out" mpi OSTIO_MPIIO_UNUSED=1
[ -f "$DIR/native/out" ] || fail "native run left no file"
if [ "$SHAPE" = none ]; then
    run pmpi.plain "$DIR/paths/p" pmpi LD_PRELOAD="$LIB" OSTIO_MPIIO_PATHS="$DIR/paths" OSTIO_STATS=1
    bytes pmpi.plain "$DIR/paths/p" plain
    grep -q "ostio stats for $DIR/paths/p" "$DIR/pmpi.plain.log" || fail "pmpi.plain: no OSTIO_STATS report: ostio did not serve it"
    run pmpi.log "$DIR/paths/l" pmpi LD_PRELOAD="$LIB" OSTIO_MPIIO_PATHS="$DIR/paths" "${LOG[@]}"
    bytes pmpi.log "$DIR/paths/l" container
else
    T=$TOOL O=$LIB
    run tool_first.plain "$DIR/paths/a" mpi LD_PRELOAD="$T $O" OSTIO_MPIIO_PATHS="$DIR/paths"
    bytes tool_first.plain "$DIR/paths/a" plain
    counts tool_first.plain 1
    run tool_first.log "$DIR/paths/b" mpi LD_PRELOAD="$T $O" OSTIO_MPIIO_PATHS="$DIR/paths" "${LOG[@]}"
    bytes tool_first.log "$DIR/paths/b" container
    counts tool_first.log 1
    run ostio_first.log "$DIR/paths/c" mpi LD_PRELOAD="$O $T" OSTIO_MPIIO_PATHS="$DIR/paths" "${LOG[@]}"
    bytes ostio_first.log "$DIR/paths/c" container
    counts ostio_first.log 0
    run ostio_first.elsewhere "$DIR/elsewhere/d" mpi LD_PRELOAD="$O $T" OSTIO_MPIIO_PATHS="$DIR/paths" "${LOG[@]}"
    bytes ostio_first.elsewhere "$DIR/elsewhere/d" plain
    [ "$SHAPE" = dlsym ] && counts ostio_first.elsewhere 1 || counts ostio_first.elsewhere 0
    run tool_first.elsewhere "$DIR/elsewhere/e" mpi LD_PRELOAD="$T $O" OSTIO_MPIIO_PATHS="$DIR/paths" "${LOG[@]}"
    bytes tool_first.elsewhere "$DIR/elsewhere/e" plain
    counts tool_first.elsewhere 1
    run tool_first.log.pmpi "$DIR/paths/f" pmpi LD_PRELOAD="$T $O" OSTIO_MPIIO_PATHS="$DIR/paths" "${LOG[@]}"
    bytes tool_first.log.pmpi "$DIR/paths/f" container
    [ "$SHAPE" = dlsym ] && counts tool_first.log.pmpi 1 || counts tool_first.log.pmpi 0
fi
if [ $FAIL -eq 0 ]; then
    echo "pmpi_tool.sh: $SHAPE np $NP: passed"
    exit 0
fi
echo "pmpi_tool.sh: $SHAPE np $NP: FAILED"
exit 1
