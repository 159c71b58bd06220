/* Index records of log containers: a fixed 64-byte little-endian codec with
 * a CRC-32C, and the pattern compressor (a strided run of equal-length
 * pieces appended back to back is one record). Pure: no files, no MPI.
 * See docs/container-format.md, "Index records". */
#include <pthread.h>
#include <string.h>

#include "container/log/log.h"
#include "core/error.h"

/* ---- CRC-32C (Castagnoli, reflected 0x82F63B78) ------------------------------ */

static uint32_t crc_table[256];
static pthread_once_t crc_once = PTHREAD_ONCE_INIT;

static void crc_init(void)
{
  for (uint32_t i = 0; i < 256; i++) {
    uint32_t c = i;
    for (int k = 0; k < 8; k++) c = c & 1 ? (c >> 1) ^ 0x82F63B78u : c >> 1;
    crc_table[i] = c;
  }
}

uint32_t ostio__crc32c(const void *data, size_t len)
{
  const unsigned char *p = data;
  pthread_once(&crc_once, crc_init);
  uint32_t c = 0xffffffffu;
  for (size_t i = 0; i < len; i++) c = crc_table[(c ^ p[i]) & 0xff] ^ (c >> 8);
  return c ^ 0xffffffffu;
}

/* ---- codec ---------------------------------------------------------------------- */

static void put64(unsigned char *p, uint64_t v)
{
  for (int i = 0; i < 8; i++) p[i] = (unsigned char)(v >> (8 * i));
}
static uint64_t get64(const unsigned char *p)
{
  uint64_t v = 0;
  for (int i = 7; i >= 0; i--) v = v << 8 | p[i];
  return v;
}
static void put32(unsigned char *p, uint32_t v)
{
  for (int i = 0; i < 4; i++) p[i] = (unsigned char)(v >> (8 * i));
}
static uint32_t get32(const unsigned char *p)
{
  return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

#define MAGIC0 'o'
#define MAGIC1 'l'

void ostio__logrec_encode(const ostio__logrec *r, unsigned char out[OSTIO__LOGREC_SIZE])
{
  memset(out, 0, OSTIO__LOGREC_SIZE);
  out[0] = MAGIC0;
  out[1] = MAGIC1;
  /* Version 1 unless the seq has left the session's range (two handles of
   * a process, docs/containers.md): old containers and every record of a
   * handle that never did stay byte for byte what earlier releases wrote. */
  uint32_t session = r->session ? r->session : (uint32_t)(r->seq >> 32);
  int v2 = session != (uint32_t)(r->seq >> 32);
  out[2] = v2 ? OSTIO__LOGREC_VERSION2 : OSTIO__LOGREC_VERSION;
  out[3] = (unsigned char)r->type;
  put32(out + 4, r->writer);
  put64(out + 8, r->seq);
  if (v2) put32(out + 56, session);
  put64(out + 16, (uint64_t)r->lstart);
  put64(out + 24, (uint64_t)r->lstride);
  put64(out + 32, (uint64_t)r->length);
  put64(out + 40, (uint64_t)r->count);
  put64(out + 48, (uint64_t)r->pstart);
  put32(out + 60, ostio__crc32c(out, 60));
}

static int bad(const char *what)
{
  return ostio__fail(OSTIO_EFORMAT, "index record: %s", what);
}

/* Valid values of a WRITE: no negative field, pieces that do not overlap and
 * ends that fit in an int64. */
static int write_ok(const ostio__logrec *r)
{
  if (r->lstart < 0 || r->length < 1 || r->count < 1 || r->pstart < 0)
    return bad("WRITE with a negative start, or a length or count below 1");
  if (r->count == 1 && r->lstride != 0) return bad("WRITE of one piece with a stride");
  if (r->count > 1 && r->lstride < r->length)
    return bad("WRITE whose stride is smaller than its length (pieces would overlap)");
  int64_t n1 = r->count - 1;
  if (n1 > 0 && r->lstride > (INT64_MAX - r->lstart - r->length) / n1)
    return bad("WRITE whose logical end is beyond 2^63 - 1");
  if (r->length > INT64_MAX - r->lstart) return bad("WRITE whose logical end overflows");
  if (r->length > (INT64_MAX - r->pstart) / r->count)
    return bad("WRITE whose physical end is beyond 2^63 - 1");
  return 0;
}

int ostio__logrec_decode(const unsigned char in[OSTIO__LOGREC_SIZE], ostio__logrec *r)
{
  memset(r, 0, sizeof *r);
  if (in[0] != MAGIC0 || in[1] != MAGIC1) return bad("bad magic (expected \"ol\")");
  if (get32(in + 60) != ostio__crc32c(in, 60)) return bad("CRC-32C mismatch");
  if (in[2] != OSTIO__LOGREC_VERSION && in[2] != OSTIO__LOGREC_VERSION2)
    return ostio__fail(OSTIO_EFORMAT, "index record: version %d; this ostio reads versions 1 "
                       "and 2", in[2]);
  r->type = in[3];
  r->writer = get32(in + 4);
  r->seq = get64(in + 8);
  r->session = (uint32_t)(r->seq >> 32);
  if (in[2] == OSTIO__LOGREC_VERSION) {
    for (int i = 56; i < 60; i++)
      if (in[i]) return bad("reserved bytes 56..59 of a version 1 record are not zero");
  } else {
    /* A seq never lies below its session's first (session << 32). */
    r->session = get32(in + 56);
    if (r->session == 0 || r->session >= r->seq >> 32)
      return bad("version 2 record whose session (bytes 56..59) is 0 or not below its "
                 "seq's high half");
  }
  r->lstart = (int64_t)get64(in + 16);
  r->lstride = (int64_t)get64(in + 24);
  r->length = (int64_t)get64(in + 32);
  r->count = (int64_t)get64(in + 40);
  r->pstart = (int64_t)get64(in + 48);
  switch (r->type) {
  case OSTIO__LOGREC_WRITE:
    return write_ok(r);
  case OSTIO__LOGREC_TRUNC:
  case OSTIO__LOGREC_COVER:
    if (r->lstart < 0 || r->lstride || r->length || r->count || r->pstart)
      return bad("TRUNC or COVER with a negative value or a nonzero unused field");
    return 0;
  default:
    return ostio__fail(OSTIO_EFORMAT, "index record: unknown type %d (1 WRITE, 2 TRUNC, "
                       "3 COVER)", r->type);
  }
}

int64_t ostio__logrec_end(const ostio__logrec *r)
{
  if (r->type != OSTIO__LOGREC_WRITE) return r->lstart;
  return r->lstart + (r->count - 1) * r->lstride + r->length;
}

int64_t ostio__logrec_pend(const ostio__logrec *r)
{
  return r->type == OSTIO__LOGREC_WRITE ? r->pstart + r->count * r->length : 0;
}

/* ---- compressor ------------------------------------------------------------------- */

static int extends(const ostio__logrec *p, uint64_t seq, int64_t lstart, int64_t len,
                   int64_t pstart)
{
  if (p->seq != seq || p->length != len) return 0;
  if (p->count > (INT64_MAX - p->pstart) / len - 1) return 0;
  if (pstart != p->pstart + p->count * len) return 0;
  if (p->count == 1) {
    /* The second piece fixes the stride: forward, not overlapping. */
    return lstart >= p->lstart && lstart - p->lstart >= len &&
           lstart - p->lstart <= INT64_MAX - len - p->lstart;
  }
  if (p->lstride > (INT64_MAX - p->lstart - len) / p->count) return 0;
  return lstart == p->lstart + p->count * p->lstride;
}

int ostio__logcomp_add(ostio__logcomp *c, uint64_t seq, uint32_t writer, int64_t lstart,
                       int64_t len, int64_t pstart, ostio__logrec *flushed)
{
  ostio__logrec *p = &c->rec;
  if (c->pending && p->writer == writer && extends(p, seq, lstart, len, pstart)) {
    if (p->count == 1) p->lstride = lstart - p->lstart;
    p->count++;
    return 0;
  }
  int out = 0;
  if (c->pending) {
    *flushed = *p;
    out = 1;
  }
  *p = (ostio__logrec){.type = OSTIO__LOGREC_WRITE, .writer = writer, .seq = seq,
                       .lstart = lstart, .lstride = 0, .length = len, .count = 1,
                       .pstart = pstart};
  c->pending = 1;
  return out;
}

int ostio__logcomp_take(ostio__logcomp *c, ostio__logrec *out)
{
  if (!c->pending) return 0;
  *out = c->rec;
  c->pending = 0;
  return 1;
}
