# Configures ${PROJECT_BINARY_DIR}/ostio.pc from cmake/ostio.pc.in.
#
# Relocatable: prefix = ${pcfiledir} followed by one ".." per level of
# CMAKE_INSTALL_LIBDIR/pkgconfig (lib/pkgconfig -> ${pcfiledir}/../..), so the
# file is right wherever the tree is installed (`cmake --install --prefix X`,
# DESTDIR then a copy, a tarball unpacked anywhere), like ostioConfig.cmake,
# which finds its prefix from its own place. pkg-config and pkgconf both define
# ${pcfiledir}. An absolute CMAKE_INSTALL_LIBDIR or CMAKE_INSTALL_INCLUDEDIR is
# written as given.
#
# MPI: ostio.h includes mpi.h and applications call MPI themselves, so Cflags
# and Libs carry the include directories and libraries of the MPI found at
# configure time (FindMPI's MPI_C_*). `cc $(pkg-config --cflags --libs ostio)`
# works, and so does the same line with that MPI's mpicc (the flags repeat
# what mpicc adds). An application must use the MPI ostio was built with.
if(IS_ABSOLUTE "${CMAKE_INSTALL_LIBDIR}")
  set(OSTIO_PC_PREFIX "${CMAKE_INSTALL_PREFIX}")
  set(OSTIO_PC_LIBDIR "${CMAKE_INSTALL_LIBDIR}")
else()
  file(RELATIVE_PATH _ostio_pc_up "/ostio-root/${CMAKE_INSTALL_LIBDIR}/pkgconfig" "/ostio-root")
  string(REGEX REPLACE "/$" "" _ostio_pc_up "${_ostio_pc_up}")
  set(OSTIO_PC_PREFIX "\${pcfiledir}/${_ostio_pc_up}")
  set(OSTIO_PC_LIBDIR "\${prefix}/${CMAKE_INSTALL_LIBDIR}")
endif()
if(IS_ABSOLUTE "${CMAKE_INSTALL_INCLUDEDIR}")
  set(OSTIO_PC_INCLUDEDIR "${CMAKE_INSTALL_INCLUDEDIR}")
else()
  set(OSTIO_PC_INCLUDEDIR "\${prefix}/${CMAKE_INSTALL_INCLUDEDIR}")
endif()

set(OSTIO_PC_MPI_CFLAGS "")
foreach(_d IN LISTS MPI_C_INCLUDE_DIRS)
  string(APPEND OSTIO_PC_MPI_CFLAGS " -I${_d}")
endforeach()
foreach(_d IN LISTS MPI_C_COMPILE_DEFINITIONS)
  string(APPEND OSTIO_PC_MPI_CFLAGS " -D${_d}")
endforeach()
foreach(_o IN LISTS MPI_C_COMPILE_OPTIONS)
  string(APPEND OSTIO_PC_MPI_CFLAGS " ${_o}")
endforeach()
set(OSTIO_PC_MPI_LIBS "")
foreach(_o IN LISTS MPI_C_LINK_FLAGS)
  string(APPEND OSTIO_PC_MPI_LIBS " ${_o}")
endforeach()
foreach(_l IN LISTS MPI_C_LIBRARIES)
  string(APPEND OSTIO_PC_MPI_LIBS " ${_l}")
endforeach()
set(OSTIO_PC_MPI_COMPILER "${MPI_C_COMPILER}")
if(NOT OSTIO_PC_MPI_COMPILER)
  set(OSTIO_PC_MPI_COMPILER "mpicc")
endif()
configure_file(${CMAKE_CURRENT_LIST_DIR}/ostio.pc.in ${PROJECT_BINARY_DIR}/ostio.pc @ONLY)
