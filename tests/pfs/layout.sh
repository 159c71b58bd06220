#!/bin/bash
# CephFS layouts through ostio, checked against Ceph itself (issue 30 item 2):
# setstripe on CephFS shows in getfattr; a file written through ostio with
# object sets (64 KiB x 3, 256 KiB objects) has exactly the RADOS objects,
# names and sizes, that `ostio map` predicts; getstripe round-trips; the
# striping hints reach Ceph when ostio_open creates a file; Ceph's rule and
# ENOTEMPTY come back as clear errors.
#
# Usage: layout.sh SOURCE_DIR OSTIO OSTIO_BENCH MPIEXEC
# The test bed comes from scripts/pfs.sh (its `env`: OSTIO_PFS_MNT, CEPH_CONF,
# OSTIO_PFS_DATA_POOL); commands that touch the mount run in node 0's mount
# namespace (`pfs.sh exec 0`), the two ranks through `pfs.sh mpiexec`, so they
# sit on different clients. Exit 77 (skipped) when pfs.sh is absent or the bed
# is not up. For a bed brought up by hand, OSTIO_PFS_ENV_GIVEN=1 takes those
# three variables from the environment and runs everything here directly.
set -u
SRC=$1 OSTIO=$2 BENCH=$3 MPIEXEC=$4
PFS=$SRC/scripts/pfs.sh
skip() { echo "SKIP tests/pfs/layout.sh: $*"; exit 77; }
fail() { echo "FAIL tests/pfs/layout.sh: $*"; exit 1; }

if [ "${OSTIO_PFS_ENV_GIVEN:-}" = 1 ]; then
  node() { "$@"; }
  mpi() { "$MPIEXEC" -n 2 "$@"; }
else
  [ -x "$PFS" ] || skip "scripts/pfs.sh is absent (the CephFS test bed, issue 30 item 1)"
  env_lines=$("$PFS" env) || skip "scripts/pfs.sh env failed"
  eval "$env_lines"
  "$PFS" status >/dev/null 2>&1 || skip "the CephFS test bed is not up (scripts/pfs.sh status)"
  case $MPIEXEC in
    *mpich*) ;;
    *) skip "scripts/pfs.sh mpiexec is MPICH's launcher; this build's is $MPIEXEC" ;;
  esac
  node() { "$PFS" exec 0 "$@"; }
  mpi() { "$PFS" mpiexec -n 2 "$@"; }
fi
for v in OSTIO_PFS_MNT CEPH_CONF OSTIO_PFS_DATA_POOL; do
  [ -n "${!v:-}" ] || skip "$v is not set by scripts/pfs.sh env"
done
export CEPH_CONF
command -v rados >/dev/null || skip "rados is not installed (ceph-common)"
command -v getfattr >/dev/null || skip "getfattr is not installed (attr)"
POOL=$OSTIO_PFS_DATA_POOL
D=$OSTIO_PFS_MNT/ostio-layout-test.$$
trap 'node rm -rf "$D"' EXIT
node mkdir -p "$D/sets" "$D/plain" || fail "cannot make $D"
xattr() { node getfattr --only-values -n "$1" "$2" 2>/dev/null; }

# 1. a directory default with object sets, set by ostio, shown by Ceph
node "$OSTIO" setstripe -c 3 -S 64k --object-size 256k "$D/sets" || fail "setstripe on a directory"
got=$(xattr ceph.dir.layout "$D/sets")
[ "$got" = "stripe_unit=65536 stripe_count=3 object_size=262144 pool=$POOL" ] ||
  fail "ceph.dir.layout is '$got'"
node "$OSTIO" getstripe "$D/sets" | grep -q "^ostio_source:      ceph (directory default)$" ||
  fail "getstripe does not show the directory's Ceph default"

# 2. a file written through ostio inherits it: 2 ranks x 1344 KiB = 3.5 object
# sets of 768 KiB, so the last set's objects are partly filled
mpi "$BENCH" -a ostio:ost -p ior -b 1344k -t 32k -w -W -e -k -o "$D/sets/f" ||
  fail "ostio-bench could not write (or read back) $D/sets/f"
F=$(node sh -c "ls -d '$D'/sets/f.*" | head -n 1)
[ -n "$F" ] || fail "ostio-bench left no file in $D/sets"
node sync "$F"
size=$(node stat -c %s "$F")
[ "$size" = $((2 * 1344 * 1024)) ] || fail "$F holds $size bytes"
[ "$(xattr ceph.file.layout "$F")" = "stripe_unit=65536 stripe_count=3 object_size=262144 pool=$POOL" ] ||
  fail "$F did not get the directory's layout: $(xattr ceph.file.layout "$F")"

# 3. the objects ostio map predicts are the objects RADOS holds
want=$(node "$OSTIO" map --json --max-pieces 0 "$F" 0 "$size" | python3 -c '
import json, sys
m = json.load(sys.stdin)
ends = {}
for p in m["pieces"]:
    n = p["ceph_object_name"]
    ends[n] = max(ends.get(n, 0), p["ceph_offset"] + p["length"])
for n in sorted(ends): print(n, ends[n])') || fail "ostio map --json failed on $F"
ino=$(printf '%x' "$(node stat -c %i "$F")")
got=$(rados -p "$POOL" ls 2>/dev/null | grep "^$ino\." | sort | while read -r o; do
        echo "$o $(rados -p "$POOL" stat "$o" 2>/dev/null | sed -n 's/.*size \([0-9]*\).*/\1/p')"
      done)
[ -n "$want" ] && [ "$want" = "$got" ] ||
  fail "objects of $F (inode $ino): ostio map predicts
$want
RADOS holds
$got"
echo "objects of $F as predicted: $(echo "$got" | wc -l)"
# 2688 KiB = 42 stripe units: 3 full sets of 12 units (9 objects of 256 KiB)
# and 6 units over the 4th set's 3 objects (128 KiB each)
[ "$(echo "$got" | wc -l)" = 12 ] || fail "expected 12 objects (3 full sets of 3, 3 partial)"
[ "$(echo "$got" | awk '$2 == 262144' | wc -l)" = 9 ] &&
  [ "$(echo "$got" | awk '$2 == 131072' | wc -l)" = 3 ] || fail "object sizes: $got"

# 4. getstripe round-trips: a file given getstripe's numbers gets the same layout
read -r su sc os < <(node "$OSTIO" getstripe --json "$F" | python3 -c '
import json, sys
c = json.load(sys.stdin)[0]["layout"]["components"][0]
print(c["stripe_size"], c["stripe_count"], c["object_size"])')
[ "$su $sc $os" = "65536 3 262144" ] || fail "getstripe of $F gives '$su $sc $os'"
node "$OSTIO" setstripe -c "$sc" -S "$su" --object-size "$os" "$D/plain/g" || fail "setstripe on a new file"
[ "$(xattr ceph.file.layout "$D/plain/g")" = "$(xattr ceph.file.layout "$F")" ] ||
  fail "setstripe from getstripe's numbers gave $(xattr ceph.file.layout "$D/plain/g")"

# 5. striping hints when ostio_open creates a file (object size: 4 MiB, a
# multiple of the stripe unit), and a stripe unit Ceph refuses
mpi "$BENCH" -a ostio --stripe-count 2 --stripe-size 128k -p ior -b 256k -t 64k -w -k \
  -o "$D/plain/h" || fail "ostio-bench with striping hints"
H=$(node sh -c "ls -d '$D'/plain/h.*" | head -n 1)
[ "$(xattr ceph.file.layout "$H")" = "stripe_unit=131072 stripe_count=2 object_size=4194304 pool=$POOL" ] ||
  fail "the hints gave $H the layout $(xattr ceph.file.layout "$H")"
out=$(mpi "$BENCH" -a ostio --stripe-size 100000 -p ior -b 64k -t 64k -w -o "$D/plain/bad" 2>&1) &&
  fail "striping_unit 100000 was accepted on CephFS"
echo "$out" | grep -q "hint striping_unit 100000: Ceph needs a multiple of 64 KiB" ||
  fail "no clear error for striping_unit 100000: $out"

# 6. errors: data already there, a stripe unit Ceph refuses
out=$(node "$OSTIO" setstripe -c 2 -S 64k "$F" 2>&1); rc=$?
[ $rc = 1 ] && echo "$out" | grep -q "holds" || fail "setstripe on a file with data: exit $rc: $out"
out=$(node "$OSTIO" setstripe -c 2 -S 100000 "$D/plain/x" 2>&1); rc=$?
[ $rc = 2 ] && echo "$out" | grep -q "Ceph needs a multiple of 64 KiB" ||
  fail "setstripe -S 100000: exit $rc: $out"
echo "PASS tests/pfs/layout.sh"
