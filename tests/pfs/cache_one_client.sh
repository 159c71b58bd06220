#!/usr/bin/env bash
# cache_one_client.sh PFS_DEFER_WRITE: issue 30 item 5, the cooperative cache's one-client
# rule on CephFS (docs/cache.md, "One writing client"). Two ranks on two clients write
# 8 MiB in interleaved 4 KiB blocks, one ostio_write_at per block, with
# ostio_cache=enable, then sync; every rank reads every byte back on its own client
# (pfs_defer_write checks them). OSD write operations (op_w) around each run:
#  - default hints: the rank on the second client ships its writes to the flusher at
#    the sync, so only the first client opens the file, it caches, and the 8 MiB reach
#    the OSDs in few object writes (<= 32);
#  - ostio_deferred_open=disable: both clients open the file at ostio_open, neither
#    caches, and every write the client passes on (FUSE: 128 KiB at most) is one
#    synchronous object write (>= 64). This run shows the count can fail.
# Before the rule, the second client's rank filled pages and wrote evicted ones back
# itself, so it opened the file (measured on bluestore: 76 op_w with the default hints;
# 14 with the rule, 77 with ostio_deferred_open=disable).
# Counts only, no timing.
. "$(dirname "$0")/lib.sh"
[ $# -eq 1 ] || { echo "usage: cache_one_client.sh PFS_DEFER_WRITE" >&2; exit 2; }
PROG=$1
pfs_require
M=$OSTIO_PFS_MNT
trap '"$PFS" exec 0 rm -rf "$M/cache1"' EXIT
"$PFS" exec 0 rm -rf "$M/cache1"
"$PFS" exec 0 mkdir -p "$M/cache1" || fail "mkdir"

# run NAME HINTS: op_w of one run into a new file.
run() {
  local a b
  a=$(osd_op_w)
  timeout 300 "$PFS" mpiexec --nodes 2 -n 2 "$PROG" "$M/cache1/$1" 8 "$2" indep >&2 ||
    { echo "FAIL: pfs_defer_write ($1, hints '$2', independent)" >&2; return 1; }
  b=$(osd_op_w)
  echo $((b - a))
}
one=$(run one "ostio_cache=enable") || fail "the run with the cache"
both=$(run both "ostio_cache=enable ostio_deferred_open=disable") || fail "the run with every rank opening"
echo "OSD op_w for 8 MiB in independent 4 KiB writes from 2 clients through the cache: one client $one, both clients opening $both"
[ "$one" -ge 1 ] || fail "no OSD write counted for the cached run ($one)"
[ "$one" -le 32 ] || fail "the cache: $one object writes for 8 MiB (want <= 32: one client writes back, and caches)"
[ "$both" -ge 64 ] || fail "every rank opening: $both object writes for 8 MiB (want >= 64: uncached); the test cannot tell the two apart"
echo ok
