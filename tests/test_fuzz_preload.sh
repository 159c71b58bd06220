#!/usr/bin/env bash
# The preload part of the container fuzz (issue 13, docs/fuzz.md): the mutated
# containers of test_fuzz_containers (--emit) read by real programs through
# libostio-preload.so: cat, dd with a skip, wc, head, tail, stat, cp out of the
# prefix. Every program must end by itself within the timeout and not by a
# signal (exit status 0 or a normal error status); nothing else is asserted.
# Prints nothing for a passing case; a failing one prints the program, the
# mutations and how to reproduce it.
#   test_fuzz_preload.sh FUZZ_BINARY PRELOAD_LIB [CASES [SEED [FIRST [TIMEOUT]]]]
set -u
fuzz=${1:?usage: test_fuzz_preload.sh FUZZ_BINARY PRELOAD_LIB [CASES [SEED [FIRST [TIMEOUT]]]]}
lib=${2:?preload library}
cases=${3:-300}
seed=${4:-1}
first=${5:-0}
to=${6:-10}
progress=${OSTIO_FUZZ_PROGRESS:-0}
[ -f "$lib" ] || { echo "test_fuzz_preload: no preload library at $lib"; exit 2; }
base=/dev/shm
[ -d "$base" ] && [ -w "$base" ] || base=${TMPDIR:-/tmp}
work=$(mktemp -d "$base/ostio-fuzzpl-XXXXXX") || exit 2
trap 'rm -rf "$work"' EXIT
if ! "$fuzz" --emit "$work/cases" --cases "$cases" --seed "$seed" --first "$first" \
     --workdir "$work/w" >"$work/emit.out" 2>&1; then
  echo "test_fuzz_preload: $fuzz --emit failed:"; cat "$work/emit.out"; exit 2
fi
fails=0
ran=0
start=$SECONDS
last=$SECONDS
while IFS=$'\t' read -r n bname desc; do
  c="$work/cases/$n/c"
  ran=$((ran + 1))
  for prog in "cat C" "dd if=C of=/dev/null bs=4096 skip=3 status=none" "wc -c C" \
              "head -c 100 C" "tail -c 5000 C" "stat C" "cp C OUT"; do
    cmd=${prog//C/$c}
    cmd=${cmd//OUT/$work/out}
    rm -f "$work/out"
    # shellcheck disable=SC2086
    timeout -s KILL "$to" env LD_PRELOAD="$lib" OSTIO_PRELOAD_PATHS="$work/cases" \
      $cmd >/dev/null 2>"$work/err"
    rc=$?
    if [ "$rc" -ge 124 ]; then
      fails=$((fails + 1))
      if [ "$rc" = 137 ]; then what="hang (killed after ${to} s)"
      elif [ "$rc" -gt 128 ]; then what="crash (signal $((rc - 128)))"
      else what="exit status $rc"; fi
      echo "FAIL preload case $((10#$n)) (seed $seed): '${prog%% *}' $what"
      echo "  command: LD_PRELOAD=libostio-preload.so ${prog//C/CONTAINER}"
      echo "  base $bname; mutations: $desc"
      echo "  reproduce: scripts/fuzz.sh --preload-only --seed $seed --case $((10#$n))"
      sed -n '1,15s/^/    | /p' "$work/err"
    fi
  done
  if [ "$progress" != 0 ] && [ $((SECONDS - last)) -ge "$progress" ]; then
    echo "fuzz preload: $ran/$cases cases, $fails failing" >&2
    last=$SECONDS
  fi
  rm -rf "${work:?}/cases/$n"
done <"$work/cases/cases.txt"
echo "fuzz preload: seed $seed, cases $first..$((first + cases - 1)): $ran run, $fails failing," \
     "$((SECONDS - start)) s"
[ "$fails" = 0 ]
