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
#   5. every installed program runs with a clean environment (env -i, no
#      LD_LIBRARY_PATH: RUNPATH finds the installed libraries), also after the
#      prefix is moved; ostio-bench writes and checks a file through
#      libostio-mpiio.so; the data --help points to (share/ostio/systems/*.json,
#      share/ostio/scripts/*.py) is installed and used; man finds the pages.
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
# The data the programs' --help points to.
for f in "$src"/systems/*.json; do expected+=("share/ostio/systems/${f##*/}"); done
expected+=(share/ostio/scripts/model-plot.py share/ostio/scripts/bench-plot.py
           share/ostio/scripts/ostio-report.py)
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
            lib/pkgconfig/ostio.pc 'find_package(ostio)' ostio.1 ostio-bench.1 share/man/man1 \
            share/ostio/systems model-plot.py bench-plot.py; do
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

# A clean environment: no LD_LIBRARY_PATH or anything else of this shell's; Open
# MPI's OMPI_* settings (root, oversubscription) are the launcher's consent, not
# library paths, and are kept.
clean=(env -i PATH=/usr/bin:/bin HOME="${HOME:-/}")
while IFS= read -r v; do clean+=("$v"); done < <(env | grep -E '^OMPI_[A-Za-z_]+=' || true)
run_clean() { # OUT PROGRAM ARGS...: runs with the clean environment, stdout+stderr to OUT
  local out=$1; shift
  "${clean[@]}" "$@" > "$out" 2>&1 || { cat "$out" >&2; return 1; }
}

# ---- 3. relocated: the whole prefix moved -------------------------------------
mv "$prefix" "$tmp/moved"
pc_consumers "$tmp/moved" moved
for p in "$tmp/moved"/bin/*; do
  run_clean "$tmp/moved.out" "$p" --help || fail "moved prefix: env -i bin/${p##*/} --help"
done
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

# ---- 5. installed programs, clean environment, data, man pages ----------------
# Every installed program starts with nothing but the installed tree.
nprog=0
for p in "$prefix"/bin/*; do
  name=${p##*/}
  run_clean "$tmp/help-$name.out" "$p" --help ||
    fail "env -i PATH=/usr/bin:/bin bin/$name --help (a library not found? readelf -d shows RUNPATH)"
  grep "$name" "$tmp/help-$name.out" >/dev/null || fail "bin/$name --help does not name $name"
  nprog=$((nprog + 1))
done
[ "$nprog" -ge 2 ] || fail "only $nprog programs in bin/"
run_clean "$tmp/version.out" "$prefix/bin/ostio" --version || fail "env -i bin/ostio --version"
grep '^ostio ' "$tmp/version.out" >/dev/null || fail "bin/ostio --version: $(cat "$tmp/version.out")"
# ostio-bench, a singleton, writes and reads back every byte through ostio and
# through libostio-mpiio.so (mpiio+ostio; the library it is linked with).
run_clean "$tmp/bench.out" "$prefix/bin/ostio-bench" -a ostio,mpiio+ostio -b 64k -t 16k -s 2 -W -R \
  -o "$tmp/bench.dat" || fail "env -i bin/ostio-bench -a ostio,mpiio+ostio -W -R"
grep 'mpiio+ostio' "$tmp/bench.out" >/dev/null || { cat "$tmp/bench.out"; fail "ostio-bench: no mpiio+ostio row"; }
# Every command's --help: each share/ostio/... path it names is installed.
cmds=$(awk '/^Commands:/ {on = 1; next} on && /^  [a-z]/ {print $1} on && /^$/ {exit}' "$tmp/help-ostio.out")
[ -n "$cmds" ] || fail "no commands in ostio --help"
: > "$tmp/helps.out"
for c in $cmds; do
  run_clean "$tmp/help-c.out" "$prefix/bin/ostio" "$c" --help || fail "env -i bin/ostio $c --help"
  cat "$tmp/help-c.out" >> "$tmp/helps.out"
done
cat "$tmp"/help-*.out >> "$tmp/helps.out"
paths=$(grep -o 'share/ostio/[A-Za-z0-9_./-]*[A-Za-z0-9_]' "$tmp/helps.out" | sort -u)
for path in $paths share/ostio/systems share/ostio/scripts/model-plot.py; do
  [ -e "$prefix/$path" ] || fail "--help names PREFIX/$path, which is not installed"
done
grep 'share/ostio/systems' "$tmp/helps.out" >/dev/null || fail "no --help names share/ostio/systems"
# The installed descriptions and scripts are the source's and work.
for f in "$src"/systems/*.json; do
  cmp "$f" "$prefix/share/ostio/systems/${f##*/}" || fail "share/ostio/systems/${f##*/} differs"
done
run_clean "$tmp/model.out" "$prefix/bin/ostio" model --system "$prefix/share/ostio/systems/local.json" \
  --ranks 2 --stripe-count 1 || fail "env -i bin/ostio model --system PREFIX/share/ostio/systems/local.json"
grep -E "^ *2 +ost " "$tmp/model.out" >/dev/null || { cat "$tmp/model.out"; fail "ostio model: no ost row"; }
# Without --system the message names the installed directory.
"${clean[@]}" "$prefix/bin/ostio" model > "$tmp/nosys.out" 2>&1 && fail "ostio model without --system exited 0"
grep -F "$(cd "$prefix/share/ostio/systems" && pwd -P)" "$tmp/nosys.out" >/dev/null ||
  fail "ostio model without --system does not name PREFIX/share/ostio/systems: $(cat "$tmp/nosys.out")"
for py in model-plot.py bench-plot.py; do
  [ -x "$prefix/share/ostio/scripts/$py" ] || fail "share/ostio/scripts/$py is not executable"
  run_clean "$tmp/py.out" "$prefix/share/ostio/scripts/$py" --help || fail "env -i share/ostio/scripts/$py --help"
done
# The installed `ostio report` runs the installed script.
run_clean "$tmp/report-help" "$prefix/bin/ostio" report --help || fail "env -i bin/ostio report --help"
grep '^usage: ostio report' "$tmp/report-help" >/dev/null || fail "bin/ostio report --help: $(cat "$tmp/report-help")"
if [ "$man" = 1 ] && command -v man >/dev/null 2>&1; then
  for page in ostio ostio-bench; do
    [ "$(MANPATH="$prefix/share/man" man -w "$page")" = "$prefix/share/man/man1/$page.1" ] ||
      fail "man -w $page with MANPATH=PREFIX/share/man"
  done
fi
echo "ok 5 $nprog installed programs run with env -i (also from a moved prefix); data and man pages"
echo "install test: 5 passed, 0 failed"
