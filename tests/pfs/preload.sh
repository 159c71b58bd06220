#!/usr/bin/env bash
# preload.sh PRELOAD_LIB OSTIO_CLI
# libostio-preload.so on two clients: cp on node 0 makes a log container on the bed;
# md5sum and cat under the preload on node 1 read the source's bytes; node 1 overwrites
# a range under the preload and node 0 (preload again) reads the patched bytes; the
# container flattened with `ostio container flatten` (no preload) on node 1 equals them.
. "$(dirname "$0")/lib.sh"
[ $# -eq 2 ] || { echo "usage: preload.sh PRELOAD_LIB OSTIO_CLI" >&2; exit 2; }
LIB=$1 CLI=$2
pfs_require
M=$OSTIO_PFS_MNT T=$(mktemp -d)
trap '"$PFS" exec 0 rm -rf "$M/pre"; rm -rf "$T"' EXIT
P=(env LD_PRELOAD="$LIB" OSTIO_PRELOAD_PATHS="$M/pre")
"$PFS" exec 0 rm -rf "$M/pre"
"$PFS" exec 0 mkdir -p "$M/pre" || fail "mkdir"
head -c 5000003 /dev/urandom >"$T/src"
"$PFS" exec 0 "${P[@]}" cp "$T/src" "$M/pre/f" || fail "cp under the preload on node 0"
"$PFS" exec 1 test -d "$M/pre/f" || fail "$M/pre/f is not a container (a directory) seen from node 1"
want=$(md5sum <"$T/src" | cut -d' ' -f1)
got=$("$PFS" exec 1 "${P[@]}" md5sum "$M/pre/f" | cut -d' ' -f1)
[ "$got" = "$want" ] || fail "md5sum under the preload on node 1: $got, the source's $want"
"$PFS" exec 1 "${P[@]}" cat "$M/pre/f" >"$T/back" || fail "cat under the preload on node 1"
cmp "$T/src" "$T/back" || fail "cat on node 1 differs from the source"
head -c 123457 /dev/urandom >"$T/patch"
"$PFS" exec 1 "${P[@]}" dd if="$T/patch" of="$M/pre/f" bs=65536 oflag=seek_bytes seek=1000001 conv=notrunc status=none ||
  fail "dd under the preload on node 1"
cp "$T/src" "$T/want" && dd if="$T/patch" of="$T/want" bs=65536 oflag=seek_bytes seek=1000001 conv=notrunc status=none
"$PFS" exec 0 "${P[@]}" cat "$M/pre/f" >"$T/back0" || fail "cat under the preload on node 0"
cmp "$T/want" "$T/back0" || fail "node 0 does not read node 1's overwrite through the preload"
"$PFS" exec 1 "$CLI" container flatten "$M/pre/f" "$T/flat" >/dev/null || fail "ostio container flatten on node 1"
cmp "$T/want" "$T/flat" || fail "the flattened container differs"
echo "ok: 5000003 bytes cp on node 0, md5sum/cat on node 1, 123457 overwritten on node 1 read on node 0, flatten equal"
