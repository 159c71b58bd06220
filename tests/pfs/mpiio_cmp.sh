#!/usr/bin/env bash
# mpiio_cmp.sh COMPARE_SH MPIIO_LIB OSTIO_CLI PROG [KINDS] [STRATEGIES]
# The MPI-IO interposer on CephFS with its 2 ranks on 2 different clients: first
# checks the placement (each rank's ceph.client_id, both in the MDS's sessions),
# then runs tests/mpiio/compare.sh for PROG (ROMIO natively, under
# libostio-mpiio.so, passed through) inside node 0 with the directory on the bed,
# for every KIND (plain log striped) x STRATEGY (even aligned ost independent auto,
# given to the interposer as ostio_strategy): the files must be ROMIO's bytes.
. "$(dirname "$0")/lib.sh"
[ $# -ge 4 ] || { echo "usage: mpiio_cmp.sh COMPARE_SH MPIIO_LIB OSTIO_CLI PROG [KINDS] [STRATEGIES]" >&2; exit 2; }
CMP=$1 LIB=$2 CLI=$3 PROG=$4
KINDS=${5:-plain log striped}
STRATS=${6:-even aligned ost independent auto}
pfs_require
T=$(mktemp -d)
trap '"$PFS" exec 0 rm -rf "$OSTIO_PFS_MNT/cmp"; rm -rf "$T"' EXIT

# Each rank writes its line to a file of its own: the launcher forwards the ranks'
# output in chunks that can interleave mid-line on a loaded machine.
"$PFS" mpiexec -n 2 sh -c 'printf "%s %s %s\n" "$(getfattr --absolute-names --only-values -n ceph.client_id "$OSTIO_PFS_MNT")" "$PMI_RANK" "$OSTIO_TEST_RANKS_PER_NODE" > "$1/id.$PMI_RANK"' sh "$T" ||
  fail "pfs.sh mpiexec -n 2: the placement probe failed"
ids=$(cat "$T"/id.0 "$T"/id.1) || fail "a rank of the placement probe wrote no line"
echo "$ids"
n=$(echo "$ids" | awk '{print $1}' | sort -u | wc -l)
[ "$n" = 2 ] || fail "the 2 ranks are not on 2 different clients: $ids"
echo "$ids" | awk '$3 != 1 {exit 1}' || fail "OSTIO_TEST_RANKS_PER_NODE is not 1 for 2 ranks on 2 nodes: $ids"
sess=$(pceph tell mds.a session ls | python3 -c 'import json,sys; print(" ".join("client%d" % s["id"] for s in json.load(sys.stdin)))')
for c in $(echo "$ids" | awk '{print $1}'); do
  case " $sess " in *" $c "*) ;; *) fail "rank's $c is not an MDS session ($sess)" ;; esac
done

printf '#!/bin/sh\nexec "%s" mpiexec "$@"\n' "$PFS" >"$T/mpiexec"
chmod +x "$T/mpiexec"
"$PFS" exec 0 mkdir -p "$OSTIO_PFS_MNT/cmp" || fail "mkdir on node 0"
bad=0
for kind in $KINDS; do
  for s in $STRATS; do
    echo "== $(basename "$PROG") $kind ostio_strategy=$s"
    if ! "$PFS" exec 0 env TMPDIR="$OSTIO_PFS_MNT/cmp" MPIIO_COMPARE_HINTS="ostio_strategy=$s" \
        MPIIO_RUN_TIMEOUT=180 bash "$CMP" "$T/mpiexec" 2 "$LIB" "$CLI" "$kind" "$PROG"; then
      echo "FAIL: $kind $s"
      bad=1
    fi
  done
done
[ $bad = 0 ] || fail "see the FAIL lines above"
echo "ok: $(basename "$PROG") on 2 clients, kinds: $KINDS; strategies: $STRATS"
