/* Opening, closing and the small calls on an open file. The collective
 * reads and writes are in engine/coll.c. */
#include "file/file.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/agree.h"
#include "container/container.h"
#include "core/error.h"
#include "file/file_log.h"
#include "layout/source.h"
#include "plan/aggr.h"

static int check_amode(int amode)
{
  int access = amode & (MPI_MODE_RDONLY | MPI_MODE_WRONLY | MPI_MODE_RDWR);
  if (access != MPI_MODE_RDONLY && access != MPI_MODE_WRONLY && access != MPI_MODE_RDWR)
    return ostio__fail(OSTIO_EINVAL, "amode 0x%x: give exactly one of MPI_MODE_RDONLY, "
                       "MPI_MODE_WRONLY, MPI_MODE_RDWR", (unsigned)amode);
  if (access == MPI_MODE_RDONLY && (amode & (MPI_MODE_CREATE | MPI_MODE_EXCL)))
    return ostio__fail(OSTIO_EINVAL, "amode: MPI_MODE_RDONLY cannot be combined with "
                       "MPI_MODE_CREATE or MPI_MODE_EXCL");
  if (amode & MPI_MODE_SEQUENTIAL)
    return ostio__fail(OSTIO_ENOTSUP, "amode: MPI_MODE_SEQUENTIAL is not supported; ostio "
                       "calls take explicit offsets");
  return 0;
}

/* Rank 0 only: finds out whether path is a striped container and makes the
 * file or container when MPI_MODE_CREATE says so. The hint ostio_container
 * applies at creation only: an existing plain file stays one. */
static int prepare_on_root(ostio_file *fh)
{
  struct stat st;
  int create = !!(fh->amode & MPI_MODE_CREATE);
  if (stat(fh->path, &st) == 0) {
    if (S_ISFIFO(st.st_mode) || S_ISSOCK(st.st_mode))
      return ostio__fail(OSTIO_EINVAL, "%s is a %s; ostio opens regular files, devices and "
                         "containers", fh->path, S_ISFIFO(st.st_mode) ? "FIFO" : "socket");
    fh->is_container = ostio__ctr_is_container(fh->path);
    int kind = 0;
    if (fh->is_container) {
      int rc = ostio__ctr_kind_of(fh->path, &kind);
      if (rc < 0) return rc;
      if (kind == OSTIO__CTR_KIND_LOG) fh->is_container = 2;
    }
    if (create && (fh->amode & MPI_MODE_EXCL))
      return ostio__fail(OSTIO_EEXIST, "%s exists and MPI_MODE_EXCL was given", fh->path);
    if (S_ISDIR(st.st_mode) && !fh->is_container)
      return ostio__fail(OSTIO_EISDIR, "%s is a directory (not a container: no %s inside)",
                         fh->path, OSTIO__CTR_MANIFEST);
    return 0;
  }
  if (errno != ENOENT)
    return ostio__fail(ostio__from_errno(errno), "%s: %s", fh->path, strerror(errno));
  if (!create) return 0; /* every rank's open says ENOENT */
  if (fh->hints.ostio_container == OSTIO__CONTAINER_STRIPED) {
    fh->is_container = 1;
    return ostio__file_ctr_create(fh);
  }
  if (fh->hints.ostio_container == OSTIO__CONTAINER_LOG) {
    fh->is_container = 2;
    return ostio__file_log_create(fh);
  }
  return ostio__layout_create(fh->path, &fh->hints, NULL, 0666, NULL);
}

static int open_fd(ostio_file *fh)
{
  int flags = fh->can_read && fh->can_write ? O_RDWR : fh->can_write ? O_WRONLY : O_RDONLY;
  /* Read-modify-write needs to read a write-only file. */
  fh->fd = -1;
  if (flags == O_WRONLY && fh->hints.romio_ds_write == OSTIO__TRI_ENABLE)
    fh->fd = open(fh->path, O_RDWR | O_CLOEXEC | O_NONBLOCK);
  /* O_NONBLOCK: a FIFO put in the file's place after rank 0 looked must not
   * block this open; it is refused below, and dropped for everything else. */
  if (fh->fd < 0) fh->fd = open(fh->path, flags | O_CLOEXEC | O_NONBLOCK);
  if (fh->fd < 0)
    return ostio__fail(ostio__from_errno(errno), "open %s: %s", fh->path, strerror(errno));
  struct stat st;
  if (fstat(fh->fd, &st) < 0)
    return ostio__fail(ostio__from_errno(errno), "fstat %s: %s", fh->path, strerror(errno));
  if (S_ISDIR(st.st_mode))
    return ostio__fail(OSTIO_EISDIR, "%s is a directory", fh->path);
  if (S_ISFIFO(st.st_mode) || S_ISSOCK(st.st_mode))
    return ostio__fail(OSTIO_EINVAL, "%s is a FIFO or socket; ostio opens regular files, "
                       "devices and containers", fh->path);
  fcntl(fh->fd, F_SETFL, fcntl(fh->fd, F_GETFL) & ~O_NONBLOCK);
  return 0;
}

/* Collective: the aggregator candidates, spread over nodes. */
static int find_aggregators(ostio_file *fh)
{
  MPI_Comm node;
  int leader = fh->rank, rc = 0, len = 0;
  if (MPI_Comm_split_type(fh->comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node) != MPI_SUCCESS)
    return ostio__fail(OSTIO_EMPI, "MPI_Comm_split_type failed");
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

static void destroy(ostio_file *fh)
{
  if (!fh) return;
  ostio__io_fini(&fh->io);
  ostio__coll_fini(fh);
  if (fh->fd >= 0) close(fh->fd);
  ostio__ctr_close(&fh->ctr, 0);
  ostio__file_log_free(fh);
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
    fh->comm = MPI_COMM_NULL;
    fh->last_strategy = "none";
    fh->amode = amode;
  }
  if (rc == 0 && (!path || !*path)) rc = ostio__fail(OSTIO_EINVAL, "ostio_open: empty path");
  if (rc == 0) rc = check_amode(amode);
  if (rc == 0 && !(fh->path = strdup(path))) rc = ostio__fail(OSTIO_ENOMEM, "out of memory");
  if (rc == 0) rc = ostio__hints_resolve(path, info, &fh->hints);
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
  if (fh->hints.ostio_container == OSTIO__CONTAINER_LOG && (amode & MPI_MODE_CREATE)) {
    /* hostdirs of a new log container: ceil(sqrt(nodes)) (docs/containers.md). */
    MPI_Comm node; /* the nodes writers=node uses (file_log_node.c) */
    int leader = 0, me_leader;
    if (ostio__log_node_comm(fh->comm, &node) == 0) {
      MPI_Comm_rank(node, &leader);
      MPI_Comm_free(&node);
    }
    me_leader = leader == 0;
    MPI_Allreduce(&me_leader, &fh->log_nodes, 1, MPI_INT, MPI_SUM, fh->comm);
  }
  if (fh->rank == 0) rc = prepare_on_root(fh);
  if ((rc = ostio__agree(fh->comm, rc)) < 0) goto fail;
  MPI_Bcast(&fh->is_container, 1, MPI_INT, 0, fh->comm);
  if (fh->is_container == 2) {
    if ((rc = ostio__file_log_open(fh)) < 0) goto fail;
  } else if (fh->is_container) {
    if ((rc = ostio__file_ctr_open(fh)) < 0) goto fail;
  } else {
    rc = open_fd(fh);
    if ((rc = ostio__agree(fh->comm, rc)) < 0) goto fail;
    if ((rc = ostio_layout_query(fh->comm, path, info, &fh->layout)) < 0) goto fail;
  }
  if ((rc = find_aggregators(fh)) < 0) goto fail;
  rc = ostio__io_init(&fh->io, fh->fd, fh->rank, fh->layout, &fh->stats);
  if (rc == 0) rc = ostio__fault_check_ranks(&fh->io.fault, fh->nprocs);
  if (rc == 0 && fh->ctr) rc = ostio__io_set_objects(&fh->io, &fh->objtab);
  if (rc == 0) rc = ostio__coll_init(fh);
  if ((rc = ostio__agree(fh->comm, rc)) < 0) goto fail;
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
  const ostio__comp *c0 = &fh->layout->comp[0];
  char strat[32];
  ostio__hints_format(&fh->hints, ostio__hints_index("ostio_strategy"), strat, sizeof strat);
  ostio__stats_info info = {
    .path = fh->path, .nprocs = fh->nprocs, .stripe_count = c0->stripe_count,
    .stripe_size = c0->stripe_size, .ncomponents = fh->layout->ncomp,
    .layout_source = fh->layout->source, .strategy = strat, .hints = &fh->hints,
  };
  int rc = ostio__stats_report(fh->comm, &fh->stats, &info, getenv("OSTIO_STATS"));
  int rc2 = 0;
  ostio__io_fini(&fh->io);
  if (fh->log)
    rc2 = ostio__file_log_close(fh);
  else if (fh->is_container)
    rc2 = ostio__file_ctr_close(fh);
  else if (close(fh->fd) < 0)
    rc2 = ostio__fail(ostio__from_errno(errno), "close %s: %s", fh->path, strerror(errno));
  fh->fd = -1;
  if (rc == 0) rc = rc2;
  rc = ostio__agree(fh->comm, rc);
  if ((fh->amode & MPI_MODE_DELETE_ON_CLOSE) && fh->is_container) {
    rc2 = ostio__file_ctr_delete(fh);
    if (rc == 0) rc = rc2;
  } else if ((fh->amode & MPI_MODE_DELETE_ON_CLOSE)) {
    rc2 = 0;
    if (fh->rank == 0 && unlink(fh->path) < 0)
      rc2 = ostio__fail(ostio__from_errno(errno), "delete on close %s: %s", fh->path,
                        strerror(errno));
    rc2 = ostio__agree(fh->comm, rc2);
    if (rc == 0) rc = rc2;
  }
  destroy(fh);
  return rc;
}

static int check_indep(const ostio_file *fh, int is_write, int64_t off, const void *buf,
                       size_t len)
{
  if (!fh) return ostio__fail(OSTIO_EINVAL, "NULL file handle");
  if (is_write && !fh->can_write)
    return ostio__fail(OSTIO_EACCES, "%s was opened MPI_MODE_RDONLY; cannot write", fh->path);
  if (!is_write && !fh->can_read)
    return ostio__fail(OSTIO_EACCES, "%s was opened MPI_MODE_WRONLY; cannot read", fh->path);
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
  if (fh->log) return len ? ostio__file_log_write_at(fh, offset, buf, len) : 0;
  return len ? ostio__io_pwrite(&fh->io, buf, len, offset) : 0;
}

int ostio_read_at(ostio_file *fh, int64_t offset, void *buf, size_t len)
{
  int rc = check_indep(fh, 0, offset, buf, len);
  if (rc < 0) return rc;
  ostio__stat_add(&fh->stats, OSTIO__STAT_indep_reads, 1);
  if (fh->log) return len ? ostio__file_log_read_at(fh, offset, buf, len) : 0;
  return len ? ostio__io_pread(&fh->io, buf, len, offset) : 0;
}

int ostio_sync(ostio_file *fh)
{
  if (!fh) return ostio__fail(OSTIO_EINVAL, "ostio_sync: NULL handle");
  int rc = 0;
  if (fh->log) return ostio__file_log_sync(fh);
  if (fh->ctr) rc = ostio__file_ctr_sync(fh);
  else if (fsync(fh->fd) < 0)
    rc = ostio__fail(ostio__from_errno(errno), "fsync %s: %s", fh->path, strerror(errno));
  return ostio__agree(fh->comm, rc);
}

int ostio_get_size(ostio_file *fh, int64_t *size)
{
  struct stat st;
  if (!fh || !size) return ostio__fail(OSTIO_EINVAL, "ostio_get_size: NULL argument");
  if (fh->ctr) return ostio__file_ctr_size(fh, size);
  if (fh->log) return ostio__file_log_size(fh, size);
  if (fstat(fh->fd, &st) < 0)
    return ostio__fail(ostio__from_errno(errno), "fstat %s: %s", fh->path, strerror(errno));
  *size = (int64_t)st.st_size;
  return 0;
}

int ostio_set_size(ostio_file *fh, int64_t size)
{
  if (!fh) return ostio__fail(OSTIO_EINVAL, "ostio_set_size: NULL handle");
  int rc = 0;
  if (size < 0) rc = ostio__fail(OSTIO_EINVAL, "ostio_set_size: size %lld < 0", (long long)size);
  else if (!fh->can_write)
    rc = ostio__fail(OSTIO_EACCES, "%s was opened MPI_MODE_RDONLY; cannot resize", fh->path);
  /* Every rank must agree on the size: a rank with another value is an error. */
  int64_t mm[2] = {size, -size}, out[2];
  if (MPI_Allreduce(mm, out, 2, MPI_INT64_T, MPI_MIN, fh->comm) != MPI_SUCCESS)
    rc = ostio__fail(OSTIO_EMPI, "ostio_set_size: MPI_Allreduce failed");
  else if (rc == 0 && out[0] != -out[1])
    rc = ostio__fail(OSTIO_EINVAL, "ostio_set_size: ranks passed different sizes (%lld .. %lld)",
                     (long long)out[0], (long long)-out[1]);
  if (fh->log) return ostio__file_log_set_size(fh, size, rc);
  if (rc == 0 && fh->rank == 0 && fh->ctr) rc = ostio__file_ctr_set_size(fh, size);
  else if (rc == 0 && fh->rank == 0 && ftruncate(fh->fd, (off_t)size) < 0)
    rc = ostio__fail(ostio__from_errno(errno), "ftruncate %s to %lld: %s", fh->path,
                     (long long)size, strerror(errno));
  return ostio__agree(fh->comm, rc);
}

/* The collective calls: log containers here, everything else in the engine. */
int ostio_write_all(ostio_file *fh, const ostio_extent *ext, size_t n, const void *buf)
{
  if (fh && fh->log) return ostio__file_log_coll(fh, 1, ext, n, (void *)buf);
  return ostio__engine_write_all(fh, ext, n, buf);
}

int ostio_read_all(ostio_file *fh, const ostio_extent *ext, size_t n, void *buf)
{
  if (fh && fh->log) return ostio__file_log_coll(fh, 0, ext, n, buf);
  return ostio__engine_read_all(fh, ext, n, buf);
}

const ostio_layout *ostio_file_layout(const ostio_file *fh) { return fh ? fh->layout : NULL; }

const char *ostio_file_strategy(const ostio_file *fh) { return fh ? fh->last_strategy : "none"; }

int ostio_stat_get(const ostio_file *fh, const char *name, double *value)
{
  if (!fh || !name || !value) return ostio__fail(OSTIO_EINVAL, "ostio_stat_get: NULL argument");
  return ostio__stats_get(&fh->stats, name, value);
}
