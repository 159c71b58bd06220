/* ostio-bench runner: for each iteration and API, a write phase and a read
 * phase (open, one call per pattern step -- or per transfer for independent
 * calls under -I, and for POSIX --, optional fsync, close), timed
 * per rank and reduced like IOR (bandwidth = total bytes / (last close end -
 * first open start)). One backend per API (ops struct); every failure is
 * agreed over MPI_COMM_WORLD before anyone decides. Never prints or exits. */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bench_run.h"
#include "container/store.h"


static int fail(run *x, int rc, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int fail(run *x, int rc, const char *fmt, ...)
{
  if (!x->msg[0]) {
    va_list ap;
    va_start(ap, fmt);
    int n = snprintf(x->msg, sizeof x->msg, "rank %d %s: ", x->rank, x->api ? x->api->name : "");
    vsnprintf(x->msg + n, sizeof x->msg - (size_t)n, fmt, ap);
    va_end(ap);
  }
  return rc;
}

/* Collective over WORLD: the most severe code of any rank (OB_EUSAGE < 0 ...;
 * the lowest failing rank's code and message win). */
int ob__agree(run *x, int rc)
{
  int mine = rc ? x->rank : x->nprocs, low;
  MPI_Allreduce(&mine, &low, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  if (low == x->nprocs) return OB_OK;
  MPI_Bcast(&rc, 1, MPI_INT, low, MPI_COMM_WORLD);
  MPI_Bcast(x->msg, (int)sizeof x->msg, MPI_CHAR, low, MPI_COMM_WORLD);
  x->msg[sizeof x->msg - 1] = '\0';
  return rc;
}

static double wtime(void *ctx) { (void)ctx; return MPI_Wtime(); }

/* The object that defines the MPI_File_open this program calls: the first in
 * the lookup order (LD_PRELOAD, then the program's NEEDED list in order). */
int ob_mpiio_ostio_present(char *where, size_t cap)
{
  void *sym = dlsym(RTLD_DEFAULT, "MPI_File_open");
  Dl_info di;
  const char *file = sym && dladdr(sym, &di) && di.dli_fname ? di.dli_fname : "";
  if (where && cap) snprintf(where, cap, "%s", file[0] ? file : "(unknown)");
  const char *base = strrchr(file, '/');
  return strncmp(base ? base + 1 : file, "libostio-mpiio.so", 17) == 0;
}

/* mpiio+ostio measures the interposer only if it is there: refuse otherwise. */
static int check_mpiio_ostio(run *x)
{
  char where[512];
  for (int a = 0; a < x->c->napis; a++)
    if (x->c->apis[a].ostio_mpiio && !ob_mpiio_ostio_present(where, sizeof where))
      return fail(x, OB_EUSAGE, "-a mpiio+ostio: MPI_File_open comes from %s, not from "
                  "libostio-mpiio.so: this program was not linked with it (built without the "
                  "CMake target ostio_mpiio?) and it is not in LD_PRELOAD", where);
  return 0;
}

double ob_bandwidth_mib(int64_t bytes, double seconds)
{
  return seconds > 0 ? (double)bytes / seconds / 1048576.0 : 0.0;
}

static MPI_Info make_info(const ob_config *c, const ob_api *api, const ob_hintset *extra)
{
  MPI_Info info;
  char v[32];
  MPI_Info_create(&info);
  for (int i = 0; i < c->nhints; i++) MPI_Info_set(info, c->hint_key[i], c->hint_val[i]);
  if (c->stripe_count > 0) {
    snprintf(v, sizeof v, "%d", c->stripe_count);
    MPI_Info_set(info, "striping_factor", v);
  }
  if (c->stripe_size > 0) {
    snprintf(v, sizeof v, "%lld", (long long)c->stripe_size);
    MPI_Info_set(info, "striping_unit", v);
  }
  /* libostio-mpiio.so serves the files opened with this hint (docs/mpiio.md). */
  if (api->ostio_mpiio) MPI_Info_set(info, "ostio_mpiio", "enable");
  /* mpiio:best: the candidate's (or the chosen) hints over the -O ones. */
  for (int i = 0; extra && api->best && i < extra->n; i++)
    MPI_Info_set(info, extra->key[i], extra->val[i]);
  if (api->kind == OB_API_OSTIO) {
    MPI_Info_set(info, "ostio_strategy", api->strategy);
    /* A kind with a store is a container; the default (plain) needs no hint. */
    if (ostio__store_find(c->container)) MPI_Info_set(info, "ostio_container", c->container);
  }
  return info;
}

/* ---- backends ------------------------------------------------------------ */
typedef struct backend {
  int (*open)(run *x, int write);
  /* One call for step s (collective, or MPI-IO independent without -I); NULL
   * if the API only has transfer calls (POSIX). */
  int (*step)(run *x, int write, const side *sd, int s);
  /* One independent call for one contiguous range (ob_api_per_transfer). */
  int (*transfer)(run *x, int write, int64_t off, uint8_t *b, int64_t len);
  int (*sync)(run *x);
  int (*close)(run *x);
} backend;

static int ostio_rc(run *x, int rc, const char *what)
{
  return rc ? fail(x, OB_EIO, "%s: %s (%s)", what, ostio_last_error(), ostio_errname(rc)) : 0;
}
static int o_open(run *x, int write)
{
  MPI_Info info = make_info(x->c, x->api, NULL);
  int rc = ostio_open(x->comm, x->path, write ? MPI_MODE_CREATE | MPI_MODE_WRONLY : MPI_MODE_RDONLY,
                      info, &x->ofh);
  MPI_Info_free(&info);
  return ostio_rc(x, rc, "ostio_open");
}
static int o_step(run *x, int write, const side *sd, int s)
{
  const ob_step *st = &sd->plan.steps[s];
  uint8_t *b = sd->buf + sd->off[s];
  return write ? ostio_rc(x, ostio_write_all(x->ofh, st->ext, st->n, b), "ostio_write_all")
               : ostio_rc(x, ostio_read_all(x->ofh, st->ext, st->n, b), "ostio_read_all");
}
static int o_transfer(run *x, int write, int64_t off, uint8_t *b, int64_t len)
{
  return write ? ostio_rc(x, ostio_write_at(x->ofh, off, b, (size_t)len), "ostio_write_at")
               : ostio_rc(x, ostio_read_at(x->ofh, off, b, (size_t)len), "ostio_read_at");
}
static int o_sync(run *x) { return ostio_rc(x, ostio_sync(x->ofh), "ostio_sync"); }
static int o_close(run *x) { return x->ofh ? ostio_rc(x, ostio_close(&x->ofh), "ostio_close") : 0; }

static int mpi_rc(run *x, int rc, const char *what)
{
  if (rc == MPI_SUCCESS) return 0;
  char s[MPI_MAX_ERROR_STRING];
  int len = 0;
  MPI_Error_string(rc, s, &len);
  return fail(x, OB_EIO, "%s: %s", what, s);
}
static int m_open(run *x, int write)
{
  MPI_Info info = make_info(x->c, x->api, x->extra);
  int rc = MPI_File_open(x->comm, x->path, write ? MPI_MODE_CREATE | MPI_MODE_WRONLY
                         : MPI_MODE_RDONLY, info, &x->mfh);
  MPI_Info_free(&info);
  x->view = 0;
  if (rc != MPI_SUCCESS) x->mfh = MPI_FILE_NULL;
  return mpi_rc(x, rc, "MPI_File_open");
}
/* A step that is one contiguous run on every rank is written as IOR does:
 * write_at(_all) at the run's offset in the default view (a one-block
 * hindexed view makes ROMIO lock and unlock around every pwrite). Other
 * steps get the hindexed view of their extents and offset 0. set_view is
 * collective, so the choice is agreed over the ranks (side_agree_contig). */
static int m_step(run *x, int write, const side *sd, int s)
{
  const ob_step *st = &sd->plan.steps[s];
  void *b = sd->buf + sd->off[s];
  int cnt = (int)st->bytes, rc = MPI_SUCCESS;
  MPI_Offset at = 0;
  if (sd->contig[s]) {
    if (x->view)                      /* back to the default view               */
      rc = MPI_File_set_view(x->mfh, 0, MPI_BYTE, MPI_BYTE, "native", MPI_INFO_NULL);
    x->view = 0;
    at = (MPI_Offset)sd->start[s];
  } else {
    rc = MPI_File_set_view(x->mfh, 0, MPI_BYTE, sd->types[s], "native", MPI_INFO_NULL);
    x->view = 1;
  }
  if (rc != MPI_SUCCESS) return mpi_rc(x, rc, "MPI_File_set_view");
  if (ob_api_collective(x->c, x->api))
    rc = write ? MPI_File_write_at_all(x->mfh, at, b, cnt, MPI_BYTE, MPI_STATUS_IGNORE)
               : MPI_File_read_at_all(x->mfh, at, b, cnt, MPI_BYTE, MPI_STATUS_IGNORE);
  else
    rc = write ? MPI_File_write_at(x->mfh, at, b, cnt, MPI_BYTE, MPI_STATUS_IGNORE)
               : MPI_File_read_at(x->mfh, at, b, cnt, MPI_BYTE, MPI_STATUS_IGNORE);
  return mpi_rc(x, rc, write ? "MPI_File_write_at(_all)" : "MPI_File_read_at(_all)");
}
/* -I: the transfer's own offset in the default view (no view is set for
 * an API that calls per transfer), as IOR without -c. */
static int m_transfer(run *x, int write, int64_t off, uint8_t *b, int64_t len)
{
  if (len > INT_MAX)
    return fail(x, OB_EUSAGE, "a transfer of %lld bytes is too much for one MPI-IO call (int "
                "counts)", (long long)len);
  int rc = write ? MPI_File_write_at(x->mfh, (MPI_Offset)off, b, (int)len, MPI_BYTE,
                                     MPI_STATUS_IGNORE)
                 : MPI_File_read_at(x->mfh, (MPI_Offset)off, b, (int)len, MPI_BYTE,
                                    MPI_STATUS_IGNORE);
  return mpi_rc(x, rc, write ? "MPI_File_write_at" : "MPI_File_read_at");
}
static int m_sync(run *x) { return mpi_rc(x, MPI_File_sync(x->mfh), "MPI_File_sync"); }
static int m_close(run *x)
{
  return x->mfh != MPI_FILE_NULL ? mpi_rc(x, MPI_File_close(&x->mfh), "MPI_File_close") : 0;
}

static int p_open(run *x, int write)
{
  int flags = write ? O_WRONLY | O_CREAT : O_RDONLY, shared = x->comm != MPI_COMM_SELF;
  int err = 0;
  x->fd = -1;
  if (!shared || x->rank == 0 || !write) {
    x->fd = open(x->path, flags, 0644);
    err = x->fd < 0 ? errno : 0;
  }
  if (shared && write) {              /* rank 0 creates, the others open after   */
    MPI_Barrier(x->comm);
    if (x->rank != 0) {
      x->fd = open(x->path, O_WRONLY);
      err = x->fd < 0 ? errno : 0;
    }
  }
  return err ? fail(x, OB_EIO, "open %s: %s", x->path, strerror(err)) : 0;
}
static int full_io(int fd, int write, uint8_t *b, int64_t len, int64_t off)
{
  while (len > 0) {
    ssize_t n = write ? pwrite(fd, b, (size_t)len, (off_t)off) : pread(fd, b, (size_t)len, (off_t)off);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return errno;
    if (n == 0) {                     /* read past the end: zeros                 */
      if (write) return EIO;
      memset(b, 0, (size_t)len);
      return 0;
    }
    b += n, len -= n, off += n;
  }
  return 0;
}
static int p_transfer(run *x, int write, int64_t off, uint8_t *b, int64_t len)
{
  int e = full_io(x->fd, write, b, len, off);
  return e ? fail(x, OB_EIO, "%s %s: %s", write ? "pwrite" : "pread", x->path, strerror(e)) : 0;
}
static int p_sync(run *x) { return fsync(x->fd) ? fail(x, OB_EIO, "fsync: %s", strerror(errno)) : 0; }
static int p_close(run *x)
{
  if (x->fd >= 0 && close(x->fd) != 0) return x->fd = -1, fail(x, OB_EIO, "close: %s", strerror(errno));
  x->fd = -1;
  return 0;
}

static const backend backends[] = {
  [OB_API_OSTIO] = {.open = o_open, .step = o_step, .transfer = o_transfer, .sync = o_sync,
                    .close = o_close},
  [OB_API_MPIIO] = {.open = m_open, .step = m_step, .transfer = m_transfer, .sync = m_sync,
                    .close = m_close},
  [OB_API_POSIX] = {.open = p_open, .transfer = p_transfer, .sync = p_sync, .close = p_close},
};

/* Step s as one independent call per extent, in the step's (file) order;
 * the bytes of the extents lie back to back in the step's buffer. */
static int step_transfers(run *x, const backend *be, int write, const side *sd, int s)
{
  const ob_step *st = &sd->plan.steps[s];
  uint8_t *b = sd->buf + sd->off[s];
  /* -Y: POSIX's fsync is this rank's own, after every pwrite; the others' sync
   * is collective and comes after the step (ob__run_phase). */
  int sync_each = write && x->c->fsync_per_write && x->api->kind == OB_API_POSIX;
  for (size_t i = 0; i < st->n; i++) {
    if (st->ext[i].length > 0) {
      int e = be->transfer(x, write, st->ext[i].offset, b, st->ext[i].length);
      if (!e && sync_each) e = be->sync(x);
      if (e) return e;
    }
    b += st->ext[i].length;
  }
  return 0;
}

/* ---- plans ---------------------------------------------------------------- */
static void side_free(side *sd)
{
  if (sd->types)
    for (int s = 0; s < sd->plan.nsteps; s++)
      if (sd->types[s] != MPI_DATATYPE_NULL) MPI_Type_free(&sd->types[s]);
  free(sd->types);
  free(sd->contig);
  free(sd->start);
  free(sd->buf);
  free(sd->off);
  if (sd->have_plan) ob_plan_free(&sd->plan);
  memset(sd, 0, sizeof *sd);
}

/* Page-aligned memory (as IOR's buffers): malloc's 16-byte offset slows every
 * API's copies. At least 4096 bytes, the page size if larger. NULL if none. */
#define OB_ALIGN 4096
static void *page_alloc(int64_t bytes)
{
  long pg = sysconf(_SC_PAGESIZE);
  void *p = NULL;
  if (posix_memalign(&p, pg > OB_ALIGN ? (size_t)pg : OB_ALIGN, bytes > 0 ? (size_t)bytes : 1) != 0)
    return NULL;
  return p;
}

static int side_build(run *x, int who, int want_types, side *sd)
{
  char perr[256] = "";
  if (ob_pattern_build(&x->c->pat, who, x->nprocs, &sd->plan, perr, sizeof perr) != 0)
    return fail(x, OB_EUSAGE, "%s", perr[0] ? perr : "the pattern cannot be built");
  sd->have_plan = 1;
  int ns = sd->plan.nsteps;
  sd->off = calloc((size_t)ns + 1, sizeof *sd->off);
  if (!sd->off) return fail(x, OB_ENOMEM, "no memory for %d steps", ns);
  /* Every step's bytes start on a page boundary (IOR: one aligned buffer per call). */
  for (int s = 0; s < ns; s++)
    sd->off[s + 1] = (sd->off[s] + sd->plan.steps[s].bytes + OB_ALIGN - 1) / OB_ALIGN * OB_ALIGN;
  sd->buf = page_alloc(sd->off[ns]);
  if (!sd->buf) return fail(x, OB_ENOMEM, "no memory for %lld bytes", (long long)sd->off[ns]);
  if (!want_types) return 0;
  sd->types = malloc((size_t)(ns > 0 ? ns : 1) * sizeof *sd->types);
  sd->contig = malloc((size_t)(ns > 0 ? ns : 1));
  sd->start = calloc((size_t)(ns > 0 ? ns : 1), sizeof *sd->start);
  if (!sd->types || !sd->contig || !sd->start) return fail(x, OB_ENOMEM, "no memory for datatypes");
  for (int s = 0; s < ns; s++) sd->types[s] = MPI_DATATYPE_NULL;
  for (int s = 0; s < ns; s++) {
    const ob_step *st = &sd->plan.steps[s];
    /* One run: the non-empty extents follow each other without a gap. */
    int64_t end = -1;
    sd->contig[s] = 1;
    for (size_t i = 0; i < st->n; i++) {
      if (st->ext[i].length <= 0) continue;
      if (end < 0) sd->start[s] = st->ext[i].offset;
      else if (st->ext[i].offset != end) sd->contig[s] = 0;
      end = st->ext[i].offset + st->ext[i].length;
    }
    if (st->n > INT_MAX || st->bytes > INT_MAX)
      return fail(x, OB_EUSAGE, "step %d: %zu extents / %lld bytes is too much for one MPI-IO "
                  "call (int counts)", s, st->n, (long long)st->bytes);
    int n = 0, *len = malloc((st->n ? st->n : 1) * sizeof *len);
    MPI_Aint *disp = malloc((st->n ? st->n : 1) * sizeof *disp);
    if (!len || !disp) return free(len), free(disp), fail(x, OB_ENOMEM, "no memory");
    for (size_t i = 0; i < st->n; i++)
      if (st->ext[i].length > 0)
        len[n] = (int)st->ext[i].length, disp[n++] = (MPI_Aint)st->ext[i].offset;
    /* An empty step still needs a view with a positive extent. */
    if (n == 0) MPI_Type_contiguous(1, MPI_BYTE, &sd->types[s]);
    else MPI_Type_create_hindexed(n, len, disp, MPI_BYTE, &sd->types[s]);
    MPI_Type_commit(&sd->types[s]);
    free(len);
    free(disp);
  }
  return 0;
}

/* Collective over WORLD: a step is written without a view only when it is
 * one run on every rank (set_view is collective over the file's ranks). */
static void side_agree_contig(side *sd)
{
  int ns = sd->plan.nsteps, mx = 0;
  MPI_Allreduce(&ns, &mx, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  int *v = malloc((size_t)(mx > 0 ? mx : 1) * sizeof *v);
  int ok = v != NULL, all = 0;
  MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  if (!all) {                         /* no memory somewhere: views everywhere  */
    if (sd->contig) memset(sd->contig, 0, (size_t)(ns > 0 ? ns : 1));
    free(v);
    return;
  }
  for (int s = 0; s < mx; s++) v[s] = s < ns ? sd->contig[s] : 1;
  MPI_Allreduce(MPI_IN_PLACE, v, mx, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  for (int s = 0; s < ns; s++) sd->contig[s] = v[s];
  free(v);
}

/* ---- one phase ------------------------------------------------------------- */
static void file_path(run *x, int owner)
{
  char api[32];
  snprintf(api, sizeof api, "%s", x->api->name);
  for (char *p = api; *p; p++)
    if (*p == ':') *p = '-';
  if (x->c->file_per_proc)
    snprintf(x->path, sizeof x->path, "%s.%s.%d", x->c->path, api, owner);
  else snprintf(x->path, sizeof x->path, "%s.%s", x->c->path, api);
}

static int rm_entry(const char *p, const struct stat *sb, int flag, struct FTW *ftw)
{
  (void)sb, (void)ftw;
  if (flag == FTW_DP) rmdir(p);
  else unlink(p);
  return 0;
}

/* Removes the file, or the container directory with everything in it. */
void ob__remove_file(run *x)
{
  file_path(x, x->rank);
  if (x->c->file_per_proc || x->rank == 0) {
    struct stat sb;
    if (lstat(x->path, &sb) == 0 && S_ISDIR(sb.st_mode))
      nftw(x->path, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
    else unlink(x->path);
  }
  MPI_Barrier(MPI_COMM_WORLD);
}

/* A container is read and written through ostio (MPI_COMM_SELF); a plain
 * file directly, so -W checks the bytes independently of ostio. */
static int is_container(const run *x)
{
  struct stat sb;
  if (x->api->ostio_mpiio)            /* a container if OSTIO_HINTS made one   */
    return stat(x->path, &sb) == 0 && S_ISDIR(sb.st_mode);
  return x->api->kind == OB_API_OSTIO && ostio__store_find(x->c->container) != NULL;
}

static int range_io(ostio_file *ofh, int fd, int write, uint8_t *b, int64_t len, int64_t off)
{
  if (ofh) return (write ? ostio_write_at(ofh, off, b, (size_t)len)
                         : ostio_read_at(ofh, off, b, (size_t)len)) ? EIO : 0;
  return full_io(fd, write, b, len, off);
}

static int open_check(run *x, int write, ostio_file **ofh, int *fd)
{
  *ofh = NULL;
  *fd = -1;
  if (is_container(x))
    return ostio_open(MPI_COMM_SELF, x->path, write ? MPI_MODE_RDWR : MPI_MODE_RDONLY,
                      MPI_INFO_NULL, ofh) ? -1 : 0;
  *fd = open(x->path, write ? O_RDWR : O_RDONLY);
  return *fd < 0 ? -1 : 0;
}

static void close_check(ostio_file **ofh, int fd)
{
  if (*ofh) ostio_close(ofh);
  if (fd >= 0) close(fd);
}

/* Flips one byte of rank 0's first written extent (testing hook). */
static void corrupt(run *x, const side *w)
{
  const char *e = getenv("OSTIO_BENCH_CORRUPT");
  if (e && !strcmp(e, "1") && x->rank == 0)
    for (int s = 0; s < w->plan.nsteps; s++)
      if (w->plan.steps[s].n > 0 && w->plan.steps[s].ext[0].length > 0) {
        uint8_t b = 0;
        ostio_file *ofh;
        int fd;
        int64_t off = w->plan.steps[s].ext[0].offset;
        if (open_check(x, 1, &ofh, &fd) == 0 && range_io(ofh, fd, 0, &b, 1, off) == 0) {
          b ^= 0xff;
          range_io(ofh, fd, 1, &b, 1, off);
        }
        close_check(&ofh, fd);
        break;
      }
  MPI_Barrier(MPI_COMM_WORLD);
}

/* -W: read this rank's written extents back (pread; ostio for containers) and check them. */
static int verify_written(run *x, const side *w, uint8_t *vbuf)
{
  ostio_file *ofh;
  int bad = 0, fd;
  if (open_check(x, 0, &ofh, &fd) != 0) return 1;
  for (int s = 0; s < w->plan.nsteps && !bad; s++) {
    const ob_step *st = &w->plan.steps[s];
    uint8_t *b = vbuf;
    for (size_t i = 0; i < st->n && !bad; i++) {
      bad = range_io(ofh, fd, 0, b, st->ext[i].length, st->ext[i].offset) != 0;
      b += st->ext[i].length;
    }
    if (!bad) bad = ob_check(vbuf, st->ext, st->n, x->c->pat.seed) >= 0;
  }
  close_check(&ofh, fd);
  return bad;
}

int ob__run_phase(run *x, int write, side *sd, uint8_t *vbuf, ob_result *r)
{
  const ob_config *c = x->c;
  const backend *be = &backends[x->api->kind];
  double (*clk)(void *) = c->clock ? c->clock : wtime;
  int owner = c->reorder && !write ? (x->rank + 1) % x->nprocs : x->rank;
  if (write) ob__remove_file(x);
  file_path(x, owner);
  if (!write) memset(sd->buf, 0, (size_t)sd->off[sd->plan.nsteps]);
  double st[4] = {0};
  double stat[4] = {-1, -1, -1, -1};
  MPI_Barrier(MPI_COMM_WORLD);
  st[0] = clk(c->clock_ctx);
  int rc = ob__agree(x, be->open(x, write));
  st[1] = clk(c->clock_ctx);
  if (rc) return rc;
  if (c->barriers) MPI_Barrier(MPI_COMM_WORLD);   /* -g: IOR's intraTestBarriers */
  int per_transfer = ob_api_per_transfer(c, x->api);
  /* -Y for ostio and MPI-IO: ostio_sync / MPI_File_sync (collective) after
   * every step, on every rank as often as the rank with the most steps. */
  int coll_sync = write && c->fsync_per_write && x->api->kind != OB_API_POSIX, nsync = 0;
  if (coll_sync) MPI_Allreduce(&sd->plan.nsteps, &nsync, 1, MPI_INT, MPI_MAX, x->comm);
  /* Collective MPI-IO calls (MPI_File_sync under -Y too) go on after a local
   * failure (the others wait in them); ostio's collective calls agree on
   * their errors themselves. */
  int go_on = x->api->kind == OB_API_MPIIO && (ob_api_collective(c, x->api) || coll_sync);
  for (int s = 0; s < sd->plan.nsteps; s++) {
    int e = per_transfer ? step_transfers(x, be, write, sd, s) : be->step(x, write, sd, s);
    if (e && !rc) rc = e;
    if (coll_sync && (!rc || go_on) && (e = be->sync(x)) && !rc) rc = e;
    if (rc && !go_on) break;
  }
  for (int s = sd->plan.nsteps; s < nsync && (!rc || go_on); s++) {
    int e = be->sync(x);
    if (e && !rc) rc = e;
  }
  if (!rc && write && c->fsync) rc = be->sync(x);
  if (x->api->kind == OB_API_OSTIO && x->ofh) {
    const char *names[4] = {"aggr_max", "objects_max", "sys_writes", "sys_reads"};
    for (int i = 0; i < 4; i++)
      if (ostio_stat_get(x->ofh, names[i], &stat[i]) != 0) stat[i] = -1;
    snprintf(r->strategy, sizeof r->strategy, "%s", ostio_file_strategy(x->ofh));
  }
  if (c->barriers) MPI_Barrier(MPI_COMM_WORLD);
  st[2] = clk(c->clock_ctx);
  int crc = be->close(x);
  st[3] = clk(c->clock_ctx);
  rc = ob__agree(x, rc ? rc : crc);
  if (rc) return rc;
  double mine[5] = {st[1] - st[0], st[2] - st[1], st[3] - st[2], st[3], -st[0]}, mx[5];
  MPI_Allreduce(mine, mx, 5, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  double smax[2] = {stat[0], stat[1]}, ssum[2] = {stat[2], stat[3]}, gmax[2], gsum[2];
  MPI_Allreduce(smax, gmax, 2, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  MPI_Allreduce(ssum, gsum, 2, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  r->phase = write ? OB_PHASE_WRITE : OB_PHASE_READ;
  r->bytes = sd->plan.total_bytes;
  r->t_open = mx[0], r->t_io = mx[1], r->t_close = mx[2], r->t_total = mx[3] + mx[4];
  r->bw_mib = ob_bandwidth_mib(r->bytes, r->t_total);
  int isostio = x->api->kind == OB_API_OSTIO;
  r->aggr_max = isostio ? gmax[0] : -1, r->objects_max = isostio ? gmax[1] : -1;
  r->sys_writes = isostio ? gsum[0] : -1, r->sys_reads = isostio ? gsum[1] : -1;
  /* Verification, outside the timing. */
  int bad = 0;
  if (write) {
    corrupt(x, sd);
    if (c->verify_write) bad = verify_written(x, sd, vbuf);
  } else if (c->verify_read) {
    for (int s = 0; s < sd->plan.nsteps && !bad; s++)
      bad = ob_check(sd->buf + sd->off[s], sd->plan.steps[s].ext, sd->plan.steps[s].n,
                     c->pat.seed) >= 0;
  }
  int nbad = 0;
  MPI_Allreduce(&bad, &nbad, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  r->verify_errors = nbad;
  return 0;
}

/* ---- the whole run ----------------------------------------------------------- */
int ob_results_add(ob_results *res, const ob_result *r)
{
  if (res->n == res->cap) {
    int cap = res->cap ? 2 * res->cap : 16;
    ob_result *p = realloc(res->r, (size_t)cap * sizeof *p);
    if (!p) return OB_ENOMEM;
    res->r = p, res->cap = cap;
  }
  res->r[res->n++] = *r;
  return OB_OK;
}

void ob_results_free(ob_results *res)
{
  free(res->r);
  memset(res, 0, sizeof *res);
}

int ob_run(const ob_config *c, ob_results *res, char *err, size_t errcap)
{
  run x = {.c = c, .fd = -1, .mfh = MPI_FILE_NULL, .comm = MPI_COMM_WORLD};
  side w = {0}, rd = {0};
  uint8_t *vbuf = NULL;
  int want_types = 0, rc = 0, verify_failed = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &x.rank);
  MPI_Comm_size(MPI_COMM_WORLD, &x.nprocs);
  if (c->file_per_proc) x.comm = MPI_COMM_SELF;
  memset(res, 0, sizeof *res);
  res->nprocs = x.nprocs;
  if (err && errcap) err[0] = '\0';
  /* Views for the MPI-IO APIs that call once per step (-I: once per transfer, no view). */
  for (int a = 0; a < c->napis; a++)
    want_types |= c->apis[a].kind == OB_API_MPIIO && !ob_api_per_transfer(c, &c->apis[a]);
  rc = check_mpiio_ostio(&x);
  if (!rc && c->numtasks && c->numtasks != x.nprocs) { /* the same on every rank */
    snprintf(x.msg, sizeof x.msg, "-N %d: ostio-bench runs on every rank of MPI_COMM_WORLD "
             "(%d here; IOR's -N uses the first N); start it with mpiexec -n %d", c->numtasks,
             x.nprocs, c->numtasks);
    rc = OB_EUSAGE;
  }
  if (!rc) rc = side_build(&x, x.rank, want_types, &w);
  /* The read side's buffer only when there is a read phase (-w alone: half the memory). */
  if (!rc && c->read)
    rc = side_build(&x, c->reorder ? (x.rank + 1) % x.nprocs : x.rank, want_types, &rd);
  if (!rc && c->verify_write && !(vbuf = page_alloc(w.plan.rank_bytes)))
    rc = fail(&x, OB_ENOMEM, "no memory for the verification buffer");
  if ((rc = ob__agree(&x, rc))) goto done;
  if (want_types) {
    side_agree_contig(&w);
    side_agree_contig(&rd);
  }
  res->total_bytes = w.plan.total_bytes;
  for (int s = 0; s < w.plan.nsteps; s++)
    ob_fill(w.buf + w.off[s], w.plan.steps[s].ext, w.plan.steps[s].n, c->pat.seed);
  rc = ob__agree(&x, ob__best_decide(&x, res, &w, &rd, vbuf, &verify_failed));
  int niter = c->warmup + c->iterations;
  for (int it = 0; it < niter && !rc; it++) {
    char line[1024];
    int len = snprintf(line, sizeof line, "iteration %d/%d%s:", it + 1, niter,
                       it < c->warmup ? " (warm-up)" : "");
    for (int a = 0; a < c->napis && !rc; a++) {
      x.api = &c->apis[a];
      for (int ph = 0; ph < 2 && !rc; ph++) {
        if ((ph == 0 && !c->write) || (ph == 1 && !c->read)) continue;
        ob_result r = {.iteration = it, .warmup = it < c->warmup, .api = a};
        const ob_sweep *sw = &res->sweep[ph == 0 ? OB_PHASE_WRITE : OB_PHASE_READ];
        x.extra = x.api->best && sw->done ? &sw->cand[sw->chosen] : NULL;
        rc = ob__run_phase(&x, ph == 0, ph == 0 ? &w : &rd, vbuf, &r);
        x.extra = NULL;
        if (rc) break;
        if (r.verify_errors) {
          verify_failed = 1;
          if (!x.msg[0])
            snprintf(x.msg, sizeof x.msg, "%s %s: verification failed on %lld rank(s) "
                     "(iteration %d)", x.api->name, ph ? "read" : "write",
                     (long long)r.verify_errors, it + 1);
        }
        if ((rc = ob_results_add(res, &r)) != 0) break;
        if (len < (int)sizeof line)
          len += snprintf(line + len, sizeof line - (size_t)len, " %s %s %.1f MiB/s%s",
                          x.api->name, ph ? "read" : "write", r.bw_mib,
                          r.verify_errors ? " (VERIFY FAILED)" : "");
        if (c->verbose && x.rank == 0 && c->progress) { /* -v: each phase, its times */
          char pl[512];
          snprintf(pl, sizeof pl, "iteration %d/%d%s: %s %s %.1f MiB/s%s (open %.3f s, %s "
                   "%.3f s, close %.3f s)", it + 1, niter, it < c->warmup ? " (warm-up)" : "",
                   x.api->name, ph ? "read" : "write", r.bw_mib,
                   r.verify_errors ? " (VERIFY FAILED)" : "", r.t_open, ph ? "read" : "write",
                   r.t_io, r.t_close);
          c->progress(c->progress_ctx, pl);
        }
      }
      if (!rc && !c->keep) {
        ob__remove_file(&x);
      }
    }
    if (!rc && !c->verbose && x.rank == 0 && c->progress) c->progress(c->progress_ctx, line);
  }
  rc = ob__agree(&x, rc);
  if (!rc && verify_failed) rc = OB_EVERIFY;
done:
  if (err && errcap && x.msg[0]) snprintf(err, errcap, "%s", x.msg);
  side_free(&w);
  side_free(&rd);
  free(vbuf);
  return rc;
}
