#!/usr/bin/env bash
# Makes sure the build dependencies are present: a C compiler, gfortran (the
# Fortran MPI-IO tests), make, CMake (>= 3.20), Python 3, an MPI (MPICH from
# Debian), liburing (io_uring batches; optional for the build), parallel HDF5
# on MPICH and h5dump (the HDF5 tests and bench; optional: skipped without them) and matplotlib
# (the pictures of ostio report and ostio model --plot, scripts/bench-plot.py; optional,
# installed only as root). As root with
# apt-get it installs what is missing; otherwise it prints the exact command.
#   scripts/deps.sh              MPICH and the rest
#   scripts/deps.sh --openmpi    also Debian's Open MPI (the test suite's second
#                                MPI); MPICH stays the default mpicc/mpiexec
#   scripts/deps.sh --mpi4py     also Debian's python3-mpi4py (built on Open MPI:
#                                tests/mpiio/finalize_py.sh in the Open MPI build)
#   scripts/deps.sh --suites     also autoconf, automake, libtool and m4: building
#                                PnetCDF's test suite from its source release
#                                (scripts/pnetcdf-tests.sh, docs/suites.md)
#   scripts/deps.sh --pfs        also Ceph's mon, mgr, osd, mds, ceph-fuse, the ceph
#                                tool and attr: the CephFS test bed (scripts/pfs.sh,
#                                docs/pfs.md); installed as root, otherwise printed
#                                (the pfs tests are then skipped, not failed)
# The options may be combined.
set -euo pipefail

openmpi=0 mpi4py=0 suites=0 pfs=0
for arg in "$@"; do
  case "$arg" in
    --openmpi) openmpi=1 ;;
    --mpi4py) mpi4py=1 ;;
    --suites) suites=1 ;;
    --pfs) pfs=1 ;;
    -h|--help) sed -n '2,20p' "$0"; exit 0 ;;
    *) echo "deps.sh: unknown argument '$arg' (accepted: --openmpi, --mpi4py, --suites, --pfs, --help)" >&2; exit 2 ;;
  esac
done

missing_pkgs=()
need() { command -v "$1" >/dev/null 2>&1 || missing_pkgs+=("$2"); }
need cc gcc
need make make
need cmake cmake
need python3 python3
need mpicc libmpich-dev
need mpiexec mpich
# gfortran: the MPI library's Fortran wrappers (mpifort.mpich, mpif90.openmpi) build the
# Fortran MPI-IO tests (tests/mpiio/fortran/); without it they are skipped.
need gfortran gfortran
need pkg-config pkg-config
# liburing: the io_uring batch path (src/io/uring.c); the build works without it.
if ! command -v pkg-config >/dev/null 2>&1 || ! pkg-config --exists liburing; then
  missing_pkgs+=(liburing-dev)
fi
# matplotlib (Debian's python3-matplotlib): the PNG/HTML of `ostio report`, the PNG of
# `ostio model --plot` and scripts/bench-plot.py's charts; optional, installed only as
# root (without it those fail with a note, the demo skips its plot, and the tests that
# draw skip that part with the reason).
optional_pkgs=()
/usr/bin/python3 -c 'import matplotlib' >/dev/null 2>&1 || python3 -c 'import matplotlib' \
  >/dev/null 2>&1 || optional_pkgs+=(python3-matplotlib)
# mpi4py (optional, asked for with --mpi4py): Debian's is for /usr/bin/python3.
if [ "$mpi4py" = 1 ] && ! /usr/bin/python3 -c 'import mpi4py' >/dev/null 2>&1; then
  optional_pkgs+=(python3-mpi4py)
fi
# mpi.h must be reachable by mpicc (libmpich-dev provides it).
if command -v mpicc >/dev/null 2>&1 && ! echo '#include <mpi.h>
int main(void){return 0;}' | mpicc -x c - -o /dev/null >/dev/null 2>&1; then
  missing_pkgs+=(libmpich-dev)
fi

# Parallel HDF5 built on MPICH (Debian's libhdf5-mpich-dev: the header below,
# lib/ARCH/hdf5/mpich/libhdf5.so, hdf5-mpich.pc) and h5dump (hdf5-tools, serial
# HDF5): tests/mpiio/h5_* and bench/h5_bench.c. Installed with the rest as root;
# otherwise printed, and the build skips them (not a failure on its own).
hdf5_pkgs=()
[ -f /usr/include/hdf5/mpich/hdf5.h ] || hdf5_pkgs+=(libhdf5-mpich-dev)
command -v h5dump >/dev/null 2>&1 || hdf5_pkgs+=(hdf5-tools)

# PnetCDF's source release has no configure script: autoreconf builds it.
if [ "$suites" = 1 ]; then
  need autoreconf autoconf
  need automake automake
  need libtoolize libtool
  need m4 m4
fi

# The CephFS test bed (ceph 16.2 on Debian 12; nothing starts by itself): optional like
# HDF5, installed as root, otherwise printed; without them the pfs tests skip.
pfs_pkgs=()
if [ "$pfs" = 1 ]; then
  for pair in ceph-mon:ceph-mon ceph-mgr:ceph-mgr ceph-osd:ceph-osd ceph-mds:ceph-mds \
              ceph-fuse:ceph-fuse ceph:ceph-common monmaptool:ceph-common getfattr:attr \
              nsenter:util-linux mountpoint:util-linux; do
    command -v "${pair%%:*}" >/dev/null 2>&1 || pfs_pkgs+=("${pair#*:}")
  done
  # shellcheck disable=SC2207
  [ ${#pfs_pkgs[@]} -eq 0 ] || pfs_pkgs=($(printf '%s\n' "${pfs_pkgs[@]}" | sort -u))
fi

had_openmpi=1
if [ "$openmpi" = 1 ]; then
  command -v mpicc.openmpi >/dev/null 2>&1 || { missing_pkgs+=(libopenmpi-dev); had_openmpi=0; }
  command -v mpiexec.openmpi >/dev/null 2>&1 || { missing_pkgs+=(openmpi-bin); had_openmpi=0; }
fi

# Installing Open MPI next to MPICH makes Debian switch mpicc, mpirun and the
# mpi.h directory to Open MPI (higher alternatives priority): switch them back.
# Likewise whenever MPICH was the default before this run (libhdf5-mpich-dev
# pulls in libmpich-dev, which must leave the choice as it was).
mpich_was_default=0
[ "$(readlink -f /etc/alternatives/mpi 2>/dev/null)" = /usr/bin/mpicc.mpich ] && mpich_was_default=1
keep_mpich_default() {
  if { [ "$had_openmpi" = 0 ] || [ "$mpich_was_default" = 1 ]; } &&
     command -v mpicc.mpich >/dev/null 2>&1; then
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
    || echo "ostio: could not install ${optional_pkgs[*]} (optional: no plots, or" \
            "tests/mpiio/finalize_py.sh skipped)" >&2
fi
if [ ${#missing_pkgs[@]} -eq 0 ] && [ ${#hdf5_pkgs[@]} -gt 0 ]; then
  if [ "$(id -u)" -eq 0 ] && command -v apt-get >/dev/null 2>&1; then
    echo "ostio: installing parallel HDF5: ${hdf5_pkgs[*]}" >&2
    export DEBIAN_FRONTEND=noninteractive
    { apt-get install -y -qq --no-install-recommends "${hdf5_pkgs[@]}" >/dev/null 2>&1 ||
      { apt-get update -qq && apt-get install -y -qq --no-install-recommends \
          "${hdf5_pkgs[@]}" >/dev/null; }; } ||
      echo "ostio: could not install ${hdf5_pkgs[*]} (the HDF5 tests and bench are skipped)" >&2
    keep_mpich_default
  else
    echo "ostio: optional, for the HDF5 tests and bench: sudo apt-get install -y ${hdf5_pkgs[*]}" >&2
  fi
fi
if [ ${#pfs_pkgs[@]} -gt 0 ]; then
  if [ "$(id -u)" -eq 0 ] && command -v apt-get >/dev/null 2>&1; then
    echo "ostio: installing the CephFS test bed: ${pfs_pkgs[*]}" >&2
    { DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${pfs_pkgs[@]}" ||
      { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
          --no-install-recommends "${pfs_pkgs[@]}"; }; } >/dev/null ||
      echo "ostio: could not install ${pfs_pkgs[*]} (the pfs tests are skipped)" >&2
  else
    echo "ostio: optional, for the CephFS test bed (scripts/pfs.sh, the pfs tests):" \
         "sudo apt-get install -y --no-install-recommends ${pfs_pkgs[*]}" >&2
  fi
fi
if [ ${#missing_pkgs[@]} -eq 0 ]; then
  exit 0
fi
# shellcheck disable=SC2207
pkgs=($(printf '%s\n' "${missing_pkgs[@]}" "${hdf5_pkgs[@]}" | sort -u))
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
