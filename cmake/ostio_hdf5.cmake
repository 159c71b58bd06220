# Parallel HDF5 built on MPICH (issue 16): the HDF5 tests (tests/mpiio/h5_tests.cmake)
# and bench/h5_bench.c. Optional: without it they are skipped with a STATUS line.
#
# Found only when the MPI found (MPI::MPI_C) is MPICH: Debian's libhdf5-mpich-dev
# links libmpich, so with Open MPI's mpicc the HDF5 programs would carry two MPIs.
# Sources, in order: the cache variables OSTIO_HDF5_INCLUDE_DIR / OSTIO_HDF5_LIBRARY
# (set them for another installation), pkg-config hdf5-mpich, Debian's paths
# /usr/include/hdf5/mpich and /usr/lib/<multiarch>/hdf5/mpich. The header must say
# H5_HAVE_PARALLEL and a program calling H5Pset_fapl_mpio must link.
#
# Result: OSTIO_HDF5_MPICH (ON/OFF) and, when ON, the imported target ostio::hdf5_mpich.
# Included from tests/mpiio/h5_tests.cmake and from the bench part of CMakeLists.txt
# (two directory scopes): the checks are cached, the target is GLOBAL, the STATUS
# line is printed once. scripts/deps.sh installs libhdf5-mpich-dev and hdf5-tools.
include(CheckCSourceCompiles)

set(OSTIO_HDF5_MPICH OFF)
set(_ostio_h5_why "")

# Is the MPI found MPICH? (MPICH_VERSION is defined by MPICH's mpi.h only.)
set(CMAKE_REQUIRED_LIBRARIES MPI::MPI_C)
set(CMAKE_REQUIRED_QUIET ON)
check_c_source_compiles("#include <mpi.h>
#ifndef MPICH_VERSION
#error not MPICH
#endif
int main(void) { return 0; }" OSTIO_MPI_IS_MPICH)
unset(CMAKE_REQUIRED_LIBRARIES)

if(NOT OSTIO_MPI_IS_MPICH)
  set(_ostio_h5_why "the MPI found is not MPICH (Debian's parallel HDF5 is hdf5-mpich)")
else()
  find_package(PkgConfig QUIET)
  if(PkgConfig_FOUND)
    pkg_check_modules(_OSTIO_H5PC QUIET hdf5-mpich)
  endif()
  set(_ostio_h5_arch "${CMAKE_LIBRARY_ARCHITECTURE}")
  if(NOT _ostio_h5_arch)
    set(_ostio_h5_arch "${CMAKE_SYSTEM_PROCESSOR}-linux-gnu")
  endif()
  # NO_DEFAULT_PATH: a serial hdf5.h on the default path must not be taken.
  find_path(OSTIO_HDF5_INCLUDE_DIR hdf5.h
    HINTS ${_OSTIO_H5PC_INCLUDE_DIRS} PATHS /usr/include/hdf5/mpich NO_DEFAULT_PATH
    DOC "include directory of parallel HDF5 on MPICH")
  find_library(OSTIO_HDF5_LIBRARY NAMES hdf5
    HINTS ${_OSTIO_H5PC_LIBRARY_DIRS} PATHS /usr/lib/${_ostio_h5_arch}/hdf5/mpich
    NO_DEFAULT_PATH DOC "libhdf5 of parallel HDF5 on MPICH")
  if(NOT OSTIO_HDF5_INCLUDE_DIR OR NOT OSTIO_HDF5_LIBRARY)
    set(_ostio_h5_why "no hdf5-mpich (Debian: apt-get install libhdf5-mpich-dev, or scripts/deps.sh)")
  else()
    set(CMAKE_REQUIRED_INCLUDES ${OSTIO_HDF5_INCLUDE_DIR})
    set(CMAKE_REQUIRED_LIBRARIES ${OSTIO_HDF5_LIBRARY} MPI::MPI_C)
    check_c_source_compiles("#include <hdf5.h>
#ifndef H5_HAVE_PARALLEL
#error serial HDF5
#endif
int main(void) { hid_t p = H5Pcreate(H5P_FILE_ACCESS);
  return H5Pset_fapl_mpio(p, MPI_COMM_WORLD, MPI_INFO_NULL) < 0; }" OSTIO_HDF5_PARALLEL_LINKS)
    unset(CMAKE_REQUIRED_INCLUDES)
    unset(CMAKE_REQUIRED_LIBRARIES)
    if(OSTIO_HDF5_PARALLEL_LINKS)
      set(OSTIO_HDF5_MPICH ON)
    else()
      set(_ostio_h5_why "${OSTIO_HDF5_INCLUDE_DIR}/hdf5.h is not a parallel HDF5 that links with this MPI")
    endif()
  endif()
endif()
unset(CMAKE_REQUIRED_QUIET)

get_property(_ostio_h5_said GLOBAL PROPERTY OSTIO_HDF5_REPORTED)
set_property(GLOBAL PROPERTY OSTIO_HDF5_REPORTED ON)
if(OSTIO_HDF5_MPICH)
  if(NOT TARGET ostio::hdf5_mpich)
    add_library(ostio::hdf5_mpich INTERFACE IMPORTED GLOBAL)
    set_target_properties(ostio::hdf5_mpich PROPERTIES
      INTERFACE_INCLUDE_DIRECTORIES "${OSTIO_HDF5_INCLUDE_DIR}"
      INTERFACE_LINK_LIBRARIES "${OSTIO_HDF5_LIBRARY};MPI::MPI_C")
  endif()
  if(NOT _ostio_h5_said)
    message(STATUS "Parallel HDF5 (MPICH): ${OSTIO_HDF5_LIBRARY}")
  endif()
elseif(NOT _ostio_h5_said)
  message(STATUS "Parallel HDF5: not used, ${_ostio_h5_why}; the HDF5 tests and ostio_h5_bench are skipped")
endif()
