#!/usr/bin/env bash
# Makes sure the build dependencies are present: a C compiler, make, CMake
# (>= 3.20), Python 3, an MPI (MPICH from Debian), liburing (io_uring
# batches; optional for the build) and matplotlib (scripts/bench-plot.py;
# optional, installed only as root). As root with apt-get it installs what
# is missing; otherwise it prints the exact command to run.
#   scripts/deps.sh              MPICH and the rest
#   scripts/deps.sh --openmpi    also Debian's Open MPI (the test suite's second
#                                MPI); MPICH stays the default mpicc/mpiexec
set -euo pipefail

openmpi=0
case "${1:-}" in
  --openmpi) openmpi=1 ;;
  -h|--help) sed -n '2,10p' "$0"; exit 0 ;;
  "") ;;
  *) echo "deps.sh: unknown argument '$1' (accepted: --openmpi, --help)" >&2; exit 2 ;;
esac

missing_pkgs=()
need() { command -v "$1" >/dev/null 2>&1 || missing_pkgs+=("$2"); }
need cc gcc
need make make
need cmake cmake
need python3 python3
need mpicc libmpich-dev
need mpiexec mpich
need pkg-config pkg-config
# liburing: the io_uring batch path (src/io/uring.c); the build works without it.
if ! command -v pkg-config >/dev/null 2>&1 || ! pkg-config --exists liburing; then
  missing_pkgs+=(liburing-dev)
fi
# matplotlib (Debian's python3-matplotlib): scripts/bench-plot.py's charts; optional,
# installed only as root (the demo skips its plot with a note without it).
optional_pkgs=()
/usr/bin/python3 -c 'import matplotlib' >/dev/null 2>&1 || python3 -c 'import matplotlib' \
  >/dev/null 2>&1 || optional_pkgs+=(python3-matplotlib)
# mpi.h must be reachable by mpicc (libmpich-dev provides it).
if command -v mpicc >/dev/null 2>&1 && ! echo '#include <mpi.h>
int main(void){return 0;}' | mpicc -x c - -o /dev/null >/dev/null 2>&1; then
  missing_pkgs+=(libmpich-dev)
fi

had_openmpi=1
if [ "$openmpi" = 1 ]; then
  command -v mpicc.openmpi >/dev/null 2>&1 || { missing_pkgs+=(libopenmpi-dev); had_openmpi=0; }
  command -v mpiexec.openmpi >/dev/null 2>&1 || { missing_pkgs+=(openmpi-bin); had_openmpi=0; }
fi

# Installing Open MPI next to MPICH makes Debian switch mpicc, mpirun and the
# mpi.h directory to Open MPI (higher alternatives priority): switch them back.
keep_mpich_default() {
  if [ "$had_openmpi" = 0 ] && command -v mpicc.mpich >/dev/null 2>&1; then
    update-alternatives --quiet --set mpi /usr/bin/mpicc.mpich || true
    update-alternatives --quiet --set mpirun /usr/bin/mpirun.mpich || true
    local arch inc
    arch=$(dpkg-architecture -qDEB_HOST_MULTIARCH 2>/dev/null || gcc -dumpmachine)
    inc=/usr/include/$arch/mpich
    [ -d "$inc" ] && update-alternatives --quiet --set "mpi-$arch" "$inc" || true
  fi
}

if [ ${#optional_pkgs[@]} -gt 0 ] && [ "$(id -u)" -eq 0 ] && command -v apt-get >/dev/null 2>&1; then
  echo "ostio: installing optional: ${optional_pkgs[*]}" >&2
  { DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
      "${optional_pkgs[@]}" || { apt-get update -qq && DEBIAN_FRONTEND=noninteractive \
      apt-get install -y -qq --no-install-recommends "${optional_pkgs[@]}"; }; } >/dev/null 2>&1 \
    || echo "ostio: could not install ${optional_pkgs[*]} (optional: no plots)" >&2
fi
if [ ${#missing_pkgs[@]} -eq 0 ]; then
  exit 0
fi
# shellcheck disable=SC2207
pkgs=($(printf '%s\n' "${missing_pkgs[@]}" | sort -u))
if [ "$(id -u)" -eq 0 ] && command -v apt-get >/dev/null 2>&1; then
  echo "ostio: installing build dependencies: ${pkgs[*]}" >&2
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${pkgs[@]}" >/dev/null
  keep_mpich_default
  exit 0
fi
echo "ostio: missing build dependencies: ${pkgs[*]}" >&2
echo "Install them with:  sudo apt-get install -y ${pkgs[*]}" >&2
echo "(Elsewhere: a C11 compiler, make, CMake >= 3.20, Python 3 and an MPI-3 library.)" >&2
exit 1
