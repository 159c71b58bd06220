# The CephFS test bed's tests (label pfs; docs/pfs.md). Fixture "pfs": pfs_setup brings
# the bed up once (scripts/pfs.sh up, 2 clients), pfs_cleanup takes it down even when a
# test failed. The tests share the bed one at a time (RESOURCE_LOCK). Where the bed cannot
# run (not root, no /dev/fuse, the packages missing, a sanitizer build, not MPICH) every
# one of them is skipped with the reason (exit status 77).
set(OSTIO_PFS_TEST_DIR "/tmp/ostio-pfs-ctest" CACHE STRING
    "run directory of the pfs tests' CephFS test bed (scripts/pfs.sh's OSTIO_PFS_DIR)")
set(OSTIO_PFS_TEST_STORE "memstore" CACHE STRING "object store of the pfs tests' bed: memstore or bluestore")
set(OSTIO_PFS_TESTS_DIR ${CMAKE_CURRENT_LIST_DIR})
set(_pfs_env "OSTIO_PFS_DIR=${OSTIO_PFS_TEST_DIR}" "OSTIO_PFS_SH=${PROJECT_SOURCE_DIR}/scripts/pfs.sh"
    "OSTIO_PFS_SANITIZE=${OSTIO_SANITIZE}" "OSTIO_PFS_MPIEXEC=${MPIEXEC_EXECUTABLE}"
    "OSTIO_PFS_TEST_STORE=${OSTIO_PFS_TEST_STORE}")

add_executable(pfs_crash_check ${OSTIO_PFS_TESTS_DIR}/pfs_crash_check.c)
target_compile_options(pfs_crash_check PRIVATE ${OSTIO_WARNINGS})
target_link_libraries(pfs_crash_check PRIVATE ostio_testutil)
add_executable(pfs_defer_write ${OSTIO_PFS_TESTS_DIR}/pfs_defer_write.c)
target_compile_options(pfs_defer_write PRIVATE ${OSTIO_WARNINGS})
target_link_libraries(pfs_defer_write PRIVATE ostio_testutil)

add_test(NAME pfs_setup COMMAND bash ${OSTIO_PFS_TESTS_DIR}/setup.sh)
add_test(NAME pfs_cleanup COMMAND bash ${OSTIO_PFS_TESTS_DIR}/cleanup.sh)
set_tests_properties(pfs_setup PROPERTIES FIXTURES_SETUP pfs)
set_tests_properties(pfs_cleanup PROPERTIES FIXTURES_CLEANUP pfs)
set(_pfs_tests pfs_setup pfs_cleanup)

# ostio_pfs_test(NAME SCRIPT [ARGS...])
function(ostio_pfs_test name script)
  add_test(NAME ${name} COMMAND bash ${OSTIO_PFS_TESTS_DIR}/${script} ${ARGN})
  set_tests_properties(${name} PROPERTIES FIXTURES_REQUIRED pfs)
  set(_pfs_tests ${_pfs_tests} ${name} PARENT_SCOPE)
endfunction()

ostio_pfs_test(pfs_two_clients two_clients.sh)
ostio_pfs_test(pfs_osd_ops osd_ops.sh)
# Issue 30: a collective write with one aggregator stays cached (deferred open).
ostio_pfs_test(pfs_defer_open defer_open.sh $<TARGET_FILE:pfs_defer_write>)
# Issue 30 item 5: independent writes through the cache leave from one client.
ostio_pfs_test(pfs_cache_one_client cache_one_client.sh $<TARGET_FILE:pfs_defer_write>)
# Issue 30: `auto` with no hint on CephFS, ranks on 2 clients: one aggregator, one opener.
ostio_pfs_test(pfs_auto_open auto_open.sh $<TARGET_FILE:pfs_defer_write>)
if(TARGET ostio_preload)
  ostio_pfs_test(pfs_preload preload.sh $<TARGET_FILE:ostio_preload> $<TARGET_FILE:ostio_cli>)
endif()
if(TARGET ostio_mpiio AND TARGET mpiio_cov_coll_test)
  # Every strategy into a plain file; log and striped containers with auto and even
  # (each combination ~20 s here: three runs of 2 ranks).
  ostio_pfs_test(pfs_mpiio_plain.np2 mpiio_cmp.sh ${OSTIO_MPIIO_COV_DIR}/compare.sh
    $<TARGET_FILE:ostio_mpiio> $<TARGET_FILE:ostio_cli> $<TARGET_FILE:mpiio_cov_coll_test>
    plain "even aligned ost independent auto")
  ostio_pfs_test(pfs_mpiio_containers.np2 mpiio_cmp.sh ${OSTIO_MPIIO_COV_DIR}/compare.sh
    $<TARGET_FILE:ostio_mpiio> $<TARGET_FILE:ostio_cli> $<TARGET_FILE:mpiio_cov_coll_test>
    "log striped" "even auto")
endif()
# Layouts on CephFS through ostio, against getfattr and the RADOS objects (layout.sh).
if(TARGET ostio_bench)
  ostio_pfs_test(pfs_layout.np2 layout.sh ${PROJECT_SOURCE_DIR} $<TARGET_FILE:ostio_cli>
    $<TARGET_FILE:ostio_bench> ${MPIEXEC_EXECUTABLE})
endif()
# Last: it kills node 1's client (and mounts it again).
ostio_pfs_test(pfs_kill_client kill_client.sh $<TARGET_FILE:log_crash_writer>
  $<TARGET_FILE:pfs_crash_check> $<TARGET_FILE:ostio_cli>)
set(_pfs_before ${_pfs_tests})
list(REMOVE_ITEM _pfs_before pfs_setup pfs_cleanup pfs_kill_client)
set_tests_properties(pfs_kill_client PROPERTIES DEPENDS "${_pfs_before}")

set_tests_properties(${_pfs_tests} PROPERTIES LABELS pfs TIMEOUT 600 SKIP_RETURN_CODE 77
  RESOURCE_LOCK ostio_pfs_bed PROCESSORS 2 ENVIRONMENT "${_pfs_env}")
