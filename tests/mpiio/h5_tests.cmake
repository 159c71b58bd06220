# Parallel HDF5 over MPI-IO (issue 16): tests/mpiio/h5_hyperslab.c natively and
# through libostio-mpiio.so (tests/mpiio/h5_compare.sh). Included at the end of
# tests/CMakeLists.txt. Needs parallel HDF5 on MPICH (cmake/ostio_hdf5.cmake);
# skipped with a STATUS line without it or with another MPI.
include(${PROJECT_SOURCE_DIR}/cmake/ostio_hdf5.cmake)
if(OSTIO_HDF5_MPICH)
  add_executable(h5_hyperslab ${CMAKE_CURRENT_SOURCE_DIR}/mpiio/h5_hyperslab.c)
  target_compile_options(h5_hyperslab PRIVATE ${OSTIO_WARNINGS})
  target_link_libraries(h5_hyperslab PRIVATE ostio::hdf5_mpich)
  # The program alone, natively (ROMIO).
  add_test(NAME h5_native.np2
    COMMAND ${MPIEXEC_EXECUTABLE} ${MPIEXEC_NUMPROC_FLAG} 2 ${MPIEXEC_PREFLAGS}
            $<TARGET_FILE:h5_hyperslab> ${CMAKE_CURRENT_BINARY_DIR}/h5_native.np2.h5
            ${MPIEXEC_POSTFLAGS})
  set_tests_properties(h5_native.np2 PROPERTIES TIMEOUT 300 LABELS mpi PROCESSORS 2
    PASS_REGULAR_EXPRESSION "No Errors")
  if(TARGET ostio_mpiio)
    find_program(OSTIO_H5DUMP h5dump DOC "h5dump (hdf5-tools), for tests/mpiio/h5_compare.sh")
    set(_h5_extra)
    if(OSTIO_H5DUMP)
      list(APPEND _h5_extra --h5dump ${OSTIO_H5DUMP})
    endif()
    if(TARGET ostio_preload)
      list(APPEND _h5_extra --preload $<TARGET_FILE:ostio_preload>)
    endif()
    # plain: OSTIO_MPIIO_PATHS only; log: new files are log containers (OSTIO_HINTS).
    foreach(mode plain log)
      add_test(NAME h5_cov.${mode}.np2
        COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/mpiio/h5_compare.sh
                --mpiexec ${MPIEXEC_EXECUTABLE} --np 2 --prog $<TARGET_FILE:h5_hyperslab>
                --lib $<TARGET_FILE:ostio_mpiio> --ostio $<TARGET_FILE:ostio_cli>
                --dir ${CMAKE_CURRENT_BINARY_DIR}/h5_cov.${mode}.np2 --mode ${mode} ${_h5_extra})
      set_tests_properties(h5_cov.${mode}.np2 PROPERTIES TIMEOUT 300
        LABELS "mpi;mpiio;preload" PROCESSORS 2)
    endforeach()
    # Issue 28 item 3: the same into a log container with libostio-preload.so
    # beside the interposer and OSTIO_MPIIO_PATHS only (the preload takes them):
    # HDF5's MPI-IO driver makes no POSIX call on the file; ostio's own
    # container work must not be taken by the preload.
    if(TARGET ostio_preload)
      add_test(NAME h5_cov.logboth.np2
        COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/mpiio/h5_compare.sh
                --mpiexec ${MPIEXEC_EXECUTABLE} --np 2 --prog $<TARGET_FILE:h5_hyperslab>
                --lib $<TARGET_FILE:ostio_mpiio>:$<TARGET_FILE:ostio_preload>
                --ostio $<TARGET_FILE:ostio_cli>
                --dir ${CMAKE_CURRENT_BINARY_DIR}/h5_cov.logboth.np2 --mode log ${_h5_extra})
      set_tests_properties(h5_cov.logboth.np2 PROPERTIES TIMEOUT 300
        LABELS "mpi;mpiio;preload" PROCESSORS 2)
    endif()
  else()
    message(STATUS "HDF5 through libostio-mpiio: skipped (no target ostio_mpiio yet)")
  endif()
endif()
