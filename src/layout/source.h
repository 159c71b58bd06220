/* Layout sources: where a file's layout comes from. One file per source
 * behind this ops struct; the registry and the order in which they are
 * tried (container, Lustre, emulated record, hints, defaults) are in
 * container/layout_sources.c, because a container directory is a source
 * too and this module stays below the container module. A new source is
 * one file and one registry line. */
#ifndef OSTIO_LAYOUT_SOURCE_H
#define OSTIO_LAYOUT_SOURCE_H

#include <sys/types.h>

#include "hints/hints.h"
#include "layout/layout.h"

#define OSTIO__LAYOUT_SOURCE_VERSION 1

typedef struct ostio__layout_source {
  int version;                 /* OSTIO__LAYOUT_SOURCE_VERSION */
  const char *name;
  /* Layout of an existing file, or the default of a directory.
   * OSTIO_ENOLAYOUT when this source has nothing to say about path. */
  int (*query)(const char *path, const ostio__hints *h, ostio_layout **out);
  /* Makes path an empty file with layout l (NULL: the directory's
   * default); path may exist as an empty regular file. OSTIO_ENOLAYOUT when this source does
   * not apply to path's file system. NULL when the source cannot create. */
  int (*create)(const char *path, const ostio_layout *l, mode_t mode);
  /* Sets the default layout of directory dir. NULL when unsupported;
   * OSTIO_ENOLAYOUT when the source does not apply there. */
  int (*set_dir_default)(const char *dir, const ostio_layout *l);
} ostio__layout_source;

extern const ostio__layout_source ostio__source_lustre;
extern const ostio__layout_source ostio__source_ceph;
extern const ostio__layout_source ostio__source_emulated;
extern const ostio__layout_source ostio__source_hints;
extern const ostio__layout_source ostio__source_default;

/* 1 when h holds a striping hint (factor or unit), i.e. when the hints
 * source speaks. */
int ostio__hints_give_striping(const ostio__hints *h);

/* Defaults when nothing else speaks: Lustre's own (1 MiB x 1). */
#define OSTIO__DEFAULT_STRIPE_SIZE  (1 << 20)
#define OSTIO__DEFAULT_STRIPE_COUNT 1

/* The emulated record's xattr name. */
#define OSTIO__LAYOUT_XATTR "user.ostio.layout"

/* ---- Lustre's stripe-size rule (source_lustre.c) ----------------------- */
#define OSTIO__LUSTRE_STRIPE_ALIGN 65536ll                 /* LOV_MIN_STRIPE_SIZE */
#define OSTIO__LUSTRE_STRIPE_MAX   (OSTIO__STRIPE_SIZE_MAX / OSTIO__LUSTRE_STRIPE_ALIGN * \
                                    OSTIO__LUSTRE_STRIPE_ALIGN)  /* 4 GiB - 64 KiB */
/* 0 when Lustre accepts stripe size `size`: a multiple of 64 KiB from 64 KiB
 * to 4 GiB - 64 KiB, as `lfs setstripe` requires. Else OSTIO_ELAYOUT with
 * the detail "WHAT SIZE: ..." that names the rule and the nearest sizes
 * Lustre accepts; what says where the size came from ("stripe size",
 * "PATH: hint striping_unit"). Emulated layouts do not need it. */
int ostio__check_lustre_stripe_size(int64_t size, const char *what);
/* The same rule, the message naming file system fs ("Lustre", "Ceph"). */
int ostio__check_stripe_align(int64_t size, const char *what, const char *fs);

/* ---- CephFS (source_ceph.c) --------------------------------------------- */
#define OSTIO__CEPH_SUPER_MAGIC 0x00c36400u
#define OSTIO__CEPH_DEFAULT_OBJECT_SIZE (4ll << 20)  /* Ceph's default 4 MiB objects */
/* 1 when path (or, if it does not exist, its parent) is on CephFS: the
 * kernel client's statfs magic, or under ceph-fuse (FUSE's magic) Ceph's
 * virtual xattrs. */
int ostio__path_is_ceph(const char *path);
/* 0 when Ceph accepts l: one component to EOF, no overstriping, a stripe
 * unit that is a multiple of 64 KiB (64k..4194240k), an object size (when
 * given) that is a multiple of the stripe unit below 4 GiB. Else
 * OSTIO_ELAYOUT with a detail "WHAT: ..." naming the value and the rule. */
int ostio__check_ceph_layout(const ostio_layout *l, const char *what);
/* The object size a Ceph layout gets when none is given: Ceph's default
 * 4 MiB rounded up to a multiple of the stripe unit. */
int64_t ostio__ceph_default_object_size(int64_t stripe_unit);
/* Parses the text of ceph.file.layout / ceph.dir.layout (xattr `name` of
 * path, len bytes, not NUL-terminated) into a one-component layout with
 * source "ceph". OSTIO_EFORMAT for text that is not three numbers below
 * 2^32 with object_size a multiple of stripe_unit; OSTIO_ENOTSUP for a
 * stripe count above OSTIO_MAX_STRIPE_COUNT. */
int ostio__ceph_parse_layout(const char *path, const char *name, const char *text, size_t len,
                             ostio_layout **out);

/* ---- the emulated source's OSTs (source_emulated.c) -------------------- */
/* Gives each component that has no OST list the OSTs an emulated layout
 * gets, the same for `ostio setstripe` and for files ostio_open creates:
 * first_ost (0 when unknown), first_ost+1, ..., marked instantiated.
 * Overstriping without a list is OSTIO_ELAYOUT (which OSTs the objects
 * share is not known), as is a list that would pass INT32_MAX. */
int ostio__layout_emulated_osts(ostio_layout *l);

/* ---- source_util.c: helpers the sources share -------------------------- */
/* Opens path for a new layout: creates it (O_EXCL, plus flags), or opens
 * it when it exists as an empty regular file. Returns an fd and sets
 * *created, or a negative code (OSTIO_ENOTEMPTY for a file with data). */
int ostio__open_new_or_empty(const char *path, mode_t mode, int flags, int *created);
/* 1 when path (or, if it does not exist, its parent) is on Lustre
 * (source_lustre.c). */
int ostio__path_is_lustre(const char *path);
/* Parent directory of path into buf ("." when path has no slash). */
void ostio__parent_dir(const char *path, char *buf, size_t cap);

#endif
