#!/usr/bin/env bash
# Installs ostio into a temporary prefix and uses it as a user would, with
# nothing but the installed files (issue 14 item 1):
#   1. the installed file list is exactly the one README.md gives, and every
#      installed file is named in README's install paragraph;
#   2. pkg-config: PKG_CONFIG_PATH=PREFIX/lib/pkgconfig pkg-config --cflags
#      --libs ostio (the real pkg-config binary), then examples/write_read.c is
#      built with mpicc and those flags and run on 2 ranks, and a tiny program
#      with plain cc (the .pc carries MPI's flags);
#   3. the same after moving the whole prefix elsewhere (the .pc is relocatable);
#   4. CMake: find_package(ostio) and ostio::ostio;
#   5. the installed ostio, ostio-bench and man pages (man finds them).
#   test_install.sh SOURCE_DIR BUILD_DIR [MPICC [MPIEXEC [PRELOAD [MAN]]]]
# PRELOAD, MAN: 1 (default) when libostio-preload.so and the man pages are
# built (-DOSTIO_PRELOAD, -DOSTIO_MAN).
set -euo pipefail
# pipefail: grep reads to the end of its input (no -q), or a writer that is still
# writing when grep -q has matched dies of SIGPIPE (ostio-bench --help, longer than
# one stdio buffer, failed this way under Open MPI).
src=$1 build=$2
mpicc=${3:-mpicc} mpiexec=${4:-mpiexec} preload=${5:-1} man=${6:-1}
case "$preload" in ON|on|1|TRUE|true|YES|yes) preload=1 ;; *) preload=0 ;; esac
case "$man" in ON|on|1|TRUE|true|YES|yes) man=1 ;; *) man=0 ;; esac
tmp=$(mktemp -d "${TMPDIR:-/tmp}/ostio-install-XXXXXX")
trap 'rm -rf "$tmp"' EXIT
fail() { echo "install test: FAIL: $*" >&2; exit 1; }

cmake --install "$build" --prefix "$tmp/prefix" >/dev/null
prefix=$tmp/prefix
lib=$(dirname "$(find "$prefix" -name 'libostio.so' | head -n1)")
libdir=${lib#"$prefix"/}

# ---- 1. the installed files ---------------------------------------------------
expected=(bin/ostio bin/ostio-bench include/ostio.h
          "$libdir/libostio.so" "$libdir/pkgconfig/ostio.pc"
          "$libdir/cmake/ostio/ostioConfig.cmake" "$libdir/cmake/ostio/ostioConfigVersion.cmake"
          "$libdir/cmake/ostio/ostioTargets.cmake")
[ "$preload" = 1 ] && expected+=("$libdir/libostio-preload.so")
expected+=("$libdir/libostio-mpiio.so")
[ "$man" = 1 ] && expected+=(share/man/man1/ostio.1 share/man/man1/ostio-bench.1)
# issue 31 (i31-stats): the Python halves of `ostio report` and `ostio model --plot`.
expected+=(share/ostio/ostio-report.py share/ostio/model-plot.py)
for f in "${expected[@]}"; do
  [ -e "$prefix/$f" ] || fail "$f is not installed"
done
# Nothing else, apart from the versioned library names and the per-build-type
# CMake targets file.
unexpected=$(cd "$prefix" && find . \( -type f -o -type l \) | sed 's|^\./||' | sort |
  while read -r f; do
    case " ${expected[*]} " in *" $f "*) continue ;; esac
    case "$f" in "$libdir"/libostio.so.[0-9]*|"$libdir"/libostio-mpiio.so.[0-9]*|"$libdir"/cmake/ostio/ostioTargets-*.cmake) continue ;; esac
    echo "$f"
  done)
[ -z "$unexpected" ] || fail "installed but not expected (update README.md and this test): $unexpected"
# README.md: the paragraph after `cmake --install` names every installed file.
readme_install=$(awk '/^## Build and install/ {on = 1; next} /^## / {on = 0} on' "$src/README.md")
for name in libostio.so libostio-preload.so libostio-mpiio.so include/ostio.h '`ostio`' '`ostio-bench`' \
            lib/pkgconfig/ostio.pc 'find_package(ostio)' ostio.1 ostio-bench.1 share/man/man1; do
  grep -qF -- "$name" <<<"$readme_install" || fail "README.md's install section does not name $name"
done
echo "ok 1 installed files match README.md"

# ---- 2. pkg-config, as a user would -------------------------------------------
cat > "$tmp/main.c" <<'C'
#include <ostio.h>
#include <stdio.h>
int main(void) { printf("%s %s\n", ostio_version_string(), ostio_strerror(OSTIO_EHINT)); return 0; }
C
pc_consumers() { # PREFIX TAG
  local p=$1 tag=$2 cflags libs
  export PKG_CONFIG_PATH="$p/$libdir/pkgconfig"
  cflags=$(pkg-config --cflags ostio) || fail "$tag: pkg-config --cflags ostio"
  libs=$(pkg-config --libs ostio) || fail "$tag: pkg-config --libs ostio"
  [ "$(pkg-config --modversion ostio)" = "$("$p/bin/ostio" --version | cut -d' ' -f2)" ] ||
    fail "$tag: pkg-config --modversion differs from ostio --version"
  [ -f "$(pkg-config --variable=includedir ostio)/ostio.h" ] ||
    fail "$tag: includedir=$(pkg-config --variable=includedir ostio) has no ostio.h"
  # The example of README.md's "Using the library", with mpicc.
  # shellcheck disable=SC2086
  "$mpicc" $cflags "$src/examples/write_read.c" $libs -o "$tmp/write_read-$tag" ||
    fail "$tag: mpicc \$(pkg-config --cflags --libs ostio) examples/write_read.c"
  rm -f "$tmp/out-$tag.dat"
  LD_LIBRARY_PATH="$p/$libdir" "$mpiexec" -n 2 "$tmp/write_read-$tag" "$tmp/out-$tag.dat" \
    > "$tmp/wr-$tag.out" || { cat "$tmp/wr-$tag.out"; fail "$tag: write_read on 2 ranks"; }
  grep -q '^write_read: ok' "$tmp/wr-$tag.out" || { cat "$tmp/wr-$tag.out"; fail "$tag: no ok line"; }
  # Plain cc: the .pc carries MPI's include directories and libraries.
  # shellcheck disable=SC2086
  cc $cflags "$tmp/main.c" $libs -o "$tmp/cc-$tag" ||
    fail "$tag: cc \$(pkg-config --cflags --libs ostio)"
  LD_LIBRARY_PATH="$p/$libdir" "$tmp/cc-$tag" | grep 'invalid hint' >/dev/null || fail "$tag: cc consumer"
  unset PKG_CONFIG_PATH
}
pc_consumers "$prefix" installed
echo "ok 2 pkg-config: mpicc and cc consumers build and run"

# ---- 3. relocated: the whole prefix moved -------------------------------------
mv "$prefix" "$tmp/moved"
pc_consumers "$tmp/moved" moved
mv "$tmp/moved" "$prefix"
echo "ok 3 pkg-config after moving the prefix"

# ---- 4. CMake consumer --------------------------------------------------------
mkdir -p "$tmp/cm"
cat > "$tmp/cm/CMakeLists.txt" <<'CM'
cmake_minimum_required(VERSION 3.20)
project(consumer C)
find_package(ostio REQUIRED)
add_executable(consumer ../main.c)
target_link_libraries(consumer PRIVATE ostio::ostio)
CM
cmake -S "$tmp/cm" -B "$tmp/cm/build" -DCMAKE_PREFIX_PATH="$prefix" \
      -DMPI_C_COMPILER="$mpicc" >/dev/null
cmake --build "$tmp/cm/build" >/dev/null
LD_LIBRARY_PATH="$prefix/$libdir" "$tmp/cm/build/consumer" | grep 'invalid hint' >/dev/null ||
  fail "find_package consumer"
echo "ok 4 find_package(ostio) consumer"

# ---- 5. installed programs and man pages --------------------------------------
LD_LIBRARY_PATH="$prefix/$libdir" "$prefix/bin/ostio" --version | grep '^ostio ' >/dev/null ||
  fail "bin/ostio --version"
LD_LIBRARY_PATH="$prefix/$libdir" "$prefix/bin/ostio-bench" --help | grep 'ostio-bench' >/dev/null ||
  fail "bin/ostio-bench --help"
# issue 31 (i31-stats): the installed `ostio report` runs the installed script.
LD_LIBRARY_PATH="$prefix/$libdir" "$prefix/bin/ostio" report --help > "$tmp/report-help" &&
  grep '^usage: ostio report' "$tmp/report-help" >/dev/null || fail "bin/ostio report --help"
if [ "$man" = 1 ] && command -v man >/dev/null 2>&1; then
  for page in ostio ostio-bench; do
    [ "$(MANPATH="$prefix/share/man" man -w "$page")" = "$prefix/share/man/man1/$page.1" ] ||
      fail "man -w $page with MANPATH=PREFIX/share/man"
  done
fi
echo "ok 5 installed ostio, ostio-bench and man pages"
echo "install test: 5 passed, 0 failed"
