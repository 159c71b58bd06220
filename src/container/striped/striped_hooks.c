/* The striped kind's tool hooks (src/file/kind.h, ctr_hooks.h): `ostio
 * container create`, `ls` and `stat`, and the data extents flatten copies.
 * By path, no MPI; check is ctr_check.c's ostio__ctr_check (which calls
 * striped_check.c through the kind's ostio__ctr_striped). */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "container/container.h"
#include "container/ctr_hooks.h"
#include "core/error.h"
#include "hints/hints.h"

/* K and S: the command line's, else as ostio_open would pick them
 * (OSTIO_HINTS for PATH, the directory's layout, 1 MiB x 1). */
int ostio__striped_hook_make(const char *path, const ostio__make *a, ostio__ctr_report report,
                             void *arg)
{
  ostio__hints h;
  ostio__ctr_params p;
  int created = 0;
  int rc = ostio__hints_resolve_env(path, &h);
  if (rc < 0) return rc;
  if (a->objects) h.ostio_objects = a->objects;
  if (a->stripe_size) h.striping_unit = a->stripe_size;
  rc = ostio__ctr_params_resolve(path, &h, &p);
  if (rc == 0) rc = ostio__ctr_create(path, &p, 1, &created);
  if (rc < 0) return rc;
  ostio__ctr_say(report, arg, "%s: striped container, %d object%s x %" PRId64 " bytes", path,
                 (int)p.nobjects, p.nobjects == 1 ? "" : "s", p.stripe_size);
  return 0;
}

int ostio__striped_hook_ls(const char *path, const ostio__show *o)
{
  ostio__ctr *c = NULL;
  ostio_layout *l = NULL;
  int64_t *os = NULL, size = 0;
  int rc = ostio__ctr_open(path, 0, &c);
  if (rc == 0 && !(os = calloc((size_t)c->m.nobjects, sizeof *os)))
    rc = ostio__fail(OSTIO_ENOMEM, "out of memory");
  if (rc == 0) rc = ostio__ctr_size(c, &size, os);
  if (rc == 0) rc = ostio__ctr_layout(c, &l);
  if (rc < 0) goto done;
  FILE *f = o->out;
  if (o->json) fprintf(f, "{\"path\": "), ostio__show_str(f, path), fprintf(f, ", \"objects\": [");
  for (int32_t i = 0; i < c->m.nobjects; i++) {
    if (o->json)
      fprintf(f, "%s{\"index\": %d, \"name\": \"%s\", \"size\": %" PRId64 ", \"ost\": %d}",
              i ? ", " : "", (int)i, c->m.names[i], os[i], (int)l->comp[0].osts[i]);
    else
      fprintf(f, "%5d  %-12s %16" PRId64 "  ost %d\n", (int)i, c->m.names[i], os[i],
              (int)l->comp[0].osts[i]);
  }
  if (o->json) fprintf(f, "]}\n");
done:
  free(os);
  ostio__layout_destroy(l);
  ostio__ctr_close(&c, 0);
  return rc;
}

int ostio__striped_hook_stat(const char *path, const ostio__show *o)
{
  ostio__ctr *c = NULL;
  int rc = ostio__ctr_open(path, 0, &c);
  if (rc < 0) return rc;
  ostio__stat_head h = {.path = path, .kind = "striped", .m = &c->m, .rec = {.size = -1}};
  h.have_rec = ostio__sizerec_read(c->dirfd, path, &h.rec) == 0;
  if ((rc = ostio__ctr_size(c, &h.size, NULL)) == 0) {
    ostio__show_head(o, &h);
    ostio__show_num(o, "stripe_size", c->m.stripe_size);
    ostio__show_num(o, "objects", c->m.nobjects);
    ostio__show_foot(o, &c->m);
  }
  ostio__ctr_close(&c, 0);
  return rc;
}

/* Object obj's bytes [off, off+len) are logical pieces, one per stripe. */
typedef struct objarg {
  const ostio__manifest *m;
  int32_t obj;
  ostio__ctr_extent_fn add;
  void *arg;
} objarg;

static int add_object(void *arg, int64_t off, int64_t len)
{
  objarg *a = arg;
  int64_t s = a->m->stripe_size, n = a->m->nobjects, end = off + len;
  while (off < end) {
    int64_t row = off / s, in = off % s, piece = s - in < end - off ? s - in : end - off;
    /* (row*n + obj)*s + in < size: the caller clipped the object to its share */
    int rc = a->add(a->arg, (row * n + a->obj) * s + in, piece);
    if (rc < 0) return rc;
    off += piece;
  }
  return 0;
}

/* Each object's data regions (SEEK_DATA/SEEK_HOLE), mapped to logical offsets. */
int ostio__striped_hook_extents(const char *path, int64_t size, ostio__ctr_extent_fn add,
                                void *arg)
{
  ostio__ctr *c = NULL;
  int rc = ostio__ctr_open(path, 0, &c);
  for (int32_t i = 0; rc == 0 && i < c->m.nobjects; i++) {
    objarg a = {&c->m, i, add, arg};
    char what[600];
    snprintf(what, sizeof what, "%s/%s", path, c->m.names[i]);
    /* object i holds at most its share of [0, size) */
    int64_t lim = ostio__striped_objsize(c->m.stripe_size, c->m.nobjects, i, size);
    rc = ostio__fd_extents(c->fd[i], lim, what, add_object, &a);
  }
  ostio__ctr_close(&c, 0);
  return rc;
}
