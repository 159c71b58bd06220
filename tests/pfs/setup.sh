#!/usr/bin/env bash
# CTest fixture "pfs", setup: the CephFS test bed with 2 clients (scripts/pfs.sh up),
# memstore unless OSTIO_PFS_TEST_STORE says bluestore. A stale bed in the same run
# directory (a killed earlier run) is taken down first.
. "$(dirname "$0")/lib.sh"
why=$(pfs_cannot_run)
[ -z "$why" ] || skip "$why"
"$PFS" down || fail "could not take down a stale bed at $OSTIO_PFS_DIR"
"$PFS" up --clients 2 --store "${OSTIO_PFS_TEST_STORE:-memstore}" || fail "pfs.sh up (its message above names the daemon)"
"$PFS" status || fail "pfs.sh status after up"
