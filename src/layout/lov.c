/* Lustre "lustre.lov" xattr codec: lov_user_md v1/v3/specific and
 * lov_comp_md_v1 blobs <-> ostio_layout. Pure functions, no I/O.
 * Facts and treatment of odd cases: docs/lustre-lov.md.
 *
 * Every read goes through rd16/rd32/rd64 after an explicit bounds check;
 * the parser never divides and frees everything on one cleanup path. */
#include "layout/lov.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"

/* ---- on-disk constants (lustre_user.h) ----------------------------------- */
#define MD_V1_SIZE      32u   /* lov_user_md_v1 without objects            */
#define MD_V3_SIZE      48u   /* lov_user_md_v3 (and _specific) header     */
#define OBJ_SIZE        24u   /* lov_user_ost_data_v1                      */
#define COMP_HDR_SIZE   32u   /* lov_comp_md_v1 without entries            */
#define ENTRY_SIZE      48u   /* lov_comp_md_entry_v1                      */
#define POOL_FIELD      16u   /* lmm_pool_name[16]                         */

#define PAT_RAID0       0x1u
#define PAT_MDT         0x100u
#define PAT_OVERSTRIPE  0x200u
#define PAT_FLAG_MASK   0xffff0000u
#define PAT_F_RELEASED  0x80000000u

#define LCME_FL_INIT    0x10u
#define MIRROR_ID_SHIFT 16
#define OFFSET_ANY      0xFFFFu  /* lmm_stripe_offset: "let Lustre choose" */
#define COUNT_ALL       0xFFFFu  /* lmm_stripe_count -1: "all OSTs"        */
#define OST_IDX_MAX     0xFFFEu  /* OST indices fit lmm_stripe_offset      */
#define EXTENT_EOF      UINT64_MAX

/* ---- unaligned, optionally byte-swapped access ---------------------------- */
static uint16_t rd16(const unsigned char *p, int swap)
{
  uint16_t v;
  memcpy(&v, p, sizeof v);
  return swap ? (uint16_t)((v >> 8) | (v << 8)) : v;
}

static uint32_t bswap32(uint32_t v)
{
  return (v >> 24) | ((v >> 8) & 0xff00u) | ((v << 8) & 0xff0000u) | (v << 24);
}

static uint32_t rd32(const unsigned char *p, int swap)
{
  uint32_t v;
  memcpy(&v, p, sizeof v);
  return swap ? bswap32(v) : v;
}

static uint64_t rd64(const unsigned char *p, int swap)
{
  uint64_t v;
  memcpy(&v, p, sizeof v);
  if (!swap) return v;
  return ((uint64_t)bswap32((uint32_t)v) << 32) | bswap32((uint32_t)(v >> 32));
}

static void wr16(unsigned char *p, uint16_t v) { memcpy(p, &v, sizeof v); }
static void wr32(unsigned char *p, uint32_t v) { memcpy(p, &v, sizeof v); }
static void wr64(unsigned char *p, uint64_t v) { memcpy(p, &v, sizeof v); }

static int known_magic(uint32_t m)
{
  return m == OSTIO__LOV_MAGIC_V1 || m == OSTIO__LOV_MAGIC_V3 ||
         m == OSTIO__LOV_MAGIC_SPECIFIC || m == OSTIO__LOV_MAGIC_COMP_V1 ||
         m == OSTIO__LOV_MAGIC_FOREIGN;
}

/* ---- parsing -------------------------------------------------------------- */

/* Maps lmm_pattern to OSTIO_PATTERN_* bits; *released set for HSM-released
 * files (no objects). */
static int parse_pattern(uint32_t raw, const char *where, uint32_t *pattern, int *released)
{
  uint32_t base = raw & ~PAT_FLAG_MASK;
  *released = (raw & PAT_F_RELEASED) != 0;
  if (base & PAT_MDT)
    return ostio__fail(OSTIO_ENOTSUP, "%s: pattern 0x%x is data-on-MDT; ostio only "
                       "supports layouts whose data lives on OSTs", where, (unsigned)raw);
  if (base & ~(PAT_RAID0 | PAT_OVERSTRIPE))
    return ostio__fail(OSTIO_ENOTSUP, "%s: pattern 0x%x is not supported (RAID0 0x1 and "
                       "overstriping 0x200 only)", where, (unsigned)raw);
  /* 0 is "default" (RAID0); overstriping is always a RAID0 variant. */
  *pattern = OSTIO_PATTERN_RAID0 | (base & PAT_OVERSTRIPE ? OSTIO_PATTERN_OVERSTRIPING : 0);
  return 0;
}

/* Parses one lov_user_md of avail bytes at p into *c. in_comp says it sits
 * in a composite entry whose LCME_FL_INIT bit is init. When objects are
 * used they are read into osts (room for OSTIO_MAX_STRIPE_COUNT), and
 * c->osts points there. */
static int parse_md(const unsigned char *p, size_t avail, int swap, int in_comp, int init,
                    const char *where, ostio__comp *c, int32_t *osts)
{
  if (avail < MD_V1_SIZE)
    return ostio__fail(OSTIO_EFORMAT, "%s: lov_user_md of %zu bytes is truncated (the v1 "
                       "header alone is %u bytes)", where, avail, MD_V1_SIZE);
  uint32_t magic = rd32(p, swap);
  size_t hdr;
  switch (magic) {
  case OSTIO__LOV_MAGIC_V1: hdr = MD_V1_SIZE; break;
  case OSTIO__LOV_MAGIC_V3:
  case OSTIO__LOV_MAGIC_SPECIFIC: hdr = MD_V3_SIZE; break;
  case OSTIO__LOV_MAGIC_FOREIGN:
    return ostio__fail(OSTIO_ENOTSUP, "%s: foreign layouts (magic 0x%08x) are not "
                       "supported", where, (unsigned)magic);
  default:
    return ostio__fail(OSTIO_EFORMAT, "%s: magic 0x%08x is not a lov_user_md v1/v3/"
                       "specific magic", where, (unsigned)magic);
  }
  if (avail < hdr)
    return ostio__fail(OSTIO_EFORMAT, "%s: lov_user_md v3 of %zu bytes is truncated "
                       "(header is %zu bytes)", where, avail, hdr);
  int released = 0;
  int rc = parse_pattern(rd32(p + 4, swap), where, &c->pattern, &released);
  if (rc < 0) return rc;
  uint32_t size = rd32(p + 24, swap);
  uint32_t count = rd16(p + 28, swap);
  if (size == 0)
    return ostio__fail(OSTIO_ELAYOUT, "%s: stripe size is 0", where);
  if ((count == 0 || count == COUNT_ALL) && in_comp && !init)
    count = 1; /* not instantiated yet: Lustre resolves the default / "all OSTs" count
                * only then; modelled as one stripe until it does (docs/lustre-lov.md) */
  if (count == 0)
    return ostio__fail(OSTIO_ELAYOUT, "%s: stripe count is 0 (a default that was never "
                       "resolved)", where);
  if (count == COUNT_ALL)
    return ostio__fail(OSTIO_EFORMAT, "%s: stripe count is -1 (\"all OSTs\"), which is "
                       "only resolved when Lustre instantiates the component", where);
  if (count > OSTIO_MAX_STRIPE_COUNT)
    return ostio__fail(OSTIO_EFORMAT, "%s: stripe count %u exceeds Lustre's maximum %d",
                       where, (unsigned)count, OSTIO_MAX_STRIPE_COUNT);
  c->stripe_size = size;
  c->stripe_count = (int32_t)count;
  c->pool[0] = '\0';
  if (hdr == MD_V3_SIZE) {
    size_t n = 0;
    while (n < POOL_FIELD && p[32 + n] != '\0') n++;
    memcpy(c->pool, p + 32, n);
    c->pool[n] = '\0';
  }
  int specific = magic == OSTIO__LOV_MAGIC_SPECIFIC;
  /* Objects: a specific md always lists its OSTs; otherwise an instantiated
   * component or a plain md that carries any object bytes. A plain md that
   * ends right after its header is a template (request form). */
  int objects = !released && (specific || (in_comp ? init : avail > hdr));
  c->osts = NULL;
  c->first_ost = -1;
  c->instantiated = 0;
  if (!objects) return 0;
  size_t have = (avail - hdr) / OBJ_SIZE;
  if (have < count)
    return ostio__fail(OSTIO_EFORMAT, "%s: stripe count %u but the blob holds only %zu "
                       "objects", where, (unsigned)count, have);
  for (uint32_t k = 0; k < count; k++) {
    uint32_t idx = rd32(p + hdr + (size_t)k * OBJ_SIZE + 20, swap);
    if (idx > OST_IDX_MAX)
      return ostio__fail(OSTIO_EFORMAT, "%s: object %u has OST index %u (expected "
                         "0..%u)", where, (unsigned)k, (unsigned)idx, OST_IDX_MAX);
    osts[k] = (int32_t)idx;
  }
  /* The OST list is known: objects exist, or (specific) they were asked
   * for on these OSTs. */
  c->osts = osts;
  c->first_ost = osts[0];
  c->instantiated = 1;
  return 0;
}

static int parse_plain(const unsigned char *p, size_t len, int swap, ostio_layout *l,
                       int32_t *osts)
{
  ostio__comp c = {.start = 0, .end = OSTIO_EOF};
  int rc = parse_md(p, len, swap, 0, 0, "lustre.lov", &c, osts);
  if (rc < 0) return rc;
  return ostio__layout_add(l, &c);
}

static int parse_comp(const unsigned char *p, size_t len, int swap, ostio_layout *l,
                      int32_t *osts)
{
  if (len < COMP_HDR_SIZE)
    return ostio__fail(OSTIO_EFORMAT, "lustre.lov: composite header of %zu bytes is "
                       "truncated (need %u)", len, COMP_HDR_SIZE);
  uint32_t lcm_size = rd32(p + 4, swap);
  uint32_t n = rd16(p + 14, swap);
  uint32_t mirrors = rd16(p + 16, swap);
  if (lcm_size > len)
    return ostio__fail(OSTIO_EFORMAT, "lustre.lov: composite layout claims %u bytes but "
                       "the blob has %zu", (unsigned)lcm_size, len);
  if (n == 0 || n > OSTIO_MAX_COMPONENTS)
    return ostio__fail(OSTIO_EFORMAT, "lustre.lov: composite layout has %u entries "
                       "(expected 1..%d)", (unsigned)n, OSTIO_MAX_COMPONENTS);
  size_t table_end = COMP_HDR_SIZE + (size_t)n * ENTRY_SIZE;
  if (table_end > lcm_size)
    return ostio__fail(OSTIO_EFORMAT, "lustre.lov: %u entries need %zu bytes but the "
                       "composite layout has %u", (unsigned)n, table_end,
                       (unsigned)lcm_size);
  if (p[18] != 0)
    return ostio__fail(OSTIO_ENOTSUP, "lustre.lov: erasure-coded layouts (lcm_ec_count "
                       "%u) are not supported", (unsigned)p[18]);
  uint32_t mirror0 = rd32(p + COMP_HDR_SIZE, swap) >> MIRROR_ID_SHIFT;
  for (uint32_t i = 0; i < n; i++) {
    const unsigned char *e = p + COMP_HDR_SIZE + (size_t)i * ENTRY_SIZE;
    uint32_t id = rd32(e, swap), flags = rd32(e + 4, swap);
    uint64_t start = rd64(e + 8, swap), end = rd64(e + 16, swap);
    uint32_t off = rd32(e + 24, swap), size = rd32(e + 28, swap);
    if (off < table_end || (uint64_t)off + size > lcm_size)
      return ostio__fail(OSTIO_EFORMAT, "lustre.lov: entry %u places its lov_user_md at "
                         "[%u, %llu), outside [%zu, %u)", (unsigned)i, (unsigned)off,
                         (unsigned long long)off + size, table_end, (unsigned)lcm_size);
    /* FLR: keep the first mirror only. */
    if (mirrors > 0 && id >> MIRROR_ID_SHIFT != mirror0) continue;
    if (start > (uint64_t)INT64_MAX)
      return ostio__fail(OSTIO_EFORMAT, "lustre.lov: entry %u starts at %llu, beyond "
                         "the largest file offset", (unsigned)i, (unsigned long long)start);
    char where[48];
    snprintf(where, sizeof where, "lustre.lov entry %u", (unsigned)i);
    ostio__comp c = {
      .start = (int64_t)start,
      .end = end >= (uint64_t)INT64_MAX ? OSTIO_EOF : (int64_t)end};
    int rc = parse_md(p + off, size, swap, 1, (flags & LCME_FL_INIT) != 0, where, &c, osts);
    if (rc < 0) return rc;
    if ((rc = ostio__layout_add(l, &c)) < 0) return rc;
  }
  return 0;
}

int ostio__lov_parse(const void *buf, size_t len, ostio_layout **out)
{
  int rc = 0;
  ostio_layout *l = NULL;
  int32_t *osts = NULL;
  if (!out) return ostio__fail(OSTIO_EINVAL, "ostio__lov_parse: NULL output pointer");
  *out = NULL;
  if (!buf) return ostio__fail(OSTIO_EINVAL, "ostio__lov_parse: NULL buffer");
  const unsigned char *p = buf;
  if (len < 4)
    return ostio__fail(OSTIO_EFORMAT, "lustre.lov: %zu bytes is too short for a layout",
                       len);
  uint32_t magic = rd32(p, 0);
  int swap = 0;
  if (!known_magic(magic) && known_magic(bswap32(magic))) {
    swap = 1;
    magic = bswap32(magic);
  }
  if (magic == OSTIO__LOV_MAGIC_FOREIGN)
    return ostio__fail(OSTIO_ENOTSUP, "lustre.lov: foreign layouts (magic 0x%08x) are not "
                       "supported", (unsigned)magic);
  if (!known_magic(magic))
    return ostio__fail(OSTIO_EFORMAT, "lustre.lov: magic 0x%08x is not a Lustre layout "
                       "magic", (unsigned)rd32(p, 0));
  l = ostio__layout_new();
  osts = malloc(sizeof(int32_t) * OSTIO_MAX_STRIPE_COUNT);
  if (!l || !osts) {
    rc = ostio__fail(OSTIO_ENOMEM, "lustre.lov: out of memory");
    goto done;
  }
  if (magic == OSTIO__LOV_MAGIC_COMP_V1)
    rc = parse_comp(p, len, swap, l, osts);
  else
    rc = parse_plain(p, len, swap, l, osts);
  if (rc < 0) goto done;
  if ((rc = ostio__layout_validate(l)) < 0) goto done;
  snprintf(l->source, sizeof l->source, "lustre");
  *out = l;
  l = NULL;
done:
  free(osts);
  ostio__layout_destroy(l);
  return rc;
}

/* ---- encoding ------------------------------------------------------------- */

/* Request form of one component: specific when it has an OST list (the
 * list goes into the objects' l_ost_idx), else v3 with a pool, else v1. */
static uint32_t md_magic(const ostio__comp *c)
{
  if (c->osts) return OSTIO__LOV_MAGIC_SPECIFIC;
  return c->pool[0] ? OSTIO__LOV_MAGIC_V3 : OSTIO__LOV_MAGIC_V1;
}

static size_t md_size(const ostio__comp *c)
{
  size_t hdr = md_magic(c) == OSTIO__LOV_MAGIC_V1 ? MD_V1_SIZE : MD_V3_SIZE;
  return hdr + (c->osts ? (size_t)c->stripe_count * OBJ_SIZE : 0);
}

static int check_comp(const ostio__comp *c)
{
  if (c->stripe_size < 1 || c->stripe_size > OSTIO__STRIPE_SIZE_MAX)
    return ostio__fail(OSTIO_ELAYOUT, "lov encode: stripe size %lld does not fit Lustre's "
                       "1..%lld", (long long)c->stripe_size, (long long)OSTIO__STRIPE_SIZE_MAX);
  if (c->stripe_count < 1 || c->stripe_count > OSTIO_MAX_STRIPE_COUNT)
    return ostio__fail(OSTIO_ELAYOUT, "lov encode: stripe count %d: expected 1..%d",
                       (int)c->stripe_count, OSTIO_MAX_STRIPE_COUNT);
  if (!(c->pattern & OSTIO_PATTERN_RAID0) ||
      (c->pattern & ~(OSTIO_PATTERN_RAID0 | OSTIO_PATTERN_OVERSTRIPING)))
    return ostio__fail(OSTIO_ELAYOUT, "lov encode: pattern 0x%x: only RAID0 with optional "
                       "overstriping can be encoded", (unsigned)c->pattern);
  if (c->first_ost < -1 || c->first_ost > (int32_t)OST_IDX_MAX)
    return ostio__fail(OSTIO_ELAYOUT, "lov encode: first OST %d: expected -1 or 0..%u",
                       (int)c->first_ost, OST_IDX_MAX);
  for (int32_t k = 0; c->osts && k < c->stripe_count; k++)
    if (c->osts[k] < 0 || c->osts[k] > (int32_t)OST_IDX_MAX)
      return ostio__fail(OSTIO_ELAYOUT, "lov encode: object %d on OST %d: expected "
                         "0..%u", (int)k, (int)c->osts[k], OST_IDX_MAX);
  return 0;
}

int ostio__lov_encode_md(const ostio__comp *c, void *buf, size_t cap, size_t *len)
{
  if (!c || !len) return ostio__fail(OSTIO_EINVAL, "ostio__lov_encode_md: NULL argument");
  int rc = check_comp(c);
  if (rc < 0) return rc;
  uint32_t magic = md_magic(c);
  size_t need = md_size(c);
  *len = need;
  if (!buf || cap < need)
    return ostio__fail(OSTIO_ERANGE, "lov encode: the lov_user_md needs %zu bytes, the "
                       "buffer has %zu", need, buf ? cap : (size_t)0);
  unsigned char *p = buf;
  memset(p, 0, need);
  wr32(p, magic);
  wr32(p + 4, c->pattern);
  wr32(p + 24, (uint32_t)c->stripe_size);
  wr16(p + 28, (uint16_t)c->stripe_count);
  wr16(p + 30, c->first_ost < 0 ? (uint16_t)OFFSET_ANY : (uint16_t)c->first_ost);
  size_t hdr = MD_V1_SIZE;
  if (magic != OSTIO__LOV_MAGIC_V1) {
    memcpy(p + 32, c->pool, strnlen(c->pool, POOL_FIELD));
    hdr = MD_V3_SIZE;
  }
  for (int32_t k = 0; c->osts && k < c->stripe_count; k++)
    wr32(p + hdr + (size_t)k * OBJ_SIZE + 20, (uint32_t)c->osts[k]);
  return 0;
}

int ostio__lov_encode(const ostio_layout *l, void **buf, size_t *len)
{
  int rc = 0;
  unsigned char *p = NULL;
  if (!l || !buf || !len) return ostio__fail(OSTIO_EINVAL, "ostio__lov_encode: NULL argument");
  *buf = NULL;
  *len = 0;
  if ((rc = ostio__layout_validate(l)) < 0) return rc;
  for (int i = 0; i < l->ncomp; i++)
    if ((rc = check_comp(&l->comp[i])) < 0) return rc;
  const ostio__comp *c0 = &l->comp[0];
  if (l->ncomp == 1 && c0->start == 0 && c0->end == OSTIO_EOF) {
    size_t need = md_size(c0), used = 0;
    if (!(p = malloc(need))) return ostio__fail(OSTIO_ENOMEM, "lov encode: out of memory");
    if ((rc = ostio__lov_encode_md(c0, p, need, &used)) < 0) goto done;
    *len = used;
    goto done;
  }
  /* Composite: header, entries, then each md at an 8-byte aligned offset. */
  size_t total = COMP_HDR_SIZE + (size_t)l->ncomp * ENTRY_SIZE;
  size_t offs[OSTIO_MAX_COMPONENTS];
  for (int i = 0; i < l->ncomp; i++) {
    total = (total + 7) & ~(size_t)7;
    offs[i] = total;
    total += md_size(&l->comp[i]);
  }
  if (total > UINT32_MAX) return ostio__fail(OSTIO_ELAYOUT, "lov encode: layout too large");
  if (!(p = calloc(1, total))) return ostio__fail(OSTIO_ENOMEM, "lov encode: out of memory");
  wr32(p, OSTIO__LOV_MAGIC_COMP_V1);
  wr32(p + 4, (uint32_t)total);
  wr16(p + 14, (uint16_t)l->ncomp);
  for (int i = 0; i < l->ncomp; i++) {
    const ostio__comp *c = &l->comp[i];
    unsigned char *e = p + COMP_HDR_SIZE + (size_t)i * ENTRY_SIZE;
    size_t used = 0;
    wr32(e, (uint32_t)i + 1);
    /* lcme_flags stay 0: LCME_FL_INIT is Lustre's to set. */
    wr64(e + 8, (uint64_t)c->start);
    wr64(e + 16, c->end == OSTIO_EOF ? EXTENT_EOF : (uint64_t)c->end);
    wr32(e + 24, (uint32_t)offs[i]);
    if ((rc = ostio__lov_encode_md(c, p + offs[i], total - offs[i], &used)) < 0) goto done;
    wr32(e + 28, (uint32_t)used);
  }
  *len = total;
done:
  if (rc < 0) {
    free(p);
    return rc;
  }
  *buf = p;
  return 0;
}
