#!/usr/bin/env bash
# A CephFS test bed on one machine: 1 mon, 3 OSDs, 1 mds (the mgr only while the
# file system is created), loopback only, cephx off, its own ceph.conf and ports,
# and N ceph-fuse clients, each in its own mount namespace at the same path: N
# simulated client nodes (docs/pfs.md).
#   scripts/pfs.sh up [--clients N] [--store bluestore|memstore]
#                      bring the cluster and N clients (nodes 0..N-1, default 2) up
#   scripts/pfs.sh down                 stop everything this run directory started
#                                       (by its pid files), unmount, remove the directory
#   scripts/pfs.sh status               daemons, clients and the cluster's state (exit 1 if not up)
#   scripts/pfs.sh env                  shell export lines: OSTIO_PFS_DIR, CEPH_CONF,
#                                       OSTIO_PFS_MNT, OSTIO_PFS_NODES, OSTIO_PFS_DATA_POOL
#   scripts/pfs.sh exec NODE CMD...     CMD inside node NODE's mount namespace
#   scripts/pfs.sh mpiexec [--nodes K] -n N CMD...
#                                       MPICH's mpiexec; rank r runs in node r/ceil(N/K)'s
#                                       namespace with OSTIO_TEST_RANKS_PER_NODE=ceil(N/K)
#                                       (K defaults to the number of clients)
#   scripts/pfs.sh restart-client NODE  unmount (or clean up a killed) NODE's ceph-fuse and mount again
# OSTIO_PFS_DIR selects the run directory (default /tmp/ostio-pfs); the mon's port
# is derived from its name (first free port from 20000 + cksum % 20000) and kept in
# DIR/port. Bounds (per OSD): bluestore on a sparse 1 GiB file (OSTIO_PFS_OSD_BYTES),
# 128 MiB cache; memstore 1 GiB of RAM at most in objects. Needs root and /dev/fuse.
set -euo pipefail

DIR=${OSTIO_PFS_DIR:-/tmp/ostio-pfs}
DIR=${DIR%/}
CONF=$DIR/ceph.conf
MNT=$DIR/mnt
NOSD=3
FSNAME=ostiofs
DATA_POOL=ostio_data
META_POOL=ostio_meta
WAIT=${OSTIO_PFS_WAIT:-120} # seconds: bound on every wait
OSD_BYTES=${OSTIO_PFS_OSD_BYTES:-1073741824}

die() { echo "pfs.sh: $*" >&2; exit 1; }
usage() { sed -n '2,21p' "$0"; }

# The last lines of a daemon's log (NAME like osd.0), for an error message.
log_tail() {
  local f=$DIR/log/$1.log
  if [ -s "$f" ]; then
    echo "--- last lines of $f:" >&2
    tail -n 25 "$f" >&2
  else
    echo "--- $f is empty or missing" >&2
  fi
}
fail_daemon() { # fail_daemon NAME MESSAGE
  echo "pfs.sh: $2" >&2
  log_tail "$1"
  exit 1
}

c() { timeout 60 ceph -c "$CONF" --connect-timeout 20 "$@"; }
cq() { # a ceph command whose chatter is shown only when it fails
  local out
  out=$(c "$@" 2>&1) || { echo "pfs.sh: ceph $*: $out" >&2; return 1; }
}

pid_alive() { [ -n "${1:-}" ] && kill -0 "$1" 2>/dev/null; }
pid_of() { [ -s "$DIR/run/$1.pid" ] && cat "$DIR/run/$1.pid" || true; }
holder_of() { pid_of "holder.node$1"; }

# A port of our own: derived from the run directory's name, the first free one from there.
pick_port() {
  local p
  local used
  # Every local TCP port in use or waiting (IPv4 and IPv6), from /proc (no iproute2 needed).
  local _ addr _rest
  used=$(cat /proc/net/tcp /proc/net/tcp6 2>/dev/null | while read -r _ addr _rest; do
    case $addr in *:*) echo $((16#${addr##*:})) ;; esac
  done | sort -un)
  p=$((20000 + $(printf '%s' "$DIR" | cksum | cut -d' ' -f1) % 400 * 100))
  # A block of 100 ports nobody uses: the mon's, then the OSDs' and the mds's (ms_bind_port_*).
  while printf '%s\n' "$used" | awk -v lo="$p" -v hi=$((p + 99)) '$1 >= lo && $1 <= hi {f = 1} END {exit !f}'; do
    p=$((p + 100))
    [ "$p" -lt 60000 ] || p=20000
  done
  echo "$p"
}

write_conf() { # write_conf PORT FSID STORE
  local lo=$(($1 + 1)) hi=$(($1 + 99))
  cat >"$CONF" <<EOF
# Written by scripts/pfs.sh up: a test bed of its own (nothing in /etc/ceph).
[global]
fsid = $2
mon_host = 127.0.0.1:$1
public_addr = 127.0.0.1
ms_bind_ipv4 = true
ms_bind_ipv6 = false
ms_bind_port_min = $lo
ms_bind_port_max = $hi
auth_cluster_required = none
auth_service_required = none
auth_client_required = none
keyring = /dev/null
run_dir = $DIR/run
admin_socket = $DIR/run/\$name.asok
pid_file = $DIR/run/\$name.pid
log_file = $DIR/log/\$name.log
log_to_stderr = false
err_to_stderr = true
osd_pool_default_size = 1
osd_pool_default_min_size = 1
mon_allow_pool_size_one = true
mon_warn_on_pool_no_redundancy = false
osd_crush_chooseleaf_type = 0
osd_pool_default_pg_autoscale_mode = off
mon_data_avail_warn = 2
mon_data_avail_crit = 1
[mon]
mon_data = $DIR/mon/\$id
[mgr]
mgr_data = $DIR/mgr/\$id
[osd]
osd_data = $DIR/osd/\$id
osd_objectstore = $3
bluestore_block_size = $OSD_BYTES
bluestore_block_create = true
bluestore_cache_size = 134217728
bluestore_cache_autotune = false
osd_memory_target = 939524096
memstore_device_bytes = $OSD_BYTES
osd_op_num_shards = 2
osd_op_num_threads_per_shard = 1
[mds]
mds_data = $DIR/mds/\$id
mds_cache_memory_limit = 134217728
[client]
client_oc_size = 67108864
EOF
}

start_holder() { # a process of its own in a private mount namespace: node N
  local n=$1
  setsid unshare -m --propagation private sh -c "echo \$\$ > '$DIR/run/holder.node$n.pid'; exec sleep infinity" \
    </dev/null >/dev/null 2>&1 &
  local i
  for i in $(seq 50); do [ -s "$DIR/run/holder.node$n.pid" ] && return 0; sleep 0.1; done
  die "node $n: the mount namespace holder did not start"
}

mount_client() { # ceph-fuse of node N (client.nodeN) at MNT inside its namespace
  local n=$1 h
  h=$(holder_of "$n")
  pid_alive "$h" || die "node $n: no namespace holder (pfs.sh up first)"
  rm -f "$DIR/run/client.node$n.pid"
  # One retry: ceph-fuse exited 1 once right after the MDS went active (its log ends at
  # "init"; seen once here, on a loaded machine while another bed was starting).
  local try
  for try in 1 2; do
    nsenter -t "$h" -m -- ceph-fuse -c "$CONF" --id "node$n" "$MNT" </dev/null \
      >>"$DIR/log/ceph-fuse.node$n.out" 2>&1 && break
    [ "$try" = 2 ] && fail_daemon "client.node$n" "node $n: ceph-fuse failed to mount $MNT (twice)"
    echo "pfs.sh: node $n: ceph-fuse failed to mount $MNT; trying once more in 5 s" >&2
    nsenter -t "$h" -m -- umount "$MNT" 2>/dev/null
    sleep 5
  done
  local i
  for i in $(seq "$WAIT"); do
    if nsenter -t "$h" -m -- mountpoint -q "$MNT" && nsenter -t "$h" -m -- stat -f "$MNT" >/dev/null 2>&1; then
      return 0
    fi
    sleep 1
  done
  fail_daemon "client.node$n" "node $n: $MNT not mounted after ${WAIT}s"
}

unmount_client() { # unmount node N's ceph-fuse (also after it was killed), stop it
  local n=$1 h p i
  h=$(holder_of "$n")
  p=$(pid_of "client.node$n")
  if pid_alive "$h"; then
    nsenter -t "$h" -m -- umount "$MNT" 2>/dev/null || nsenter -t "$h" -m -- umount -l "$MNT" 2>/dev/null || true
  fi
  stop_pid "$p"
  rm -f "$DIR/run/client.node$n.pid"
}

alive_of() { # the PIDs still running
  local p
  for p in "$@"; do if pid_alive "$p"; then echo "$p"; fi; done
}

stop_pid() { # stop_pid PID...: TERM to all, up to 15 s, then KILL: only pids from our own files
  local p i live=()
  for p in "$@"; do pid_alive "$p" && live+=("$p"); done
  [ ${#live[@]} -gt 0 ] || return 0
  kill -TERM "${live[@]}" 2>/dev/null || true
  for i in $(seq 150); do
    live=($(alive_of "${live[@]}"))
    [ ${#live[@]} -gt 0 ] || return 0
    sleep 0.1
  done
  kill -KILL "${live[@]}" 2>/dev/null || true
  for i in $(seq 50); do
    live=($(alive_of "${live[@]}"))
    [ ${#live[@]} -gt 0 ] || return 0
    sleep 0.1
  done
}

wait_for() { # wait_for DAEMON WHAT CMD...: CMD until it succeeds, bounded
  local name=$1 what=$2 i
  shift 2
  for i in $(seq "$WAIT"); do
    if "$@" >/dev/null 2>&1; then return 0; fi
    local p
    p=$(pid_of "$name")
    if [ -n "$p" ] && ! pid_alive "$p"; then fail_daemon "$name" "$name exited while waiting for $what"; fi
    sleep 1
  done
  fail_daemon "$name" "$what: not reached after ${WAIT}s"
}

mds_active() { c mds stat 2>/dev/null | grep -q "up:active"; }
osds_up() { [ "$(c osd stat -f json 2>/dev/null | python3 -c 'import json,sys; print(json.load(sys.stdin)["num_up_osds"])')" = "$NOSD" ]; }
pgs_active() {
  c pg stat -f json 2>/dev/null | python3 -c '
import json, sys
d = json.load(sys.stdin)
s = d.get("pg_summary", d)
n = s.get("num_pgs", 0)
act = sum(x["num"] for x in s.get("num_pg_by_state", []) if "active" in x["name"].split("+"))
sys.exit(0 if n > 0 and act == n else 1)'
}

cmd_up() {
  local clients=2 store=bluestore
  while [ $# -gt 0 ]; do
    case $1 in
      --clients) clients=${2:-}; shift 2 ;;
      --clients=*) clients=${1#*=}; shift ;;
      --store) store=${2:-}; shift 2 ;;
      --store=*) store=${1#*=}; shift ;;
      *) die "up: unknown argument '$1' (accepted: --clients N, --store bluestore|memstore)" ;;
    esac
  done
  case $clients in '' | *[!0-9]*) die "up: --clients must be a number from 1 to 16, not '$clients'" ;; esac
  [ "$clients" -ge 1 ] && [ "$clients" -le 16 ] || die "up: --clients must be from 1 to 16, not $clients"
  case $store in bluestore | memstore) ;; *) die "up: --store must be bluestore or memstore, not '$store'" ;; esac
  [ "$(id -u)" = 0 ] || die "up: needs root (mount namespaces and FUSE mounts)"
  [ -c /dev/fuse ] || die "up: no /dev/fuse (ceph-fuse needs it)"
  local b
  for b in ceph ceph-mon ceph-mgr ceph-osd ceph-mds ceph-fuse monmaptool unshare nsenter mountpoint; do
    command -v "$b" >/dev/null 2>&1 || die "up: $b not found (scripts/deps.sh --pfs installs the packages)"
  done
  if [ -e "$DIR" ]; then die "up: $DIR exists (another test bed? 'OSTIO_PFS_DIR=$DIR scripts/pfs.sh down' first)"; fi
  mkdir -p "$DIR"/{run,log,mon,mgr,osd,mds,mnt}
  local port fsid t0=$SECONDS
  port=$(pick_port)
  echo "$port" >"$DIR/port"
  echo "$clients" >"$DIR/nodes"
  echo "$store" >"$DIR/store"
  fsid=$(cat /proc/sys/kernel/random/uuid)
  write_conf "$port" "$fsid" "$store"
  echo "pfs.sh: $DIR: mon on 127.0.0.1:$port, $NOSD OSDs ($store), $clients clients" >&2

  monmaptool --create --fsid "$fsid" --add a "127.0.0.1:$port" "$DIR/monmap" >/dev/null
  ceph-mon -c "$CONF" --mkfs -i a --monmap "$DIR/monmap" >/dev/null 2>"$DIR/log/mkfs.mon.err" ||
    { cat "$DIR/log/mkfs.mon.err" >&2; fail_daemon mon.a "ceph-mon --mkfs failed"; }
  timeout 60 ceph-mon -c "$CONF" -i a </dev/null >/dev/null 2>&1 || fail_daemon mon.a "ceph-mon did not start"
  wait_for mon.a "the monitor answering" c mon stat
  timeout 60 ceph-mgr -c "$CONF" -i x </dev/null >/dev/null 2>&1 || fail_daemon mgr.x "ceph-mgr did not start"

  local i uuid id
  for i in $(seq 0 $((NOSD - 1))); do
    uuid=$(cat /proc/sys/kernel/random/uuid)
    id=$(c osd new "$uuid") || fail_daemon mon.a "ceph osd new failed"
    mkdir -p "$DIR/osd/$id"
    ceph-osd -c "$CONF" -i "$id" --mkfs --osd-uuid "$uuid" </dev/null >"$DIR/log/mkfs.osd.$id.out" 2>&1 ||
      { cat "$DIR/log/mkfs.osd.$id.out" >&2; fail_daemon "osd.$id" "ceph-osd --mkfs failed for osd.$id"; }
    timeout 60 ceph-osd -c "$CONF" -i "$id" </dev/null >/dev/null 2>&1 || fail_daemon "osd.$id" "ceph-osd $id did not start"
  done
  wait_for osd.0 "$NOSD OSDs up" osds_up
  cq osd pool create "$META_POOL" 16 16
  cq osd pool create "$DATA_POOL" 32 32
  cq fs new "$FSNAME" "$META_POOL" "$DATA_POOL"
  # A killed client's caps go back within ~45 s (the least allowed), not 300 s: the other nodes must not hang.
  cq fs set "$FSNAME" session_timeout 30
  cq fs set "$FSNAME" session_autoclose 45
  timeout 60 ceph-mds -c "$CONF" -i a </dev/null >/dev/null 2>&1 || fail_daemon mds.a "ceph-mds did not start"
  wait_for mds.a "the file system active" mds_active
  wait_for osd.0 "every placement group active" pgs_active
  stop_pid "$(pid_of mgr.x)" # not needed once the file system exists (~300 MiB)
  rm -f "$DIR/run/mgr.x.pid"
  for i in $(seq 0 $((clients - 1))); do
    start_holder "$i"
    mount_client "$i"
  done
  echo "pfs.sh: up in $((SECONDS - t0)) s; 'eval \"\$(OSTIO_PFS_DIR=$DIR scripts/pfs.sh env)\"'" >&2
}

cmd_down() {
  [ -e "$DIR" ] || return 0
  [ -f "$DIR/ceph.conf" ] || [ -d "$DIR/run" ] || die "down: $DIR is not a pfs.sh run directory (no ceph.conf, no run/); left alone"
  local n f
  for f in "$DIR"/run/holder.node*.pid; do
    [ -e "$f" ] || continue
    n=${f##*/holder.node}
    n=${n%.pid}
    unmount_client "$n"
  done
  # The mds first (it writes to the OSDs on its way out), then the rest together.
  local pids=()
  for f in "$DIR"/run/mds.*.pid; do [ -e "$f" ] && stop_pid "$(cat "$f" 2>/dev/null)"; done
  for f in "$DIR"/run/osd.*.pid "$DIR"/run/mgr.*.pid "$DIR"/run/mon.*.pid "$DIR"/run/holder.node*.pid; do
    [ -e "$f" ] && pids+=("$(cat "$f" 2>/dev/null)")
  done
  stop_pid "${pids[@]}"
  # Nothing may still be mounted under it (the host namespace never mounts there).
  if mountpoint -q "$MNT" 2>/dev/null; then umount -l "$MNT" || true; fi
  rm -rf "$DIR"
}

need_up() { [ -f "$CONF" ] && [ -s "$DIR/nodes" ] || die "no test bed at $DIR ('scripts/pfs.sh up' first)"; }

cmd_status() {
  need_up
  local ok=0 f name p
  echo "run directory $DIR, mon 127.0.0.1:$(cat "$DIR/port"), store $(cat "$DIR/store"), $(cat "$DIR/nodes") clients"
  for f in "$DIR"/run/*.pid; do
    [ -e "$f" ] || continue
    name=${f##*/}
    name=${name%.pid}
    p=$(cat "$f")
    if pid_alive "$p"; then echo "  $name pid $p running"; else echo "  $name pid $p NOT RUNNING"; ok=1; fi
  done
  local n h
  for n in $(seq 0 $(($(cat "$DIR/nodes") - 1))); do
    h=$(holder_of "$n")
    if pid_alive "$h" && nsenter -t "$h" -m -- mountpoint -q "$MNT" 2>/dev/null &&
      nsenter -t "$h" -m -- timeout 10 stat -f "$MNT" >/dev/null 2>&1; then
      echo "  node $n: $MNT mounted"
    else
      echo "  node $n: $MNT NOT MOUNTED"
      ok=1
    fi
  done
  { c mds stat && c osd stat; } 2>/dev/null | sed 's/^/  /' || { echo "  the cluster does not answer"; ok=1; }
  mds_active || ok=1
  return $ok
}

cmd_env() {
  need_up
  printf 'export OSTIO_PFS_DIR=%q\n' "$DIR"
  printf 'export CEPH_CONF=%q\n' "$CONF"
  printf 'export OSTIO_PFS_MNT=%q\n' "$MNT"
  printf 'export OSTIO_PFS_NODES=%q\n' "$(cat "$DIR/nodes")"
  printf 'export OSTIO_PFS_DATA_POOL=%q\n' "$DATA_POOL"
}

node_holder() { # the live holder pid of node N, or die
  local n=$1 h
  case $n in '' | *[!0-9]*) die "NODE must be a number, not '$n'" ;; esac
  [ "$n" -lt "$(cat "$DIR/nodes")" ] || die "no node $n (nodes 0..$(($(cat "$DIR/nodes") - 1)))"
  h=$(holder_of "$n")
  pid_alive "$h" || die "node $n: its namespace holder is gone"
  echo "$h"
}

cmd_exec() {
  need_up
  [ $# -ge 2 ] || die "usage: pfs.sh exec NODE CMD..."
  local h
  h=$(node_holder "$1")
  shift
  export OSTIO_PFS_DIR=$DIR CEPH_CONF=$CONF OSTIO_PFS_MNT=$MNT
  exec nsenter -t "$h" -m --wd="$PWD" -- "$@"
}

# One rank, started by mpiexec: into its node's namespace, then the program.
cmd_rank() {
  local per=$1 rank=${PMI_RANK:-${MPI_LOCALRANKID:-}}
  shift
  [ -n "$rank" ] || die "rank: no PMI_RANK (run under 'pfs.sh mpiexec')"
  local h
  h=$(node_holder $((rank / per)))
  exec nsenter -t "$h" -m --wd="$PWD" -- "$@"
}

cmd_mpiexec() {
  need_up
  local k np=""
  k=$(cat "$DIR/nodes")
  while [ $# -gt 0 ]; do
    case $1 in
      --nodes) k=${2:-}; shift 2 ;;
      -n | -np) np=${2:-}; shift 2 ;;
      --) shift; break ;;
      *) break ;;
    esac
  done
  case $k in '' | *[!0-9]*) die "mpiexec: --nodes must be a number, not '$k'" ;; esac
  case $np in '' | *[!0-9]*) die "mpiexec: -n N is required (a number, got '$np')" ;; esac
  [ "$k" -ge 1 ] && [ "$k" -le "$(cat "$DIR/nodes")" ] || die "mpiexec: --nodes $k: the bed has $(cat "$DIR/nodes") clients"
  [ "$np" -ge 1 ] || die "mpiexec: -n must be at least 1"
  [ $# -ge 1 ] || die "usage: pfs.sh mpiexec [--nodes K] -n N CMD..."
  local per=$(((np + k - 1) / k)) launcher=${OSTIO_PFS_MPIEXEC:-$(command -v mpiexec.mpich || true)}
  [ -n "$launcher" ] || die "mpiexec: mpiexec.mpich not found (OSTIO_PFS_MPIEXEC names another Hydra launcher)"
  exec "$launcher" -n "$np" env OSTIO_PFS_DIR="$DIR" CEPH_CONF="$CONF" OSTIO_PFS_MNT="$MNT" \
    OSTIO_TEST_RANKS_PER_NODE="$per" "$(readlink -f "$0")" _rank "$per" "$@"
}

cmd_restart_client() {
  need_up
  [ $# -eq 1 ] || die "usage: pfs.sh restart-client NODE"
  node_holder "$1" >/dev/null
  unmount_client "$1"
  mount_client "$1"
}

[ $# -ge 1 ] || { usage >&2; exit 2; }
sub=$1
shift
case $sub in
  up) cmd_up "$@" ;;
  down) cmd_down ;;
  status) cmd_status ;;
  env) cmd_env ;;
  exec) cmd_exec "$@" ;;
  mpiexec) cmd_mpiexec "$@" ;;
  _rank) cmd_rank "$@" ;;
  restart-client) cmd_restart_client "$@" ;;
  -h | --help | help) usage ;;
  *) usage >&2; die "unknown command '$sub' (accepted: up, down, status, env, exec, mpiexec, restart-client, --help)" ;;
esac
