/* Containers: one logical file stored as a directory holding a manifest and
 * object files (issue 5: the striped kind, Lustre's RAID0 object layout made
 * of real files). No MPI here: the CLI, the tests and src/file use the same
 * calls. See docs/container-format.md (the on-disk format) and
 * docs/containers.md (the rules and why).
 *
 *   manifest.c  pure: parse / format / validate the manifest text, checksum;
 *               kind-neutral (a kind's keys are its ostio__ctr_kind's)
 *   sizerec.c   the size record ostio.size: pure codec, atomic write, read
 *   ctr_dir.c   kind-neutral: create (race-free), read the manifest, kind, remove
 *   striped/    the striped kind: its manifest keys, open, sizes, set_size, sync,
 *               close, check; log/ the log kind (log.h)
 *   ctr_check.c the consistency check behind `ostio container check`
 *   flatten.c   container -> plain file through the collective API (MPI) */
#ifndef OSTIO_CONTAINER_CONTAINER_H
#define OSTIO_CONTAINER_CONTAINER_H

#include <stddef.h>
#include <stdint.h>

#include "layout/layout.h"

#define OSTIO__CTR_MAGIC "ostio-container"
#define OSTIO__CTR_VERSION 1
#define OSTIO__CTR_MANIFEST "ostio.manifest"
#define OSTIO__CTR_SIZEREC "ostio.size"
#define OSTIO__CTR_MANIFEST_MAX (1 << 20)       /* bytes a parser accepts      */
#define OSTIO__CTR_MAX_OBJECTS OSTIO_MAX_STRIPE_COUNT /* the layout model's limit */
#define OSTIO__CTR_STRIPE_UNIT 65536             /* stripe size granularity     */
#define OSTIO__CTR_STRIPE_MAX (OSTIO__STRIPE_SIZE_MAX - OSTIO__CTR_STRIPE_UNIT + 1)
#define OSTIO__CTR_NAME_MAX 64

/* Kinds share the header (magic, version, kind) and the common keys; each
 * kind adds its own keys, described by its ostio__ctr_kind below. */
struct ostio__ctr_kind;

/* Log containers (issue 6; log.h): who owns a data log. */
typedef enum { OSTIO__LOG_WRITERS_RANK = 0, OSTIO__LOG_WRITERS_NODE } ostio__log_writers;
#define OSTIO__LOG_HOSTDIRS_MAX 1000         /* hostdir.000 .. hostdir.999  */

typedef struct ostio__manifest {
  int version;                       /* format version read (1)               */
  const struct ostio__ctr_kind *kind; /* the kind named by the manifest       */
  char byte_order[8];                /* "little"                               */
  char created[64];                  /* UTC, ISO 8601                          */
  char created_by[256];              /* host=.. pid=.. ostio=..                */
  char requested[512];               /* the creation parameters as given      */
  /* striped */
  int64_t stripe_size;
  int32_t nobjects;
  char **names;                      /* nobjects object file names; owned     */
  /* log */
  int32_t hostdirs;                  /* hostdir.NNN subdirectories, 1..1000   */
  int writers;                       /* ostio__log_writers                    */
} ostio__manifest;

/* ---- manifest.c (pure) ---------------------------------------------------- */
/* FNV-1a 64 of len bytes. */
uint64_t ostio__fnv1a64(const void *data, size_t len);
/* The kinds a parser knows: i = 0, 1, ... until NULL. */
typedef const struct ostio__ctr_kind *(*ostio__ctr_kind_at)(size_t i);
/* Parses and validates the manifest text buf[0..len), its kind looked up by
 * name among at(0), at(1), ... (the kind validates its own keys). what names
 * it in errors (the file path). OSTIO_EFORMAT with "WHAT line N: what was
 * wrong; what is accepted"; m is zeroed on failure. */
int ostio__manifest_parse_with(const char *buf, size_t len, const char *what,
                               ostio__ctr_kind_at at, ostio__manifest *m);
/* The same against every kind in the registry (defined in stores.c, the
 * registry, so that manifest.c stays below the kinds). */
int ostio__manifest_parse(const char *buf, size_t len, const char *what, ostio__manifest *m);
/* Encodes m (validated first: m->kind validates its own fields) with its
 * checksum line. *text is malloc'ed. */
int ostio__manifest_format(const ostio__manifest *m, char **text, size_t *len);
void ostio__manifest_free(ostio__manifest *m);
/* 1 when name is an acceptable object file name (see the format doc). */
int ostio__ctr_name_ok(const char *name);
/* Appends "checksum fnv1a64 HEX\n" over body[0..len) into a new malloc'ed
 * text (for writers and for tests that forge damaged manifests). */
int ostio__ctr_seal(const char *body, size_t len, char **text, size_t *outlen);
/* Checks that the last line of buf is a valid checksum line over the bytes
 * before it; *body_len receives their count. OSTIO_EFORMAT naming what. */
int ostio__ctr_verify_seal(const char *buf, size_t len, const char *what, size_t *body_len);

/* ---- a kind's manifest keys, creation, check and removal --------------------
 * One per container kind, filled with designated initializers in the kind's
 * folder (striped/striped_manifest.c, log/log_manifest.c) and reached by its
 * name through the store registry (store.h: ostio__store_ops.ctr), so the
 * shared code here has no kind branch. Every hook is required. */
typedef struct ostio__mparse ostio__mparse;  /* manifest.c's parse state */
struct ostio__sbuf;
struct ostio__ctr_params;
typedef void (*ostio__ctr_report)(void *arg, const char *problem);
typedef struct ostio__ctr_kind {
  const char *name;                  /* the manifest's "kind NAME"             */
  const char *keys;                  /* its keys, for "unknown key" errors     */
  /* One "KEY VALUE" line that is not a common key: 0 when it took it, 1 when
   * it is not this kind's key, < 0 (ostio__mparse_bad) when it is bad. */
  int (*key)(ostio__mparse *s, ostio__manifest *m, const char *key, char *value);
  /* After the last line: every key this kind needs was given. */
  int (*finish)(const ostio__mparse *s, const ostio__manifest *m);
  /* Validates m's kind fields and appends this kind's lines to b. */
  int (*format)(const ostio__manifest *m, struct ostio__sbuf *b);
  /* Creation: p valid for this kind (path names it in errors); then the
   * kind's fields of the new manifest from p (object names included). */
  int (*check_params)(const char *path, const struct ostio__ctr_params *p);
  int (*fill)(const struct ostio__ctr_params *p, ostio__manifest *m);
  /* `ostio container check` after the manifest (m, parsed from dirfd) is
   * valid: each problem to report; their count, or < 0. */
  int (*check)(const char *path, int dirfd, const ostio__manifest *m,
               ostio__ctr_report report, void *arg);
  /* Removes the container whose valid manifest is m: the kind's own files,
   * the size record, the manifest and the directory. */
  int (*remove)(const char *path, int dirfd, const ostio__manifest *m);
} ostio__ctr_kind;

/* For a kind's key and finish hooks (manifest.c). bad: OSTIO_EFORMAT "WHAT
 * line N: ..."; missing: OSTIO_EFORMAT "WHAT: ..." (no line). */
int ostio__mparse_bad(const ostio__mparse *s, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
int ostio__mparse_missing(const ostio__mparse *s, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* Strict decimal in [lo, hi] (no sign, no leading zero): 0, or -1. */
int ostio__mparse_num(const char *v, int64_t lo, int64_t hi, int64_t *out);
/* Kind key number slot (0..15, the kind's own numbering) named key is seen:
 * "given twice" the second time. seen: 1 when it was. */
int ostio__mparse_once(ostio__mparse *s, int slot, const char *key);
int ostio__mparse_seen(const ostio__mparse *s, int slot);
/* The kind a new container gets when its creator names none (stores.c). */
const ostio__ctr_kind *ostio__ctr_kind_default(void);

/* ---- sizerec.c ---------------------------------------------------------------
 * ostio.size: "ostio-size 1", "state clean|open", "size N", checksum; a log
 * container's clean record is "ostio-size 2" with the line "indexes HEX": the
 * fingerprint of the index logs it was derived from (logsize.c). A clean log
 * record is trusted only while that fingerprint matches the logs on disk. */
typedef struct ostio__sizerec {
  int clean;                         /* 1 after a clean close or set_size      */
  int64_t size;
  int has_fp;                        /* version 2: fp is set                   */
  uint64_t fp;                       /* fingerprint of the index logs          */
} ostio__sizerec;
int ostio__sizerec_parse(const char *buf, size_t len, const char *what, ostio__sizerec *r);
int ostio__sizerec_format(const ostio__sizerec *r, char **text, size_t *len);
/* Writes the record into directory dirfd by rename of a temporary file
 * (fsync'ed first) whose name is unique across nodes and processes
 * (host hash, pid, thread, counter, random; created with O_EXCL). path names
 * the container in errors. */
int ostio__sizerec_write(int dirfd, const char *path, const ostio__sizerec *r);
/* The same without the fsync before the rename: for records whose loss
 * after a power failure costs nothing (a log container's `open` record:
 * readers never trust it; the previous record, or a damaged one, is then
 * read, and neither is trusted over the index logs). */
int ostio__sizerec_write_light(int dirfd, const char *path, const ostio__sizerec *r);
/* Reads it; OSTIO_ENOENT when there is none. */
int ostio__sizerec_read(int dirfd, const char *path, ostio__sizerec *r);

/* ---- striped.c ------------------------------------------------------------ */
/* Logical size of a striped file whose objects have the given sizes (the
 * Lustre rule: the end of the last byte of any object). Pure. */
int64_t ostio__striped_size(int64_t stripe_size, int32_t k, const int64_t *objsize);
/* Bytes object obj holds when the logical file is exactly size bytes. Pure. */
int64_t ostio__striped_objsize(int64_t stripe_size, int32_t k, int32_t obj, int64_t size);

/* What a new container gets. */
typedef struct ostio__ctr_params {
  const ostio__ctr_kind *kind;       /* NULL: ostio__ctr_kind_default()       */
  int32_t hostdirs;                  /* log: 1..1000                           */
  int writers;                       /* log: ostio__log_writers                */
  int32_t nobjects;                  /* K >= 1                                 */
  int64_t stripe_size;               /* multiple of 64 KiB                     */
  int32_t first_ost;                 /* Lustre: OST of object 0, -1 = any      */
  char requested[512];               /* recorded in the manifest               */
} ostio__ctr_params;

/* ctr_params.c: K and S for a new container at path from hints h (see
 * docs/containers.md); never fails for want of a directory default. */
struct ostio__hints;
int ostio__ctr_params_resolve(const char *path, const struct ostio__hints *h,
                              ostio__ctr_params *p);

/* An open container. */
typedef struct ostio__ctr {
  char *path;
  int dirfd;
  int writable;
  ostio__manifest m;
  int *fd;                           /* nobjects object fds                    */
} ostio__ctr;

/* 1 when path is a directory holding ostio.manifest, 0 otherwise. */
int ostio__ctr_is_container(const char *path);
/* The kind name of the container at path (its manifest parsed and
 * validated); *name is static. ctr_dir.c, as create, read_manifest, remove. */
int ostio__ctr_kind_of(const char *path, const char **name);
/* Creates path as a container of p->kind (the default when NULL), race-free: built under a temporary
 * sibling name and renamed into place. When path appeared meanwhile (another
 * creator won) the temporary directory is removed and *created is 0; with
 * excl that is OSTIO_EEXIST. An existing path that is not a container is
 * OSTIO_EEXIST too. */
int ostio__ctr_create(const char *path, const ostio__ctr_params *p, int excl, int *created);
/* Opens a container: reads and validates the manifest, opens every object
 * (O_NOFOLLOW, regular files only, inside the directory) and checks the
 * object sizes against the size record. writable: open objects read-write
 * and mark the size record "open". */
int ostio__ctr_open(const char *path, int writable, ostio__ctr **out);
/* The same from manifest text already read elsewhere (other MPI ranks):
 * no size-record check and no marking. */
int ostio__ctr_open_text(const char *path, const char *text, size_t len, int writable,
                         ostio__ctr **out);
/* The same with every object left closed (c->fd all -1, the array in place)
 * until ostio__ctr_open_objects: a rank whose open is deferred
 * (docs/collective.md, "Deferred open"). size and sync work meanwhile (by
 * name; nothing to sync). */
int ostio__ctr_open_deferred(const char *path, const char *text, size_t len, int writable,
                             ostio__ctr **out);
/* Opens every object of c not open yet, with the checks of ostio__ctr_open. */
int ostio__ctr_open_objects(ostio__ctr *c);
/* Reads the manifest text of path (validated size cap); *text malloc'ed. */
int ostio__ctr_read_manifest(const char *path, int dirfd, char **text, size_t *len);
/* Opens the container directory path (*dirfd, -1 when that failed; the
 * caller closes it, also on error) and parses its manifest into m: text[0..len)
 * when given (a manifest read already), else the one on disk. What the
 * striped and log kinds' opens share. */
int ostio__ctr_open_dir(const char *path, const char *text, size_t len, int *dirfd,
                        ostio__manifest *m);
/* Logical size derived from the object sizes; per-object sizes optional. */
int ostio__ctr_size(const ostio__ctr *c, int64_t *size, int64_t *objsize);
/* Truncates each object to its share of [0, size) and records size, clean. */
int ostio__ctr_set_size(ostio__ctr *c, int64_t size);
/* fsync of every object and the directory. */
int ostio__ctr_sync(const ostio__ctr *c);
/* Closes; clean: the derived size is recorded with state clean. *c = NULL. */
int ostio__ctr_close(ostio__ctr **c, int clean);
/* The container's layout: RAID0, K x S, source "container"; OST of object i
 * is i off Lustre, the object's own OST on Lustre. */
int ostio__ctr_layout(const ostio__ctr *c, ostio_layout **out);
/* Removes a container directory through its kind: its own files (objects,
 * logs), the size record, the manifest and the directory; nothing else is
 * touched (a foreign file left inside makes it OSTIO_ENOTEMPTY). A damaged
 * manifest: OSTIO_EFORMAT, nothing removed. */
int ostio__ctr_remove(const char *path);
/* The striped kind's removal (its remove hook; striped.c). */
int ostio__striped_remove(const char *path, int dirfd, const ostio__manifest *m);

/* ---- ctr_check.c -------------------------------------------------------------
 * Every problem found is passed to report (one sentence each). Returns the
 * number of problems (0 = clean) or a negative code when the container
 * cannot be read at all (then nothing was reported). */
/* Formats one finding and passes it to report (when not NULL); returns 1,
 * so callers can count findings with `n += ostio__ctr_say(...)`. */
int ostio__ctr_say(ostio__ctr_report report, void *arg, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
int ostio__ctr_check(const char *path, ostio__ctr_report report, void *arg);
/* The striped kind's check hook (striped/striped_check.c). */
int ostio__striped_check(const char *path, int dirfd, const ostio__manifest *m,
                         ostio__ctr_report report, void *arg);
/* Object o holding `have` bytes against its share of a clean size (striped.c):
 * 1 when it is shorter (lost data: a clean close leaves every object exactly
 * its share), with out->want its share, out->lost the missing bytes and
 * out->first the logical offset of the first missing one; 0 otherwise. */
typedef struct ostio__ctr_short {
  int64_t want, lost, first;
} ostio__ctr_short;
int ostio__ctr_short_object(const ostio__manifest *m, int64_t size, int32_t o, int64_t have,
                            ostio__ctr_short *out);

#endif
