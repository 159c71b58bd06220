/* Lustre lov_user_md byte vectors for the codec tests; see lov_blobs.h. */
#include "lov_blobs.h"

#include <string.h>

/* ---- writer: explicit offsets, optional byte swap ------------------------ */
int w_swap;

void w16(unsigned char *b, size_t off, uint16_t v)
{
  if (w_swap) v = (uint16_t)((v >> 8) | (v << 8));
  memcpy(b + off, &v, 2);
}

void w32(unsigned char *b, size_t off, uint32_t v)
{
  if (w_swap)
    v = (v >> 24) | ((v >> 8) & 0xff00u) | ((v << 8) & 0xff0000u) | (v << 24);
  memcpy(b + off, &v, 4);
}

void w64(unsigned char *b, size_t off, uint64_t v)
{
  uint32_t lo = (uint32_t)v, hi = (uint32_t)(v >> 32);
  w32(b, off + (w_swap ? 4 : 0), lo);
  w32(b, off + (w_swap ? 0 : 4), hi);
}

/* A lov_user_md at b+off; nobj objects, OST indices from osts (zeros when
 * NULL). Returns its size. */
size_t put_md(unsigned char *b, size_t off, uint32_t magic, uint32_t pattern,
                     uint32_t ssize, uint16_t count, uint16_t soff, const char *pool,
                     const uint32_t *osts, int nobj)
{
  size_t hdr = magic == V1 ? 32 : 48;
  memset(b + off, 0, hdr + (size_t)nobj * 24);
  w32(b, off + 0, magic);
  w32(b, off + 4, pattern);
  w64(b, off + 8, 0x2000013a5ull);         /* lmm_oi: some object id */
  w64(b, off + 16, 0x7ull);
  w32(b, off + 24, ssize);
  w16(b, off + 28, count);
  w16(b, off + 30, soff);
  if (pool) memcpy(b + off + 32, pool, strnlen(pool, 16));
  for (int k = 0; k < nobj; k++) {
    size_t o = off + hdr + (size_t)k * 24;
    w64(b, o, 0x100000000ull + (uint64_t)k); /* l_ost_oi */
    w64(b, o + 8, 0x55ull);
    w32(b, o + 16, 1);                        /* l_ost_gen */
    w32(b, o + 20, osts ? osts[k] : 0);       /* l_ost_idx */
  }
  return hdr + (size_t)nobj * 24;
}

void put_comp_hdr(unsigned char *b, uint32_t lcm_size, uint16_t n, uint16_t mirrors)
{
  memset(b, 0, 32);
  w32(b, 0, COMP);
  w32(b, 4, lcm_size);
  w32(b, 8, 3);  /* lcm_layout_gen */
  w16(b, 12, 0);
  w16(b, 14, n);
  w16(b, 16, mirrors);
}

void put_entry(unsigned char *b, int i, uint32_t id, uint32_t flags, uint64_t start,
                      uint64_t end, uint32_t off, uint32_t size)
{
  size_t e = 32 + (size_t)i * 48;
  memset(b + e, 0, 48);
  w32(b, e + 0, id);
  w32(b, e + 4, flags);
  w64(b, e + 8, start);
  w64(b, e + 16, end);
  w32(b, e + 24, off);
  w32(b, e + 28, size);
  w32(b, e + 32, 1);
}

/* ---- the test vectors ---------------------------------------------------- */
const uint32_t OSTS4[] = {7, 2, 9, 4};

size_t build_v1(unsigned char *b)
{
  return put_md(b, 0, V1, 0x1, 1 * MIB, 4, NO_OFF, NULL, OSTS4, 4);
}

size_t build_v3(unsigned char *b)
{
  static const uint32_t o[] = {11, 12};
  return put_md(b, 0, V3, 0x1, 2 * MIB, 2, NO_OFF, "flash", o, 2);
}

size_t build_overstripe(unsigned char *b)
{
  static const uint32_t o[] = {0, 1, 0, 1, 0, 1, 0, 1};
  return put_md(b, 0, V1, 0x201, 1 * MIB, 8, NO_OFF, NULL, o, 8);
}

/* [0,4MiB) count 1 size 1MiB on OST 5; [4MiB,EOF) count 4 size 4MiB.
 * second: 0 uninstantiated without objects, 1 instantiated on OSTs 1-4,
 * 2 uninstantiated with zeroed objects, 3 uninstantiated specific md
 * asking for OSTs 6-9. */
size_t build_comp2(unsigned char *b, int second)
{
  static const uint32_t o1[] = {5}, o2[] = {1, 2, 3, 4}, o3[] = {6, 7, 8, 9};
  size_t m1 = 128;
  size_t s1 = put_md(b, m1, V1, 0x1, 1 * MIB, 1, NO_OFF, NULL, o1, 1);
  size_t m2 = m1 + s1;
  size_t s2 = put_md(b, m2, second == 3 ? SPEC : V1, 0x1, 4 * MIB, 4, NO_OFF, NULL,
                     second == 1 ? o2 : second == 3 ? o3 : NULL, second ? 4 : 0);
  put_comp_hdr(b, (uint32_t)(m2 + s2), 2, 0);
  put_entry(b, 0, 1, INIT, 0, 4 * MIB, (uint32_t)m1, (uint32_t)s1);
  put_entry(b, 1, 2, second == 1 ? INIT : 0, 4 * MIB, UINT64_MAX, (uint32_t)m2, (uint32_t)s2);
  return m2 + s2;
}

/* FLR: mirror 1 = ids 0x10001 [0,4MiB) + 0x10002 [4MiB,EOF); mirror 2 =
 * 0x20003 [0,EOF) on OSTs 8,9. */
size_t build_mirrors(unsigned char *b)
{
  static const uint32_t a[] = {5}, c[] = {1, 2, 3, 4}, d[] = {8, 9};
  size_t off = 32 + 3 * 48, s;
  s = put_md(b, off, V1, 1, 1 * MIB, 1, NO_OFF, NULL, a, 1);
  put_entry(b, 0, 0x10001, INIT, 0, 4 * MIB, (uint32_t)off, (uint32_t)s);
  off += s;
  s = put_md(b, off, V1, 1, 4 * MIB, 4, NO_OFF, NULL, c, 4);
  put_entry(b, 1, 0x10002, INIT, 4 * MIB, UINT64_MAX, (uint32_t)off, (uint32_t)s);
  off += s;
  s = put_md(b, off, V1, 1, 1 * MIB, 2, NO_OFF, NULL, d, 2);
  put_entry(b, 2, 0x20003, INIT, 0, UINT64_MAX, (uint32_t)off, (uint32_t)s);
  off += s;
  put_comp_hdr(b, (uint32_t)off, 3, 1);
  return off;
}

