/* Lustre lov_user_md byte vectors for the codec tests, written field by
 * field at the offsets of lustre_user.h (never by the library's encoder),
    * optionally byte-swapped. Used by test_lov.c. */
#ifndef OSTIO_TESTS_LOV_BLOBS_H
#define OSTIO_TESTS_LOV_BLOBS_H

#include <stddef.h>
#include <stdint.h>

#include "layout/lov.h"

#define MIB (1024 * 1024)
#define V1 OSTIO__LOV_MAGIC_V1
#define V3 OSTIO__LOV_MAGIC_V3
#define SPEC OSTIO__LOV_MAGIC_SPECIFIC
#define COMP OSTIO__LOV_MAGIC_COMP_V1
#define FOREIGN OSTIO__LOV_MAGIC_FOREIGN
#define INIT 0x10u
#define NO_OFF 0xFFFFu

/* Writes multi-byte fields byte-swapped when set. */
extern int w_swap;
/* The OST list the builders use for 4-stripe layouts. */
extern const uint32_t OSTS4[4];

void w16(unsigned char *b, size_t off, uint16_t v);
void w32(unsigned char *b, size_t off, uint32_t v);
void w64(unsigned char *b, size_t off, uint64_t v);
size_t put_md(unsigned char *b, size_t off, uint32_t magic, uint32_t pattern,
    uint32_t ssize, uint16_t count, uint16_t soff, const char *pool,
    const uint32_t *osts, int nobj);
void put_comp_hdr(unsigned char *b, uint32_t lcm_size, uint16_t n, uint16_t mirrors);
void put_entry(unsigned char *b, int i, uint32_t id, uint32_t flags, uint64_t start,
    uint64_t end, uint32_t off, uint32_t size);
size_t build_v1(unsigned char *b);
size_t build_v3(unsigned char *b);
size_t build_overstripe(unsigned char *b);
size_t build_comp2(unsigned char *b, int second);
size_t build_mirrors(unsigned char *b);

#endif
