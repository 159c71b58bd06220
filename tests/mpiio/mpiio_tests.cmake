# MPI-IO coverage suite (issue 16, tests/mpiio/): plain MPI-IO programs, each
# run natively (ROMIO) and under LD_PRELOAD=libostio-mpiio.so by compare.sh,
# which requires "No Errors" from both and byte-identical files (containers
# flattened with the ostio CLI), plus a pass-through run outside
# OSTIO_MPIIO_PATHS. Included from tests/CMakeLists.txt.
#
#   mpiio_native_NAME.np2         the program alone against ROMIO (label mpi)
#   mpiio_cov_NAME.KIND.npN       compare.sh, KIND plain|log|logstaged|striped (labels
#                                 mpi;mpiio;preload; only with target ostio_mpiio)
set(OSTIO_MPIIO_COV_DIR ${CMAKE_CURRENT_LIST_DIR})

add_library(ostio_mpiio_covutil STATIC ${OSTIO_MPIIO_COV_DIR}/mpiio_util.c)
target_compile_options(ostio_mpiio_covutil PRIVATE ${OSTIO_WARNINGS})
target_link_libraries(ostio_mpiio_covutil PUBLIC MPI::MPI_C)

# ostio_mpiio_cov(NAME SOURCES src... [DEFS def...] [ARGS arg...])
function(ostio_mpiio_cov name)
  cmake_parse_arguments(A "" "" "SOURCES;DEFS;ARGS" ${ARGN})
  set(exe mpiio_cov_${name})
  list(TRANSFORM A_SOURCES PREPEND ${OSTIO_MPIIO_COV_DIR}/)
  add_executable(${exe} ${A_SOURCES})
  target_compile_options(${exe} PRIVATE ${OSTIO_WARNINGS})
  target_compile_definitions(${exe} PRIVATE ${A_DEFS})
  target_link_libraries(${exe} PRIVATE ostio_mpiio_covutil MPI::MPI_C)
  set_property(GLOBAL APPEND PROPERTY OSTIO_MPIIO_COV_ARGS_${name} ${A_ARGS})
  add_test(NAME mpiio_native_${name}.np2
    COMMAND bash ${OSTIO_MPIIO_COV_DIR}/compare.sh ${MPIEXEC_EXECUTABLE} 2 none none plain
            $<TARGET_FILE:${exe}> ${A_ARGS})
  set_tests_properties(mpiio_native_${name}.np2 PROPERTIES TIMEOUT 300 LABELS mpi
    PROCESSORS 2)
endfunction()

# ostio_mpiio_compare(NAME KIND NP...)
function(ostio_mpiio_compare name kind)
  get_property(args GLOBAL PROPERTY OSTIO_MPIIO_COV_ARGS_${name})
  foreach(np IN LISTS ARGN)
    set(t mpiio_cov_${name}.${kind}.np${np})
    add_test(NAME ${t}
      COMMAND bash ${OSTIO_MPIIO_COV_DIR}/compare.sh ${MPIEXEC_EXECUTABLE} ${np}
              $<TARGET_FILE:ostio_mpiio> $<TARGET_FILE:ostio_cli> ${kind}
              $<TARGET_FILE:mpiio_cov_${name}> ${args})
    set_tests_properties(${t} PROPERTIES TIMEOUT 300 LABELS "mpi;mpiio;preload"
      PROCESSORS ${np})
  endforeach()
endfunction()

# The programs (ROMIO's test list as the coverage map; our own code).
set(OSTIO_MPIIO_COV_PROGRAMS simple psimple noncontig noncontig_coll noncontig_coll2
    coll_test atomicity split_coll i_noncontig async shared_fp excl file_info hindexed
    resized types_with_zeros big_extents file_ops bottom status random byte_blocks zero_view
    two_handles)
foreach(p IN LISTS OSTIO_MPIIO_COV_PROGRAMS)
  if(p STREQUAL "noncontig_coll")
    ostio_mpiio_cov(${p} SOURCES noncontig.c DEFS MU_COLL=1)
  elseif(p STREQUAL "random")
    ostio_mpiio_cov(${p} SOURCES random.c rtype.c ARGS 20240917 16)
  else()
    ostio_mpiio_cov(${p} SOURCES ${p}.c)
  endif()
endforeach()
# POSIX calls on an MPI-IO program's files (issue 28 item 3): compared only
# with libostio-preload.so beside the interposer (below).
ostio_mpiio_cov(posix_mix SOURCES posix_mix.c)

if(TARGET ostio_mpiio)
  # Open MPI 4.1's own MPI-IO (the comparison's reference run) tore a read in
  # atomic mode once in a CI run ("a mix of old and new data" in its native
  # run of atomicity, log np 2, 2026-11-27): the reference is not reliable
  # there, so atomicity is compared under MPICH only. ostio's atomic mode is
  # still checked under Open MPI by test_mpiio_interpose and test_cache_atomic.
  if(MPIEXEC_EXECUTABLE MATCHES "openmpi")
    list(REMOVE_ITEM OSTIO_MPIIO_COV_PROGRAMS atomicity)
    set_tests_properties(mpiio_native_atomicity.np2 PROPERTIES DISABLED TRUE)
  endif()
  foreach(p IN LISTS OSTIO_MPIIO_COV_PROGRAMS)
    ostio_mpiio_compare(${p} plain 1 2)
  endforeach()
  # Every program in both container kinds too (each run is about a second).
  foreach(p IN LISTS OSTIO_MPIIO_COV_PROGRAMS)
    ostio_mpiio_compare(${p} log 2)
    ostio_mpiio_compare(${p} striped 2)
  endforeach()
  # Log containers staged on a node-local directory (issue 19): the interposer's
  # calls through the staging path, and the drained result byte-identical.
  foreach(p IN ITEMS simple coll_test noncontig_coll2 split_coll shared_fp file_ops random)
    ostio_mpiio_compare(${p} logstaged 2)
  endforeach()
  ostio_mpiio_compare(noncontig_coll plain 3)
  ostio_mpiio_compare(shared_fp log 3)
  ostio_mpiio_compare(coll_test striped 3)
  ostio_mpiio_compare(random plain 4)
  ostio_mpiio_compare(two_handles log 1)
  # Issue 28 item 3: POSIX calls (open+read, truncate, stat) on the files of an
  # MPI-IO program, as PnetCDF makes them, with libostio-preload.so loaded
  # beside the interposer and only OSTIO_MPIIO_PATHS set (docs/mpiio.md).
  if(TARGET ostio_preload)
    foreach(kind plain log striped)
      set(t mpiio_cov_posix_mix.${kind}.np2)
      add_test(NAME ${t}
        COMMAND bash ${OSTIO_MPIIO_COV_DIR}/compare.sh ${MPIEXEC_EXECUTABLE} 2
                $<TARGET_FILE:ostio_mpiio>:$<TARGET_FILE:ostio_preload> $<TARGET_FILE:ostio_cli>
                ${kind} $<TARGET_FILE:mpiio_cov_posix_mix>)
      set_tests_properties(${t} PROPERTIES TIMEOUT 300 LABELS "mpi;mpiio;preload"
        PROCESSORS 2)
    endforeach()
  endif()
endif()

# Files left open at MPI_Finalize (issue 28 item 7): finalize_open.sh runs
# finalize_open.c under the interposer (exit 0, one warning line per leaked file),
# then checks the bytes on disk (containers flattened). mixed needs 2 ranks.
add_executable(mpiio_finalize_open ${OSTIO_MPIIO_COV_DIR}/finalize_open.c)
target_compile_options(mpiio_finalize_open PRIVATE ${OSTIO_WARNINGS})
target_link_libraries(mpiio_finalize_open PRIVATE ostio_mpiio_covutil MPI::MPI_C)
if(TARGET ostio_mpiio)
  foreach(c IN ITEMS one two shared mixed libattr)
    foreach(kind IN ITEMS plain log)
      foreach(np IN ITEMS 1 2)
        if(c STREQUAL "mixed" AND np EQUAL 1)
          continue()
        endif()
        set(t mpiio_finalize_open.${c}.${kind}.np${np})
        add_test(NAME ${t}
          COMMAND bash ${OSTIO_MPIIO_COV_DIR}/finalize_open.sh ${MPIEXEC_EXECUTABLE} ${np}
                  $<TARGET_FILE:ostio_mpiio> $<TARGET_FILE:ostio_cli> ${kind}
                  $<TARGET_FILE:mpiio_finalize_open> ${c})
        set_tests_properties(${t} PROPERTIES TIMEOUT 300 LABELS "mpi;mpiio;preload"
          PROCESSORS ${np})
      endforeach()
    endforeach()
  endforeach()
endif()
# The same from mpi4py: a script that raises with a file open exits with Python's
# status (1) and traceback (skips without mpi4py, or when mpi4py's MPI is not this
# build's: Debian's python3-mpi4py is built on Open MPI).
if(TARGET ostio_mpiio)
  foreach(kind IN ITEMS plain log)
    foreach(np IN ITEMS 1 2)
      set(t mpiio_finalize_py.${kind}.np${np})
      add_test(NAME ${t}
        COMMAND bash ${OSTIO_MPIIO_COV_DIR}/finalize_py.sh ${MPIEXEC_EXECUTABLE} ${np}
                $<TARGET_FILE:ostio_mpiio> $<TARGET_FILE:ostio_cli> ${kind} ${Python3_EXECUTABLE})
      set_tests_properties(${t} PROPERTIES TIMEOUT 300 LABELS "mpi;mpiio;preload"
        PROCESSORS ${np} SKIP_RETURN_CODE 77)
    endforeach()
  endforeach()
endif()
