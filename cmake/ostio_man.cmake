# ostio.1 and ostio-bench.1, generated at build time by scripts/gen-man.py
# from the built programs' own --help output (every command's and container
# subcommand's), so the pages say what --help says. Installed under
# share/man/man1; tests/CMakeLists.txt checks them (test_man).
# ostio-bench --help runs as an MPI singleton (MPI_Init without mpiexec):
# where that cannot work at build time (some batch systems), or without
# Python 3, configure with -DOSTIO_MAN=OFF and no pages are made or installed.
option(OSTIO_MAN "Generate and install the man pages ostio.1 and ostio-bench.1" ON)
if(OSTIO_MAN)
  find_package(Python3 COMPONENTS Interpreter)
  if(NOT Python3_Interpreter_FOUND)
    message(WARNING "Python 3 not found: the man pages are not generated (-DOSTIO_MAN=OFF "
                    "silences this)")
    set(OSTIO_MAN OFF)
  endif()
endif()
if(OSTIO_MAN)
  set(OSTIO_MAN_DIR ${PROJECT_BINARY_DIR}/man/man1)
  add_custom_command(
    OUTPUT ${OSTIO_MAN_DIR}/ostio.1 ${OSTIO_MAN_DIR}/ostio-bench.1
    COMMAND ${Python3_EXECUTABLE} ${PROJECT_SOURCE_DIR}/scripts/gen-man.py
            --ostio $<TARGET_FILE:ostio_cli> --ostio-bench $<TARGET_FILE:ostio_bench>
            --out ${OSTIO_MAN_DIR}
    DEPENDS ${PROJECT_SOURCE_DIR}/scripts/gen-man.py ostio_cli ostio_bench
    COMMENT "Generating man pages ostio.1 and ostio-bench.1 from --help"
    VERBATIM)
  add_custom_target(ostio_man ALL
    DEPENDS ${OSTIO_MAN_DIR}/ostio.1 ${OSTIO_MAN_DIR}/ostio-bench.1)
  install(FILES ${OSTIO_MAN_DIR}/ostio.1 ${OSTIO_MAN_DIR}/ostio-bench.1
    DESTINATION ${CMAKE_INSTALL_MANDIR}/man1)
endif()
