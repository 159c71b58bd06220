/* Two handles of one job on one file at once (issue 28, item 2): a handle on
 * MPI_COMM_WORLD and an MPI_COMM_SELF handle on rank 0, as PnetCDF keeps its
 * collective handle and its independent-mode handle open together. Writes to
 * the same bytes alternate between the handles (same process, program order;
 * and across ranks with sync + barrier + sync), collective and independent,
 * closes in both orders. The newest write must win, as in a plain file: the
 * same program runs on a plain file and on a log container, and both must
 * equal the model (writes applied in program order), read back after reopen
 * (read_all on every rank, read_at), flattened, and for the container after
 * compact too. docs/containers.md, "The ordering rule". */
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "colltest.h"
#include "container/log/log.h"
#include "file/flatten.h"

#define SLOT 64
#define NSLOT 12
#define FSIZE (SLOT * NSLOT)

static int rank, nprocs;
static unsigned char model[FSIZE];
static int64_t msize;
static int ntag;

/* The bytes of write number tag at off: never 0, and a wrong winner shows. */
static unsigned char byte_of(int tag, int64_t off) { return (unsigned char)(1 + (tag * 37 + off) % 251); }

static void fill(unsigned char *b, int tag, int64_t off, int64_t len)
{
  for (int64_t i = 0; i < len; i++) b[i] = byte_of(tag, off + i);
}

/* Independent write of [off, off+len) through fh by rank `who`; every rank
 * applies it to the model (program order of the job). */
static void wr(ostio_file *fh, int who, int64_t off, int64_t len)
{
  int tag = ++ntag;
  unsigned char b[FSIZE];
  fill(b, tag, off, len);
  if (rank == who) CHECKF(fh && ostio_write_at(fh, off, b, (size_t)len) == 0, "%s", ostio_last_error());
  memcpy(model + off, b, (size_t)len);
  if (off + len > msize) msize = off + len;
}

/* Collective write: rank `who` writes [off, off+len), the others nothing. */
static void wr_all(ostio_file *fh, int who, int64_t off, int64_t len)
{
  int tag = ++ntag;
  unsigned char b[FSIZE];
  fill(b, tag, off, len);
  ostio_extent e = {off, len};
  CHECKF(ostio_write_all(fh, &e, rank == who ? 1 : 0, b) == 0, "%s", ostio_last_error());
  memcpy(model + off, b, (size_t)len);
  if (off + len > msize) msize = off + len;
}

static int open_kind(MPI_Comm comm, const char *path, int amode, int log, ostio_file **fh)
{
  MPI_Info info;
  if (ct_info(log ? "ostio_container=log" : "", &info) < 0) return OSTIO_EINVAL;
  int rc = ostio_open(comm, path, amode, info, fh);
  MPI_Info_free(&info);
  return rc;
}

/* The program: G on every rank, H on rank 0 (NULL elsewhere). */
static void program(const char *path, int log, int close_h_first)
{
  int last = nprocs - 1;
  ostio_file *g = NULL, *h = NULL;
  memset(model, 0, sizeof model);
  msize = 0;
  CHECKF(open_kind(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR, log, &g) == 0, "%s",
         ostio_last_error());
  if (rank == 0)
    CHECKF(open_kind(MPI_COMM_SELF, path, MPI_MODE_RDWR, log, &h) == 0, "%s", ostio_last_error());
  if (!g) return;
  /* Same process, program order, no sync: the later write wins. */
  wr(g, 0, 0 * SLOT, SLOT), wr(h, 0, 0 * SLOT, SLOT);               /* G then H */
  wr(h, 0, 1 * SLOT, SLOT), wr(g, 0, 1 * SLOT, SLOT);               /* H then G */
  wr(g, 0, 2 * SLOT, SLOT), wr(h, 0, 2 * SLOT, SLOT), wr(g, 0, 2 * SLOT, SLOT);
  /* Partial overlaps, alternating. */
  wr(h, 0, 3 * SLOT, SLOT), wr(g, 0, 3 * SLOT + 8, 40), wr(h, 0, 3 * SLOT + 16, 8);
  wr(g, 0, 3 * SLOT + 20, 30), wr(h, 0, 3 * SLOT + 60, 20);
  /* PnetCDF's header: the collective handle writes it, the SELF handle
   * rewrites it in independent mode, the collective handle writes it last. */
  wr_all(g, 0, 5 * SLOT, 32), wr(h, 0, 5 * SLOT, 32), wr_all(g, 0, 5 * SLOT, 32);
  /* ... and a header the SELF handle writes last (numrecs at close). */
  wr_all(g, 0, 6 * SLOT, 32), wr(h, 0, 6 * SLOT + 4, 8);
  /* Across ranks, MPI's way: write; sync; barrier; sync; write. The last
   * rank writes through G after rank 0 wrote through H, then back. */
  wr(h, 0, 7 * SLOT, SLOT);
  if (h) CHECK(ostio_sync(h) == 0);
  MPI_Barrier(MPI_COMM_WORLD);
  CHECK(ostio_sync(g) == 0);
  wr(g, last, 7 * SLOT + 8, 16);
  wr(g, last, 8 * SLOT, SLOT);
  CHECK(ostio_sync(g) == 0);
  MPI_Barrier(MPI_COMM_WORLD);
  if (h) CHECK(ostio_sync(h) == 0);
  wr(h, 0, 8 * SLOT + 4, 4);
  /* Syncs of G between the handles' writes on rank 0 (collective events
   * of one handle while the other is idle). */
  wr(h, 0, 9 * SLOT, SLOT);
  CHECK(ostio_sync(g) == 0);
  wr(g, 0, 9 * SLOT, 16);
  if (h) CHECK(ostio_sync(h) == 0);
  wr(g, last, 9 * SLOT + 32, 16); /* no order against H's next write needed: other bytes */
  wr(h, 0, 9 * SLOT + 8, 4);
  /* Collective write after independent ones of the other handle, and a
   * set_size through G after H wrote past it (H's bytes there are cut). */
  wr(h, 0, 10 * SLOT, SLOT);
  wr_all(g, last, 10 * SLOT + 16, 16);
  wr(h, 0, 11 * SLOT, SLOT);
  CHECK(ostio_set_size(g, 11 * SLOT + 40) == 0);
  memset(model + 11 * SLOT + 40, 0, SLOT - 40);
  msize = 11 * SLOT + 40;
  wr(g, 0, 11 * SLOT + 4, 4);
  if (close_h_first && h) CHECK(ostio_close(&h) == 0);
  CHECK(ostio_close(&g) == 0);
  if (!close_h_first && h) CHECK(ostio_close(&h) == 0);
  MPI_Barrier(MPI_COMM_WORLD);
}

static void verify(const char *path, const char *what)
{
  ostio_file *fh = NULL;
  unsigned char got[FSIZE + 64];
  CHECKF(ostio_open(MPI_COMM_WORLD, path, MPI_MODE_RDONLY, MPI_INFO_NULL, &fh) == 0, "%s: %s", what,
         ostio_last_error());
  if (!fh) return;
  int64_t size = -1;
  CHECK(ostio_get_size(fh, &size) == 0);
  CHECKF(size == msize, "%s: size %lld, expected %lld", what, (long long)size, (long long)msize);
  /* read_all: rank r reads the r-th of nprocs parts (extents of one call
   * must not share bytes). */
  memset(got, 0xee, sizeof got);
  int64_t lo = msize * rank / nprocs, hi = msize * (rank + 1) / nprocs;
  ostio_extent e = {lo, hi - lo};
  CHECKF(ostio_read_all(fh, &e, 1, got + lo) == 0, "%s: %s", what, ostio_last_error());
  for (int64_t i = lo; i < hi; i++)
    if (got[i] != model[i]) {
      CHECKF(0, "%s: read_all byte %lld (slot %lld + %lld) is %u, expected %u", what,
             (long long)i, (long long)(i / SLOT), (long long)(i % SLOT), got[i], model[i]);
      break;
    }
  memset(got, 0xee, sizeof got);
  CHECK(ostio_read_at(fh, 0, got, (size_t)msize) == 0);
  CHECKF(!memcmp(got, model, (size_t)msize), "%s: read_at differs from the model", what);
  CHECK(ostio_close(&fh) == 0);
}

static void verify_flat(const char *path, const char *flat, const char *what)
{
  CHECKF(ostio__flatten(MPI_COMM_WORLD, path, flat, MPI_INFO_NULL, 65536, NULL, NULL) == 0, "%s: %s",
         what, ostio_last_error());
  if (rank == 0) {
    unsigned char got[FSIZE + 64];
    FILE *f = fopen(flat, "rb");
    size_t n = f ? fread(got, 1, sizeof got, f) : 0;
    if (f) fclose(f);
    CHECKF(n == (size_t)msize && !memcmp(got, model, n), "%s: flattened %zu bytes differ from the "
           "model (%lld bytes)", what, n, (long long)msize);
    unlink(flat);
  }
  MPI_Barrier(MPI_COMM_WORLD);
}

/* A preloaded process next to the job (argv[1]: libostio-preload.so): the
 * job writes and syncs, the process (dd) writes the same bytes and exits,
 * then the job syncs and writes them again: the job's last write is the
 * newest and must win, though the process claimed a later session. Bytes
 * the job does not write again keep the process's. */
static void preloaded_neighbour(const char *dir, const char *lib)
{
  char path[700], src[700], cmd[3000];
  snprintf(path, sizeof path, "%s/pl.log", dir);
  snprintf(src, sizeof src, "%s/pl.src", dir);
  memset(model, 0, sizeof model);
  msize = 0;
  ntag = 100;
  ostio_file *g = NULL;
  CHECKF(open_kind(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR, 1, &g) == 0, "%s",
         ostio_last_error());
  if (!g) return;
  wr(g, 0, 0, 2 * SLOT);
  CHECK(ostio_sync(g) == 0);
  MPI_Barrier(MPI_COMM_WORLD);
  int tag = ++ntag;
  unsigned char b[2 * SLOT];
  fill(b, tag, 0, 2 * SLOT);
  memcpy(model, b, sizeof b);
  if (rank == 0) {
    FILE *f = fopen(src, "wb");
    CHECK(f && fwrite(b, 1, sizeof b, f) == sizeof b);
    if (f) fclose(f);
    snprintf(cmd, sizeof cmd, "LD_PRELOAD='%s' OSTIO_PRELOAD_PATHS='%s' dd if='%s' of='%s' "
             "bs=%d count=1 conv=notrunc status=none", lib, dir, src, path, 2 * SLOT);
    int st = system(cmd);
    CHECKF(st == 0, "%s: status %d", cmd, st);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  CHECK(ostio_sync(g) == 0);
  wr(g, nprocs - 1, 8, 16);
  wr(g, 0, SLOT + 4, 8);
  CHECK(ostio_close(&g) == 0);
  verify(path, "preloaded process between two syncs of the job");
}

/* The other way round: a preloaded process (python) writes slots 0 and 1
 * and fsyncs; the job syncs and writes both; the process fsyncs and writes
 * slot 0 again. Slot 1: the job's write is newest (though the process has
 * the later session); slot 0: the process's last write is (after its fsync
 * it orders its writes after what the job published). */
static void preloaded_writer(const char *dir, const char *lib)
{
  char path[700], sa[700], sc[700], script[3000];
  snprintf(path, sizeof path, "%s/pw.log", dir);
  snprintf(sa, sizeof sa, "%s/pw.a", dir);
  snprintf(sc, sizeof sc, "%s/pw.c", dir);
  memset(model, 0, sizeof model);
  msize = 0;
  ntag = 200;
  ostio_file *g = NULL;
  CHECKF(open_kind(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR, 1, &g) == 0, "%s",
         ostio_last_error());
  if (!g) return;
  unsigned char a[2 * SLOT], c[SLOT];
  fill(a, ++ntag, 0, 2 * SLOT);
  fill(c, ++ntag, 0, SLOT);
  int up[2] = {-1, -1}, down[2] = {-1, -1};
  pid_t pid = -1;
  if (rank == 0) {
    FILE *f = fopen(sa, "wb"), *f2 = fopen(sc, "wb");
    CHECK(f && f2 && fwrite(a, 1, sizeof a, f) == sizeof a && fwrite(c, 1, sizeof c, f2) == sizeof c);
    if (f) fclose(f);
    if (f2) fclose(f2);
    snprintf(script, sizeof script,
             "import os,sys\n"
             "fd=os.open('%s',os.O_WRONLY)\n"
             "os.pwrite(fd,open('%s','rb').read(),0); os.fsync(fd)\n"
             "sys.stdout.write('1\\n'); sys.stdout.flush(); sys.stdin.readline()\n"
             "os.fsync(fd); os.pwrite(fd,open('%s','rb').read(),0); os.close(fd)\n",
             path, sa, sc);
    CHECK(pipe(up) == 0 && pipe(down) == 0);
    if ((pid = fork()) == 0) {
      dup2(down[0], 0);
      dup2(up[1], 1);
      setenv("LD_PRELOAD", lib, 1);
      setenv("OSTIO_PRELOAD_PATHS", dir, 1);
      execlp("python3", "python3", "-c", script, (char *)NULL);
      _exit(127);
    }
    close(up[1]);
    close(down[0]);
    char line[8] = "";
    CHECKF(pid > 0 && read(up[0], line, sizeof line) >= 1 && line[0] == '1',
           "the preloaded writer did not report its first write");
  }
  memcpy(model, a, sizeof a);
  msize = 2 * SLOT;
  MPI_Barrier(MPI_COMM_WORLD);
  CHECK(ostio_sync(g) == 0);
  wr(g, nprocs - 1, 0, SLOT);
  wr(g, 0, SLOT, SLOT);
  CHECK(ostio_sync(g) == 0);
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0 && pid > 0) {
    int st = -1;
    CHECK(write(down[1], "go\n", 3) == 3);
    close(down[1]);
    CHECK(waitpid(pid, &st, 0) == pid && WIFEXITED(st) && WEXITSTATUS(st) == 0);
    close(up[0]);
  }
  memcpy(model, c, sizeof c);
  MPI_Barrier(MPI_COMM_WORLD);
  CHECK(ostio_close(&g) == 0);
  verify(path, "preloaded process writing after its fsync");
}

int main(int argc, char **argv)
{
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
  char dir[512], path[700], flat[700], what[100];
  if (ct_tmpdir(MPI_COMM_WORLD, dir, sizeof dir, "twoh") < 0) MPI_Abort(MPI_COMM_WORLD, 1);
  for (int log = 0; log < 2; log++)
    for (int order = 0; order < 2; order++) {
      snprintf(path, sizeof path, "%s/f%d%d", dir, log, order);
      snprintf(flat, sizeof flat, "%s/f%d%d.flat", dir, log, order);
      snprintf(what, sizeof what, "%s, %s closed first", log ? "log" : "plain",
               order ? "SELF handle" : "WORLD handle");
      ntag = 0;
      program(path, log, order);
      verify(path, what);
      if (!log) continue;
      verify_flat(path, flat, what);
      /* index.compact keeps each record's data log (its session) and order. */
      if (rank == 0) CHECKF(ostio__log_compact(path, NULL) == 0, "%s", ostio_last_error());
      MPI_Barrier(MPI_COMM_WORLD);
      verify(path, what);
      /* A later session still wins over everything written before. */
      ostio_file *fh = NULL;
      CHECK(open_kind(MPI_COMM_WORLD, path, MPI_MODE_RDWR, 1, &fh) == 0);
      if (fh) wr(fh, nprocs - 1, 2 * SLOT + 8, 8), CHECK(ostio_close(&fh) == 0);
      verify(path, what);
      verify_flat(path, flat, what);
    }
  if (argc > 1) preloaded_neighbour(dir, argv[1]);
  if (argc > 1) preloaded_writer(dir, argv[1]);
  ct_rmtree(MPI_COMM_WORLD, dir);
  int status = tu_done_mpi(MPI_COMM_WORLD, "", __FILE__);
  MPI_Finalize();
  return status;
}
