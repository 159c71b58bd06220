/* Lustre lov_user_md codec: raw "lustre.lov" xattr blobs <-> ostio_layout.
 * Pure functions, no I/O; facts from Lustre's lustre_user.h (see
 * docs/lustre-lov.md). Never links liblustreapi. */
#ifndef OSTIO_LAYOUT_LOV_H
#define OSTIO_LAYOUT_LOV_H

#include <stddef.h>
#include <stdint.h>
#include "layout/layout.h"

#define OSTIO__LOV_MAGIC_V1       0x0BD10BD0u
#define OSTIO__LOV_MAGIC_V3       0x0BD30BD0u
#define OSTIO__LOV_MAGIC_SPECIFIC 0x0BD50BD0u
#define OSTIO__LOV_MAGIC_COMP_V1  0x0BD60BD0u
#define OSTIO__LOV_MAGIC_FOREIGN  0x0BD70BD0u
#define OSTIO__LL_SUPER_MAGIC     0x0BD00BD0u

/* Parses a blob as returned by getxattr("lustre.lov") or
 * LL_IOC_LOV_GETSTRIPE: v1, v3, specific, composite (PFL). Accepts host
 * order and byte-swapped blobs. The result is validated. Errors:
 * OSTIO_EFORMAT (truncated, bad magic, counts past the buffer, foreign
 * layouts), OSTIO_ELAYOUT (zero stripe size/count...), with a detail. */
int ostio__lov_parse(const void *buf, size_t len, ostio_layout **out);

/* Encodes one component for LL_IOC_LOV_SETSTRIPE: lov_user_md_specific
 * when it has an OST list, v3 when it has a pool, else v1. stripe_offset
 * 0xFFFF when first_ost < 0. Writes into buf (cap bytes); *len gets the size
 * needed (also on OSTIO_ERANGE, when cap is too small). */
int ostio__lov_encode_md(const ostio__comp *c, void *buf, size_t cap, size_t *len);

/* Encodes a whole layout: a plain lov_user_md when it has one component
 * covering [0, EOF), else lov_comp_md_v1. *buf is malloc'd. */
int ostio__lov_encode(const ostio_layout *l, void **buf, size_t *len);

#endif
