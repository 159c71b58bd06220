/* The size record of a log container, safe with any number of writers on
 * any number of nodes (docs/containers.md, "The size record").
 *
 * A clean record carries the fingerprint of the index logs it was derived
 * from. Index logs only grow (and index.compact is only replaced by compact
 * or recover), so a record whose fingerprint matches the logs on disk was
 * derived from exactly what is there now, and one that does not match is
 * stale: readers then derive the size from the indexes. Closers publish by
 * deriving, writing, then reading back and relisting: when another closer's
 * older record landed after theirs, or a writer appended meanwhile, they try
 * again (a bounded number of times; a record left stale costs readers a scan,
 * never a wrong size). No MPI, no locks, no clocks. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "container/log/log.h"
#include "core/error.h"

#define PUBLISH_TRIES 12

uint64_t ostio__log_fingerprint(const ostio__logdir *d)
{
  uint64_t h = 0xcbf29ce484222325ull;
  for (size_t i = 0; i < d->nsrc; i++) {
    const ostio__logsrc *s = &d->src[i];
    if (!(s->flags & OSTIO__LOGSRC_INDEX)) continue;
    uint64_t v[3] = {s->session, s->writer, (uint64_t)s->index_size};
    for (int k = 0; k < 3; k++)
      for (int b = 0; b < 8; b++) h = (h ^ (unsigned char)(v[k] >> (8 * b))) * 0x100000001b3ull;
  }
  uint64_t c = d->compact ? (uint64_t)d->compact_size + 1 : 0;
  for (int b = 0; b < 8; b++) h = (h ^ (unsigned char)(c >> (8 * b))) * 0x100000001b3ull;
  return h;
}

int ostio__log_rec_trusted(const ostio__logdir *d, const ostio__sizerec *rec)
{
  return rec->clean && rec->has_fp && rec->fp == ostio__log_fingerprint(d);
}

int ostio__log_derive(ostio__logdir *d, int64_t *size, uint64_t *fp)
{
  int rc = ostio__log_scan(d);
  if (rc < 0) return rc;
  /* The fingerprint of the listing before loading: the load sees at least
   * these records, so a later match proves nothing was added since. */
  *fp = ostio__log_fingerprint(d);
  ostio__logmap map;
  ostio__logload st = {0};
  ostio__logmap_init(&map);
  rc = ostio__log_load_all(d, &map, &st);
  if (rc == 0) *size = map.size;
  ostio__logmap_free(&map);
  return rc;
}

/* A private listing of d's container (the caller's table stays as it is):
 * the directory d has open, whatever its name is now. */
static int private_dir(const ostio__logdir *d, ostio__logdir **out)
{
  char *text = NULL;
  size_t len = 0;
  *out = NULL;
  int rc = ostio__manifest_format(&d->m, &text, &len);
  if (rc == 0) rc = ostio__log_open_fd(d->dirfd, d->path, text, len, out);
  free(text);
  return rc;
}

/* 0.2 ms doubling up to 51 ms, plus up to 1 ms of jitter so racing closers
 * spread out. */
static void backoff(int attempt, unsigned *seed)
{
  long us = (1L << (attempt < 8 ? attempt : 8)) * 200 + rand_r(seed) % 1000;
  struct timespec ts = {0, us * 1000};
  nanosleep(&ts, NULL);
}

int ostio__log_publish_clean(const ostio__logdir *d, int64_t *size_out)
{
  ostio__logdir *x = NULL;
  int rc = private_dir(d, &x);
  int64_t size = 0;
  unsigned seed = (unsigned)getpid() ^ (unsigned)time(NULL) ^ (unsigned)(uintptr_t)&x;
  for (int t = 0; rc == 0 && t < PUBLISH_TRIES; t++) {
    uint64_t fp = 0;
    if ((rc = ostio__log_derive(x, &size, &fp)) < 0) break;
    rc = ostio__sizerec_write(x->dirfd, x->path,
                              &(ostio__sizerec){.clean = 1, .size = size, .has_fp = 1, .fp = fp});
    if (rc < 0) break;
    /* Read back: the record on disk (ours or a later closer's) must match
     * the logs as they are now. */
    ostio__sizerec rec;
    if ((rc = ostio__log_scan(x)) < 0) break;
    if (ostio__sizerec_read(x->dirfd, x->path, &rec) == 0 && ostio__log_rec_trusted(x, &rec)) {
      size = rec.size;
      break;
    }
    ostio__clear_error();
    backoff(t, &seed);
  }
  ostio__log_close(&x);
  if (rc == 0 && size_out) *size_out = size;
  return rc;
}
