#!/usr/bin/env bash
# OSD write operations, read from the OSDs' perf counters (`ceph tell osd.N perf dump`,
# osd.op_w), around two runs of the same 64 x 4 KiB writes from node 0:
#  - alone: node 0's client caches them; at most 16 object writes reach the OSDs;
#  - while node 1 merely holds the file open read-only: CephFS stops node 0's caching
#    and every write is one synchronous object write: at least 64.
# Counts only, no timing.
. "$(dirname "$0")/lib.sh"
pfs_require
M=$OSTIO_PFS_MNT T=$(mktemp -d)
trap '[ -z "${h:-}" ] || kill $h 2>/dev/null; "$PFS" exec 0 rm -rf "$M/ops"; rm -rf "$T"' EXIT
"$PFS" exec 0 rm -rf "$M/ops"
"$PFS" exec 0 mkdir -p "$M/ops" || fail "mkdir"
head -c 262144 /dev/urandom >"$T/src"
write64() { "$PFS" exec 0 dd if="$T/src" of="$1" bs=4096 count=64 conv=fsync status=none || fail "dd on node 0"; }

"$PFS" exec 0 touch "$M/ops/alone" "$M/ops/shared" || fail "touch"
a0=$(osd_op_w)
write64 "$M/ops/alone"
a1=$(osd_op_w)
alone=$((a1 - a0))

"$PFS" exec 1 python3 -c 'import os, sys, time
fd = os.open(sys.argv[1], os.O_RDONLY)
open(sys.argv[2], "w").close()
time.sleep(120)' "$M/ops/shared" "$T/open" &
h=$!
for _ in $(seq 300); do [ -e "$T/open" ] && break; sleep 0.1; done
[ -e "$T/open" ] || fail "node 1 did not open the file"
s0=$(osd_op_w)
write64 "$M/ops/shared"
s1=$(osd_op_w)
shared=$((s1 - s0))
kill $h 2>/dev/null
wait $h 2>/dev/null
h=
"$PFS" exec 1 cmp "$T/src" "$M/ops/shared" || fail "node 1 reads other bytes"
"$PFS" exec 1 cmp "$T/src" "$M/ops/alone" || fail "node 1 reads other bytes (alone)"
echo "OSD op_w for 64 x 4 KiB from node 0: alone $alone, with the file open on node 1 $shared"
[ "$alone" -ge 1 ] || fail "no OSD write counted for the 256 KiB written alone ($alone)"
[ "$alone" -le 16 ] || fail "one client alone: $alone object writes for 64 writes (want <= 16: cached)"
[ "$shared" -ge 64 ] || fail "file open on a second client: $shared object writes for 64 writes (want >= 64: uncached)"
echo ok
