#!/usr/bin/env bash
# Installs ostio into a temporary prefix and builds two consumers against the
# installed files only: one with find_package(ostio), one with pkg-config
# flags read from ostio.pc. Checks the installed CLI runs.
#   test_install.sh SOURCE_DIR BUILD_DIR
set -euo pipefail
src=$1 build=$2
tmp=$(mktemp -d "${TMPDIR:-/tmp}/ostio-install-XXXXXX")
trap 'rm -rf "$tmp"' EXIT
cmake --install "$build" --prefix "$tmp/prefix" >/dev/null
test -f "$tmp/prefix/include/ostio.h"
test -x "$tmp/prefix/bin/ostio"
"$tmp/prefix/bin/ostio" --version | grep -q '^ostio '
libdir=$(dirname "$(find "$tmp/prefix" -name 'libostio.so' | head -n1)")
test -f "$libdir/pkgconfig/ostio.pc"
test -f "$libdir/cmake/ostio/ostioConfig.cmake"

# 1. CMake consumer
mkdir -p "$tmp/cm"
cat > "$tmp/cm/CMakeLists.txt" <<'CM'
cmake_minimum_required(VERSION 3.20)
project(consumer C)
find_package(ostio REQUIRED)
add_executable(consumer main.c)
target_link_libraries(consumer PRIVATE ostio::ostio)
CM
cat > "$tmp/cm/main.c" <<'C'
#include <ostio.h>
#include <stdio.h>
int main(void) { printf("%s %s\n", ostio_version_string(), ostio_strerror(OSTIO_EHINT)); return 0; }
C
cmake -S "$tmp/cm" -B "$tmp/cm/build" -DCMAKE_PREFIX_PATH="$tmp/prefix" >/dev/null
cmake --build "$tmp/cm/build" >/dev/null
LD_LIBRARY_PATH="$libdir" "$tmp/cm/build/consumer" | grep -q 'invalid hint'

# 2. pkg-config style consumer (flags read from the .pc file by hand, so no
#    pkg-config binary is needed)
pc="$libdir/pkgconfig/ostio.pc"
prefix="$tmp/prefix"
cflags=$(sed -n 's/^Cflags: //p' "$pc" | sed "s|\${includedir}|$(sed -n 's/^includedir=//p' "$pc" | sed "s|\${prefix}|$prefix|")|")
libs=$(sed -n 's/^Libs: //p' "$pc" | sed "s|\${libdir}|$(sed -n 's/^libdir=//p' "$pc" | sed "s|\${prefix}|$prefix|")|")
# shellcheck disable=SC2086
mpicc $cflags "$tmp/cm/main.c" $libs -o "$tmp/pc-consumer"
LD_LIBRARY_PATH="$libdir" "$tmp/pc-consumer" | grep -q 'invalid hint'
echo "install test: 1 passed, 0 failed"
