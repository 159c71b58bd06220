#!/usr/bin/env bash
# defer_open.sh PFS_DEFER_WRITE: issue 30's deferred open on CephFS. Two ranks on two
# clients write 8 MiB in interleaved 4 KiB blocks with one ostio_write_all, cb_nodes=1
# (one aggregator) and ostio_strategy=even (an exchanging strategy, whatever `auto`
# would choose), then sync; every rank reads every byte back on its own client
# (pfs_defer_write checks them). OSD write operations (op_w, the OSDs' perf counters)
# around each run:
#  - default hints: only the aggregator opens the file, its client caches, and the
#    8 MiB reach the OSDs in few object writes (<= 32; measured 11-18 on memstore);
#  - ostio_deferred_open=disable (every rank opens at ostio_open, as ROMIO's default
#    does): the second client's open stops the aggregator's caching and every write
#    the client passes on (FUSE: 128 KiB at most) is one synchronous object write
#    (>= 64; measured 76-78). This run shows the count can fail.
# Counts only, no timing.
. "$(dirname "$0")/lib.sh"
[ $# -eq 1 ] || { echo "usage: defer_open.sh PFS_DEFER_WRITE" >&2; exit 2; }
PROG=$1
pfs_require
M=$OSTIO_PFS_MNT
trap '"$PFS" exec 0 rm -rf "$M/defer"' EXIT
"$PFS" exec 0 rm -rf "$M/defer"
"$PFS" exec 0 mkdir -p "$M/defer" || fail "mkdir"

# run NAME HINTS: op_w of one run into a new file.
run() {
  local a b
  a=$(osd_op_w)
  timeout 300 "$PFS" mpiexec --nodes 2 -n 2 "$PROG" "$M/defer/$1" 8 "$2" >&2 ||
    { echo "FAIL: pfs_defer_write ($1, hints '$2')" >&2; return 1; }
  b=$(osd_op_w)
  echo $((b - a))
}
deferred=$(run deferred "cb_nodes=1 ostio_strategy=even") || fail "the deferred run"
opened=$(run opened "cb_nodes=1 ostio_strategy=even ostio_deferred_open=disable") || fail "the run with every rank opening"
echo "OSD op_w for 8 MiB in 4 KiB blocks from 2 clients, one aggregator: deferred open $deferred, every rank opening $opened"
[ "$deferred" -ge 1 ] || fail "no OSD write counted for the deferred run ($deferred)"
[ "$deferred" -le 32 ] || fail "deferred open: $deferred object writes for 8 MiB (want <= 32: the aggregator's client caches)"
[ "$opened" -ge 64 ] || fail "every rank opening: $opened object writes for 8 MiB (want >= 64: uncached); the test cannot tell the two apart"
echo ok
