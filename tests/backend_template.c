/* A do-nothing I/O backend for the tests: the whole of what a new backend
 * needs besides one X(template) line in the registry (src/io/backends.c;
 * tests/CMakeLists.txt adds it through OSTIO__IO_BACKEND_EXTRA). It moves
 * every request with the io layer's loop and counts what it was given, so
 * timing, statistics, OSTIO_FAULT and error details are the io layer's. */
#include "backend_template.h"

#include "io/backend.h"

long ostio_test_template_moves;

static int template_move(ostio__io *io, int is_write, const ostio__io_preq *q)
{
  ostio_test_template_moves++;
  return ostio__io_loop(io, is_write, q, 0);
}

const ostio__io_backend ostio__io_backend_template = {
  .version = OSTIO__IO_BACKEND_VERSION,
  .name = "template",
  .move = template_move, /* route, batch, fini: NULL, not supported */
};
