/* The public file calls: arguments checked and agreed here, then handed to
 * the file's kind (kind.h; plain/plain_file.c, striped/striped_file.c, log/log_file.c). The
 * collective engine (engine/engine.h) gets a context filled here at open. */
#include "file/file.h"

#include <fcntl.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "core/access.h"
#include "core/agree.h"
#include "container/container.h"
#include "core/error.h"
#include "engine/strategy.h"
#include "file/kind.h"
#include "plan/aggr.h"

/* A call the file's kind leaves NULL (kind.h). */
static int unsupported(const ostio_file *fh, const char *call)
{
  return ostio__fail(OSTIO_ENOTSUP, "%s: %s is not supported by this file's kind (%s)",
                     fh->path, call, fh->kind->name);
}

/* The kind a new file gets: the one the hint ostio_container names. */
static const ostio__kind_ops *kind_for_create(const ostio_file *fh)
{
  char name[32];
  ostio__hints_format(&fh->hints, ostio__hints_index("ostio_container"), name, sizeof name);
  return ostio__kind_find(name);
}

/* Rank 0 only: finds out the kind of the file at path (kind.h) and makes
 * the file when MPI_MODE_CREATE says so. The hint ostio_container applies at
 * creation only: an existing file keeps its kind. */
static int prepare_on_root(ostio_file *fh)
{
  struct stat st;
  int create = !!(fh->amode & MPI_MODE_CREATE);
  fh->kind = ostio__kind_find("plain");
  if (stat(fh->path, &st) == 0) {
    if (S_ISFIFO(st.st_mode) || S_ISSOCK(st.st_mode))
      return ostio__fail(OSTIO_EINVAL, "%s is a %s; ostio opens regular files, devices and "
                         "containers", fh->path, S_ISFIFO(st.st_mode) ? "FIFO" : "socket");
    int is_ctr = ostio__ctr_is_container(fh->path);
    int rc = ostio__kind_of_path(fh->path, &fh->kind);
    if (rc < 0) return rc;
    if (create && (fh->amode & MPI_MODE_EXCL))
      return ostio__fail(OSTIO_EEXIST, "%s exists and MPI_MODE_EXCL was given", fh->path);
    if (S_ISDIR(st.st_mode) && !is_ctr)
      return ostio__fail(OSTIO_EISDIR, "%s is a directory (not a container: no %s inside)",
                         fh->path, OSTIO__CTR_MANIFEST);
    return 0;
  }
  if (errno != ENOENT)
    return ostio__fail(ostio__from_errno(errno), "%s: %s", fh->path, strerror(errno));
  if (!create) return 0; /* every rank's open says ENOENT */
  fh->kind = kind_for_create(fh);
  if (!fh->kind || !fh->kind->create)
    return ostio__fail(OSTIO_ENOTSUP, "%s: kind %s cannot create files", fh->path,
                       fh->kind ? fh->kind->name : "?");
  return fh->kind->create(fh);
}

/* Rank 0's kind to every rank (after rank 0's outcome was agreed). */
static int share_kind(ostio_file *fh)
{
  char name[32] = "";
  if (fh->rank == 0) snprintf(name, sizeof name, "%s", fh->kind->name);
  MPI_Bcast(name, (int)sizeof name, MPI_CHAR, 0, fh->comm);
  fh->kind = ostio__kind_find(name);
  int rc = fh->kind && fh->kind->open ? 0
           : ostio__fail(OSTIO_ENOTSUP, "%s: kind \"%s\" cannot be opened", fh->path, name);
  return ostio__agree(fh->comm, rc);
}

/* Collective: the aggregator candidates, spread over nodes. */
static int find_aggregators(ostio_file *fh)
{
  MPI_Comm node;
  int leader = fh->rank, rc = 0, len = 0;
  if (ostio__node_split(fh->comm, &node) != MPI_SUCCESS)
    return ostio__fail(OSTIO_EMPI, "cannot split the communicator into nodes");
  MPI_Allreduce(&fh->rank, &leader, 1, MPI_INT, MPI_MIN, node);
  MPI_Comm_free(&node);
  int *nodes = malloc((size_t)fh->nprocs * sizeof *nodes);
  char *names = calloc((size_t)fh->nprocs, MPI_MAX_PROCESSOR_NAME);
  const char **np = malloc((size_t)fh->nprocs * sizeof *np);
  fh->eligible = malloc((size_t)fh->nprocs * sizeof *fh->eligible);
  char me[MPI_MAX_PROCESSOR_NAME] = {0};
  MPI_Get_processor_name(me, &len);
  if (!nodes || !names || !np || !fh->eligible)
    rc = ostio__fail(OSTIO_ENOMEM, "open: no memory for %d ranks' node names", fh->nprocs);
  if ((rc = ostio__agree(fh->comm, rc)) == 0) {
    MPI_Allgather(&leader, 1, MPI_INT, nodes, 1, MPI_INT, fh->comm);
    MPI_Allgather(me, MPI_MAX_PROCESSOR_NAME, MPI_CHAR, names, MPI_MAX_PROCESSOR_NAME,
                  MPI_CHAR, fh->comm);
    for (int i = 0; i < fh->nprocs; i++) {
      np[i] = names + (size_t)i * MPI_MAX_PROCESSOR_NAME;
      fh->nnodes += nodes[i] == i; /* a node's leader is its lowest rank */
    }
    /* Without cb_config_list every rank may aggregate (see docs). */
    const char *list = ostio__hints_given(&fh->hints, "cb_config_list") ? fh->hints.cb_config_list : "";
    rc = ostio__aggr_eligible(fh->nprocs, nodes, np, list, fh->eligible, &fh->neligible);
  }
  free(nodes);
  free(names);
  free(np);
  return rc;
}

/* Collective: every rank must name the same file with the same amode, and
 * every rank uses rank 0's hints (the MPI standard asks for equal info; a
 * rank with another ostio_strategy or ostio_container would otherwise take
 * another collective path and hang). Different paths or amodes are an
 * agreed OSTIO_EINVAL. */
static int agree_args(MPI_Comm comm, ostio_file *fh)
{
  int rank = 0, rc = 0;
  MPI_Comm_rank(comm, &rank);
  uint64_t mine[2] = {ostio__fnv1a64(fh->path, strlen(fh->path)), (uint64_t)(unsigned)fh->amode};
  uint64_t root[2] = {mine[0], mine[1]};
  MPI_Bcast(root, 2, MPI_UINT64_T, 0, comm);
  if (root[0] != mine[0])
    rc = ostio__fail(OSTIO_EINVAL, "ostio_open: rank %d passed the path \"%s\", another than "
                     "rank 0's; every rank must open the same file", rank, fh->path);
  else if (root[1] != mine[1])
    rc = ostio__fail(OSTIO_EINVAL, "ostio_open: rank %d passed amode 0x%x, rank 0 0x%x; every "
                     "rank must pass the same amode", rank, (unsigned)mine[1], (unsigned)root[1]);
  if ((rc = ostio__agree(comm, rc)) < 0) return rc;
  MPI_Bcast(&fh->hints, (int)sizeof fh->hints, MPI_BYTE, 0, comm);
  return 0;
}

/* The engine's context (engine/engine.h), filled once the kind opened the
 * file and the io layer and the aggregator candidates are ready. Local; the
 * caller agrees on the outcome. */
static int engine_open(ostio_file *fh)
{
  fh->engine = (ostio__engine_ctx){
    .comm = fh->comm, .rank = fh->rank, .nprocs = fh->nprocs, .nnodes = fh->nnodes,
    .eligible = fh->eligible, .neligible = fh->neligible, .layout = fh->layout,
    .hints = &fh->hints, .io = &fh->io, .path = fh->path, .can_read = fh->can_read,
    .can_write = fh->can_write, .stats = &fh->stats, .last_strategy = &fh->last_strategy,
  };
  return ostio__engine_init(fh->nprocs, &fh->engine.scratch);
}

static int cache_start(ostio_file *fh);

/* The io layer's late_open (io.h): the kind opens the file on this rank at
 * its first I/O; then the io layer uses the descriptor (and O_DIRECT when
 * hinted, as an open that was not deferred would have). */
static int open_late(void *arg)
{
  ostio_file *fh = arg;
  int rc = fh->kind->late_open(fh);
  if (rc < 0) return rc;
  fh->deferred = 0;
  fh->io.fd = fh->fd;
  if (fh->hints.direct_read || fh->hints.direct_write)
    rc = ostio__io_enable_direct(&fh->io, fh->path, fh->hints.direct_read,
                                 fh->hints.direct_write);
  return rc;
}

/* The cache's way to the file: the kind's independent calls. */
static int backing_write(void *ctx, int64_t off, const void *buf, size_t len)
{
  ostio_file *fh = ctx;
  return fh->kind->write_at(fh, off, buf, len);
}

static int backing_read(void *ctx, int64_t off, void *buf, size_t len)
{
  ostio_file *fh = ctx;
  return fh->kind->read_at(fh, off, buf, len);
}

/* Collective. Only kinds whose writes every process sees at once: a log
 * container's logs are seen by others after ostio_sync, so a page written
 * back by one rank could not be read in by another (docs/cache.md). */
static int cache_open(ostio_file *fh)
{
  int rc = 0;
  if (fh->kind->coherent && fh->kind->write_at && fh->kind->read_at) rc = cache_start(fh);
  /* The same on every rank: hints and kind are agreed. */
  if (rc == 0 && fh->hints.ostio_atomic && !fh->cache)
    rc = ostio__fail(OSTIO_EHINT, "%s: hint ostio_atomic=true needs the cache: accepted with "
                     "ostio_cache=enable on a plain file or striped container (this file is "
                     "%s%s)", fh->path, fh->kind->name,
                     fh->hints.ostio_cache == OSTIO__TRI_ENABLE ? "" : ", ostio_cache is off");
  return rc;
}

/* 1 when the file system stops caching a file on every client as soon as a
 * second client opens it, so the cache writes back from one client only
 * (docs/cache.md, "One writing client"). Known today for CephFS, told by the
 * layout's source (src/layout/source_ceph.c); a predicate shared with other
 * parts of the library may replace this one. */
static int caching_ends_at_second_opener(const ostio_layout *l)
{
  return l && !strcmp(l->source, "ceph");
}

static int cache_start(ostio_file *fh)
{
  /* A write-only plain file is opened read-write for the cache when the
   * permissions allow (plain_file.c); objects are always read-write. */
  int fill = fh->can_read || (fh->deferred ? fh->home_rdwr
                               : fh->fd < 0 || (fcntl(fh->fd, F_GETFL) & O_ACCMODE) == O_RDWR);
  ostio__cache_file f = {
    .comm = fh->comm, .rank = fh->rank, .nprocs = fh->nprocs, .hints = &fh->hints,
    .layout = fh->layout, .eligible = fh->eligible, .neligible = fh->neligible,
    .backing = {.write = backing_write, .read = backing_read, .ctx = fh}, .stats = &fh->stats, .can_fill = fill,
    .one_client = caching_ends_at_second_opener(fh->layout) && fh->nnodes > 1, .home = fh->home,
  };
  return ostio__cache_open(&f, &fh->cache);
}

static void destroy(ostio_file *fh)
{
  if (!fh) return;
  ostio__io_fini(&fh->io);
  ostio__engine_fini(fh->engine.scratch);
  fh->engine.scratch = NULL;
  if (fh->kind && fh->kind->discard) fh->kind->discard(fh);
  if (fh->comm != MPI_COMM_NULL) MPI_Comm_free(&fh->comm);
  ostio__layout_destroy(fh->layout);
  free(fh->eligible);
  free(fh->path);
  free(fh);
}

int ostio_open(MPI_Comm comm, const char *path, int amode, MPI_Info info, ostio_file **out)
{
  if (!out) return ostio__fail(OSTIO_EINVAL, "ostio_open: NULL handle pointer");
  *out = NULL;
  if (comm == MPI_COMM_NULL) return ostio__fail(OSTIO_EINVAL, "ostio_open: MPI_COMM_NULL");
  ostio_file *fh = calloc(1, sizeof *fh);
  int rc = fh ? 0 : ostio__fail(OSTIO_ENOMEM, "ostio_open: out of memory");
  if (fh) {
    fh->fd = -1;
    fh->file_id = -1;
    fh->comm = MPI_COMM_NULL;
    fh->last_strategy = "none";
    fh->amode = amode;
  }
  if (rc == 0 && (!path || !*path)) rc = ostio__fail(OSTIO_EINVAL, "ostio_open: empty path");
  if (rc == 0) rc = ostio__check_amode(amode);
  if (rc == 0 && !(fh->path = strdup(path))) rc = ostio__fail(OSTIO_ENOMEM, "out of memory");
  if (rc == 0) rc = ostio__hints_resolve(path, info, &fh->hints);
  /* Before rank 0's hints replace ours, so a bad name fails where given. */
  if (rc == 0) rc = ostio__strategy_open(&fh->hints, &fh->stats);
  if ((rc = ostio__agree(comm, rc)) < 0) goto fail;
  if ((rc = agree_args(comm, fh)) < 0) goto fail;
  if (MPI_Comm_dup(comm, &fh->comm) != MPI_SUCCESS) {
    rc = ostio__fail(OSTIO_EMPI, "ostio_open: MPI_Comm_dup failed");
    goto fail;
  }
  MPI_Comm_rank(fh->comm, &fh->rank);
  MPI_Comm_size(fh->comm, &fh->nprocs);
  fh->can_read = !(amode & MPI_MODE_WRONLY);
  fh->can_write = !(amode & MPI_MODE_RDONLY);
  const ostio__kind_ops *made = kind_for_create(fh);
  if ((amode & MPI_MODE_CREATE) && made && made->prepare && (rc = made->prepare(fh)) < 0)
    goto fail;
  if (fh->rank == 0) rc = prepare_on_root(fh);
  if ((rc = ostio__agree(fh->comm, rc)) < 0) goto fail;
  if ((rc = share_kind(fh)) < 0) goto fail;
  /* Before the kind's open: a kind that defers opens on the first aggregator. */
  if ((rc = find_aggregators(fh)) < 0) goto fail;
  if ((rc = fh->kind->open(fh, info)) < 0) goto fail;
  rc = ostio__io_init(&fh->io, fh->fd, fh->rank, fh->layout, &fh->stats);
  if (rc == 0) rc = ostio__fault_check_ranks(&fh->io.fault, fh->nprocs);
  if (rc == 0 && fh->objtab.n > 0) rc = ostio__io_set_objects(&fh->io, &fh->objtab);
  if (rc == 0 && fh->deferred && !fh->kind->late_open)
    rc = ostio__fail(OSTIO_ENOTSUP, "%s: kind %s deferred its open but has no late_open",
                     fh->path, fh->kind->name);
  if (rc == 0 && fh->deferred) {
    fh->io.late_open = open_late;
    fh->io.late_arg = fh;
  } else if (rc == 0 && (fh->hints.direct_read || fh->hints.direct_write)) {
    /* O_DIRECT hints: the io layer opens the direct descriptor (src/io/direct.c). */
    rc = ostio__io_enable_direct(&fh->io, fh->path, fh->hints.direct_read,
                                 fh->hints.direct_write);
  }
  if (rc == 0) rc = engine_open(fh);
  if ((rc = ostio__agree(fh->comm, rc)) < 0) goto fail;
  if ((rc = cache_open(fh)) < 0) goto fail;
  *out = fh;
  return 0;
fail:
  destroy(fh);
  return rc;
}

int ostio_close(ostio_file **fhp)
{
  if (!fhp || !*fhp) return ostio__fail(OSTIO_EINVAL, "ostio_close: NULL handle");
  ostio_file *fh = *fhp;
  *fhp = NULL;
  /* Dirty pages first, so the statistics count their write-backs. */
  int rc0 = fh->cache ? ostio__cache_close(&fh->cache) : 0;
  /* A kind without a layout (log) reports none, named by the kind. */
  const ostio__comp none = {0}, *c0 = fh->layout ? &fh->layout->comp[0] : &none;
  char strat[32];
  ostio__hints_format(&fh->hints, ostio__hints_index("ostio_strategy"), strat, sizeof strat);
  ostio__stats_info info = {
    .path = fh->path, .nprocs = fh->nprocs, .stripe_count = c0->stripe_count,
    .stripe_size = c0->stripe_size, .ncomponents = fh->layout ? fh->layout->ncomp : 0,
    .layout_source = fh->layout ? fh->layout->source : fh->kind->name, .strategy = strat, .hints = &fh->hints,
  };
  ostio__io_fini(&fh->io);
  /* The kind's close first: a staged log container's final drain is part of
   * what the report shows (docs/staging.md). */
  int rc2 = fh->kind->close ? fh->kind->close(fh) : unsupported(fh, "close");
  int rc = ostio__stats_report(fh->comm, &fh->stats, &info, getenv("OSTIO_STATS"));
  int skipped = 0, pend = ostio__engine_resettle(&fh->engine, &skipped);
  if (rc == 0) rc = pend;
  if (rc0 < 0) rc = rc0;
  if (rc == 0) rc = rc2;
  rc = ostio__agree(fh->comm, rc);
  if (fh->amode & MPI_MODE_DELETE_ON_CLOSE) {
    rc2 = fh->kind->remove ? fh->kind->remove(fh) : ostio__agree(fh->comm, unsupported(fh, "delete on close"));
    if (rc == 0) rc = rc2;
  }
  destroy(fh);
  return rc;
}

static int check_indep(const ostio_file *fh, int is_write, int64_t off, const void *buf,
                       size_t len)
{
  if (!fh) return ostio__fail(OSTIO_EINVAL, "NULL file handle");
  int rc = ostio__check_access(fh->path, fh->can_read, fh->can_write, is_write, NULL);
  if (rc < 0) return rc;
  if (!buf && len > 0) return ostio__fail(OSTIO_EINVAL, "NULL buffer for %zu bytes", len);
  if (off < 0 || len > (uint64_t)INT64_MAX || (int64_t)len > INT64_MAX - off)
    return ostio__fail(OSTIO_EINVAL, "offset %lld, length %zu: the range must lie in "
                       "[0, 2^63 - 1]", (long long)off, len);
  return 0;
}

int ostio_write_at(ostio_file *fh, int64_t offset, const void *buf, size_t len)
{
  int rc = check_indep(fh, 1, offset, buf, len);
  if (rc < 0) return rc;
  ostio__stat_add(&fh->stats, OSTIO__STAT_indep_writes, 1);
  if (!len) return 0;
  if (fh->cache) rc = ostio__cache_write(fh->cache, offset, buf, len);
  else rc = fh->kind->write_at ? fh->kind->write_at(fh, offset, buf, len)
                               : unsupported(fh, "ostio_write_at");
  if (rc >= 0) ostio__stats_piece(&fh->stats, 1, offset, (int64_t)len);
  return rc;
}

/* piece: count the range as one application piece (ostio_read_at); the
 * interposer's sieve reads a window of several and counts those itself. */
int ostio__file_read_at(ostio_file *fh, int64_t offset, void *buf, size_t len, int piece)
{
  int rc = check_indep(fh, 0, offset, buf, len);
  if (rc < 0) return rc;
  ostio__stat_add(&fh->stats, OSTIO__STAT_indep_reads, 1);
  if (!len) return 0;
  if (fh->cache) rc = ostio__cache_read(fh->cache, offset, buf, len);
  else rc = fh->kind->read_at ? fh->kind->read_at(fh, offset, buf, len)
                              : unsupported(fh, "ostio_read_at");
  if (rc >= 0 && piece) ostio__stats_piece(&fh->stats, 0, offset, (int64_t)len);
  return rc;
}

int ostio_read_at(ostio_file *fh, int64_t offset, void *buf, size_t len)
{
  return ostio__file_read_at(fh, offset, buf, len, 1);
}

int ostio_sync(ostio_file *fh)
{
  if (!fh) return ostio__fail(OSTIO_EINVAL, "ostio_sync: NULL handle");
  if (!fh->kind->sync) return ostio__agree(fh->comm, unsupported(fh, "ostio_sync"));
  /* A settled handle's skipped calls report their errors here (docs/errors.md). */
  int skipped = 0, rc0 = ostio__engine_resettle(&fh->engine, &skipped);
  if (skipped) rc0 = ostio__agree(fh->comm, rc0);
  int rc = fh->cache ? ostio__cache_flush(fh->cache, 0) : 0;
  int rc2 = fh->kind->sync(fh);
  return rc0 < 0 ? rc0 : rc < 0 ? rc : rc2;
}

int ostio_get_size(ostio_file *fh, int64_t *size)
{
  if (!fh || !size) return ostio__fail(OSTIO_EINVAL, "ostio_get_size: NULL argument");
  if (!fh->kind->size) return unsupported(fh, "ostio_get_size");
  int rc = fh->kind->size(fh, size);
  /* The rank's own cached writes count at once (MPI: its own writes are
   * visible to it); other ranks' after sync, when they are written back. */
  if (rc == 0 && fh->cache && ostio__cache_local_end(fh->cache) > *size)
    *size = ostio__cache_local_end(fh->cache);
  return rc;
}

int ostio_set_size(ostio_file *fh, int64_t size)
{
  if (!fh) return ostio__fail(OSTIO_EINVAL, "ostio_set_size: NULL handle");
  int rc = 0;
  if (size < 0) rc = ostio__fail(OSTIO_EINVAL, "ostio_set_size: size %lld < 0", (long long)size);
  else rc = ostio__check_access(fh->path, fh->can_read, fh->can_write, 1, "resize");
  if (rc == 0 && !fh->kind->set_size) rc = unsupported(fh, "ostio_set_size");
  int skipped = 0, pend = ostio__engine_resettle(&fh->engine, &skipped);
  if (rc == 0) rc = pend;
  /* Every rank must agree on the size: a rank with another value is an error. */
  int64_t mm[2] = {size, -size}, out[2];
  if (MPI_Allreduce(mm, out, 2, MPI_INT64_T, MPI_MIN, fh->comm) != MPI_SUCCESS)
    rc = ostio__fail(OSTIO_EMPI, "ostio_set_size: MPI_Allreduce failed");
  else if (rc == 0 && out[0] != -out[1])
    rc = ostio__fail(OSTIO_EINVAL, "ostio_set_size: ranks passed different sizes (%lld .. %lld)",
                     (long long)out[0], (long long)-out[1]);
  if ((rc = ostio__agree(fh->comm, rc)) < 0) return rc;
  /* Cached bytes reach the file first and leave the cache: the resize is
   * then the kind's alone (agreed: the flush's outcome is). */
  if (fh->cache && (rc = ostio__cache_flush(fh->cache, 1)) < 0) return rc;
  return fh->kind->set_size(fh, size);
}

/* The collective calls: each kind's own (the engine for plain and striped);
 * the application's pieces are counted when the call succeeded. */
static int write_all(ostio_file *fh, const ostio_extent *ext, size_t n, const void *buf)
{
  if (!fh) return ostio__fail(OSTIO_EINVAL, "NULL file handle");
  if (!fh->kind->write_all) return ostio__agree(fh->comm, unsupported(fh, "ostio_write_all"));
  int rc = 0, served = 0;
  if (fh->cache && fh->can_write) {
    /* Small extents: written behind through the cache. */
    rc = ostio__cache_coll(fh->cache, 1, ext, n, (void *)buf, &served);
    if (served) fh->last_strategy = "cache";
    if (rc < 0 || served) return rc;
    /* The engine writes around the cache: written back and emptied first,
     * so no cached page is older than the file. */
    if ((rc = ostio__cache_flush(fh->cache, 1)) < 0) return rc;
  }
  return fh->kind->write_all(fh, ext, n, buf);
}

static int read_all(ostio_file *fh, const ostio_extent *ext, size_t n, void *buf)
{
  if (!fh) return ostio__fail(OSTIO_EINVAL, "NULL file handle");
  if (!fh->kind->read_all) return ostio__agree(fh->comm, unsupported(fh, "ostio_read_all"));
  int rc = 0, served = 0;
  if (fh->cache && fh->can_read) {
    rc = ostio__cache_coll(fh->cache, 0, ext, n, buf, &served);
    if (served) fh->last_strategy = "cache";
    if (rc < 0 || served) return rc;
    /* The engine reads the file: cached writes reach it first. */
    if ((rc = ostio__cache_flush(fh->cache, 0)) < 0) return rc;
  }
  return fh->kind->read_all(fh, ext, n, buf);
}

int ostio_write_all(ostio_file *fh, const ostio_extent *ext, size_t n, const void *buf)
{
  int rc = write_all(fh, ext, n, buf);
  if (rc >= 0) ostio__stats_pieces(&fh->stats, 1, ext, n);
  return rc;
}

int ostio_read_all(ostio_file *fh, const ostio_extent *ext, size_t n, void *buf)
{
  int rc = read_all(fh, ext, n, buf);
  if (rc >= 0) ostio__stats_pieces(&fh->stats, 0, ext, n);
  return rc;
}

int ostio__file_engine_write_all(ostio_file *fh, const ostio_extent *ext, size_t n,
                                 const void *buf)
{
  return ostio__engine_coll(&fh->engine, 1, ext, n, (void *)buf);
}

int ostio__file_engine_read_all(ostio_file *fh, const ostio_extent *ext, size_t n, void *buf)
{
  return ostio__engine_coll(&fh->engine, 0, ext, n, buf);
}

int ostio__file_coll_checked(ostio_file *fh, int local_rc, int is_write,
                             const ostio_extent *ext, size_t n, void *buf)
{
  if (!fh) return ostio__fail(OSTIO_EINVAL, "NULL file handle");
  int by_engine = !fh->cache && (is_write ? fh->kind->write_all == ostio__file_engine_write_all
                                          : fh->kind->read_all == ostio__file_engine_read_all);
  if (by_engine) {
    int rc = ostio__engine_coll_checked(&fh->engine, local_rc, is_write, ext, n, buf);
    if (rc >= 0) ostio__stats_pieces(&fh->stats, is_write, ext, n);
    return rc;
  }
  int rc = ostio__agree(fh->comm, local_rc);
  if (rc < 0) return rc;
  return is_write ? ostio_write_all(fh, ext, n, buf) : ostio_read_all(fh, ext, n, buf);
}

const ostio_layout *ostio_file_layout(const ostio_file *fh) { return fh ? fh->layout : NULL; }

const char *ostio_file_strategy(const ostio_file *fh) { return fh ? fh->last_strategy : "none"; }

int ostio_stat_get(const ostio_file *fh, const char *name, double *value)
{
  if (!fh || !name || !value) return ostio__fail(OSTIO_EINVAL, "ostio_stat_get: NULL argument");
  return ostio__stats_get(&fh->stats, name, value);
}
