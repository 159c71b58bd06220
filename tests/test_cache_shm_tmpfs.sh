#!/bin/sh
# Runs test_cache_shm in tmpfs mode with /dev/shm a 24 MiB tmpfs of its own:
# a private mount namespace (unshare -m), so the machine's /dev/shm is left
# alone. Needs root (or CAP_SYS_ADMIN); skips (77) with the reason otherwise.
#   test_cache_shm_tmpfs.sh MPIEXEC NPFLAG NP TEST_BINARY
set -u
mpiexec=$1 npflag=$2 np=$3 bin=$4
if [ "$(id -u)" != 0 ]; then
  echo "SKIP: not root, cannot mount a small tmpfs on /dev/shm"; exit 77
fi
if ! unshare -m sh -c 'mount -t tmpfs -o size=1m tmpfs /dev/shm' 2>/dev/null; then
  echo "SKIP: unshare -m or mount -t tmpfs refused (no CAP_SYS_ADMIN?)"; exit 77
fi
exec unshare -m sh -c 'mount --make-rprivate / 2>/dev/null; mount -t tmpfs -o size=24m tmpfs /dev/shm &&
  exec "$0" "$1" "$2" "$3" tmpfs' "$mpiexec" "$npflag" "$np" "$bin"
