/* An open file that is a striped container: the MPI side of src/container.
 * Rank 0 creates and checks the container and opens the object files; the
 * other ranks open them at their first I/O (deferred open, hint
 * ostio_deferred_open, docs/collective.md), or at ostio_open when the hint
 * disables it; the io layer routes each piece to its object (io.h), so the engine
 * keeps working in logical offsets. Every collective step is agreed. See
 * docs/containers.md. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "container/container.h"
#include "core/agree.h"
#include "core/error.h"
#include "file/file.h"
#include "file/kind.h"

/* The open container (its objects) is the kind's state, fh->kind_data. */
static ostio__ctr *ctr_of(const ostio_file *fh) { return fh->kind_data; }

/* Closes it (clean: the derived size is recorded clean); NULL afterwards. */
static int close_ctr(ostio_file *fh, int clean)
{
  ostio__ctr *c = fh->kind_data;
  int rc = ostio__ctr_close(&c, clean);
  fh->kind_data = c;
  return rc;
}

static int ctr_create(ostio_file *fh)
{
  ostio__ctr_params p;
  int created = 0;
  int rc = ostio__ctr_params_resolve(fh->path, &fh->hints, &p);
  if (rc == 0) rc = ostio__ctr_create(fh->path, &p, !!(fh->amode & MPI_MODE_EXCL), &created);
  return rc;
}

/* Rank 0's text (manifest or layout record) to every rank; agreed. */
static int share(ostio_file *fh, int rc, char **text, size_t *len)
{
  int64_t n = rc == 0 && fh->rank == 0 ? (int64_t)*len : -1;
  if ((rc = ostio__agree(fh->comm, rc)) < 0) return rc;
  MPI_Bcast(&n, 1, MPI_INT64_T, 0, fh->comm);
  if (fh->rank != 0 && !(*text = malloc((size_t)n + 1)))
    rc = ostio__fail(OSTIO_ENOMEM, "out of memory for a %lld-byte container manifest",
                     (long long)n);
  if ((rc = ostio__agree(fh->comm, rc)) < 0) return rc;
  if (n > INT32_MAX) return ostio__fail(OSTIO_ERANGE, "container record too large");
  MPI_Bcast(*text, (int)n, MPI_CHAR, 0, fh->comm);
  (*text)[n] = '\0';
  *len = (size_t)n;
  return 0;
}

static int ctr_open(ostio_file *fh, MPI_Info info)
{
  (void)info;
  char *text = NULL, *rec = NULL;
  size_t len = 0, rlen = 0;
  int rc = 0;
  ostio__ctr *c = NULL;
  if (fh->rank == 0) {
    rc = ostio__ctr_open(fh->path, fh->can_write, &c);
    fh->kind_data = c;
    if (rc == 0) rc = ostio__manifest_format(&c->m, &text, &len);
  }
  if ((rc = share(fh, rc, &text, &len)) < 0) goto done;
  int defer = fh->nprocs > 1 && fh->hints.ostio_deferred_open != OSTIO__TRI_DISABLE;
  if (fh->rank != 0) {
    rc = defer ? ostio__ctr_open_deferred(fh->path, text, len, fh->can_write, &c)
               : ostio__ctr_open_text(fh->path, text, len, fh->can_write, &c);
    fh->kind_data = c;
    fh->deferred = defer;
  }
  fh->home_rdwr = 1; /* objects are opened read-write when writable */
  if ((rc = ostio__agree(fh->comm, rc)) < 0) goto done;
  /* The layout: rank 0 asks (on Lustre each object's OST), the others decode. */
  if (fh->rank == 0) {
    ostio_layout *l = NULL;
    rc = ostio__ctr_layout(c, &l);
    if (rc == 0) rc = ostio__record_encode(l, &rec, &rlen);
    ostio__layout_destroy(l);
  }
  if ((rc = share(fh, rc, &rec, &rlen)) < 0) goto done;
  rc = ostio__record_decode(rec, rlen, &fh->layout);
  if (rc == 0) snprintf(fh->layout->source, sizeof fh->layout->source, "container");
  if ((rc = ostio__agree(fh->comm, rc)) < 0) goto done;
  const ostio__manifest *m = &c->m;
  fh->objtab = (ostio__io_objects){.n = m->nobjects, .stripe_size = m->stripe_size,
                                   .fd = c->fd, .name = m->names};
done:
  free(text);
  free(rec);
  return rc;
}

/* A deferred rank's first I/O (kind.h late_open): its objects. */
static int ctr_late_open(ostio_file *fh)
{
  int rc = ostio__ctr_open_objects(ctr_of(fh));
  if (rc < 0) {
    char was[600];
    snprintf(was, sizeof was, "%s", ostio_last_error());
    rc = ostio__fail(rc, "deferred open (ostio_deferred_open) at rank %d's first I/O: %s; "
                     "give ostio_deferred_open=disable to open the objects on every rank at "
                     "ostio_open", fh->rank, was);
  }
  return rc;
}

static int ctr_close(ostio_file *fh)
{
  int rc = fh->rank != 0 ? close_ctr(fh, 0) : 0;
  /* Every rank's objects are closed (its writes done) before rank 0 derives
   * the size it records as clean. */
  rc = ostio__agree(fh->comm, rc);
  int rc2 = fh->rank == 0 ? close_ctr(fh, rc == 0) : 0;
  rc2 = ostio__agree(fh->comm, rc2);
  return rc < 0 ? rc : rc2;
}

static int ctr_remove(ostio_file *fh)
{
  int rc = fh->rank == 0 ? ostio__ctr_remove(fh->path) : 0;
  return ostio__agree(fh->comm, rc);
}

static int ctr_size(ostio_file *fh, int64_t *size)
{
  return ostio__ctr_size(ctr_of(fh), size, NULL);
}

/* Rank 0 truncates the objects and records the size. */
static int ctr_set_size(ostio_file *fh, int64_t size)
{
  return ostio__agree(fh->comm, fh->rank == 0 ? ostio__ctr_set_size(ctr_of(fh), size) : 0);
}

static int ctr_sync(ostio_file *fh)
{
  return ostio__agree(fh->comm, ostio__ctr_sync(ctr_of(fh)));
}

static void ctr_discard(ostio_file *fh)
{
  close_ctr(fh, 0);
}

/* Independent reads and writes go through the io layer, which routes each
 * piece to its object (fh->objtab); collective ones through the engine. */
const ostio__kind_ops ostio__kind_striped = {
  .version = OSTIO__KIND_VERSION,
  .name = "striped",
  .create = ctr_create,
  .open = ctr_open,
  .late_open = ctr_late_open,
  .close = ctr_close,
  .discard = ctr_discard,
  .remove = ctr_remove,
  .size = ctr_size,
  .set_size = ctr_set_size,
  .sync = ctr_sync,
  .write_all = ostio__file_engine_write_all,
  .read_all = ostio__file_engine_read_all,
  .write_at = ostio__kind_io_write_at,
  .read_at = ostio__kind_io_read_at,
  .coherent = 1,
  .check = ostio__ctr_check,
  .make = ostio__striped_hook_make,       /* striped/striped_hooks.c */
  .ls = ostio__striped_hook_ls,
  .stat = ostio__striped_hook_stat,
  .extents = ostio__striped_hook_extents,
};
