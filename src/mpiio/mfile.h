/* libostio-mpiio (issue 16; docs/mpiio.md): an MPI_File that ostio serves.
 *
 * The interposer defines the C MPI_File_* functions. A file it takes (a path
 * under OSTIO_MPIIO_PATHS, or the hint ostio_mpiio=enable) gets an
 * ostio__mfile whose address is the MPI_File handle the application sees;
 * every other handle is ROMIO's (or Open MPI's) and goes to the next
 * PMPI_File_* (mpiio_next.h: the MPI library's, or a tool's loaded after us).
 * Which is which: the handle table (mpiio_table.c), asked by every wrapper.
 * Each wrapper is exported under its PMPI_File_* name too, for PMPI tools
 * loaded before us and for callers of the PMPI names (Fortran bindings).
 *
 * Layers inside the interposer:
 *   mpiio_select.c  which paths are taken (pure)
 *   mpiio_err.c     OSTIO_E* -> MPI error classes, messages, error handlers
 *   mpiio_table.c   the handle table
 *   mpiio_next.c    the next PMPI_File_* (dlsym RTLD_NEXT, once at load)
 *   mpiio_fint.c    Fortran handles: MPI_File_c2f / MPI_File_f2c
 *   mpiio_rw.c      one data access: memory type, view, ostio calls, status
 *   mpiio_shared.c  the shared file pointer and the atomic-mode mutex (RMA)
 *   mpiio_seek.c    positions: the view's data before a file offset (pure)
 *   mpiio_file.c    MPI_File_open .. get_info (file-level calls)
 *   mpiio_data.c    views, positions, the common read / write path
 *   mpiio_calls.c   the data-access wrappers (blocking, split, nonblocking)
 *   mpiio_posix.c   beside libostio-preload.so: ostio's own system calls
 *                   bypass the preload
 *   mpiio_finalize.c files still open at MPI_Finalize
 */
#ifndef OSTIO_MPIIO_MFILE_H
#define OSTIO_MPIIO_MFILE_H

#include <stdint.h>
#include <mpi.h>

#include "mpiio/mpiio_next.h"
#include "mpiio/view.h"
#include "ostio.h"

/* The MPI_File_* functions (and their PMPI_File_* aliases, mpiio_next.h)
 * are the only symbols the library exports. */
#define OSTIO__MPIIO_API __attribute__((visibility("default")))

#define OSTIO__MFILE_MAGIC UINT64_C(0x6f7374696f6d7069) /* "ostiompi" */

typedef struct ostio__mfile {
  uint64_t magic;
  ostio_file *fh;
  MPI_Comm comm;        /* the interposer's own duplicate of the open's comm */
  int rank, nprocs;
  int amode;
  char *path;
  MPI_Info info;        /* the hints as given at open and by set_info        */
  MPI_Errhandler errh;  /* MPI_ERRORS_RETURN unless the application set one */
  MPI_File_errhandler_function *errh_fn; /* errh's function when we saw it made */
  int atomic;           /* MPI_File_set_atomicity                           */
  int atomic_ok;        /* the kind honours atomic mode (plain, striped)    */
  /* The view: the types as the application gave them (duplicated unless
   * named, for get_view), the flattened filetype (one reference held). */
  ostio__view view;
  ostio__dtype_map *ftmap;
  MPI_Datatype etype, ftype;
  int64_t fp;           /* individual file pointer, in etypes               */
  /* Bytes the file is known to hold at least (mpiio_rw.c): the size last
   * read, raised by this rank's writes; 0 again at set_size, preallocate
   * and sync. A read that ends below it needs no size (no fstat). */
  int64_t size_floor;
  /* Shared file pointer (etypes) and the atomic-mode mutex: int64s on
   * rank 0 of comm, reached by passive-target RMA (mpiio_shared.c). */
  MPI_Win win;
  /* Split collective in progress (MPI allows one per file). */
  int split_active;
  int64_t split_bytes;
  MPI_Fint fint;        /* Fortran handle, 0 until MPI_File_c2f (mpiio_fint.c) */
} ostio__mfile;

/* ---- beside libostio-preload.so (mpiio_posix.c) ---- */
/* Around ostio's own work on a served file: the preload, when loaded, lets
 * this thread's system calls through to libc. Nested calls are fine. */
void ostio__mpiio_posix_enter(void);
void ostio__mpiio_posix_leave(void);

/* ---- selection (mpiio_select.c, pure) ---- */
/* 1 when path lies under one of the colon-separated prefixes of paths
 * (a prefix matches at a '/' boundary: "/a/b" takes "/a/b" and "/a/b/c",
 * not "/a/bc"; empty entries are skipped). */
int ostio__mpiio_path_selected(const char *path, const char *paths);
/* The hint ostio_mpiio of info: 1 enable, 0 disable, -1 absent or
 * automatic; -2 for any other value (an error for open). */
int ostio__mpiio_hint(MPI_Info info);

/* ---- hints (mpiio_hints.c) ---- */
/* Collective on comm: the MPI_Info an ostio open uses: user's keys, under
 * them the system hints file (ROMIO_HINTS, else /etc/romio-hints, read on
 * rank 0), values ostio refuses dropped with a warning (rank 0). *out is
 * new (free it). */
int ostio__mpiio_open_info(MPI_Comm comm, const char *path, MPI_Info user, MPI_Info *out);
/* Local: deletes from info the keys whose value ostio refuses (but for the
 * keys that stay errors); one stderr line each when report (once per key
 * and value per process); sys (may be MPI_INFO_NULL) holds the keys that
 * came from the hints file named file. */
int ostio__mpiio_clean_info(const char *call, const char *path, MPI_Info info, MPI_Info sys,
                            const char *file, int report);

/* ---- the handle table (mpiio_table.c) ---- */
/* The ostio__mfile behind fh, or NULL when fh is not ours. Inline, so the
 * pass-through path of a wrapper with no ostio file open is one atomic load
 * and a tail call through ostio__mpiio_next (docs/mpiio.md measures it). */
extern int ostio__mpiio_open_count;
ostio__mfile *ostio__mpiio_find(MPI_File fh);
static inline ostio__mfile *ostio__mpiio_lookup(MPI_File fh)
{
  if (__builtin_expect(__atomic_load_n(&ostio__mpiio_open_count, __ATOMIC_ACQUIRE) == 0, 1))
    return NULL;
  return ostio__mpiio_find(fh);
}
int ostio__mpiio_register(ostio__mfile *mf);
void ostio__mpiio_unregister(ostio__mfile *mf);
/* Frees mf's Fortran handle, if it was given one (mpiio_fint.c). */
void ostio__mpiio_fint_release(ostio__mfile *mf);
/* The registered file opened first, or NULL (the table keeps open order). */
ostio__mfile *ostio__mpiio_oldest(void);
/* MPI_File_create_errhandler's functions, so ours are called with our handle. */
void ostio__mpiio_note_errhandler(MPI_Errhandler eh, MPI_File_errhandler_function *fn);
MPI_File_errhandler_function *ostio__mpiio_errhandler_fn(MPI_Errhandler eh);

/* ---- errors (mpiio_err.c) ---- */
/* The MPI error class of an OSTIO_E* code. */
int ostio__mpiio_class_of(int ostio_rc);
/* Reports ostio_rc (< 0, detail from ostio_last_error) of call on mf through
 * its error handler (mf NULL: the default file error handler, as for
 * MPI_FILE_NULL) and returns the MPI code. */
int ostio__mpiio_fail(ostio__mfile *mf, const char *call, int ostio_rc);
/* Runs mf's error handler (NULL: the default file handler) on code. */
int ostio__mpiio_raise(ostio__mfile *mf, int code);
/* The same for an MPI class and a message of our own. */
int ostio__mpiio_failc(ostio__mfile *mf, const char *call, int cls, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* ---- data access (mpiio_rw.c) ---- */
typedef struct {
  int is_write;
  int coll;             /* every rank calls (the _all forms)                */
  const char *call;     /* MPI name for messages                            */
} ostio__mpiio_op;

/* One access of count elements of dt at buf, starting pos etypes into the
 * view. *nbytes: bytes transferred (reads stop at the end of the file).
 * Returns 0 or an OSTIO_E* code (collective ones agreed on every rank). */
int ostio__mpiio_access(ostio__mfile *mf, const ostio__mpiio_op *op, int64_t pos, void *buf,
                        MPI_Count count, MPI_Datatype dt, int64_t *nbytes);
/* Status of a finished access: nbytes bytes (MPI_Get_count divides by the
 * type's size). MPI_STATUS_IGNORE is accepted. */
void ostio__mpiio_set_status(MPI_Status *st, int64_t nbytes);

/* An independent read of the n extents e (in view order) into data, their
 * bytes back to back, sieved as the hints romio_ds_read and
 * ind_rd_buffer_size say (mpiio_sieve.c). */
int ostio__mpiio_sieve_read(ostio__mfile *mf, const ostio_extent *e, size_t n, char *data);

/* ---- the calls' common path (mpiio_data.c) ---- */
enum {
  OSTIO__OP_WRITE = 1,     /* else read                                    */
  OSTIO__OP_COLL = 2,      /* every rank calls                             */
  OSTIO__AT_INDIV = 4,     /* at the individual file pointer (else offset) */
  OSTIO__AT_SHARED = 8,    /* at the shared file pointer                   */
  OSTIO__AT_ORDERED = 16,  /* at the shared pointer in rank order (coll)   */
};
/* One read or write call on an ostio file: position, access, pointers,
 * status; an MPI code (errors through the file's handler). *nbytes (may
 * be NULL) receives the bytes moved. */
int ostio__mpiio_rw(ostio__mfile *mf, const char *call, int flags, MPI_Offset offset,
                    void *buf, MPI_Count count, MPI_Datatype dt, MPI_Status *st,
                    int64_t *nbytes);

/* Frees a type the file kept (named types are left alone). */
void ostio__mpiio_drop_type(MPI_Datatype *t);

/* ---- positions (mpiio_seek.c, pure) ---- */
/* Data bytes of the view's stream that lie before file offset off. */
int ostio__view_data_before(const ostio__view *v, int64_t off, int64_t *bytes);

/* ---- close (mpiio_file.c) and MPI_Finalize (mpiio_finalize.c) ---- */
/* MPI_File_close's sequence, collective on mf->comm: unregister, agree,
 * free the window, ostio_close. Returns 0 or an OSTIO_E* code (message in
 * ostio_last_error); reports nothing. mf stays allocated: destroy it. */
int ostio__mpiio_close(ostio__mfile *mf);
void ostio__mpiio_destroy(ostio__mfile *mf);
/* Makes MPI_Finalize close the files still open (an attribute on
 * MPI_COMM_SELF; once per process, later calls return at once). Called after
 * MPI_Init and at each ostio open. */
void ostio__mpiio_finalize_arm(void);

/* ---- shared file pointer and mutex (mpiio_shared.c) ---- */
int ostio__mpiio_shared_open(ostio__mfile *mf);  /* collective */
void ostio__mpiio_shared_close(ostio__mfile *mf);
/* Atomically: *old = pointer; pointer += add (etypes). */
int ostio__mpiio_shared_fetch_add(ostio__mfile *mf, int64_t add, int64_t *old);
/* Rank 0 sets the pointer (callers make it collective). */
int ostio__mpiio_shared_set(ostio__mfile *mf, int64_t value);
int ostio__mpiio_mutex_lock(ostio__mfile *mf);
int ostio__mpiio_mutex_unlock(ostio__mfile *mf);

#endif
