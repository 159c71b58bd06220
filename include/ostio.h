/*
 * ostio.h -- the one public header of ostio, OST-aware parallel I/O for
 * striped parallel file systems (Lustre first).
 *
 * Conventions
 *   - Every function returns 0 on success or a negative OSTIO_E* code.
 *   - Collective functions (marked "collective") return the same code on
 *     every rank of the communicator.
 *   - The caller owns handles; free them with the matching *_free call.
 *   - The library never prints to stdout, never exits and never aborts.
 *   - ostio_last_error() gives a sentence about the last failure of the
 *     calling thread (which key, which value, what is accepted).
 */
#ifndef OSTIO_H
#define OSTIO_H

#include <stddef.h>
#include <stdint.h>
#include <mpi.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(OSTIO_BUILDING_LIBRARY)
#define OSTIO_API __attribute__((visibility("default")))
#else
#define OSTIO_API
#endif

/* ---- Version --------------------------------------------------------- */
OSTIO_API const char *ostio_version_string(void);
OSTIO_API void ostio_version(int *major, int *minor, int *patch);

/* ---- Errors ------------------------------------------------------------
 * X(NAME, value, message). Values are stable: never renumber, only append.
 */
#define OSTIO_ERRNO_MAP(X)                                                    \
  X(EINVAL,    -1,  "invalid argument")                                      \
  X(ENOMEM,    -2,  "out of memory")                                         \
  X(EIO,       -3,  "input/output error")                                    \
  X(ENOENT,    -4,  "no such file or directory")                             \
  X(EEXIST,    -5,  "file exists")                                           \
  X(EACCES,    -6,  "permission denied")                                     \
  X(ENOTSUP,   -7,  "operation not supported here")                          \
  X(ENOSPC,    -8,  "no space left on device")                               \
  X(ERANGE,    -9,  "value out of range")                                    \
  X(ELAYOUT,   -10, "invalid stripe layout")                                 \
  X(EFORMAT,   -11, "unrecognised or corrupt on-disk record")                \
  X(EHINT,     -12, "invalid hint")                                          \
  X(ENOTEMPTY, -13, "file is not empty")                                     \
  X(EMPI,      -14, "MPI call failed")                                       \
  X(ENOLAYOUT, -15, "no layout available from this source")                  \
  X(EISDIR,    -16, "is a directory")                                        \
  X(ENOTDIR,   -17, "not a directory")                                     \
  X(EOVERLAP,  -18, "overlapping extents in one collective call")             \
  X(EFBIG,     -19, "file too large")                                        \
  X(ESTAGED,   -20, "data staged on another node, not drained yet")

typedef enum {
  OSTIO_OK = 0,
#define OSTIO_ERRNO_ENUM_(name, value, msg) OSTIO_##name = (value),
  OSTIO_ERRNO_MAP(OSTIO_ERRNO_ENUM_)
#undef OSTIO_ERRNO_ENUM_
  OSTIO_ERRNO_MIN_ = -21
} ostio_errno;

/* Message for an error code ("unknown error" for values not in the map). */
OSTIO_API const char *ostio_strerror(int err);
/* Symbolic name of an error code, e.g. "OSTIO_EHINT". */
OSTIO_API const char *ostio_errname(int err);
/* Detail of the calling thread's last failure; "" when none. Valid until the
 * thread's next ostio call. */
OSTIO_API const char *ostio_last_error(void);

/* ---- Stripe layouts ----------------------------------------------------
 * A layout is one or more components (PFL), each covering the file extent
 * [start, end) with its own RAID0 striping. Stripe k of a component lives in
 * object (k mod stripe_count) of that component; objects sit on OSTs.
 */
#define OSTIO_EOF INT64_MAX            /* component end meaning "to EOF"  */
#define OSTIO_PATTERN_RAID0        0x1u
#define OSTIO_PATTERN_OVERSTRIPING 0x200u /* objects may share an OST   */
#define OSTIO_MAX_STRIPE_COUNT     2000  /* Lustre's LOV_MAX_STRIPE_COUNT */
#define OSTIO_MAX_COMPONENTS       64

typedef struct {
  int64_t  start;          /* first byte of the component's extent          */
  int64_t  end;            /* one past its last byte, or OSTIO_EOF          */
  int64_t  stripe_size;    /* bytes per stripe                              */
  int32_t  stripe_count;   /* objects in the component                      */
  int32_t  first_ost;      /* OST of object 0, -1 when not known            */
  uint32_t pattern;        /* OSTIO_PATTERN_* bits                          */
  int32_t  instantiated;   /* 1 when objects exist (OST list is meaningful) */
  const int32_t *osts;     /* stripe_count OST indices, or NULL             */
  const char *pool;        /* OST pool name, "" when none                   */
} ostio_layout_component;

/* One piece of an extent: it lies inside one stripe of one component. */
typedef struct {
  int64_t file_offset;     /* where the piece starts in the file            */
  int64_t length;          /* bytes                                         */
  int64_t stripe;          /* absolute stripe number: file_offset/stripe_size */
  int64_t object_offset;   /* where the piece starts inside its object      */
  int32_t component;       /* component index                               */
  int32_t object;          /* object index within the component             */
  int32_t ost;             /* OST index, -1 when not instantiated           */
} ostio_piece;

typedef struct ostio_layout ostio_layout;

/* Collective over comm: rank 0 asks the file system (Lustre, CephFS, then the emulated
 * user.ostio.layout record, then striping hints in info, then defaults) and
 * broadcasts the result. info may be MPI_INFO_NULL. */
OSTIO_API int ostio_layout_query(MPI_Comm comm, const char *path, MPI_Info info,
                                 ostio_layout **layout);
OSTIO_API int ostio_layout_free(ostio_layout **layout);
/* Name of the source the layout came from: "lustre", "ceph", "emulated", "hints",
 * "default", or "container" (a striped container's own layout, also from
 * ostio_file_layout of an open one). */
OSTIO_API const char *ostio_layout_source(const ostio_layout *layout);
OSTIO_API int ostio_layout_ncomponents(const ostio_layout *layout);
/* Fills *comp with component i; pointers inside stay valid until the layout
 * is freed. */
OSTIO_API int ostio_layout_get_component(const ostio_layout *layout, int i,
                                         ostio_layout_component *comp);
/* Splits [offset, offset+length) at stripe and component boundaries. Writes at
 * most max pieces; *npieces receives the total count (call with max 0 to
 * size the array). */
OSTIO_API int ostio_layout_map(const ostio_layout *layout, int64_t offset,
                               int64_t length, ostio_piece *pieces, size_t max,
                               size_t *npieces);

/* ---- Hints -------------------------------------------------------------
 * Effective hints for a file: defaults, overridden by info, overridden by the
 * OSTIO_HINTS environment variable entries whose pattern matches path.
 * *effective is a new MPI_Info holding every known key (free it with
 * MPI_Info_free). Bad values give OSTIO_EHINT (see ostio_last_error). */
OSTIO_API int ostio_hints_effective(const char *path, MPI_Info info,
                                    MPI_Info *effective);

/* ---- Files and collective I/O -----------------------------------------
 * A file opened by every rank of a communicator. Collective calls (marked)
 * must be called by every rank in the same order; they return the same code
 * on every rank. Hints (MPI_Info, then OSTIO_HINTS) choose the strategy
 * (ostio_strategy = auto | even | aligned | ost | independent), the number
 * of aggregators (cb_nodes, cb_config_list, romio_lustre_co_ratio) and the
 * memory per aggregator (cb_buffer_size). See docs/collective.md. The hint
 * ostio_container = plain | striped | log says what MPI_MODE_CREATE makes of
 * a new path; an existing container is used whatever the hints
 * (docs/containers.md).
 */
typedef struct ostio_file ostio_file;
typedef struct {
  int64_t offset;          /* byte offset in the file, >= 0                 */
  int64_t length;          /* bytes, >= 0 (zero-length entries are allowed) */
} ostio_extent;

/* Collective. amode: MPI_MODE_RDONLY | MPI_MODE_WRONLY | MPI_MODE_RDWR, with
 * MPI_MODE_CREATE, MPI_MODE_EXCL, MPI_MODE_DELETE_ON_CLOSE optional. A new
 * file gets its layout from the striping hints (striping_factor,
 * striping_unit, start_iodevice), else its directory's default. */
OSTIO_API int ostio_open(MPI_Comm comm, const char *path, int amode, MPI_Info info,
                         ostio_file **fh);
/* Collective: finishes outstanding work, prints/writes statistics when
 * OSTIO_STATS is set, closes, sets *fh = NULL (also on error). */
OSTIO_API int ostio_close(ostio_file **fh);
/* Collective. Each rank passes its own list of extents in any order; buf
 * holds their bytes back to back in list order. Extents of one call must not
 * overlap, on one rank or across ranks (OSTIO_EOVERLAP). Bytes no rank names
 * are never written. Reading past the end of file gives zeros. */
OSTIO_API int ostio_write_all(ostio_file *fh, const ostio_extent *ext, size_t n,
                              const void *buf);
OSTIO_API int ostio_read_all(ostio_file *fh, const ostio_extent *ext, size_t n, void *buf);
/* Independent: one contiguous range. */
OSTIO_API int ostio_write_at(ostio_file *fh, int64_t offset, const void *buf, size_t len);
OSTIO_API int ostio_read_at(ostio_file *fh, int64_t offset, void *buf, size_t len);
/* Collective: every rank's writes reach stable storage. */
OSTIO_API int ostio_sync(ostio_file *fh);
/* Independent: current size of the file. */
OSTIO_API int ostio_get_size(ostio_file *fh, int64_t *size);
/* Collective: truncates or extends the file to size bytes. */
OSTIO_API int ostio_set_size(ostio_file *fh, int64_t size);
/* The file's layout (owned by the handle; valid until ostio_close). NULL for
 * a log container: its bytes are in per-writer logs, not striped by offset
 * (`ostio container stat` shows the logs). */
OSTIO_API const ostio_layout *ostio_file_layout(const ostio_file *fh);
/* Name of the strategy the last collective call used ("even", "aligned",
 * "ost", "independent"; "auto" resolves to one of them), or "none" before
 * the first one; for a log container "log" from its open on (its
 * collective calls append to per-writer logs, no strategy is chosen);
 * "cache" when the call went through the cooperative cache
 * (ostio_cache=enable, docs/cache.md). */
OSTIO_API const char *ostio_file_strategy(const ostio_file *fh);

/* ---- Statistics ----------------------------------------------------------
 * Per-file counters and timers of the calling rank (names as in the
 * OSTIO_STATS report, e.g. "sys_writes", "objects_max", "time_io").
 * OSTIO_EINVAL for an unknown name (the detail lists the known ones). */
OSTIO_API int ostio_stat_get(const ostio_file *fh, const char *name, double *value);

#ifdef __cplusplus
}
#endif
#endif /* OSTIO_H */
