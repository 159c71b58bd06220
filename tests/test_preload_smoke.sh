#!/bin/bash
# Smoke test of libostio-preload.so (issue 7): cp in, cat, md5sum, cp out,
# tail -c and dd conv=notrunc through the preload on a log and a striped
# container; every checksum must equal the same workflow on a plain
# directory. The broad suite is tests/preload/. Usage: $0 LIBOSTIO_PRELOAD_SO
set -euo pipefail
lib=${1:?usage: $0 path/to/libostio-preload.so}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/ostio-preload-smoke.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
mkdir "$tmp/plain" "$tmp/ctr"
head -c 3000000 /dev/urandom > "$tmp/in.bin"
run() { OSTIO_PRELOAD_PATHS="$tmp/ctr" LD_PRELOAD="$lib" "$@"; }
fail=0
workflow() { # DIR NAME: prints one checksum per step
  local f=$1/$2
  cp "$tmp/in.bin" "$f"
  md5sum < "$f" | cut -d' ' -f1
  cat "$f" | md5sum | cut -d' ' -f1
  tail -c 12345 "$f" | md5sum | cut -d' ' -f1
  dd if="$tmp/in.bin" of="$f" bs=4096 skip=3 seek=100 count=50 conv=notrunc status=none
  md5sum "$f" | cut -d' ' -f1
  cp "$f" "$1/$2.out"
  md5sum < "$1/$2.out" | cut -d' ' -f1
  stat -c %s "$f"
}
want=$(workflow "$tmp/plain" x)
for kind in log striped; do
  hints=""
  [ "$kind" = striped ] && hints="*:ostio_container=striped:ostio_objects=3:striping_unit=65536"
  got=$(OSTIO_HINTS="$hints" run bash -c "$(declare -f workflow); tmp=$tmp; workflow $tmp/ctr $kind")
  if [ "$got" != "$want" ]; then
    echo "FAIL $kind: got"; echo "$got"; echo "want"; echo "$want"; fail=1
  fi
  # the container really is one: a directory with a manifest of this kind
  if ! grep -q "kind $kind" "$tmp/ctr/$kind/ostio.manifest"; then
    echo "FAIL $kind: $tmp/ctr/$kind is not a $kind container"; fail=1
  fi
  # listed as a regular file, removed as one
  t=$(run python3 -c "import os,sys; e=[x for x in os.scandir(sys.argv[1]) if x.name==sys.argv[2]][0]; print(e.is_file(), os.stat(e.path).st_size)" "$tmp/ctr" "$kind")
  [ "$t" = "True $(stat -c %s "$tmp/plain/x")" ] || { echo "FAIL $kind: listing says $t"; fail=1; }
  run rm "$tmp/ctr/$kind"
  [ ! -e "$tmp/ctr/$kind" ] || { echo "FAIL $kind: rm left the container"; fail=1; }
done
# the path rule (issue 13 item 4): PREFIX/lnk/../c.dat with lnk -> another
# directory names OTHER/c.dat (symlinks before ".."): dd writes that file and
# leaves the container PREFIX/c.dat as it was (md5 of the bytes)
mkdir -p "$tmp/other/sub"
ln -s "$tmp/other/sub" "$tmp/ctr/lnk"
echo "the plain file the user named" > "$tmp/other/c.dat"
run cp "$tmp/in.bin" "$tmp/ctr/c.dat"
head -c 70000 /dev/urandom > "$tmp/b.bin"
run dd if="$tmp/b.bin" of="$tmp/ctr/lnk/../c.dat" status=none
[ "$(md5sum < "$tmp/other/c.dat")" = "$(md5sum < "$tmp/b.bin")" ] ||
  { echo "FAIL lnk/..: $tmp/other/c.dat does not hold the data dd wrote"; fail=1; }
md5_of() { md5sum "$1" | cut -d' ' -f1; }
[ -f "$tmp/ctr/c.dat/ostio.manifest" ] && [ "$(run md5sum "$tmp/ctr/c.dat" | cut -d' ' -f1)" = "$(md5_of "$tmp/in.bin")" ] ||
  { echo "FAIL lnk/..: the container $tmp/ctr/c.dat changed"; fail=1; }
# rm of a symlink to a container removes the link, not the container
ln -s c.dat "$tmp/ctr/s"
run rm "$tmp/ctr/s" || { echo "FAIL rm of a symlink to a container"; fail=1; }
[ -f "$tmp/ctr/c.dat/ostio.manifest" ] && [ "$(run md5sum "$tmp/ctr/c.dat" | cut -d' ' -f1)" = "$(md5_of "$tmp/in.bin")" ] ||
  { echo "FAIL rm of a symlink damaged the container"; fail=1; }
# fopen "wx" does not follow a dangling final symlink (EEXIST, as open(2)
# with O_CREAT|O_EXCL): nothing is created at its target
ln -s "$tmp/ctr/target.dat" "$tmp/ctr/dangle"
r=$(run python3 -c "import ctypes, sys
libc = ctypes.CDLL(None, use_errno=True)
libc.fopen.restype = ctypes.c_void_p
f = libc.fopen(sys.argv[1].encode(), b'wx')
print('EEXIST' if not f and ctypes.get_errno() == 17 else 'opened')" "$tmp/ctr/dangle")
[ "$r" = EEXIST ] && [ ! -e "$tmp/ctr/target.dat" ] ||
  { echo "FAIL fopen wx on a dangling symlink: $r, target exists: $([ -e "$tmp/ctr/target.dat" ] && echo yes || echo no)"; fail=1; }
# a program that never touches a container path behaves identically
[ "$(run md5sum < "$tmp/in.bin")" = "$(md5sum < "$tmp/in.bin")" ] || { echo "FAIL plain"; fail=1; }
[ $fail = 0 ] && echo "preload smoke: OK"
exit $fail
