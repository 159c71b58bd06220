#!/usr/bin/env bash
# Two clients, one file: nodes 0 and 1 are different ceph-fuse clients (different
# client ids, both in the MDS's session list) at the same path; bytes written and
# closed on one are read back exactly on the other, both ways, and a file held open
# read-only on node 1 sees node 0's later write after node 0 closes.
. "$(dirname "$0")/lib.sh"
pfs_require
M=$OSTIO_PFS_MNT T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
c0=$(client_id 0) c1=$(client_id 1)
[ -n "$c0" ] && [ -n "$c1" ] && [ "$c0" != "$c1" ] || fail "client ids '$c0' and '$c1' (want two different clients)"
sess=$(pceph tell mds.a session ls | python3 -c 'import json,sys; print(" ".join("client%d" % s["id"] for s in json.load(sys.stdin)))')
for c in "$c0" "$c1"; do case " $sess " in *" $c "*) ;; *) fail "$c not in the MDS sessions ($sess)" ;; esac; done
echo "node 0 is $c0, node 1 is $c1; MDS sessions: $sess"

"$PFS" exec 0 rm -rf "$M/two" && "$PFS" exec 0 mkdir -p "$M/two" || fail "mkdir on node 0"
head -c 3000001 /dev/urandom >"$T/a"
"$PFS" exec 0 cp "$T/a" "$M/two/f" || fail "cp on node 0"
"$PFS" exec 1 cmp "$T/a" "$M/two/f" || fail "node 1 does not read node 0's bytes"
# node 1 overwrites 5000 bytes in the middle; node 0 sees them.
head -c 5000 /dev/urandom >"$T/patch"
"$PFS" exec 1 dd if="$T/patch" of="$M/two/f" bs=5000 oflag=seek_bytes conv=notrunc seek=777777 status=none ||
  fail "dd on node 1"
cp "$T/a" "$T/want" && dd if="$T/patch" of="$T/want" bs=5000 oflag=seek_bytes conv=notrunc seek=777777 status=none
"$PFS" exec 0 cmp "$T/want" "$M/two/f" || fail "node 0 does not read node 1's overwrite"
# node 1 holds the file open read-only while node 0 appends; after node 0's close, node 1's open descriptor reads it.
"$PFS" exec 1 python3 - "$M/two/f" "$T/ready" "$T/go" "$T/tail" <<'PY' &
import os, sys, time
fd = os.open(sys.argv[1], os.O_RDONLY)
open(sys.argv[2], "w").close()
for _ in range(600):
    if os.path.exists(sys.argv[3]): break
    time.sleep(0.1)
os.lseek(fd, 3000001, os.SEEK_SET)
open(sys.argv[4], "wb").write(os.read(fd, 1 << 20))
PY
holder=$!
for _ in $(seq 300); do [ -e "$T/ready" ] && break; sleep 0.1; done
[ -e "$T/ready" ] || fail "node 1's reader did not open the file"
head -c 70000 /dev/urandom >"$T/app"
"$PFS" exec 0 sh -c 'cat "$1" >>"$2"' sh "$T/app" "$M/two/f" || fail "append on node 0"
touch "$T/go"
timeout 60 tail --pid=$holder -f /dev/null || fail "node 1's reader did not finish in 60 s"
wait $holder || fail "node 1's reader failed"
cmp "$T/app" "$T/tail" || fail "node 1's open descriptor does not read node 0's appended bytes"
"$PFS" exec 0 rm -rf "$M/two"
echo "ok: 3000001 bytes node 0 -> node 1, 5000 node 1 -> node 0, 70000 appended on node 0 read by node 1's open descriptor"
