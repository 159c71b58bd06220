/* mpiio:best's sweep under MPI (issue 29): which MPI-IO this is (ROMIO or
 * Open MPI's OMPIO), whether the file system takes striping hints, and the
 * sweep itself: each candidate of mpiio_best.c run as a timed phase through
 * the runner (bench_run.c), the fastest kept per phase. */
#include <stdlib.h>
#include <string.h>
#include <sys/vfs.h>

#include "bench_run.h"

/* ---- mpiio:best: the sweep (candidates: mpiio_best.c) ------------------------ */
typedef struct sweep_ctx {
  run *x;
  side *w, *rd;
  uint8_t *vbuf;
  int verify_failed;
} sweep_ctx;

static int sweep_one(void *ctx, int write, const ob_hintset *h, ob_result *r)
{
  sweep_ctx *k = ctx;
  k->x->extra = h;
  int rc = ob__run_phase(k->x, write, write ? k->w : k->rd, k->vbuf, r);
  k->x->extra = NULL;
  if (!rc && r->verify_errors && !k->verify_failed) {
    k->verify_failed = 1;
    char hs[256];
    ob_hintset_str(h, hs, sizeof hs);
    if (!k->x->msg[0])
      snprintf(k->x->msg, sizeof k->x->msg, "mpiio:best %s sweep (%s): verification failed "
               "on %lld rank(s)", write ? "write" : "read", hs, (long long)r->verify_errors);
  }
  return rc;
}

/* Is the MPI-IO ROMIO? MPICH's (and its derivatives') is; Open MPI's default is OMPIO. */
static int mpi_is_romio(void)
{
  char v[MPI_MAX_LIBRARY_VERSION_STRING];
  int len = 0;
  MPI_Get_library_version(v, &len);
  if (!strstr(v, "Open MPI")) return 1;
  const char *io = getenv("OMPI_MCA_io");
  return io && strstr(io, "romio") && !strstr(io, "^");
}

/* Does the file system of PATH's directory take striping hints? Lustre and
 * GPFS do; note says which file system does not. */
static int fs_takes_striping(const char *path, char *note, size_t cap)
{
  char dir[OB_PATH_MAX];
  snprintf(dir, sizeof dir, "%s", path);
  char *slash = strrchr(dir, '/');
  if (slash) *(slash == dir ? slash + 1 : slash) = '\0';
  else snprintf(dir, sizeof dir, ".");
  struct statfs sf;
  if (statfs(dir, &sf) != 0) {
    snprintf(note, cap, "striping not swept: statfs %.100s failed", dir);
    return 0;
  }
  unsigned long m = (unsigned long)sf.f_type;
  if (m == 0x0BD00BD0UL || m == 0x47504653UL) return 1;     /* Lustre, GPFS */
  const char *name = m == 0xEF53UL ? "ext4" : m == 0x01021994UL ? "tmpfs"
                     : m == 0x58465342UL ? "xfs" : m == 0x9123683EUL ? "btrfs"
                     : m == 0x794C7630UL ? "overlayfs" : "this file system";
  snprintf(note, cap, "striping not swept: %s does not take striping hints (ROMIO's UFS "
           "driver ignores striping_factor / striping_unit)", name);
  return 0;
}

/* Decides mpiio:best's hints for each phase of the run (before the
 * iterations): the given ones (--best-write / --best-read), or a sweep.
 * The read sweep reads a file written with the chosen write hints. */
int ob__best_decide(run *x, ob_results *res, side *w, side *rd, uint8_t *vbuf, int *vfail)
{
  const ob_config *c = x->c;
  int a = -1;
  for (int i = 0; i < c->napis; i++)
    if (c->apis[i].best) a = i;
  if (a < 0) return 0;
  x->api = &c->apis[a];
  sweep_ctx k = {.x = x, .w = w, .rd = rd, .vbuf = vbuf};
  char snote[200] = "";
  int romio = mpi_is_romio();
  int striping = fs_takes_striping(c->path, snote, sizeof snote) && !c->stripe_count;
  if (romio && !snote[0] && c->stripe_count)
    snprintf(snote, sizeof snote, "striping not swept: --stripe-count fixes the layout");
  int rc = 0;
  static const ob_hintset none;
  for (int ph = 0; ph < 2 && !rc; ph++) {
    ob_sweep *sw = &res->sweep[ph];
    side *sd = ph == OB_PHASE_WRITE ? w : rd;
    if ((ph == OB_PHASE_WRITE && !c->write) || (ph == OB_PHASE_READ && !c->read)) continue;
    if (c->best_given_set[ph]) {
      sw->cand[0] = c->best_given[ph];
      sw->ncand = 1, sw->chosen = 0, sw->given = 1, sw->done = 1;
      snprintf(sw->note, sizeof sw->note, "given with %s, not swept",
               ph == OB_PHASE_WRITE ? "--best-write" : "--best-read");
      continue;
    }
    int noncontig = 0;
    for (int s = 0; s < sd->plan.nsteps && sd->contig; s++) noncontig |= !sd->contig[s];
    ob_best_query q = {.nprocs = x->nprocs, .phase = ph,
                       .collective = ob_api_collective(c, x->api),
                       .noncontig = noncontig && !ob_api_per_transfer(c, x->api),
                       .romio = romio, .striping = striping};
    sw->ncand = ob_best_candidates(&q, sw->cand, OB_BEST_MAX_CAND);
    snprintf(sw->note, sizeof sw->note, "%s",
             !romio ? "Open MPI's OMPIO: fcoll / fbtl / aggregators are MCA parameters read "
                      "at MPI_Init, not swept in one process; defaults only" : snote);
    double t0 = MPI_Wtime();
    ob_result r = {0};
    /* Untimed: a write with the defaults (first-open costs) before the write
     * sweep; the file the read sweep reads, with the chosen write hints. */
    if (ph == OB_PHASE_WRITE && c->warmup > 0) rc = sweep_one(&k, 1, &none, &r);
    if (ph == OB_PHASE_READ)
      rc = sweep_one(&k, 1, res->sweep[0].done ? &res->sweep[0].cand[res->sweep[0].chosen]
                     : &none, &r);
    if (!rc) rc = ob_best_sweep(sw, ph, sweep_one, &k);
    sw->seconds = MPI_Wtime() - t0;
    if (!rc && x->rank == 0 && c->progress) {
      char line[1024], hs[256];
      int len = snprintf(line, sizeof line, "mpiio:best %s sweep (%.1f s):",
                         ph ? "read" : "write", sw->seconds);
      for (int i = 0; i < sw->ncand && len < (int)sizeof line; i++) {
        ob_hintset_str(&sw->cand[i], hs, sizeof hs);
        len += snprintf(line + len, sizeof line - (size_t)len, "%s %s %.0f MiB/s%s",
                        i ? ";" : "", hs, sw->bw[i], i == sw->chosen ? " (chosen)" : "");
      }
      c->progress(c->progress_ctx, line);
    }
  }
  if (!c->keep) ob__remove_file(x);
  *vfail |= k.verify_failed;
  return rc;
}

