# libostio-mpiio (issue 16, docs/mpiio.md), module mpiio: the datatype
# flattener, the file view and the interposer's pure pieces (SOURCES), the
# decoder and the per-type cache (MPI_SOURCES). Included from CMakeLists.txt
# after the last ostio_module call: mpiio sits above file in the module order.
# The MPI_File_* wrappers themselves are not part of the module (libostio.so
# must not redefine MPI-IO): they go into libostio-mpiio.so only, below.
ostio_module(mpiio
  SOURCES src/mpiio/dtype_map.c src/mpiio/dtype_iter.c src/mpiio/dtype_build.c
          src/mpiio/dtype_dims.c src/mpiio/view.c src/mpiio/mpiio_seek.c
  MPI_SOURCES src/mpiio/dtype.c src/mpiio/dtype_large.c src/mpiio/dtype_named.c src/mpiio/dtype_cache.c
              src/mpiio/mpiio_select.c)

# libostio-mpiio.so: every module's objects plus the wrappers, exporting only
# the MPI_File_* and PMPI_File_* names (src/mpiio/mpiio.map), so it neither clashes with nor
# is clashed by a libostio.so the application also links. Used as LD_PRELOAD
# or linked before the MPI library (-lostio-mpiio: the PMPI profiling
# interface). Called after OSTIO_MODULE_OBJECTS is known.
set(OSTIO_MPIIO_WRAPPERS
  src/mpiio/mpiio_next.c src/mpiio/mpiio_fint.c
  src/mpiio/mpiio_table.c src/mpiio/mpiio_err.c src/mpiio/mpiio_rw.c
  src/mpiio/mpiio_sieve.c src/mpiio/mpiio_shared.c src/mpiio/mpiio_file.c
  src/mpiio/mpiio_data.c src/mpiio/mpiio_calls.c src/mpiio/mpiio_hints.c
  src/mpiio/mpiio_posix.c src/mpiio/mpiio_finalize.c)
function(ostio_mpiio_library)
  add_library(ostio_mpiio SHARED ${OSTIO_MODULE_OBJECTS} ${OSTIO_MPIIO_WRAPPERS})
  set_target_properties(ostio_mpiio PROPERTIES OUTPUT_NAME ostio-mpiio
    VERSION ${PROJECT_VERSION} SOVERSION ${PROJECT_VERSION_MAJOR}
    LINK_DEPENDS ${PROJECT_SOURCE_DIR}/src/mpiio/mpiio.map)
  target_include_directories(ostio_mpiio PRIVATE ${PROJECT_SOURCE_DIR}/include
    ${PROJECT_SOURCE_DIR}/src)
  target_compile_definitions(ostio_mpiio PRIVATE OSTIO_BUILDING_LIBRARY _GNU_SOURCE
    OSTIO_VERSION_STRING="${PROJECT_VERSION}")
  target_compile_options(ostio_mpiio PRIVATE ${OSTIO_WARNINGS})
  target_link_options(ostio_mpiio PRIVATE
    -Wl,--version-script=${PROJECT_SOURCE_DIR}/src/mpiio/mpiio.map -Wl,--no-undefined)
  target_link_libraries(ostio_mpiio PRIVATE MPI::MPI_C pthread ${CMAKE_DL_LIBS})
  if(OSTIO_HAVE_URING)
    target_link_libraries(ostio_mpiio PRIVATE PkgConfig::LIBURING)
  endif()
  install(TARGETS ostio_mpiio LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})
endfunction()

# Pass-through cost of the interposer (scripts/bench-mpiio-passthru.sh): plain
# MPI-IO, not linked against ostio, timed with and without LD_PRELOAD. Not a test.
add_executable(ostio_bench_mpiio_passthru bench/mpiio_passthru.c)
target_compile_options(ostio_bench_mpiio_passthru PRIVATE ${OSTIO_WARNINGS})
target_link_libraries(ostio_bench_mpiio_passthru PRIVATE MPI::MPI_C)
add_executable(ostio_bench_mpiio_byteview bench/mpiio_byteview.c)
target_compile_options(ostio_bench_mpiio_byteview PRIVATE ${OSTIO_WARNINGS})
target_link_libraries(ostio_bench_mpiio_byteview PRIVATE MPI::MPI_C)
