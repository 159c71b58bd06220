# PMPI tools and Fortran through libostio-mpiio.so (issue 28 items 4 and 8;
# docs/mpiio.md, "Tools and Fortran"). Included from tests/CMakeLists.txt.
#
#   mpiio_exports                 every exported MPI_File_X has its PMPI_File_X (nm -D);
#                                 no source calls PMPI_File_X by name
#   mpiio_pmpi_tool.SHAPE.np2     tests/mpiio/pmpi_tool.sh: a PMPI tool of SHAPE dlsym
#                                 (Darshan's) or classic in both LD_PRELOAD orders; none:
#                                 the program calling PMPI_File_* itself
#   mpiio_pmpi_tool_finalize.SHAPE.np2  finalize_open.sh libattr (log) with the tool of
#                                 SHAPE loaded first: ostio's MPI_Init reached through
#                                 PMPI_Init (item 8, found with Darshan)
#   mpiio_fortran_STYLE.KIND.np2  tests/mpiio/fortran/*.f90 (STYLE mpifh, mpi, f08) through
#                                 compare.sh, KIND plain|log (fortran.cmake)
# All labelled mpi;mpiio;preload: preloaded programs, left out of the sanitized pass.
if(NOT TARGET ostio_mpiio)
  return()
endif()

add_test(NAME mpiio_exports
  COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/exports.sh $<TARGET_FILE:ostio_mpiio>
          ${PROJECT_SOURCE_DIR}/src/mpiio)
set_tests_properties(mpiio_exports PROPERTIES TIMEOUT 60 LABELS "mpiio")

add_executable(pmpi_app ${CMAKE_CURRENT_LIST_DIR}/pmpi_app.c)
target_compile_options(pmpi_app PRIVATE ${OSTIO_WARNINGS})
target_link_libraries(pmpi_app PRIVATE MPI::MPI_C)
foreach(shape dlsym classic)
  add_library(pmpi_tool_${shape} MODULE ${CMAKE_CURRENT_LIST_DIR}/pmpi_tool.c)
  target_compile_options(pmpi_tool_${shape} PRIVATE ${OSTIO_WARNINGS})
  target_compile_definitions(pmpi_tool_${shape} PRIVATE _GNU_SOURCE
    PMPI_TOOL_DLSYM=$<STREQUAL:${shape},dlsym>)
  target_link_libraries(pmpi_tool_${shape} PRIVATE MPI::MPI_C ${CMAKE_DL_LIBS})
  # Its wrappers are its interface (the project builds with hidden visibility).
  set_target_properties(pmpi_tool_${shape} PROPERTIES C_VISIBILITY_PRESET default)
endforeach()
foreach(shape dlsym classic none)
  if(shape STREQUAL "none")
    set(tool none)
  else()
    set(tool $<TARGET_FILE:pmpi_tool_${shape}>)
  endif()
  add_test(NAME mpiio_pmpi_tool.${shape}.np2
    COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/pmpi_tool.sh ${MPIEXEC_EXECUTABLE} 2
            $<TARGET_FILE:ostio_mpiio> $<TARGET_FILE:ostio_cli> $<TARGET_FILE:pmpi_app>
            ${tool} ${shape})
  set_tests_properties(mpiio_pmpi_tool.${shape}.np2 PROPERTIES TIMEOUT 300
    LABELS "mpi;mpiio;preload" PROCESSORS 2)
endforeach()
# The tool loaded first, a library's MPI_COMM_SELF attribute put after MPI_Init
# and its file left open (finalize_open.c's libattr case): ostio's MPI_Init must
# be reached through the tool's forward to the next PMPI_Init, or its cleanup
# closes the library's file before the library's callback writes its trailer.
if(TARGET mpiio_finalize_open)
  foreach(shape dlsym classic)
    add_test(NAME mpiio_pmpi_tool_finalize.${shape}.np2
      COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/finalize_open.sh ${MPIEXEC_EXECUTABLE} 2
              "$<TARGET_FILE:pmpi_tool_${shape}>:$<TARGET_FILE:ostio_mpiio>"
              $<TARGET_FILE:ostio_cli> log $<TARGET_FILE:mpiio_finalize_open> libattr)
    set_tests_properties(mpiio_pmpi_tool_finalize.${shape}.np2 PROPERTIES TIMEOUT 300
      LABELS "mpi;mpiio;preload" PROCESSORS 2)
  endforeach()
endif()
include(${CMAKE_CURRENT_LIST_DIR}/fortran/fortran.cmake)
