# Fortran MPI-IO through libostio-mpiio.so (issue 28 item 4; docs/mpiio.md,
# "Tools and Fortran"): tests/mpiio/fortran/fio.F90 in the three binding
# styles, run by compare.sh natively and through the interposer into a plain
# file and a log container, files compared byte for byte (the container
# flattened). Included from tests/mpiio/pmpi_tests.cmake.
#
# The programs are built with the Fortran wrapper of the MPI the project is
# built with (mpicc.mpich -> mpifort.mpich, mpicc.openmpi -> mpifort.openmpi
# or mpif90.openmpi; OSTIO_MPI_FORTRAN_WRAPPER overrides), never with another
# MPI's: found next to MPI_C_COMPILER and tried on a `use mpi_f08` program
# at configure time, which must load the C build's MPI library and no other
# (ldd). Without one the tests are left out, with a message.
set(_fdir ${CMAKE_CURRENT_LIST_DIR})
if(NOT OSTIO_MPI_FORTRAN_WRAPPER)
  get_filename_component(_cc "${MPI_C_COMPILER}" NAME)
  get_filename_component(_ccdir "${MPI_C_COMPILER}" DIRECTORY)
  set(_cands)
  foreach(_f mpifort mpif90)
    string(REPLACE "mpicc" "${_f}" _fc "${_cc}")
    if(NOT _fc STREQUAL _cc)
      list(APPEND _cands ${_fc})
    endif()
  endforeach()
  if(_cands)
    find_program(OSTIO_MPI_FORTRAN_WRAPPER NAMES ${_cands} HINTS ${_ccdir}
      DOC "Fortran wrapper of the MPI the project is built with (Fortran tests)")
  endif()
endif()
# The directories of the C build's MPI libraries come first on the link line:
# Debian's mpifort.openmpi names no directory for -lmpi, so with MPICH as the
# system's default MPI it links MPICH's libmpi.so alternative beside Open MPI's
# Fortran libraries (the program then aborts in MPI_Init).
set(_fflags)
set(_csonames)
foreach(_lib IN LISTS MPI_C_LIBRARIES)
  get_filename_component(_d "${_lib}" DIRECTORY)
  list(APPEND _fflags "-L${_d}")
  get_filename_component(_real "${_lib}" REALPATH)
  get_filename_component(_n "${_real}" NAME)
  string(REGEX MATCH "^lib(mpi|mpich)\\.so\\.[0-9]+" _so "${_n}")
  if(_so)
    list(APPEND _csonames ${_so})
  endif()
endforeach()
list(REMOVE_DUPLICATES _fflags)
list(REMOVE_DUPLICATES _csonames)
set(_fok FALSE)
if(OSTIO_MPI_FORTRAN_WRAPPER)
  set(_probe ${CMAKE_CURRENT_BINARY_DIR}/fortran_probe)
  file(MAKE_DIRECTORY ${_probe})
  file(WRITE ${_probe}/probe.f90
    "program probe\n  use mpi_f08\n  type(MPI_File) :: fh\n  integer :: ierr\n"
    "  call MPI_Init(ierr)\n  call MPI_Finalize(ierr)\nend program probe\n")
  execute_process(COMMAND ${OSTIO_MPI_FORTRAN_WRAPPER} ${_fflags} -o probe probe.f90
    WORKING_DIRECTORY ${_probe} RESULT_VARIABLE _rc OUTPUT_QUIET ERROR_VARIABLE _err)
  if(NOT _rc EQUAL 0)
    message(STATUS "Fortran MPI-IO tests skipped: ${OSTIO_MPI_FORTRAN_WRAPPER} cannot build "
      "a `use mpi_f08` program (${_err}); scripts/deps.sh installs gfortran")
  else()
    # The program must load the C build's MPI library and no other.
    execute_process(COMMAND ldd ${_probe}/probe OUTPUT_VARIABLE _ldd ERROR_QUIET)
    string(REGEX MATCHALL "lib(mpi|mpich)\\.so\\.[0-9]+ " _fsonames "${_ldd}")
    string(REPLACE " " "" _fsonames "${_fsonames}")
    list(REMOVE_DUPLICATES _fsonames)
    list(SORT _fsonames)
    list(SORT _csonames)
    if(_fsonames STREQUAL _csonames)
      set(_fok TRUE)
    else()
      message(STATUS "Fortran MPI-IO tests skipped: ${OSTIO_MPI_FORTRAN_WRAPPER} links "
        "'${_fsonames}', the C build '${_csonames}' (${MPI_C_LIBRARIES})")
    endif()
  endif()
else()
  message(STATUS "Fortran MPI-IO tests skipped: no Fortran wrapper (mpifort/mpif90) next to "
    "${MPI_C_COMPILER}; scripts/deps.sh installs gfortran, or set OSTIO_MPI_FORTRAN_WRAPPER")
endif()

if(_fok)
  message(STATUS "Fortran MPI-IO tests with ${OSTIO_MPI_FORTRAN_WRAPPER}")
  foreach(style mpifh mpi f08)
    string(TOUPPER ${style} _up)
    set(exe ${CMAKE_CURRENT_BINARY_DIR}/mpiio_fortran_${style})
    add_custom_command(OUTPUT ${exe}
      COMMAND ${OSTIO_MPI_FORTRAN_WRAPPER} ${_fflags} -O1 -DSTYLE_${_up} -o ${exe}
              ${_fdir}/fio.F90
      DEPENDS ${_fdir}/fio.F90 VERBATIM
      COMMENT "Building Fortran MPI-IO test mpiio_fortran_${style}")
    add_custom_target(mpiio_fortran_${style}_prog ALL DEPENDS ${exe})
    foreach(kind plain log)
      set(t mpiio_fortran_${style}.${kind}.np2)
      add_test(NAME ${t}
        COMMAND bash ${OSTIO_MPIIO_COV_DIR}/compare.sh ${MPIEXEC_EXECUTABLE} 2
                $<TARGET_FILE:ostio_mpiio> $<TARGET_FILE:ostio_cli> ${kind} ${exe})
      set_tests_properties(${t} PROPERTIES TIMEOUT 300 LABELS "mpi;mpiio;preload"
        PROCESSORS 2)
    endforeach()
  endforeach()
endif()
