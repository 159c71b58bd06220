/* The I/O backend registry (see backend.h). One X(NAME) line per backend;
 * a test build adds one more with -DOSTIO__IO_BACKEND_EXTRA=NAME
 * (tests/CMakeLists.txt compiles this file again with template for
 * tests/backend_template.c). */
#include "io/backend.h"

#include <stdio.h>
#include <string.h>

#include "core/error.h"

#ifdef OSTIO__IO_BACKEND_EXTRA
#define EXTRA_(X) X(OSTIO__IO_BACKEND_EXTRA)
#else
#define EXTRA_(X)
#endif

#define OSTIO__IO_BACKENDS(X) X(fd) X(objects) X(direct) EXTRA_(X)

/* Two steps, so that a NAME given as a macro is expanded before pasting. */
#define DECLARE_(n) DECLARE2_(n)
#define DECLARE2_(n) extern const ostio__io_backend ostio__io_backend_##n;
#define ENTRY_(n) ENTRY2_(n)
#define ENTRY2_(n) &ostio__io_backend_##n,

OSTIO__IO_BACKENDS(DECLARE_)

static const ostio__io_backend *const registry[] = {
  OSTIO__IO_BACKENDS(ENTRY_)
};

const ostio__io_backend *ostio__io_backend_find(const char *name)
{
  for (size_t i = 0; name && i < sizeof registry / sizeof registry[0]; i++)
    if (registry[i]->version >= 1 && strcmp(registry[i]->name, name) == 0) return registry[i];
  return NULL;
}

void ostio__io_backend_names(char *buf, size_t cap)
{
  size_t len = 0;
  if (cap) buf[0] = '\0';
  for (size_t i = 0; i < sizeof registry / sizeof registry[0]; i++) {
    int w = snprintf(buf + len, cap - len, "%s%s", i ? ", " : "", registry[i]->name);
    if (w < 0 || (size_t)w >= cap - len) break;
    len += (size_t)w;
  }
}

int ostio__io_use(ostio__io *io, const char *name)
{
  const ostio__io_backend *b = ostio__io_backend_find(name);
  if (!io || !b) {
    char known[128];
    ostio__io_backend_names(known, sizeof known);
    return ostio__fail(OSTIO_EINVAL, "io backend \"%s\": %s; known backends: %s",
                       name ? name : "(null)", io ? "not in the registry" : "NULL io", known);
  }
  if (io->be && io->be->fini) io->be->fini(io);
  io->be = b;
  return 0;
}
