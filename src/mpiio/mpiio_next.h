/* libostio-mpiio (docs/mpiio.md, "Tools and Fortran"): the next PMPI_File_*.
 *
 * The interposer defines both MPI_File_X and PMPI_File_X (the same code: the
 * PMPI name is an alias), so a PMPI tool loaded before it (Darshan) reaches
 * ostio through PMPI_File_X, and a program or Fortran binding that calls
 * PMPI_File_X directly too. A file ostio does not serve then goes to the
 * *next* PMPI_File_X after this library -- the MPI library's, or a tool's
 * loaded after us -- never through ordinary symbol binding, which would find
 * our own PMPI_File_X (or a tool's that calls us back) and loop.
 *
 * ostio__mpiio_next holds one pointer per forwarded call, found once with
 * dlsym(RTLD_NEXT, "PMPI_File_X") when the library is loaded (a constructor,
 * mpiio_next.c): forwarding is one load and an indirect tail call, as the
 * PLT call it replaces (no lock, no lookup per call). */
#ifndef OSTIO_MPIIO_NEXT_H
#define OSTIO_MPIIO_NEXT_H

#include <mpi.h>

/* Every PMPI_File_X the wrappers forward to, without the "File_" prefix.
 * A wrapper added to the interposer gets its line here, and its PMPI alias
 * (OSTIO__MPIIO_PMPI) after its definition; tests/mpiio/exports.sh checks
 * that every exported MPI_File_X has its PMPI_File_X. */
#define OSTIO__MPIIO_NEXT_CALLS(X)                                                       \
  X(open) X(close) X(delete) X(get_size) X(set_size) X(preallocate) X(sync)             \
  X(get_amode) X(get_group) X(set_info) X(get_info) X(set_atomicity) X(get_atomicity)   \
  X(get_type_extent) X(create_errhandler) X(set_errhandler) X(get_errhandler)           \
  X(call_errhandler) X(c2f) X(f2c) X(set_view) X(get_view) X(seek) X(get_position)      \
  X(get_byte_offset) X(seek_shared) X(get_position_shared)                              \
  X(read_at) X(read_at_all) X(write_at) X(write_at_all) X(read) X(read_all) X(write)    \
  X(write_all) X(read_shared) X(write_shared) X(read_ordered) X(write_ordered)          \
  X(read_at_all_begin) X(read_at_all_end) X(write_at_all_begin) X(write_at_all_end)     \
  X(read_all_begin) X(read_all_end) X(write_all_begin) X(write_all_end)                 \
  X(read_ordered_begin) X(read_ordered_end) X(write_ordered_begin)                      \
  X(write_ordered_end) X(iread_at) X(iwrite_at) X(iread_at_all) X(iwrite_at_all)        \
  X(iread) X(iwrite) X(iread_all) X(iwrite_all) X(iread_shared) X(iwrite_shared)

#if MPI_VERSION >= 4
/* The MPI-4 large-count forms (mpiio_calls.c defines them when mpi.h does). */
#define OSTIO__MPIIO_NEXT_CALLS_C(X)                                                     \
  X(read_at_c) X(read_at_all_c) X(write_at_c) X(write_at_all_c) X(read_c)               \
  X(read_all_c) X(write_c) X(write_all_c) X(read_shared_c) X(write_shared_c)            \
  X(read_ordered_c) X(write_ordered_c) X(read_at_all_begin_c) X(write_at_all_begin_c)   \
  X(read_all_begin_c) X(write_all_begin_c) X(read_ordered_begin_c)                      \
  X(write_ordered_begin_c) X(iread_at_c) X(iwrite_at_c) X(iread_at_all_c)               \
  X(iwrite_at_all_c) X(iread_c) X(iwrite_c) X(iread_all_c) X(iwrite_all_c)              \
  X(iread_shared_c) X(iwrite_shared_c) X(get_type_extent_c)
#else
#define OSTIO__MPIIO_NEXT_CALLS_C(X)
#endif

#define OSTIO__MPIIO_NEXT_FIELD(n) __typeof__(PMPI_File_##n) *n;
typedef struct {
  OSTIO__MPIIO_NEXT_CALLS(OSTIO__MPIIO_NEXT_FIELD)
  OSTIO__MPIIO_NEXT_CALLS_C(OSTIO__MPIIO_NEXT_FIELD)
  /* The next PMPI_Init and PMPI_Init_thread: mpiio_finalize.c defines both
   * names, as Darshan does, so a tool loaded first that forwards its MPI_Init
   * to the next PMPI_Init still reaches ours. */
  __typeof__(PMPI_Init) *init;
  __typeof__(PMPI_Init_thread) *init_thread;
} ostio__mpiio_next_table;
#undef OSTIO__MPIIO_NEXT_FIELD

/* Filled before main (mpiio_next.c); read-only afterwards. Hidden, so a
 * wrapper reaches it PC-relative, without a GOT load. */
extern ostio__mpiio_next_table ostio__mpiio_next __attribute__((visibility("hidden")));

/* PMPI_File_X as a second name of the wrapper MPI_File_X just defined
 * (same translation unit). Exported by src/mpiio/mpiio.map. */
#define OSTIO__MPIIO_PMPI(n)                                                             \
  extern __typeof__(MPI_File_##n) PMPI_File_##n                                          \
      __attribute__((alias("MPI_File_" #n), visibility("default")))

#endif
