/* Pieces the kinds' tool hooks share (ctr_hooks.h): the common lines of
 * `ostio container stat`, text and JSON, and the data regions of a file. */
#include "container/ctr_hooks.h"

#include <errno.h>
#include <inttypes.h>
#include <string.h>
#include <unistd.h>

#include "core/error.h"

void ostio__show_str(FILE *f, const char *s)
{
  fputc('"', f);
  for (; *s; s++) {
    unsigned char c = (unsigned char)*s;
    if (c == '"' || c == '\\') fprintf(f, "\\%c", c);
    else if (c == '\n') fputs("\\n", f);
    else if (c == '\t') fputs("\\t", f);
    else if (c < 0x20) fprintf(f, "\\u%04x", c);
    else fputc(c, f);
  }
  fputc('"', f);
}

/* Text: "key:" and spaces up to column 14, where the values line up. */
static void label(FILE *f, const char *key)
{
  fprintf(f, "%s:%*s", key, 13 - (int)strlen(key) > 1 ? 13 - (int)strlen(key) : 1, "");
}

void ostio__show_num(const ostio__show *o, const char *key, int64_t v)
{
  if (o->json) {
    fprintf(o->out, ", \"%s\": %" PRId64, key, v);
  } else {
    label(o->out, key);
    fprintf(o->out, "%" PRId64 "\n", v);
  }
}

void ostio__show_word(const ostio__show *o, const char *key, const char *v)
{
  if (o->json) {
    fprintf(o->out, ", \"%s\": ", key);
    ostio__show_str(o->out, v);
  } else {
    label(o->out, key);
    fprintf(o->out, "%s\n", v);
  }
}

void ostio__show_head(const ostio__show *o, const ostio__stat_head *h)
{
  FILE *f = o->out;
  const ostio__sizerec *r = &h->rec;
  if (o->json) {
    fprintf(f, "{\"path\": ");
    ostio__show_str(f, h->path);
    fprintf(f, ", \"kind\": ");
    ostio__show_str(f, h->kind);
    fprintf(f, ", \"version\": %d, \"byte_order\": ", h->m->version);
    ostio__show_str(f, h->m->byte_order);
    fprintf(f, ", \"size\": %" PRId64, h->size);
    if (h->size_from) ostio__show_word(o, "size_from", h->size_from);
    fprintf(f, ", \"size_record\": ");
    if (h->have_rec)
      fprintf(f, "{\"state\": \"%s\", \"size\": %" PRId64 "}", r->clean ? "clean" : "open",
              r->size);
    else
      fprintf(f, "null");
    return;
  }
  fprintf(f, "%s\n", h->path);
  ostio__show_word(o, "kind", h->kind);
  ostio__show_num(o, "version", h->m->version);
  ostio__show_word(o, "byte_order", h->m->byte_order);
  label(f, "size");
  fprintf(f, "%" PRId64, h->size);
  if (h->size_from) fprintf(f, " (from the %s)", h->size_from);
  fputc('\n', f);
  label(f, "size_record");
  if (h->have_rec) fprintf(f, "%s, %" PRId64 "\n", r->clean ? "clean" : "open", r->size);
  else fprintf(f, "missing\n");
}

void ostio__show_foot(const ostio__show *o, const ostio__manifest *m)
{
  ostio__show_word(o, "created", m->created);
  ostio__show_word(o, "created_by", m->created_by);
  ostio__show_word(o, "requested", m->requested);
  if (o->json) fprintf(o->out, "}\n");
}

int ostio__fd_extents(int fd, int64_t limit, const char *what, ostio__ctr_extent_fn add,
                      void *arg)
{
  int64_t pos = 0;
  while (pos < limit) {
    off_t d = lseek(fd, (off_t)pos, SEEK_DATA);
    if (d < 0) {
      if (errno == ENXIO) return 0; /* only a hole from pos on */
      if (errno == EINVAL || errno == ENOTSUP) return add(arg, pos, limit - pos);
      return ostio__fail(ostio__from_errno(errno), "flatten: looking for data in %s: %s",
                         what, strerror(errno));
    }
    if ((int64_t)d >= limit) return 0;
    off_t h = lseek(fd, d, SEEK_HOLE);
    if (h < 0)
      return ostio__fail(ostio__from_errno(errno), "flatten: looking for a hole in %s: %s",
                         what, strerror(errno));
    int64_t end = (int64_t)h < limit ? (int64_t)h : limit;
    int rc = add(arg, (int64_t)d, end - (int64_t)d);
    if (rc < 0) return rc;
    pos = end;
  }
  return 0;
}
