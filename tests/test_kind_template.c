/* The container-kind extension point (src/file/kind.h) with a kind the
 * library does not know: the template "xor" (kind_template.c), handed to
 * ostio_open by the test hook ostio__kind_test_use, goes through every
 * public file call: open (create), write_at, write_all, read back, size,
 * set_size, sync, close, reopen; a NULL op (remove) is OSTIO_ENOTSUP on
 * every rank; the bytes on disk are the transformed ones. Its tool hooks go
 * through the CLI's own dispatch (cmd_container, linked in): stat prints the
 * kind's lines, a NULL hook (ls, check, map) the one "not supported by this
 * kind" sentence; flatten without an extents hook copies the whole file.
 * Data encode their offset and writer. Run with 1 or 2 ranks. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "file/flatten.h"
#include "kind_template.h"
#include "ostio.h"
#include "testutil.h"
#include "tools/cli.h"

#define BLOCK 4096

static int rank, nprocs;

/* Byte at logical offset off written by rank w. */
static unsigned char pat(int64_t off, int w) { return (unsigned char)(off * 7 + off / 251 + w * 31 + 1); }

static void fill(unsigned char *b, int64_t off, int64_t len, int w)
{
  for (int64_t i = 0; i < len; i++) b[i] = pat(off + i, w);
}

static int same(const unsigned char *b, int64_t off, int64_t len, int w)
{
  for (int64_t i = 0; i < len; i++)
    if (b[i] != pat(off + i, w)) return 0;
  return 1;
}

/* `ostio container SUB [ARG] PATH` through the CLI's dispatch, stdout and
 * stderr caught into out and err; returns the exit status. */
static int cli(const char *sub, const char *arg, const char *path, char *out, char *err,
               size_t cap)
{
  char *argv[] = {"container", (char *)sub, (char *)(arg ? arg : path), (char *)path, NULL};
  FILE *fo = tmpfile(), *fe = tmpfile();
  fflush(stdout);
  fflush(stderr);
  int so = dup(1), se = dup(2);
  dup2(fileno(fo), 1);
  dup2(fileno(fe), 2);
  int rc = cmd_container(arg ? 4 : 3, argv);
  fflush(stdout);
  fflush(stderr);
  dup2(so, 1);
  dup2(se, 2);
  close(so);
  close(se);
  FILE *f[2] = {fo, fe};
  char *b[2] = {out, err};
  for (int i = 0; i < 2; i++) {
    rewind(f[i]);
    size_t n = fread(b[i], 1, cap - 1, f[i]);
    b[i][n] = '\0';
    fclose(f[i]);
  }
  return rc;
}

/* The tool hooks of the kind, through the CLI (rank 0; no MPI in them). */
static void tool_hooks(const char *path)
{
  char out[4096], err[4096], want[1024];
  int rc = cli("stat", NULL, path, out, err, sizeof out);
  snprintf(want, sizeof want, "%s\nkind:         xor\nsize:         %d\n", path,
           BLOCK + BLOCK / 2);
  CHECKF(rc == 0 && !strcmp(out, want) && !err[0], "stat: %d [%s] [%s]", rc, out, err);
  rc = cli("stat", "--json", path, out, err, sizeof out);
  CHECKF(rc == 0 && strstr(out, "\"kind\": \"xor\", \"size\": 6144}\n"), "stat --json: %s", out);
  /* NULL hooks: one line, from one place, naming the kinds that have it. */
  const char *subs[] = {"ls", "check", "map", "recover", "compact"};
  const char *have[] = {"striped, log", "striped, log", "log", "log", "log"};
  for (int i = 0; i < 5; i++) {
    rc = cli(subs[i], NULL, path, out, err, sizeof out);
    snprintf(want, sizeof want, "ostio container %s: %s is not a container (no ostio.manifest "
             "inside: kind xor); %s is not supported by this kind (kinds that support it: %s)",
             subs[i], path, subs[i], have[i]);
    CHECKF(rc == 1 && !out[0] && !strncmp(err, want, strlen(want)) &&
           strchr(err, '\n') == err + strlen(err) - 1, "%s: %d [%s] [%s]", subs[i], rc, out, err);
  }
}

int main(int argc, char **argv)
{
  char dir[512], path[600];
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
  if (rank == 0 && tu_tmpdir(dir, sizeof dir, "kind") < 0) return 2;
  MPI_Bcast(dir, sizeof dir, MPI_CHAR, 0, MPI_COMM_WORLD);
  snprintf(path, sizeof path, "%s/file.xor", dir);
  ostio__kind_test_use(&ostio_test_kind_xor); /* the kind's one registry line */

  /* Rank r: write_at [r*B, (r+1)*B); write_all two extents at P*B + (2k+r)*B. */
  const int64_t P = nprocs, end = P * BLOCK + 2 * P * BLOCK;
  unsigned char *a = malloc(BLOCK), *b = malloc(2 * BLOCK), *c = malloc(2 * BLOCK);
  ostio_extent ext[2] = {{P * BLOCK + rank * BLOCK, BLOCK}, {P * BLOCK + (P + rank) * BLOCK, BLOCK}};
  ostio_file *fh = NULL;
  int rc = ostio_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh);
  CHECKF(rc == 0, "open: %s", ostio_last_error());
  if (rc == 0) {
    CHECK(strcmp(ostio_file_layout(fh)->source, "xor") == 0);
    fill(a, rank * BLOCK, BLOCK, rank);
    CHECK(ostio_write_at(fh, rank * BLOCK, a, BLOCK) == 0);
    fill(b, ext[0].offset, BLOCK, rank);
    fill(b + BLOCK, ext[1].offset, BLOCK, rank);
    CHECK(ostio_write_all(fh, ext, 2, b) == 0);
    CHECK(ostio_sync(fh) == 0);
    int64_t size = -1;
    CHECK(ostio_get_size(fh, &size) == 0);
    CHECK_EQ_I64(size, end);
    /* Read back the other rank's blocks (or one's own with one rank). */
    int o = (rank + 1) % nprocs;
    ostio_extent oext[2] = {{P * BLOCK + o * BLOCK, BLOCK}, {P * BLOCK + (P + o) * BLOCK, BLOCK}};
    CHECK(ostio_read_all(fh, oext, 2, c) == 0);
    CHECK(same(c, oext[0].offset, BLOCK, o) && same(c + BLOCK, oext[1].offset, BLOCK, o));
    CHECK(ostio_read_at(fh, o * BLOCK, c, BLOCK) == 0);
    CHECK(same(c, o * BLOCK, BLOCK, o));
    /* Shrink to 1.5 blocks: the size follows, the cut bytes read as zeros. */
    CHECK(ostio_set_size(fh, BLOCK + BLOCK / 2) == 0);
    CHECK(ostio_get_size(fh, &size) == 0);
    CHECK_EQ_I64(size, BLOCK + BLOCK / 2);
    CHECK(ostio_close(&fh) == 0);
  }
  MPI_Barrier(MPI_COMM_WORLD);

  /* On disk: the first 1.5 blocks XORed with 0x5a (the transform is real). */
  int fd = open(path, O_RDONLY);
  CHECK(fd >= 0 && pread(fd, c, 2 * BLOCK, 0) == BLOCK + BLOCK / 2);
  for (int64_t i = 0; fd >= 0 && i < BLOCK + BLOCK / 2; i++) c[i] ^= 0x5a;
  CHECK(same(c, 0, BLOCK, 0));
  CHECK(same(c + BLOCK, BLOCK, BLOCK / 2, nprocs > 1 ? 1 : 0));
  if (fd >= 0) close(fd);

  /* Reopened read-only: the same bytes through the kind. */
  rc = ostio_open(MPI_COMM_WORLD, path, MPI_MODE_RDONLY, MPI_INFO_NULL, &fh);
  CHECKF(rc == 0, "reopen: %s", ostio_last_error());
  if (rc == 0) {
    ostio_extent all = {0, BLOCK};
    CHECK(ostio_read_all(fh, &all, 1, c) == 0 && same(c, 0, BLOCK, 0));
    CHECK(ostio_write_at(fh, 0, c, 1) == OSTIO_EACCES);
    CHECK(ostio_close(&fh) == 0);
  }

  /* A NULL op is "not supported", agreed: remove, for delete on close. */
  rc = ostio_open(MPI_COMM_WORLD, path, MPI_MODE_RDWR | MPI_MODE_DELETE_ON_CLOSE, MPI_INFO_NULL,
                  &fh);
  CHECK(rc == 0);
  if (rc == 0) {
    rc = ostio_close(&fh);
    CHECKF(rc == OSTIO_ENOTSUP && strstr(ostio_last_error(), "xor"), "close: %d %s", rc,
           ostio_last_error());
  }
  CHECK(access(path, F_OK) == 0);

  if (rank == 0) tool_hooks(path);
  /* flatten: no extents hook, so the whole size is copied (into another xor
   * file: the test hook gives every open this kind), the same bytes. */
  char copy[700];
  snprintf(copy, sizeof copy, "%s/copy.xor", dir);
  rc = ostio__flatten(MPI_COMM_WORLD, path, copy, MPI_INFO_NULL, 0, NULL, NULL);
  CHECKF(rc == 0, "flatten: %s", ostio_last_error());
  unsigned char *d = malloc(2 * BLOCK);
  int f1 = open(path, O_RDONLY), f2 = open(copy, O_RDONLY);
  CHECK(f1 >= 0 && f2 >= 0 && pread(f1, c, 2 * BLOCK, 0) == BLOCK + BLOCK / 2 &&
        pread(f2, d, 2 * BLOCK, 0) == BLOCK + BLOCK / 2 && !memcmp(c, d, BLOCK + BLOCK / 2));
  if (f1 >= 0) close(f1);
  if (f2 >= 0) close(f2);
  free(d);

  /* Back to the registry: the same path is a plain file again. */
  ostio__kind_test_use(NULL);
  rc = ostio_open(MPI_COMM_WORLD, path, MPI_MODE_RDONLY, MPI_INFO_NULL, &fh);
  CHECK(rc == 0);
  if (rc == 0) {
    CHECK(ostio_read_at(fh, 0, c, 16) == 0 && c[0] == (pat(0, 0) ^ 0x5a));
    CHECK(ostio_close(&fh) == 0);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) tu_rmtree(dir);
  free(a);
  free(b);
  free(c);
  rc = tu_done_mpi(MPI_COMM_WORLD, "", __FILE__);
  MPI_Finalize();
  return rc;
}
