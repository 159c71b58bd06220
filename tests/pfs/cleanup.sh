#!/usr/bin/env bash
# CTest fixture "pfs", cleanup: runs even when a test failed; takes the bed down
# by its own pid files and removes its run directory.
. "$(dirname "$0")/lib.sh"
[ -e "${OSTIO_PFS_DIR:?}" ] || { echo "no bed at $OSTIO_PFS_DIR (setup skipped or never ran)"; exit 0; }
"$PFS" down || fail "pfs.sh down"
[ ! -e "$OSTIO_PFS_DIR" ] || fail "$OSTIO_PFS_DIR still exists after down"
