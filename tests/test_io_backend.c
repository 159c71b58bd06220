/* I/O backends as ops (src/io/backend.h): the registry finds the built-in
 * backends and the test-only template (tests/backend_template.c, registered
 * by one X(template) line), the io layer routes single requests and batches
 * through the template's move, and timing, statistics, OSTIO_FAULT and error
 * details work through it as on the fd backend. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "backend_template.h"
#include "core/error.h"
#include "io/backend.h"
#include "testutil.h"

int main(void)
{
  CHECK(ostio__io_backend_find("fd") == &ostio__io_backend_fd);
  CHECK(ostio__io_backend_find("objects") == &ostio__io_backend_objects);
  CHECK(ostio__io_backend_find("direct") == &ostio__io_backend_direct);
  const ostio__io_backend *t = ostio__io_backend_find("template");
  CHECK(t && t->version == OSTIO__IO_BACKEND_VERSION && !t->route && !t->batch && t->move);
  char names[128];
  ostio__io_backend_names(names, sizeof names);
  CHECKF(strcmp(names, "fd, objects, direct, template") == 0, "%s", names);

  char dir[256], path[512];
  CHECK(tu_tmpdir(dir, sizeof dir, "backend") == 0);
  snprintf(path, sizeof path, "%s/f", dir);
  int fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0644);
  CHECK(fd >= 0);
  ostio__stats st;
  memset(&st, 0, sizeof st);
  ostio__io io;
  unsetenv("OSTIO_FAULT");
  CHECK(ostio__io_init(&io, fd, 0, NULL, &st) == 0);
  CHECK(io.be == &ostio__io_backend_fd);
  CHECK(ostio__io_use(&io, "nope") == OSTIO_EINVAL);
  CHECKF(strstr(ostio_last_error(), "known backends: fd, objects, direct, template") != NULL,
         "%s", ostio_last_error());
  CHECK(ostio__io_use(&io, "template") == 0 && io.be == t);

  /* a single write, a batch of three (two adjacent: merged into one move), reads */
  char a[100], b[300], r[300];
  memset(a, 'a', sizeof a);
  for (int i = 0; i < 300; i++) b[i] = (char)('A' + i % 26);
  CHECK(ostio__io_pwrite(&io, a, sizeof a, 0) == 0);
  CHECK_EQ_I64(ostio_test_template_moves, 1);
  ostio__io_req w[3] = {{400, 100, b + 100}, {300, 100, b}, {1000, 100, b + 200}};
  CHECK(ostio__io_write_batch(&io, w, 3) == 0);
  CHECK_EQ_I64(ostio_test_template_moves, 1 + 2); /* 300..500 merged, 1000 alone */
  CHECK(ostio__io_pread(&io, r, 200, 300) == 0 && memcmp(r, b, 200) == 0);
  CHECK(ostio__io_pread(&io, r, 200, 1000) == 0 && memcmp(r, b + 200, 100) == 0);
  for (int i = 100; i < 200; i++) CHECK(r[i] == 0); /* past end of file: zeros */
  CHECK_EQ_I64(st.c[OSTIO__STAT_sys_writes], 3);
  CHECK_EQ_I64(st.c[OSTIO__STAT_bytes_written], 400);
  CHECK(st.t[OSTIO__T_time_io] > 0);

  /* faults and details are the io layer's */
  CHECK(ostio__fault_parse("write:0:4:ENOSPC", &io.fault) == 0);
  CHECK(ostio__io_pwrite(&io, a, 10, 5000) == OSTIO_ENOSPC);
  CHECKF(strstr(ostio_last_error(), "writing 10 bytes at offset 5000") &&
         strstr(ostio_last_error(), "injected by OSTIO_FAULT"), "%s", ostio_last_error());
  CHECK_EQ_I64(st.c[OSTIO__STAT_faults_injected], 1);

  /* O_DIRECT on a non-fd backend is refused (buffered), counted */
  CHECK(ostio__io_enable_direct(&io, path, 1, 1) == 0);
  CHECK(!ostio__io_direct_active(&io, 1));
  CHECK_EQ_I64(st.c[OSTIO__STAT_direct_fallbacks], 1);
  ostio__io_fini(&io);
  ostio__io_fini(&io);
  close(fd);
  tu_rmtree(dir);
  return TEST_DONE();
}
