/* The size record's replacement under writers that share a pid (issue 13,
 * item 2): threads of one process stand in for processes with the same pid
 * on different nodes. Two writers replace ostio.size 400 times each with
 * different records while a reader parses it: every read must be one whole
 * record (no torn mix) and every write must succeed. Before the fix both
 * writers used ".ostio.size.tmp.PID" and tore each other's records. */
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "container/container.h"
#include "core/error.h"
#include "testutil.h"

#define ROUNDS 400

static int dirfd_;
static volatile int done;
static long write_failures, torn, reads;

static void *writer(void *arg)
{
  long id = (long)arg;
  for (int i = 0; i < ROUNDS; i++) {
    ostio__sizerec r = {.clean = (int)(i & 1), .size = id * 1000000 + i, .has_fp = (int)(id & 1),
                        .fp = (uint64_t)i * 0x9e3779b97f4a7c15ull};
    if (ostio__sizerec_write(dirfd_, "race", &r) < 0) __atomic_add_fetch(&write_failures, 1, __ATOMIC_RELAXED);
  }
  return NULL;
}

static void *reader(void *arg)
{
  (void)arg;
  while (!done) {
    ostio__sizerec r;
    int rc = ostio__sizerec_read(dirfd_, "race", &r);
    reads++;
    if (rc < 0 && rc != OSTIO_ENOENT) torn++;
  }
  return NULL;
}

int main(void)
{
  char dir[512];
  if (tu_tmpdir(dir, sizeof dir, "sizerace") < 0) return 1;
  dirfd_ = open(dir, O_RDONLY | O_DIRECTORY);
  CHECK(dirfd_ >= 0);
  pthread_t w[2], rd;
  pthread_create(&rd, NULL, reader, NULL);
  for (long i = 0; i < 2; i++) pthread_create(&w[i], NULL, writer, (void *)(i + 1));
  for (int i = 0; i < 2; i++) pthread_join(w[i], NULL);
  done = 1;
  pthread_join(rd, NULL);
  CHECKF(write_failures == 0, "%ld of %d writes failed", write_failures, 2 * ROUNDS);
  CHECKF(torn == 0, "%ld torn or invalid reads in %ld", torn, reads);
  /* No temporary file is left behind. */
  char cmd[600];
  snprintf(cmd, sizeof cmd, "test -z \"$(ls -A %s | grep -v '^ostio.size$')\"", dir);
  CHECK(system(cmd) == 0);
  close(dirfd_);
  tu_rmtree(dir);
  return TEST_DONE();
}
