# Sourced by the pfs tests (tests/pfs/*.sh): the CephFS test bed of scripts/pfs.sh,
# brought up once by setup.sh (CTest fixture "pfs") and torn down by cleanup.sh.
# Environment from tests/CMakeLists.txt: OSTIO_PFS_DIR (the bed's run directory),
# OSTIO_PFS_SH (scripts/pfs.sh), OSTIO_PFS_SANITIZE (ON in a sanitizer build),
# OSTIO_PFS_MPIEXEC (the build's mpiexec). Exit status 77: skipped (CTest SKIP_RETURN_CODE).
set -u

PFS=${OSTIO_PFS_SH:?OSTIO_PFS_SH: scripts/pfs.sh}

skip() { echo "SKIP: $*"; exit 77; }
fail() { echo "FAIL: $*"; exit 1; }

# Why the test bed cannot run here (empty when it can).
pfs_cannot_run() {
  [ "$(id -u)" = 0 ] || { echo "not root (the bed needs mount namespaces and FUSE mounts)"; return; }
  [ -c /dev/fuse ] || { echo "no /dev/fuse (ceph-fuse needs it)"; return; }
  local b
  for b in ceph ceph-mon ceph-mgr ceph-osd ceph-mds ceph-fuse monmaptool getfattr nsenter unshare mountpoint; do
    command -v "$b" >/dev/null 2>&1 || { echo "$b not installed (scripts/deps.sh --pfs as root installs the packages)"; return; }
  done
  unshare -m --propagation private true 2>/dev/null || { echo "unshare -m fails here (no private mount namespaces)"; return; }
  case ${OSTIO_PFS_SANITIZE:-OFF} in ON | on | 1 | TRUE | true)
    echo "a sanitizer build (the preloaded libraries need the ASan runtime; the MPICH pass runs these)"; return ;;
  esac
  case $(basename "${OSTIO_PFS_MPIEXEC:-mpiexec.mpich}") in *mpich* | mpiexec.hydra) ;;
    *) echo "the build's MPI is not MPICH (pfs.sh mpiexec uses MPICH's launcher; the MPICH pass runs these)"; return ;;
  esac
}

# Every test but setup: skip for the same reason setup did, else the bed must be up.
pfs_require() {
  local why
  why=$(pfs_cannot_run)
  [ -z "$why" ] || skip "$why"
  eval "$("$PFS" env)" || fail "the test bed at ${OSTIO_PFS_DIR:-} is not up (pfs_setup failed?)"
}

# ceph with the bed's configuration, bounded.
pceph() { timeout 60 ceph -c "$CEPH_CONF" --connect-timeout 20 "$@" 2>/dev/null; }

# node N's client id (e.g. client4150), as its ceph-fuse reports it.
client_id() { "$PFS" exec "$1" getfattr --absolute-names --only-values -n ceph.client_id "$OSTIO_PFS_MNT"; }

# The sum of op_w over the OSDs (object write operations).
osd_op_w() {
  local ids i sum=0 n
  ids=$(pceph osd ls) || fail "ceph osd ls"
  for i in $ids; do
    n=$(pceph tell "osd.$i" perf dump | python3 -c 'import json,sys; print(json.load(sys.stdin)["osd"]["op_w"])') ||
      fail "perf dump of osd.$i"
    sum=$((sum + n))
  done
  echo "$sum"
}
