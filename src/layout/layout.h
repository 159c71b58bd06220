/* Internal stripe-layout model and its math. The public view is
 * ostio_layout_component / ostio_piece in ostio.h. */
#ifndef OSTIO_LAYOUT_LAYOUT_H
#define OSTIO_LAYOUT_LAYOUT_H

#include <stddef.h>
#include <stdint.h>
#include "ostio.h"

#define OSTIO__POOL_MAX 16                 /* Lustre LOV_MAXPOOLNAME       */
#define OSTIO__STRIPE_SIZE_MAX 0xFFFFFFFFll /* Lustre keeps it in a u32    */

typedef struct ostio__comp {
  int64_t  start, end;      /* [start, end), end may be OSTIO_EOF          */
  int64_t  stripe_size;
  int32_t  stripe_count;
  int32_t  first_ost;       /* -1 when not known                           */
  int64_t  object_size;     /* bytes per object, a multiple of stripe_size;
                               0 = unbounded (Lustre). > 0: Ceph's object
                               sets (see ostio__layout_object_at)          */
  uint32_t pattern;         /* OSTIO_PATTERN_* bits                        */
  int32_t  instantiated;    /* objects exist                               */
  char     pool[OSTIO__POOL_MAX + 1];
  int32_t *osts;            /* stripe_count OST indices or NULL; owned     */
} ostio__comp;

struct ostio_layout {
  int         ncomp;
  ostio__comp comp[OSTIO_MAX_COMPONENTS];
  char        source[16];   /* "lustre", "ceph", "emulated", "hints", "default" */
  int         inherited;    /* from the parent directory's default          */
};

/* ---- building (layout.c) ---------------------------------------------- */
ostio_layout *ostio__layout_new(void);
void ostio__layout_destroy(ostio_layout *l);
/* Appends a copy of c (its osts array is copied). Does not validate. */
int ostio__layout_add(ostio_layout *l, const ostio__comp *c);
/* One RAID0 component covering the whole file. first_ost -1 = unknown;
 * when first_ost >= 0 the OST list is first_ost, first_ost+1, ... */
int ostio__layout_simple(int64_t stripe_size, int32_t stripe_count,
                         int32_t first_ost, ostio_layout **out);
/* Checks everything the math relies on; OSTIO_ELAYOUT with a detail. */
int ostio__layout_validate(const ostio_layout *l);
int ostio__layout_copy(const ostio_layout *src, ostio_layout **out);
/* 1 when both describe the same striping (source name ignored). */
int ostio__layout_equal(const ostio_layout *a, const ostio_layout *b);

/* ---- math (layout_map.c); the layout must be valid -------------------- */
/* Component index holding offset, or OSTIO_ERANGE past the last one. */
int ostio__layout_component_at(const ostio_layout *l, int64_t offset);
/* Where one byte lives. */
int ostio__layout_locate(const ostio_layout *l, int64_t offset, ostio_piece *loc);

/* The exact object of a piece (or byte) when objects are bounded. A piece's
 * `object` is its column, stripe mod stripe_count, and `object_offset` the
 * offset in that column's byte stream: the Lustre view, which the
 * strategies group by (one OSD-facing stream per column). With object sets
 * (object_size os > 0, Ceph) the column's stream is cut into objects of os
 * bytes: object number = (object_offset / os) * stripe_count + column,
 * offset in it = object_offset % os. With os = 0 the column is the object.
 * A piece never crosses an object (os is a multiple of the stripe size).
 * No overflow: the object number is at most the stripe number. */
void ostio__piece_object(const ostio_layout *l, const ostio_piece *p, int64_t *objno,
                         int64_t *objoff);

/* Iterates over the pieces of [offset, offset+length): each piece lies in
 * one stripe of one component; pieces come in file order. No allocation. */
typedef struct ostio__piece_iter {
  const ostio_layout *l;
  int64_t pos, end;
} ostio__piece_iter;
int ostio__piece_iter_init(ostio__piece_iter *it, const ostio_layout *l,
                           int64_t offset, int64_t length);
/* 1 and *p filled, 0 when done, negative on error (offset past the layout). */
int ostio__piece_iter_next(ostio__piece_iter *it, ostio_piece *p);

/* What an extent puts in one object of one component, computed per stripe
 * period (stripe_count * stripe_size bytes) by arithmetic: the work is
 * O(components + objects), whatever the extent's length. */
typedef struct ostio__objspan {
  int32_t component, object, ost;   /* ost -1 when the layout has no OST list */
  int64_t pieces, bytes;            /* pieces (one per stripe) and bytes        */
  int64_t first_objoff, last_objend; /* object offset of the first piece, end of the last */
} ostio__objspan;
/* Pieces of [offset, offset+length) in total (*npieces) and, when spans is
 * not NULL, one entry per touched (component, object) in that order (at
 * most the sum of the stripe counts: cap) in *nspans. The errors of
 * ostio__piece_iter_init/next: OSTIO_ERANGE for a bad extent or one that
 * reaches past the layout's last component. */
int ostio__layout_summary(const ostio_layout *l, int64_t offset, int64_t length,
                          int64_t *npieces, ostio__objspan *spans, size_t cap, size_t *nspans);

/* Groups the pieces of n extents by object. On success *pieces holds every
 * piece sorted by (component, object, file_offset); *groups holds
 * *ngroups+1 start indices into *pieces (group g is
 * [groups[g], groups[g+1])). The caller frees both with free(). */
int ostio__layout_group(const ostio_layout *l, const int64_t *offsets,
                        const int64_t *lengths, size_t n, ostio_piece **pieces,
                        size_t *npieces, size_t **groups, size_t *ngroups);

/* ---- the emulated record: versioned text (layout_record.c) ------------ */
#define OSTIO__RECORD_MAGIC "ostio-layout"
#define OSTIO__RECORD_VERSION 1   /* written when no component has an object size */
#define OSTIO__RECORD_VERSION_OBJSIZE 2 /* adds object_size=N; read: both */
/* Encodes l as text (NUL-terminated, malloc'd). */
int ostio__record_encode(const ostio_layout *l, char **text, size_t *len);
/* Decodes and validates; OSTIO_EFORMAT / OSTIO_ELAYOUT with a detail. */
int ostio__record_decode(const char *text, size_t len, ostio_layout **out);

/* 1 when v is a usable OST pool name: 1..16 of [A-Za-z0-9_.-]. */
int ostio__valid_pool_name(const char *v);
/* Parses an OST list such as "0-3,8" into osts (at most max entries).
 * OSTIO_EINVAL for bad syntax, OSTIO_ERANGE for more than max; no detail. */
int ostio__parse_ost_list(const char *text, int32_t *osts, int32_t max, int32_t *count);

#endif
