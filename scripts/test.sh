#!/usr/bin/env bash
# The whole test suite: installs missing build dependencies, builds with
# warnings as errors and runs every test (MPICH); then rebuilds with
# AddressSanitizer and UndefinedBehaviorSanitizer and runs the suite again;
# then builds with Debian's Open MPI and runs the suite once more. The pfs tests
# (a CephFS test bed, docs/pfs.md) run in the first pass only.
#   scripts/test.sh            all three passes
#   OSTIO_TEST_QUICK=1 ...     the first pass only
#   OSTIO_TEST_OPENMPI=0 ...   skip the Open MPI pass
#   OSTIO_TEST_RELEASE=0 ...   skip the Release build (warnings as errors)
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/deps.sh --suites --pfs   # autotools too: the suites test builds PnetCDF (docs/suites.md);
                                 # --pfs: Ceph for the CephFS test bed (the pfs tests, docs/pfs.md)

jobs=$(nproc 2>/dev/null || echo 2)
export OMPI_MCA_rmaps_base_oversubscribe=1   # harmless under MPICH

echo "== build (warnings are errors)"
# MPICH explicitly (mpicc may name another MPI when several are installed).
mpich=()
if command -v mpicc.mpich >/dev/null 2>&1 && command -v mpiexec.mpich >/dev/null 2>&1; then
  mpich=(-DMPI_C_COMPILER="$(command -v mpicc.mpich)"
         -DMPIEXEC_EXECUTABLE="$(command -v mpiexec.mpich)")
fi
cmake -S . -B build/test -DOSTIO_WERROR=ON -DCMAKE_BUILD_TYPE=RelWithDebInfo "${mpich[@]}" >/dev/null
cmake --build build/test -j"$jobs"
echo "== tests"
ctest --test-dir build/test --output-on-failure -j"$jobs"

# The configurations README.md and docs/ document build without a warning:
# README's Release (-O3 finds what -O2 does not: GCC 12's -Wmaybe-uninitialized,
# -Wformat-truncation), everything it builds (ctest runs after it); the man pages
# are left out (no compiler in them). Then the options that change what is
# compiled, -DOSTIO_URING=OFF (io.c's other branch) with -DOSTIO_PRELOAD=OFF
# -DOSTIO_TESTS=OFF, configured and the io module built (the only source that
# differs). RelWithDebInfo and Debug (sanitizers) are the passes' own builds.
# OSTIO_TEST_RELEASE=0 skips this step.
if [ "${OSTIO_TEST_RELEASE:-1}" != 0 ]; then
  echo "== build Release and the build options (warnings are errors)"
  cmake -S . -B build/test-release -DOSTIO_WERROR=ON -DCMAKE_BUILD_TYPE=Release -DOSTIO_MAN=OFF \
        "${mpich[@]}" >/dev/null
  cmake --build build/test-release -j"$jobs"
  cmake -S . -B build/test-options -DOSTIO_WERROR=ON -DCMAKE_BUILD_TYPE=Release -DOSTIO_URING=OFF \
        -DOSTIO_PRELOAD=OFF -DOSTIO_TESTS=OFF -DOSTIO_MAN=OFF "${mpich[@]}" >/dev/null
  cmake --build build/test-options -j"$jobs" --target ostio_mod_io
fi

if [ "${OSTIO_TEST_QUICK:-0}" != 1 ]; then
  echo "== build with ASan + UBSan"
  cmake -S . -B build/sanitize -DOSTIO_WERROR=ON -DOSTIO_SANITIZE=ON \
        -DCMAKE_BUILD_TYPE=Debug "${mpich[@]}" >/dev/null
  cmake --build build/sanitize -j"$jobs"
  echo "== tests under ASan + UBSan"
  # MPICH keeps some allocations until exit; leaks are checked in the
  # serial tests only. The install test is left out here: its consumers
  # are built without the sanitizer runtime.
  ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
    ctest --test-dir build/sanitize --output-on-failure -j"$jobs" -LE "mpi|install|preload|pfs"
  ASAN_OPTIONS=detect_leaks=0 UBSAN_OPTIONS=print_stacktrace=1 \
    ctest --test-dir build/sanitize --output-on-failure -j"$jobs" -L mpi -LE "preload|pfs"
fi

if [ "${OSTIO_TEST_QUICK:-0}" != 1 ] && [ "${OSTIO_TEST_OPENMPI:-1}" != 0 ]; then
  echo "== build with Open MPI"
  scripts/deps.sh --openmpi --mpi4py   # mpi4py: tests/mpiio/finalize_py.sh
  # Root (CI machines) and more ranks than cores need Open MPI's consent,
  # also at build time (the man pages run ostio-bench --help, a singleton).
  export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
  cmake -S . -B build/openmpi -DOSTIO_WERROR=ON -DCMAKE_BUILD_TYPE=RelWithDebInfo \
        -DMPI_C_COMPILER="$(command -v mpicc.openmpi)" \
        -DMPIEXEC_EXECUTABLE="$(command -v mpiexec.openmpi)" >/dev/null
  cmake --build build/openmpi -j"$jobs"
  echo "== tests with Open MPI"
  # yield_when_idle keeps oversubscribed ranks from spinning. The
  # preload's many-process test is MPI-independent and ran above.
  OMPI_MCA_rmaps_base_oversubscribe=1 OMPI_MCA_mpi_yield_when_idle=1 \
    ctest --test-dir build/openmpi --output-on-failure -j"$jobs" -E test_log_concurrent -LE pfs
fi