/* An open file that is a log container: the MPI side of src/container/log/log.h.
 * Each rank appends its own data to its own data log, for write_at and for
 * write_all alike (no data exchange); reads merge the index: at open each
 * rank loads a share of the index logs and an Allgatherv gives every rank
 * the same record list; later collective calls share only the records
 * written since. Every collective call advances the handle's seq (each
 * record's ordering key) on entry, to one agreed above every seq its ranks'
 * processes issued or saw (log_clock.c: other handles of the same container
 * too), and on exit, so writes before, inside and after a collective call
 * are ordered; an independent write goes above what another handle of its
 * process wrote since. Errors are agreed with ostio__agree.
 * With writers=node, write_all instead funnels each node's bytes through
 * the node's leader (log/log_file_node.c); write_at stays on the rank's logs.
 * See docs/containers.md, "Log containers". */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "container/log/log.h"
#include "core/access.h"
#include "core/agree.h"
#include "core/error.h"
#include "file/file.h"
#include "container/log/log_file.h"
#include "file/kind.h"
#include "layout/source.h"

struct ostio__loghandle {
  ostio__logdir *d;
  ostio__logw w;
  int writable, readable;
  uint32_t session;        /* names this job's logs (data.SESSION.RANK)       */
  uint64_t cur;            /* the seq of this rank's writes now              */
  ostio__logclock *clk;    /* the process's clock of this container          */
  ostio__logmap map;       /* readable handles: every record so far          */
  ostio__logres res;
  size_t own_added;        /* w.fresh entries already in the map             */
  int64_t size_base;       /* size at open or the last set_size              */
  int64_t local_end;       /* end of this rank's writes since then           */
  int32_t own_src;         /* this rank's data log in d->src (-1: read-only)  */
  MPI_Datatype ent_type;
  MPI_Comm node;           /* writers=node, writable: the node's ranks      */
  ostio__logstage *stage;  /* ostio_stage_dir: node-local staging, else NULL */
  int *counts, *displs;    /* per rank, allocated at open (agreed)          */
};

/* ---- sharing records ----------------------------------------------------------------- */

/* Seqs read from the container or other ranks raise the process's clock. A
 * seq in the block of a session that does not exist (above every session
 * listed) is damage or forged: it must not push this process's writes out
 * of their block (they would then stop at OSTIO_ERANGE). */
static void saw(struct ostio__loghandle *L, const ostio__logent *e, size_t n)
{
  uint64_t top = 0, cap = L->d->max_session > L->session ? L->d->max_session : L->session;
  for (size_t i = 0; i < n; i++)
    if (e[i].r.seq > top && e[i].r.seq >> 32 <= cap) top = e[i].r.seq;
  if (L->clk && top) ostio__log_clock_saw(L->clk, top);
}

/* Allgatherv of every rank's entries; others' are added to the map (own
 * ones when add_own). Collective; the outcome is agreed. */
static int gather(ostio_file *fh, const ostio__logent *mine, size_t n, int add_own)
{
  struct ostio__loghandle *L = fh->kind_data;
  int P = fh->nprocs, rc = 0, cnt = n > INT32_MAX ? -1 : (int)n;
  int *counts = L->counts, *displs = L->displs;
  ostio__logent *all = NULL;
  if (cnt < 0) rc = ostio__fail(OSTIO_ERANGE, "%zu index records on one rank; at most 2^31", n);
  MPI_Allgather(&cnt, 1, MPI_INT, counts, 1, MPI_INT, fh->comm);
  int64_t total = 0;
  for (int r = 0; r < P; r++) {
    if (counts[r] < 0) rc = rc ? rc : ostio__fail(OSTIO_ERANGE, "rank %d: too many records", r);
    else displs[r] = (int)total, total += counts[r];
  }
  if (rc == 0 && total > INT32_MAX) rc = ostio__fail(OSTIO_ERANGE, "%lld index records in all",
                                                     (long long)total);
  /* Nobody has a new record (every rank sees the same counts): nothing to
   * exchange or agree on -- a collective read's refresh then costs one
   * Allgather, not four collectives. */
  if (total == 0 && !add_own) return rc;
  if (rc == 0 && !(all = malloc((size_t)(total + 1) * sizeof *all)))
    rc = ostio__fail(OSTIO_ENOMEM, "no memory for %lld index records", (long long)total);
  if ((rc = ostio__agree(fh->comm, rc)) == 0) {
    if (MPI_Allgatherv(mine, cnt, L->ent_type, all, counts, displs, L->ent_type, fh->comm) !=
        MPI_SUCCESS)
      rc = ostio__fail(OSTIO_EMPI, "MPI_Allgatherv of index records failed");
    if (rc == 0) saw(L, all, (size_t)total);
    if (rc == 0 && add_own) { /* at open: the gathered array becomes the map's */
      rc = ostio__logmap_adopt(&L->map, all, (size_t)total, (size_t)total + 1);
      all = NULL;
    }
    for (int r = 0; rc == 0 && !add_own && r < P; r++)
      if (r != fh->rank) rc = ostio__logmap_add(&L->map, all + displs[r], (size_t)counts[r]);
    rc = ostio__agree(fh->comm, rc);
  }
  free(all);
  return rc;
}

/* Own records appended since the last call go into the map. */
static int own_to_map(struct ostio__loghandle *L)
{
  ostio__logw *w = &L->w;
  for (size_t i = L->own_added; i < w->nfresh; i++) w->fresh[i].src = L->own_src;
  int rc = 0;
  if (L->readable && w->nfresh > L->own_added)
    rc = ostio__logmap_add(&L->map, w->fresh + L->own_added, w->nfresh - L->own_added);
  L->own_added = w->nfresh;
  if (!L->readable) w->nfresh = L->own_added = 0; /* nobody needs them */
  return rc;
}

/* Collective on readable handles: everyone's records since the last refresh. */
static int refresh(ostio_file *fh)
{
  struct ostio__loghandle *L = fh->kind_data;
  int rc = L->w.dfd >= 0 ? ostio__logw_flush(&L->w) : 0;
  if (rc == 0) rc = own_to_map(L);
  if ((rc = ostio__agree(fh->comm, rc)) < 0) return rc;
  rc = gather(fh, L->w.fresh, L->w.nfresh, 0);
  L->w.nfresh = L->own_added = 0;
  return rc;
}

/* The entry of a collective event: the outcome and the handle's next seq
 * agreed in one Allreduce (log/log_file_seq.c). */
static int advance(ostio_file *fh, int rc)
{
  struct ostio__loghandle *L = fh->kind_data;
  return ostio__log_advance(fh->comm, fh->rank, L->clk, L, L->writable, &L->cur, rc);
}

/* The exit of a collective event: every rank holds the same seq, so this
 * succeeds or fails on all ranks alike (no agreement needed). */
static int step(ostio_file *fh)
{
  struct ostio__loghandle *L = fh->kind_data;
  if (!L->writable) return 0;
  int rc = ostio__log_clock_next(L->cur, &L->cur);
  if (rc == 0 && L->clk) ostio__log_clock_took(L->clk, L, L->cur);
  return rc;
}

static uint64_t seq(const struct ostio__loghandle *L) { return L->cur; }

/* ---- open ---------------------------------------------------------------------------- */

/* Rank 0's listing to every rank: manifest text, src table, compact flag. */
static int share_listing(ostio_file *fh, int rc, ostio__sizerec *rec, int *have_rec)
{
  struct ostio__loghandle *L = fh->kind_data;
  char *text = NULL;
  size_t len = 0;
  int64_t hdr[6] = {0};
  if (fh->rank == 0 && rc == 0) {
    rc = ostio__manifest_format(&L->d->m, &text, &len);
    /* A missing, damaged or stale record is no record: the size is derived
     * from the indexes. A clean one is trusted only while its fingerprint
     * matches the index logs just listed (logsize.c). */
    *have_rec = rc == 0 && ostio__sizerec_read(L->d->dirfd, fh->path, rec) == 0;
    if (*have_rec && rec->clean && !ostio__log_rec_trusted(L->d, rec)) rec->clean = 0;
    ostio__clear_error();
    hdr[0] = (int64_t)len, hdr[1] = (int64_t)L->d->nsrc, hdr[2] = L->d->compact,
    hdr[3] = L->d->max_session, hdr[4] = *have_rec ? 1 + rec->clean : 0, hdr[5] = rec->size;
  }
  if ((rc = ostio__agree(fh->comm, rc)) < 0) goto done;
  MPI_Bcast(hdr, 6, MPI_INT64_T, 0, fh->comm);
  if (fh->rank != 0 && !(text = malloc((size_t)hdr[0] + 1)))
    rc = ostio__fail(OSTIO_ENOMEM, "out of memory");
  if ((rc = ostio__agree(fh->comm, rc)) < 0) goto done;
  MPI_Bcast(text, (int)hdr[0], MPI_CHAR, 0, fh->comm);
  if (fh->rank != 0) {
    rc = ostio__log_open(fh->path, text, (size_t)hdr[0], &L->d);
    /* Room for the table (placeholder entries in order), filled by the Bcast. */
    for (int64_t i = 0; rc == 0 && i < hdr[1]; i++) {
      int at = ostio__log_src_add(L->d, 0, (uint32_t)i, 0);
      if (at < 0) rc = at;
    }
    if (rc == 0) {
      L->d->compact = (int)hdr[2];
      L->d->max_session = (uint32_t)hdr[3];
    }
    *have_rec = hdr[4] > 0;
    rec->clean = hdr[4] == 2;
    rec->size = hdr[5];
  }
  if ((rc = ostio__agree(fh->comm, rc)) < 0) goto done;
  if (hdr[1] > 0)
    MPI_Bcast(L->d->src, (int)(hdr[1] * (int64_t)sizeof(ostio__logsrc)), MPI_BYTE, 0, fh->comm);
done:
  free(text);
  return rc;
}

static int log_open(ostio_file *fh, MPI_Info info)
{
  (void)info;
  struct ostio__loghandle *L = calloc(1, sizeof *L);
  int *cd = malloc(2 * (size_t)fh->nprocs * sizeof *cd);
  int rc = L && cd ? 0 : ostio__fail(OSTIO_ENOMEM, "out of memory");
  if ((rc = ostio__agree(fh->comm, rc)) < 0) {
    free(L);
    free(cd);
    return rc;
  }
  fh->kind_data = L;
  ostio__logw_init(&L->w, NULL, 0, 0, 0); /* no fds yet: a failed open closes none */
  L->counts = cd;
  L->displs = cd + fh->nprocs;
  ostio__logmap_init(&L->map);
  L->ent_type = MPI_DATATYPE_NULL;
  L->node = MPI_COMM_NULL;
  L->own_src = -1;
  L->writable = fh->can_write;
  L->readable = fh->can_read;
  MPI_Type_contiguous((int)sizeof(ostio__logent), MPI_BYTE, &L->ent_type);
  MPI_Type_commit(&L->ent_type);
  if (fh->rank == 0) {
    rc = ostio__log_open(fh->path, NULL, 0, &L->d);
    if (rc == 0) rc = ostio__log_scan(L->d);
  }
  ostio__sizerec rec = {.clean = 0, .size = 0};
  int have_rec = 0;
  if ((rc = share_listing(fh, rc, &rec, &have_rec)) < 0) return rc;
  /* The process's clock of this container, shared with its other handles. */
  if ((rc = ostio__agree(fh->comm, ostio__log_clock_get(L->d->dirfd, fh->path, &L->clk))) < 0)
    return rc;
  /* writers=node: write_all funnels through the node's leader (log/log_file_node.c). */
  if (L->writable && L->d->m.writers == OSTIO__LOG_WRITERS_NODE &&
      (rc = ostio__agree(fh->comm, ostio__log_node_comm(fh->comm, &L->node))) < 0)
    return rc;
  ostio__logw_init(&L->w, L->d, 0, (uint32_t)fh->rank, 0);
  if (L->writable) {
    char host[256] = "localhost";
    gethostname(host, sizeof host - 1);
    int32_t hd = ostio__log_hostdir_of(host, L->d->m.hostdirs);
    int32_t *all = malloc((size_t)fh->nprocs * sizeof *all);
    rc = all ? 0 : ostio__fail(OSTIO_ENOMEM, "out of memory");
    /* Rank 0 claims the job's session by creating its writer 0 (O_EXCL):
     * another job or a preloaded process writing at the same time takes
     * another session, so no two writers share a name (docs/containers.md). */
    uint32_t session = L->d->max_session;
    if (rc == 0 && (uint32_t)fh->nprocs > OSTIO__LOG_PROCESS_WRITERS)
      rc = ostio__fail(OSTIO_ERANGE, "%s: %d ranks; a log container takes at most %u writer "
                       "ranks per job", fh->path, fh->nprocs, OSTIO__LOG_PROCESS_WRITERS);
    if (rc == 0 && fh->rank == 0) rc = ostio__log_claim_session(L->d, &L->w, hd, &session);
    if ((rc = ostio__agree(fh->comm, rc)) < 0) {
      free(all);
      return rc;
    }
    MPI_Bcast(&session, 1, MPI_UINT32_T, 0, fh->comm);
    MPI_Allgather(&hd, 1, MPI_INT32_T, all, 1, MPI_INT32_T, fh->comm);
    L->session = session;
    for (int r = 0; r < fh->nprocs && rc >= 0; r++)
      rc = ostio__log_src_add(L->d, L->session, (uint32_t)r, all[r]);
    free(all);
    if ((rc = ostio__agree(fh->comm, rc < 0 ? rc : 0)) < 0) return rc;
    L->own_src = ostio__log_src_find(L->d, L->session, (uint32_t)fh->rank);
    if (fh->rank != 0) ostio__logw_init(&L->w, L->d, L->session, (uint32_t)fh->rank, hd);
    if ((rc = ostio__logstage_open(fh, L->d, L->session, &L->w, hd, &L->stage)) < 0) return rc;
  }
  /* The map: each rank loads a share of the index logs (rank 0 also a current
   * index.compact), then every rank gets all of them. */
  L->size_base = rec.size;
  if (L->readable || !have_rec || !rec.clean) {
    ostio__logent *e = NULL;
    size_t n = 0, cap = 0, k = 0;
    ostio__logload st = {0};
    if (fh->rank == 0) rc = ostio__log_load_compact(L->d, &e, &n, &cap, &st);
    int *stager = NULL; /* a staged log is loaded on its own node when a rank is there */
    if (rc == 0) rc = ostio__logstage_loaders(fh, L->d, L->stage, &stager);
    for (size_t i = 0; rc == 0 && i < L->d->nsrc; i++) {
      const ostio__logsrc *s = &L->d->src[i];
      if (!(s->flags & (OSTIO__LOGSRC_INDEX | OSTIO__LOGSRC_STAGED)) ||
          (s->flags & OSTIO__LOGSRC_COVERED))
        continue;
      int who = stager && stager[i] >= 0 ? stager[i] : (int)(k++ % (size_t)fh->nprocs);
      if (who == fh->rank) rc = ostio__log_load_src(L->d, i, &e, &n, &cap, &st);
    }
    free(stager);
    if ((rc = ostio__agree(fh->comm, rc)) == 0) rc = gather(fh, e, n, 1);
    free(e);
    if (rc < 0) return rc;
    if (L->map.nsorted < L->map.n || !L->map.span) rc = ostio__logmap_build(&L->map);
    if (rc == 0) L->size_base = L->map.size;
    if ((rc = ostio__agree(fh->comm, rc)) < 0) return rc;
    if (!L->readable) ostio__logmap_free(&L->map);
  }
  /* `open` is information only (readers never trust it, and the session's
   * index log made just above already makes any clean record stale), so it
   * is not fsync'ed: one synchronous round trip less per writing open. */
  if (L->writable && fh->rank == 0)
    rc = ostio__sizerec_write_light(L->d->dirfd, fh->path,
                                    &(ostio__sizerec){.clean = 0, .size = L->size_base});
  /* The first seq: above the session's start (every seq of an earlier
   * session is below it) and above what this job's processes issued or saw
   * (a handle of this container already open, the records just loaded). */
  L->cur = (uint64_t)L->session << 32;
  if ((rc = advance(fh, rc)) < 0) return rc;
  /* No layout: a log's bytes are in per-writer logs, not striped by offset,
   * so fh->layout stays NULL (ostio_file_layout returns NULL; statistics
   * print "layout none"). */
  fh->last_strategy = "log";
  return 0; /* agreed just above */
}

static void log_discard(ostio_file *fh)
{
  struct ostio__loghandle *L = fh->kind_data;
  if (!L) return;
  ostio__logstage_free(&L->stage);
  ostio__log_clock_put(&L->clk);
  ostio__logw_close(&L->w);
  ostio__log_close(&L->d);
  ostio__logmap_free(&L->map);
  ostio__logres_free(&L->res);
  if (L->ent_type != MPI_DATATYPE_NULL) MPI_Type_free(&L->ent_type);
  if (L->node != MPI_COMM_NULL) MPI_Comm_free(&L->node);
  free(L->counts);
  free(L);
  fh->kind_data = NULL;
}

static int log_close(ostio_file *fh)
{
  struct ostio__loghandle *L = fh->kind_data;
  int rc = L->w.dfd >= 0 ? ostio__logw_flush(&L->w) : 0;
  /* Staged: the logs stay open until the node's drain is done (a stage
   * directory removed under the job is rescued from them), then close. */
  int rc2 = L->stage ? 0 : ostio__logw_close(&L->w);
  if (rc == 0) rc = rc2;
  rc = ostio__agree(fh->comm, rc);
  /* Staged: the node's complete drain before the size is published. */
  if (rc == 0 && L->stage) rc = ostio__logstage_close(fh, &L->stage);
  rc2 = 0;
  /* Derived from every index, not from this job's writes alone: another job
   * or a preloaded process may have written too (logsize.c). */
  if (rc == 0 && L->writable && fh->rank == 0) rc2 = ostio__log_publish_clean(L->d, NULL);
  rc2 = ostio__agree(fh->comm, rc2);
  log_discard(fh);
  return rc < 0 ? rc : rc2;
}

/* ---- sizes, sync --------------------------------------------------------------------- */

static int log_size(ostio_file *fh, int64_t *size)
{
  struct ostio__loghandle *L = fh->kind_data;
  int64_t s = L->size_base > L->local_end ? L->size_base : L->local_end;
  if (L->readable) {
    s = L->map.size;
    if (L->w.comp.pending && ostio__logrec_end(&L->w.comp.rec) > s)
      s = ostio__logrec_end(&L->w.comp.rec);
  }
  *size = s;
  return 0;
}

static int log_set_size(ostio_file *fh, int64_t size)
{
  struct ostio__loghandle *L = fh->kind_data;
  int rc = advance(fh, 0);
  if (rc < 0) return rc;
  if (fh->rank == 0) {
    ostio__logrec t = {.type = OSTIO__LOGREC_TRUNC, .writer = 0, .seq = seq(L), .lstart = size};
    rc = ostio__logw_append(&L->w, &t);
    if (rc == 0) rc = own_to_map(L);
  }
  if ((rc = ostio__agree(fh->comm, rc)) < 0) return rc;
  L->size_base = size;
  L->local_end = 0;
  if (L->readable && (rc = refresh(fh)) < 0) return rc;
  return step(fh);
}

static int log_sync(ostio_file *fh)
{
  struct ostio__loghandle *L = fh->kind_data;
  int rc = L->w.dfd >= 0 ? ostio__logw_sync(&L->w) : 0;
  if (rc == 0) rc = own_to_map(L);
  /* What other processes published (another job, a preloaded process) is
   * older than what this job writes after the sync: MPI's sync, barrier,
   * sync orders them. Rank 0 reads the largest seq on disk (one listing,
   * the last record of each index log) into the agreement below. */
  if (rc == 0 && L->writable && fh->rank == 0) {
    uint64_t top = 0;
    if ((rc = ostio__log_disk_seq(L->d, &top)) == 0 && top) ostio__log_clock_saw(L->clk, top);
  }
  if ((rc = advance(fh, rc)) < 0) return rc;
  if (L->stage && (rc = ostio__logstage_sync(fh, L->stage)) < 0) return rc;
  if (L->readable && (rc = refresh(fh)) < 0) return rc;
  return step(fh);
}

/* ---- reads and writes ------------------------------------------------------------------ */

/* Plans [off, off+len) into buf: zeros now, data copies into *rl. */
static int plan_read(struct ostio__loghandle *L, int64_t off, int64_t len, char *buf,
                     ostio__logreads *rl)
{
  ostio__logent pend;
  size_t np = 0;
  if (L->w.comp.pending) {
    pend = (ostio__logent){.r = L->w.comp.rec, .idx = L->w.nrec, .src = L->own_src};
    np = 1;
  }
  int rc = ostio__logmap_resolve(&L->map, &pend, np, off, len, &L->res);
  for (size_t i = 0; rc == 0 && i < L->res.nseg; i++) {
    const ostio__logseg *s = &L->res.seg[i];
    char *p = buf + (s->off - off);
    if (s->src < 0) {
      memset(p, 0, (size_t)s->len);
      continue;
    }
    rc = ostio__logreads_add(rl, s->src, s->phys, s->len, p);
  }
  return rc;
}

static int do_reads(ostio_file *fh, ostio__logreads *rl)
{
  struct ostio__loghandle *L = fh->kind_data;
  return ostio__logreads_run(rl, L->d, &fh->io);
}

/* A failed append, said in the caller's terms: the logical range first, the
 * data log's offset (where the bytes were going) after it. */
static int logical_fail(const ostio_file *fh, int rc, int64_t lo, int64_t hi, int64_t at)
{
  char why[600];
  snprintf(why, sizeof why, "%s", ostio_last_error());
  return ostio__fail(rc, "%s: writing logical bytes [%lld, %lld) failed (appending to the "
                     "data log at its offset %lld): %s", fh->path, (long long)lo, (long long)hi,
                     (long long)at, why);
}

static int log_write_at(ostio_file *fh, int64_t off, const void *buf, size_t len)
{
  struct ostio__loghandle *L = fh->kind_data;
  int rc = ostio__logw_create(&L->w);
  /* Newer than anything another handle of this process wrote before. */
  if (rc == 0) rc = ostio__log_clock_issue(L->clk, L, &L->cur);
  if (rc < 0) return rc;
  fh->io.fd = L->w.dfd;
  if ((rc = ostio__io_pwrite(&fh->io, buf, len, L->w.dend)) < 0)
    return logical_fail(fh, rc, off, off + (int64_t)len, L->w.dend);
  int64_t at = L->w.dend;
  L->w.dend += (int64_t)len;
  if ((int64_t)len + off > L->local_end) L->local_end = off + (int64_t)len;
  rc = ostio__logw_piece(&L->w, seq(L), off, (int64_t)len, at);
  if (rc == 0) rc = own_to_map(L);
  return rc;
}

static int log_read_at(ostio_file *fh, int64_t off, void *buf, size_t len)
{
  ostio__logreads rl = {0};
  int rc = plan_read(fh->kind_data, off, (int64_t)len, buf, &rl);
  if (rc == 0) rc = do_reads(fh, &rl);
  free(rl.r);
  return rc;
}

typedef ostio__lext lext;

/* The rank's extents, checked and sorted by offset (each keeps its place in
 * the buffer); zero-length ones dropped. The planner's check (plan/plan.h),
 * so a log container refuses the same lists as a plain file, with the same
 * details (OSTIO_EOVERLAP for overlaps within a rank). */
static int local_extents(const ostio_extent *ext, size_t n, lext **out, size_t *nout,
                         int64_t *bytes)
{
  int64_t lo, hi;
  return ostio__plan_local(ext, n, out, nout, bytes, &lo, &hi);
}

/* writers=node: rounds of at most cb_buffer_size, and at most this. */
#define FUNNEL_ROUND_MAX (INT64_C(64) << 20)

static int coll_write(ostio_file *fh, const lext *e, size_t n, const char *buf)
{
  struct ostio__loghandle *L = fh->kind_data;
  if (L->node != MPI_COMM_NULL) { /* collective over the node, even when n = 0 */
    int64_t round = fh->hints.cb_buffer_size;
    if (round < 1 || round > FUNNEL_ROUND_MAX) round = FUNNEL_ROUND_MAX;
    int rc = ostio__log_funnel(L->node, &fh->io, &L->w, seq(L), round, e, n, buf);
    if (rc == 0) rc = own_to_map(L); /* the leader's records; nothing elsewhere */
    for (size_t i = 0; rc == 0 && i < n; i++)
      if (e[i].off + e[i].len > L->local_end) L->local_end = e[i].off + e[i].len;
    return rc;
  }
  if (n == 0) return 0;
  int rc = ostio__logw_create(&L->w);
  ostio__io_req *r = rc == 0 ? malloc(n * sizeof *r) : NULL;
  if (rc == 0 && !r) rc = ostio__fail(OSTIO_ENOMEM, "out of memory for %zu requests", n);
  if (rc < 0) return rc;
  int64_t at = L->w.dend;
  for (size_t i = 0; i < n; i++) {
    r[i] = (ostio__io_req){at, e[i].len, (char *)buf + e[i].pos};
    at += e[i].len;
  }
  fh->io.fd = L->w.dfd;
  rc = ostio__io_write_batch(&fh->io, r, n);
  free(r);
  if (rc < 0) rc = logical_fail(fh, rc, e[0].off, e[n - 1].off + e[n - 1].len, L->w.dend);
  /* Records only for data that reached the log. */
  for (size_t i = 0; rc == 0 && i < n; i++) {
    rc = ostio__logw_piece(&L->w, seq(L), e[i].off, e[i].len, L->w.dend);
    L->w.dend += e[i].len;
    if (e[i].off + e[i].len > L->local_end) L->local_end = e[i].off + e[i].len;
  }
  if (rc == 0) rc = own_to_map(L);
  return rc;
}

static int log_coll(ostio_file *fh, int is_write, const ostio_extent *ext, size_t n, void *buf)
{
  struct ostio__loghandle *L = fh->kind_data;
  lext *e = NULL;
  size_t ne = 0;
  int64_t bytes = 0;
  int rc = 0;
  rc = ostio__check_access(fh->path, fh->can_read, fh->can_write, is_write, NULL);
  if (rc == 0) rc = local_extents(ext, n, &e, &ne, &bytes);
  if (rc == 0 && bytes > 0 && !buf)
    rc = ostio__fail(OSTIO_EINVAL, "NULL buffer for %lld bytes", (long long)bytes);
  if ((rc = advance(fh, rc)) < 0) goto done;
  double t0 = ostio__now();
  ostio__stat_add(&fh->stats, is_write ? OSTIO__STAT_coll_writes : OSTIO__STAT_coll_reads, 1);
  if (is_write) {
    rc = ostio__agree(fh->comm, coll_write(fh, e, ne, buf));
    if (rc == 0 && L->readable) rc = refresh(fh);
  } else {
    ostio__logreads rl = {0};
    rc = refresh(fh);
    for (size_t i = 0; rc == 0 && i < ne; i++)
      rc = plan_read(L, e[i].off, e[i].len, (char *)buf + e[i].pos, &rl);
    if (rc == 0) rc = do_reads(fh, &rl);
    free(rl.r);
    rc = ostio__agree(fh->comm, rc);
  }
  if (rc == 0) rc = step(fh);
  fh->stats.t[OSTIO__T_time_total] += ostio__now() - t0;
done:
  free(e);
  return rc;
}

static int log_write_all(ostio_file *fh, const ostio_extent *ext, size_t n, const void *buf)
{
  return log_coll(fh, 1, ext, n, (void *)buf);
}

static int log_read_all(ostio_file *fh, const ostio_extent *ext, size_t n, void *buf)
{
  return log_coll(fh, 0, ext, n, buf);
}

static int log_remove(ostio_file *fh)
{
  return ostio__agree(fh->comm, fh->rank == 0 ? ostio__ctr_remove(fh->path) : 0);
}

const ostio__kind_ops ostio__kind_log = {
  .version = OSTIO__KIND_VERSION, .name = "log", .prepare = ostio__log_prepare,
  .create = ostio__log_create, .open = log_open, .close = log_close, .discard = log_discard,
  .remove = log_remove, .size = log_size, .set_size = log_set_size, .sync = log_sync,
  .write_all = log_write_all, .read_all = log_read_all, .write_at = log_write_at,
  .read_at = log_read_at, .check = ostio__log_check, .recover = ostio__log_recover,
  /* tool hooks, log/log_hooks.c (check and recover: logtool.c) */
  .compact = ostio__log_hook_compact, .make = ostio__log_hook_make, .ls = ostio__log_hook_ls,
  .stat = ostio__log_hook_stat, .map = ostio__log_hook_map, .extents = ostio__log_hook_extents,
  /* `ostio stage`, log/log_stage_tool.c */
  .stage_status = ostio__log_hook_stage_status, .stage_drain = ostio__log_hook_stage_drain,
};
