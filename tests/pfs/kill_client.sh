#!/usr/bin/env bash
# kill_client.sh CRASH_WRITER CRASH_CHECK OSTIO_CLI
# A writer killed mid-write, then a client killed mid-write:
# 1. log_crash_writer (a log container through the library, ostio_sync every 7 writes,
#    the last synced step in a side file) on node 1, SIGKILLed after ~1.5 s; on node 0
#    (another client) `ostio container recover` and `flatten` give back every synced byte
#    (pfs_crash_check replays the writes).
# 2. node 1's ceph-fuse SIGKILLed while a writer on node 1 appends 4 KiB blocks with
#    fsync: the writer ends within 60 s; node 0 still creates, writes and reads a file;
#    node 0 reads every block the writer saw fsync return for (within 150 s: the MDS
#    evicts the dead client after its session autoclose, 45 s here); node 1 is then
#    mounted again (pfs.sh restart-client) and works.
. "$(dirname "$0")/lib.sh"
[ $# -eq 3 ] || { echo "usage: kill_client.sh CRASH_WRITER CRASH_CHECK OSTIO_CLI" >&2; exit 2; }
WRITER=$1 CHECK=$2 CLI=$3
pfs_require
M=$OSTIO_PFS_MNT T=$(mktemp -d)
restart=0
cleanup() {
  [ $restart = 0 ] || "$PFS" restart-client 1 || echo "could not mount node 1 again"
  "$PFS" exec 0 timeout 120 rm -rf "$M/kill"
  rm -rf "$T"
}
trap cleanup EXIT
"$PFS" exec 0 rm -rf "$M/kill"
"$PFS" exec 0 mkdir -p "$M/kill" || fail "mkdir"

# 1. the writer rank killed
seed=$((RANDOM * 32768 + RANDOM))
"$PFS" exec 1 "$WRITER" "$M/kill/ctr" "$T/side" "$seed" 1 &
w=$!
for _ in $(seq 600); do [ -s "$T/side" ] && break; sleep 0.05; done
[ -s "$T/side" ] || fail "the writer on node 1 synced nothing in 30 s"
sleep 1.5
kill -KILL $w 2>/dev/null
wait $w
rc=$?
done=$(od -A n -t d4 -N 4 "$T/side" | tr -d ' ')
echo "writer killed (status $rc) after step $done was synced (seed $seed)"
[ $rc = 137 ] || [ $rc = 0 ] || fail "the writer failed by itself (status $rc)"
timeout 120 "$PFS" exec 0 "$CLI" container recover "$M/kill/ctr" || fail "recover on node 0"
timeout 120 "$PFS" exec 0 "$CLI" container check "$M/kill/ctr" || fail "check on node 0 after recover"
timeout 120 "$PFS" exec 0 "$CLI" container flatten "$M/kill/ctr" "$T/flat" >/dev/null || fail "flatten on node 0"
"$CHECK" "$T/flat" "$seed" 1 "$done" || fail "synced bytes missing after the writer was killed"

# 2. the client killed
fuse=$(cat "$OSTIO_PFS_DIR/run/client.node1.pid") || fail "no pid file of node 1's ceph-fuse"
"$PFS" exec 1 python3 - "$M/kill/big" "$T/synced" <<'PY' &
import os, sys
fd = os.open(sys.argv[1], os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
for i in range(1 << 20):
    os.write(fd, bytes([i % 251 + 1]) * 4096)
    os.fsync(fd)
    with open(sys.argv[2] + ".tmp", "w") as f:
        f.write(str(i + 1))
    os.replace(sys.argv[2] + ".tmp", sys.argv[2])
PY
w=$!
for _ in $(seq 600); do [ -s "$T/synced" ] && break; sleep 0.05; done
[ -s "$T/synced" ] || fail "the writer on node 1 synced nothing in 30 s"
sleep 1
restart=1
kill -KILL "$fuse"
echo "node 1's ceph-fuse (pid $fuse) killed after $(cat "$T/synced") synced blocks"
timeout 60 tail --pid=$w -f /dev/null || fail "the writer on node 1 still runs 60 s after its client was killed"
wait $w && fail "the writer on node 1 went on without its client"
synced=$(cat "$T/synced")
echo "the writer on node 1 ended with an error; $synced blocks were fsync'ed"
head -c 100000 /dev/urandom >"$T/x"
timeout 60 "$PFS" exec 0 cp "$T/x" "$M/kill/other" || fail "node 0 cannot write a new file after node 1's client died"
timeout 60 "$PFS" exec 0 cmp "$T/x" "$M/kill/other" || fail "node 0 reads back other bytes"
timeout 150 "$PFS" exec 0 python3 - "$M/kill/big" "$synced" <<'PY' || fail "node 0 does not read every fsync'ed block of the killed client's writer"
import sys
n = int(sys.argv[2])
with open(sys.argv[1], "rb") as f:
    data = f.read()
assert len(data) >= n * 4096, f"{len(data)} bytes, {n} blocks were fsync'ed"
for i in range(n):
    assert data[i * 4096:(i + 1) * 4096] == bytes([i % 251 + 1]) * 4096, f"block {i} differs"
print(f"node 0 reads all {n} fsync'ed blocks ({len(data)} bytes)")
PY
"$PFS" restart-client 1 || fail "node 1 could not mount again"
restart=0
"$PFS" exec 1 cmp "$T/x" "$M/kill/other" || fail "node 1 after its new mount reads other bytes"
echo "ok"
