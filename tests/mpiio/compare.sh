#!/bin/bash
# compare.sh MPIEXEC NP PRELOAD_LIB OSTIO_CLI KIND PROG [ARGS...]
#
# Runs one MPI-IO coverage program (tests/mpiio/*.c) three times in a fresh
# temporary directory and compares the files it leaves:
#   native    MPIEXEC -n NP PROG DIR/native/out ARGS                 (ROMIO)
#   ostio     the same under LD_PRELOAD=PRELOAD_LIB with OSTIO_MPIIO_PATHS=DIR/ostio
#             (and OSTIO_HINTS='*:ostio_container=KIND' for KIND log or striped;
#             KIND logstaged: log containers staged in DIR/stage, ostio_stage_dir),
#             writing DIR/ostio/out: served by the interposer
#   passthru  the same preload and variables, writing DIR/passthru/out, outside
#             OSTIO_MPIIO_PATHS: every call must pass through to ROMIO
# Each run must print "No Errors" and exit 0. Then every file the native run
# left must exist under the same name in the other two runs with the same size
# and bytes; a container (a directory) is first copied to a plain file with
# `OSTIO_CLI container flatten`; passthru files must be plain files, except
# files named *.enable, which the program opens with the hint ostio_mpiio=enable
# (the interposer takes them anywhere: under KIND log or striped they must be
# containers; under KIND log or striped every file of the ostio run must be a
# container: served by the interposer); neither run may leave files the native run did not. One line per compared file; a
# mismatch names the first differing offset.
#
# The variables are set with `env` between the launcher and the program
# (MPIEXEC -n NP env VAR=... PROG), so they reach every rank under MPICH's and
# Open MPI's launchers alike and are not preloaded into the launcher itself.
# PRELOAD_LIB may be a colon-separated list (libostio-mpiio.so:libostio-preload.so:
# the interposer's paths served for POSIX calls too, docs/mpiio.md).
# PRELOAD_LIB 'none': the native run only (the program checked against ROMIO
# where the interposer is not built; OSTIO_CLI and KIND are then unused).
# MPIIO_COMPARE_KEEP=1 keeps the directory; MPIIO_RUN_TIMEOUT (default 120 s)
# bounds each run. MPIIO_COMPARE_HINTS=key=value[:key=value...] adds hints to the
# ostio and passthru runs' OSTIO_HINTS (tests/pfs: ostio_strategy=NAME).
set -u

if [ $# -lt 6 ]; then
    echo "usage: compare.sh MPIEXEC NP PRELOAD_LIB OSTIO_CLI KIND PROG [ARGS...]" >&2
    exit 2
fi
MPIEXEC=$1 NP=$2 PRELOAD=$3 CLI=$4 KIND=$5 PROG=$6
shift 6
case $KIND in
plain) HINTS=() ;;
log | striped) HINTS=("OSTIO_HINTS=*:ostio_container=$KIND") ;;
logstaged) HINTS=() ;; # set below: the stage directory is in DIR
*)
    echo "compare.sh: KIND must be plain, log, logstaged or striped, not '$KIND'" >&2
    exit 2
    ;;
esac
EXTRA=${MPIIO_COMPARE_HINTS:-}
NATIVE_ONLY=0
[ "$PRELOAD" = none ] && NATIVE_ONLY=1
for f in "$PROG" $([ $NATIVE_ONLY = 1 ] || echo "${PRELOAD//:/ }" "$CLI"); do
    if [ ! -x "$f" ] && [ ! -r "$f" ]; then
        echo "compare.sh: $f: not found" >&2
        exit 2
    fi
done

DIR=$(mktemp -d "${TMPDIR:-/tmp}/mpiio_cov.XXXXXX") || exit 1
if [ "${MPIIO_COMPARE_KEEP:-0}" = 1 ]; then
    echo "compare.sh: keeping $DIR"
else
    trap 'rm -rf "$DIR"' EXIT
fi
mkdir -p "$DIR/native" "$DIR/ostio" "$DIR/passthru" "$DIR/flat" "$DIR/elsewhere"
if [ "$KIND" = logstaged ]; then # log containers staged in DIR/stage (docs/staging.md)
    HINTS=("OSTIO_HINTS=*:ostio_container=log:ostio_stage_dir=$DIR/stage")
    KIND=log
fi
if [ -n "$EXTRA" ]; then
    if [ ${#HINTS[@]} -eq 0 ]; then HINTS=("OSTIO_HINTS=*:$EXTRA"); else HINTS=("${HINTS[0]}:$EXTRA"); fi
fi
NAME=$(basename "$PROG")
FAIL=0
fail() {
    echo "FAIL: $*"
    FAIL=1
}

# run LABEL OUTDIR [VAR=VALUE...]: the program on NP ranks writing OUTDIR/out.
run() {
    local label=$1 outdir=$2
    shift 2
    local log="$DIR/$label.log" rc
    timeout "${MPIIO_RUN_TIMEOUT:-120}" "$MPIEXEC" -n "$NP" env "$@" "$PROG" "$outdir/out" \
        "${ARGS[@]}" >"$log" 2>&1
    rc=$?
    sed "s/^/  $label| /" "$log"
    if [ $rc -ne 0 ]; then
        fail "$NAME ($label run, np $NP, $KIND): exit status $rc"
    elif ! grep -qx "No Errors" "$log"; then
        fail "$NAME ($label run, np $NP, $KIND): no 'No Errors' line"
    fi
}

# same A B WHAT: sizes and bytes; cmp for ordinary files, a hole-aware compare
# (SEEK_DATA/SEEK_HOLE) for files over 64 MiB, which are sparse here.
same() {
    local a=$1 b=$2 what=$3 sa sb out
    sa=$(stat -c %s "$a") sb=$(stat -c %s "$b")
    if [ "$sa" != "$sb" ]; then
        fail "$what: size $sb, native $sa"
        sa=mismatch
    fi
    if [ "$sb" -le $((64 << 20)) ]; then
        out=$(cmp "$a" "$b" 2>&1)
        if [ $? -ne 0 ]; then
            local byte
            byte=$(echo "$out" | sed -n 's/.*differ: byte \([0-9]*\),.*/\1/p')
            if [ -n "$byte" ]; then
                local off=$((byte - 1)) va vb
                va=$(od -A n -t x1 -j "$off" -N 1 "$a" | tr -d ' ')
                vb=$(od -A n -t x1 -j "$off" -N 1 "$b" | tr -d ' ')
                fail "$what: first difference at offset $off (native 0x$va, this 0x$vb)"
            elif [ "$sa" = "$sb" ]; then
                fail "$what: cmp: $out"
            fi
            return
        fi
    elif ! out=$(python3 - "$a" "$b" 2>&1 <<'PY'
import os, sys
def extents(fd, size):
    out, off = [], 0
    while off < size:
        try:
            d = os.lseek(fd, off, os.SEEK_DATA)
        except OSError:
            break
        h = os.lseek(fd, d, os.SEEK_HOLE)
        out.append((d, h))
        off = h
    return out
fa, fb = (os.open(p, os.O_RDONLY) for p in sys.argv[1:3])
size = min(os.fstat(fa).st_size, os.fstat(fb).st_size)
ranges = sorted(extents(fa, size) + extents(fb, size))
pos = 0
for s, e in ranges:
    s = max(s, pos)
    while s < e:
        n = min(e - s, 1 << 20)
        x, y = os.pread(fa, n, s), os.pread(fb, n, s)
        if x != y:
            i = next(k for k in range(min(len(x), len(y))) if x[k] != y[k]) if x[:len(y)] != y[:len(x)] else min(len(x), len(y))
            print(f"first difference at offset {s + i}")
            sys.exit(1)
        s += n
    pos = max(pos, e)
PY
    ); then
        fail "$what: $out"
        return
    fi
    [ "$sa" = "$sb" ] && echo "same   $what ($sa bytes)"
}

ARGS=("$@")
run native "$DIR/native" OSTIO_MPIIO_UNUSED=1
if [ $NATIVE_ONLY = 1 ]; then
    [ $FAIL -eq 0 ] && echo "compare.sh: $NAME np $NP: native run passed" && exit 0
    exit 1
fi
run ostio "$DIR/ostio" LD_PRELOAD="$PRELOAD" OSTIO_MPIIO_PATHS="$DIR/ostio" "${HINTS[@]}"
run passthru "$DIR/passthru" LD_PRELOAD="$PRELOAD" OSTIO_MPIIO_PATHS="$DIR/elsewhere" "${HINTS[@]}"

if [ $FAIL -eq 0 ]; then
    for f in $(cd "$DIR/native" && find . -mindepth 1 -maxdepth 1 | sort); do
        f=${f#./}
        if [ -d "$DIR/native/$f" ]; then
            fail "native run left a directory $f"
            continue
        fi
        for side in ostio passthru; do
            p="$DIR/$side/$f"
            if [ $side = passthru ] && [ "$KIND" != plain ] && [ "${f%.enable}" != "$f" ] &&
                [ ! -d "$p" ]; then
                fail "$side/$f: opened with ostio_mpiio=enable under $KIND, but not a container"
            fi
            if [ $side = ostio ] && [ "$KIND" != plain ] && [ -f "$p" ]; then
                fail "$side/$f: a plain file under $KIND: the interposer did not serve it"
            fi
            if [ -d "$p" ]; then
                if [ $side = passthru ] && [ "${f%.enable}" = "$f" ]; then
                    fail "$side/$f is a container: the file is outside OSTIO_MPIIO_PATHS"
                    continue
                fi
                flat="$DIR/flat/$f"
                if ! "$CLI" container flatten "$p" "$flat" >"$DIR/flatten.log" 2>&1; then
                    sed 's/^/  flatten| /' "$DIR/flatten.log"
                    fail "$side/$f: ostio container flatten failed"
                    continue
                fi
                same "$DIR/native/$f" "$flat" "$side/$f (container, flattened)"
                rm -f "$flat"
            elif [ -f "$p" ]; then
                same "$DIR/native/$f" "$p" "$side/$f"
            else
                fail "$side/$f: missing (the native run wrote it)"
            fi
        done
    done
    for side in ostio passthru; do
        for f in $(cd "$DIR/$side" && find . -mindepth 1 -maxdepth 1 | sort); do
            f=${f#./}
            [ -e "$DIR/native/$f" ] || fail "$side/$f: left behind, the native run has no such file"
        done
    done
    extra=$(cd "$DIR/elsewhere" && find . -mindepth 1 | head -3)
    [ -z "$extra" ] || fail "passthru run wrote into OSTIO_MPIIO_PATHS: $extra"
    if [ -d "$DIR/stage" ]; then # every close drained: nothing staged is left
        left=$(find "$DIR/stage" -type f | head -3)
        [ -z "$left" ] || fail "staged logs left after the job: $left"
        STAGED=1
    fi
fi

if [ "${HINTS[*]}" != "${HINTS[*]#*ostio_stage_dir}" ] && [ "${STAGED:-0}" != 1 ]; then
    fail "logstaged: the ostio run made no stage directory (was the file staged?)"
fi
if [ $FAIL -eq 0 ]; then
    echo "compare.sh: $NAME np $NP $KIND: identical"
    exit 0
fi
echo "compare.sh: $NAME np $NP $KIND: FAILED (directory $DIR$([ "${MPIIO_COMPARE_KEEP:-0}" = 1 ] || echo ', removed; MPIIO_COMPARE_KEEP=1 keeps it'))"
exit 1
