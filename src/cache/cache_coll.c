/* Collective reads and writes through the cache (write-behind): when every
 * extent of every rank is shorter than a page (and within the bypass
 * bound), each rank moves its extents through the cache as independent page
 * pieces and the outcome is agreed; the owners write the pages back at the
 * next collective flush (sync, close, set_size, a collective call that goes
 * to the engine) or when a page must make room. See docs/cache.md, "Collective calls". */
#include "cache/cache_impl.h"

#include <stdlib.h>

#include "core/agree.h"
#include "core/error.h"
#include "plan/plan.h"

int ostio__cache_coll(ostio__cache *c, int is_write, const ostio_extent *ext, size_t n,
                      void *buf, int *served)
{
  *served = 0;
  ostio__ext *e = NULL;
  size_t ne = 0;
  int64_t bytes = 0, lo = 0, hi = 0;
  /* The engine's own check of a rank's list: the same refusals, agreed by
   * the engine when this path declines. */
  int rc = ostio__plan_local(ext, n, &e, &ne, &bytes, &lo, &hi);
  if (rc == 0 && bytes > 0 && !buf) rc = OSTIO_EINVAL;
  int big = 0;
  /* Whole pages gain nothing from passing through the cache (they are
   * written back as they came, after two more copies): measured 0.49x the
   * engine's speed on `ior -t 1m` with 1 MiB pages (docs/cache.md). */
  for (size_t i = 0; rc == 0 && i < ne && !big && !c->atomic; i++)
    big = e[i].len >= c->geom.page || ostio__cache_bypass(&c->geom, e[i].off, e[i].len);
  int mine[2] = {rc < 0, big}, all[2] = {1, 1};
  if (MPI_Allreduce(mine, all, 2, MPI_INT, MPI_MAX, c->comm) != MPI_SUCCESS) {
    free(e);
    return ostio__agree(c->comm, ostio__fail(OSTIO_EMPI, "cache: MPI_Allreduce failed"));
  }
  if (all[0] || all[1]) {
    free(e);
    ostio__clear_error();
    return 0; /* the engine's turn: it reports a bad list the usual way */
  }
  *served = 1;
  ostio__stat_add(c->st, is_write ? OSTIO__STAT_coll_writes : OSTIO__STAT_coll_reads, 1);
  ostio__cache_seg *sg = malloc((ne ? ne : 1) * sizeof *sg);
  if (!sg) rc = ostio__fail(OSTIO_ENOMEM, "cache: out of memory for %zu extents", ne);
  unsigned char *p = buf;
  for (size_t i = 0; sg && i < ne; i++)
    sg[i] = (ostio__cache_seg){.off = e[i].off, .len = e[i].len, .buf = p + e[i].pos,
                               .is_write = is_write};
  /* In atomic mode the rank's whole call is one atomic access, whatever
   * the extents' sizes (the engine would not lock). */
  if (sg) rc = ostio__cache_access(c, sg, ne);
  free(sg);
  free(e);
  return ostio__agree(c->comm, rc);
}
