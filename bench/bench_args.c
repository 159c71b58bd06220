/* ostio-bench flags (IOR names where IOR has them) -> ob_config. Pure: no
 * MPI, no I/O; every usage error is OB_EUSAGE with a sentence naming the
 * flag. Impossible pattern combinations (btio with a non-square rank count,
 * -b not a multiple of -t, ...) are found when the plan is built
 * (ob_pattern_build), also as OB_EUSAGE. */
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "container/store.h"
#include "engine/strategy.h"
#include "file/kind.h"

static int usage_err(char *err, size_t cap, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static int usage_err(char *err, size_t cap, const char *fmt, ...)
{
  va_list ap;
  va_start(ap, fmt);
  if (err && cap) vsnprintf(err, cap, fmt, ap);
  va_end(ap);
  return OB_EUSAGE;
}

/* The registry's kinds as "a, b or c" into buf (--container's choices). */
static const char *kind_list(char *buf, size_t cap)
{
  size_t n = ostio__kind_count(), len = 0;
  buf[0] = '\0';
  for (size_t i = 0; i < n && len < cap; i++) {
    const char *sep = i == 0 ? "" : i + 1 == n ? " or " : ", ";
    int w = snprintf(buf + len, cap - len, "%s%s", sep, ostio__kind_at(i)->name);
    len += w > 0 ? (size_t)w : 0;
  }
  return buf;
}

void ob_config_defaults(ob_config *c)
{
  memset(c, 0, sizeof *c);
  ob_pattern_defaults(OB_PAT_IOR, &c->pat);
  c->napis = 1;
  c->apis[0] = (ob_api){.kind = OB_API_OSTIO, .strategy = "auto", .name = "ostio"};
  c->iterations = 1;
  c->warmup = 1;
  snprintf(c->path, sizeof c->path, "%s", "./ostio-bench.dat");
  snprintf(c->container, sizeof c->container, "%s", "plain");
}

int64_t ob_parse_size(const char *s)
{
  if (!s || !isdigit((unsigned char)*s)) return -1;
  errno = 0;
  char *end;
  long long v = strtoll(s, &end, 10);
  if (errno || v < 0) return -1;
  int shift = 0;
  switch (*end) {
  case '\0': break;
  case 'k': case 'K': shift = 10; end++; break;
  case 'm': case 'M': shift = 20; end++; break;
  case 'g': case 'G': shift = 30; end++; break;
  default: return -1;
  }
  if (*end) return -1;
  if (v > (INT64_MAX >> shift)) return -1;
  return (int64_t)v << shift;
}

/* "ostio:auto, ostio:even, ...": one API per strategy of the library's
 * registry (src/engine/strategies.c), in its order. */
static void strategy_apis(char *buf, size_t cap)
{
  size_t len = 0;
  buf[0] = '\0';
  for (int i = 0; i < ostio__strategy_count(); i++) {
    const ostio__strategy *s = ostio__strategy_at(i);
    if (!s) continue;
    int w = snprintf(buf + len, cap - len, "%sostio:%s", len ? ", " : "", s->name);
    if (w < 0 || (size_t)w >= cap - len) break;
    len += (size_t)w;
  }
}

int ob_parse_api(const char *s, ob_api *api)
{
  memset(api, 0, sizeof *api);
  if (strlen(s) >= sizeof api->name) return -1;
  snprintf(api->name, sizeof api->name, "%s", s);
  if (!strcmp(s, "mpiio")) return api->kind = OB_API_MPIIO, 0;
  if (!strcmp(s, "mpiio+ostio")) return api->kind = OB_API_MPIIO, api->ostio_mpiio = 1, 0;
  if (!strcmp(s, "mpiio:best")) return api->kind = OB_API_MPIIO, api->best = 1, 0;
  if (!strcmp(s, "posix")) return api->kind = OB_API_POSIX, 0;
  if (!strcmp(s, "ostio")) {
    api->kind = OB_API_OSTIO;
    snprintf(api->strategy, sizeof api->strategy, "auto");
    return 0;
  }
  if (strncmp(s, "ostio:", 6) != 0) return -1;
  const ostio__strategy *st = ostio__strategy_find(s + 6);
  if (!st || strlen(st->name) >= sizeof api->strategy) return -1;
  api->kind = OB_API_OSTIO;
  snprintf(api->strategy, sizeof api->strategy, "%s", st->name);
  return 0;
}

static int parse_apis(const char *list, ob_config *c, char *err, size_t cap)
{
  char buf[512];
  if (strlen(list) >= sizeof buf) return usage_err(err, cap, "-a: list too long");
  snprintf(buf, sizeof buf, "%s", list);
  c->napis = 0;
  char *save = NULL;
  for (char *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
    ob_api a;
    const char *refusal, *ior = ob__ior_api(tok, &refusal);
    if (refusal) return usage_err(err, cap, "-a %s: %s", tok, refusal);
    const char *name = ior ? ior : tok; /* IOR's MPIIO, POSIX: ours, by our name */
    if (ob_parse_api(name, &a) < 0) {
      char apis[256];
      strategy_apis(apis, sizeof apis);
      return usage_err(err, cap, "-a: unknown API \"%s\" (accepted: ostio, %s, mpiio, "
                       "mpiio:best, mpiio+ostio, posix; IOR's MPIIO and POSIX)",
                       name, apis);
    }
    for (int i = 0; i < c->napis; i++)
      if (!strcmp(c->apis[i].name, a.name))
        return usage_err(err, cap, "-a: API \"%s\" listed twice", name);
    if (c->napis == OB_MAX_APIS)
      return usage_err(err, cap, "-a: at most %d APIs", OB_MAX_APIS);
    c->apis[c->napis++] = a;
  }
  if (c->napis == 0) return usage_err(err, cap, "-a: empty API list");
  return OB_OK;
}

static int parse_count(const char *flag, const char *v, int64_t lo, int64_t *out, char *err,
                       size_t cap)
{
  int64_t n = ob_parse_size(v);
  if (n < lo)
    return usage_err(err, cap, "%s: \"%s\" is not a count >= %lld (k, m, g suffixes allowed)",
                     flag, v, (long long)lo);
  *out = n;
  return OB_OK;
}

/* The flags that take a value. */
static int takes_value(const char *a)
{
  static const char *const with[] = {"-a", "-b", "-t", "-s", "-p", "--btio-class", "-i",
                                     "--warmup", "-o", "-O", "--json", "--stripe-count",
                                     "--stripe-size", "--seed", "--flash-blocks",
                                     "--flash-nxb", "--container", "--best-write",
                                     "--best-read", "-N", "-D"};
  for (size_t i = 0; i < sizeof with / sizeof *with; i++)
    if (!strcmp(a, with[i])) return 1;
  return 0;
}

/* The flags seen so far that are applied after the loop. */
typedef struct parse_state {
  int64_t block, transfer, segments, seed, fblocks, fnxb;
  int kind;
  char btio_class;
} parse_state;

static int take_flag(const char *a, const char *v, ob_config *c, parse_state *ps, char *err,
                     size_t cap);

/* -O KEY=VALUE: one of IOR's directives (also several, comma-separated, as
 * IOR takes them: every piece KEY=VALUE) becomes the flag that does the same,
 * or is refused (bench_ior.c); any other key is a hint. */
static int take_o(const char *v, ob_config *c, parse_state *ps, char *err, size_t cap)
{
  const char *e = strchr(v, '=');
  if (!e || e == v)
    return usage_err(err, cap, "-O: \"%s\" is not key=value", v);
  char buf[512];
  int all_kv = strlen(v) < sizeof buf && strchr(v, ',') != NULL;
  for (const char *p = v; all_kv && p; p = strchr(p, ',') ? strchr(p, ',') + 1 : NULL) {
    const char *q = strchr(p, ','), *eq = strchr(p, '=');
    all_kv = eq && eq != p && (!q || eq < q);
  }
  if (all_kv) {                       /* IOR's "-O a=1,b=2": each piece by itself */
    char *save = NULL;
    snprintf(buf, sizeof buf, "%s", v);
    int any_ior = 0;
    for (char *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
      const char *f, *fv;
      int r = ob__ior_directive(t, (size_t)(strchr(t, '=') - t), strchr(t, '=') + 1, &f, &fv,
                                err, cap);
      if (r < 0) return r;
      any_ior |= r;
    }
    if (any_ior) {
      snprintf(buf, sizeof buf, "%s", v);
      for (char *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
        int rc = take_o(t, c, ps, err, cap);
        if (rc) return rc;
      }
      return OB_OK;
    }                                 /* no IOR key: one hint whose value has commas */
  }
  const char *flag, *fval;
  int r = ob__ior_directive(v, (size_t)(e - v), e + 1, &flag, &fval, err, cap);
  if (r < 0) return r;
  if (r > 0) {
    if (!flag) return OB_OK;          /* a switch given as 0                        */
    int rc = take_flag(flag, fval, c, ps, err, cap);
    if (rc && err && cap) {           /* name the directive the flag came from      */
      char inner[512];
      snprintf(inner, sizeof inner, "%s", err);
      snprintf(err, cap, "-O %.*s (IOR's directive, as %s): %s", (int)(e - v), v, flag, inner);
    }
    return rc;
  }
  if ((size_t)(e - v) >= sizeof c->hint_key[0] || strlen(e + 1) >= sizeof c->hint_val[0])
    return usage_err(err, cap, "-O: key or value too long in \"%s\"", v);
  if (c->nhints == OB_MAX_HINTS) return usage_err(err, cap, "-O: at most %d hints", OB_MAX_HINTS);
  snprintf(c->hint_key[c->nhints], sizeof c->hint_key[0], "%.*s", (int)(e - v), v);
  snprintf(c->hint_val[c->nhints], sizeof c->hint_val[0], "%s", e + 1);
  c->nhints++;
  return OB_OK;
}

static int take_flag(const char *a, const char *v, ob_config *c, parse_state *ps, char *err,
                     size_t cap)
{
  int64_t n;
  int rc;
  if (!strcmp(a, "-h") || !strcmp(a, "--help")) c->help = 1;
  else if (!strcmp(a, "-a")) { if ((rc = parse_apis(v, c, err, cap))) return rc; }
  else if (!strcmp(a, "-b")) { if ((rc = parse_count(a, v, 1, &ps->block, err, cap))) return rc; }
  else if (!strcmp(a, "-t")) { if ((rc = parse_count(a, v, 1, &ps->transfer, err, cap))) return rc; }
  else if (!strcmp(a, "-s")) { if ((rc = parse_count(a, v, 1, &ps->segments, err, cap))) return rc; }
  else if (!strcmp(a, "-p")) {
    ps->kind = ob_pattern_kind_from_name(v);
    if (ps->kind < 0)
      return usage_err(err, cap, "-p: unknown pattern \"%s\" (accepted: ior, strided, btio, "
                       "flash, random)", v);
  } else if (!strcmp(a, "--btio-class")) {
    if (strlen(v) != 1 || !strchr("SWABC", toupper((unsigned char)v[0])))
      return usage_err(err, cap, "--btio-class: \"%s\" is not one of S, W, A, B, C", v);
    ps->btio_class = (char)toupper((unsigned char)v[0]);
  }
  else if (!strcmp(a, "-F")) c->file_per_proc = 1;
  else if (!strcmp(a, "-c")) c->collective = 1;
  else if (!strcmp(a, "-I") || !strcmp(a, "--indep")) c->indep = 1;
  else if (!strcmp(a, "-w")) c->write = 1;
  else if (!strcmp(a, "-r")) c->read = 1;
  else if (!strcmp(a, "-e")) c->fsync = 1;
  else if (!strcmp(a, "-Y")) c->fsync_per_write = 1;
  else if (!strcmp(a, "-g")) c->barriers = 1;
  else if (!strcmp(a, "-v")) {        /* -O verbose=N gives a level               */
    if (v && (rc = parse_count("-O verbose", v, 0, &n, err, cap))) return rc;
    c->verbose = v ? (int)(n > 9 ? 9 : n) : c->verbose + 1;
  }
  else if (!strcmp(a, "-C")) c->reorder = 1;
  else if (!strcmp(a, "-W")) c->verify_write = 1;
  else if (!strcmp(a, "-R")) c->verify_read = 1;
  else if (!strcmp(a, "-k")) c->keep = 1;
  else if (!strcmp(a, "-N")) {
    if ((rc = parse_count(a, v, 1, &n, err, cap))) return rc;
    c->numtasks = n > 0x7fffffff ? 0x7fffffff : (int)n;
  } else if (!strcmp(a, "-D")) {
    return usage_err(err, cap, "-D: %s", ob__ior_no_stonewall);
  } else if (!strcmp(a, "-z")) {
    return usage_err(err, cap, "-z: %s", ob__ior_no_random);
  } else if (!strcmp(a, "-i")) {
    if ((rc = parse_count(a, v, 1, &n, err, cap))) return rc;
    if (n > 100000) return usage_err(err, cap, "-i: at most 100000 iterations");
    c->iterations = (int)n;
  } else if (!strcmp(a, "--warmup")) {
    if ((rc = parse_count(a, v, 0, &n, err, cap))) return rc;
    if (n > 1000) return usage_err(err, cap, "--warmup: at most 1000 iterations");
    c->warmup = (int)n;
  } else if (!strcmp(a, "-o")) {
    if (!*v || strlen(v) + 32 >= sizeof c->path)
      return usage_err(err, cap, "-o: path empty or longer than %zu bytes",
                       sizeof c->path - 32);
    snprintf(c->path, sizeof c->path, "%s", v);
  } else if (!strcmp(a, "--json")) {
    if (!*v || strlen(v) >= sizeof c->json)
      return usage_err(err, cap, "--json: file name empty or too long");
    snprintf(c->json, sizeof c->json, "%s", v);
  } else if (!strcmp(a, "-O")) {
    if ((rc = take_o(v, c, ps, err, cap))) return rc;
  } else if (!strcmp(a, "--stripe-count")) {
    if ((rc = parse_count(a, v, 1, &n, err, cap))) return rc;
    if (n > OSTIO_MAX_STRIPE_COUNT)
      return usage_err(err, cap, "--stripe-count: at most %d", OSTIO_MAX_STRIPE_COUNT);
    c->stripe_count = (int)n;
  } else if (!strcmp(a, "--stripe-size")) {
    if ((rc = parse_count(a, v, 1, &c->stripe_size, err, cap))) return rc;
  } else if (!strcmp(a, "--flash-blocks")) {
    if ((rc = parse_count(a, v, 1, &ps->fblocks, err, cap))) return rc;
    if (ps->fblocks > 1000000) return usage_err(err, cap, "--flash-blocks: at most 1000000");
  } else if (!strcmp(a, "--flash-nxb")) {
    if ((rc = parse_count(a, v, 1, &ps->fnxb, err, cap))) return rc;
    if (ps->fnxb > 4096) return usage_err(err, cap, "--flash-nxb: at most 4096");
  } else if (!strcmp(a, "--container")) {
    if (!ostio__kind_find(v)) {
      char kinds[256];
      return usage_err(err, cap, "--container: \"%s\" is not a container kind; use %s", v,
                       kind_list(kinds, sizeof kinds));
    }
    snprintf(c->container, sizeof c->container, "%s", v);
  } else if (!strcmp(a, "--best-write") || !strcmp(a, "--best-read")) {
    int ph = !strcmp(a, "--best-read") ? OB_PHASE_READ : OB_PHASE_WRITE;
    if (ob_hintset_parse(v, &c->best_given[ph]) != 0)
      return usage_err(err, cap, "%s: \"%s\" is not KEY=VALUE[,KEY=VALUE...] (at most %d, "
                       "keys and values under 32 bytes) or \"defaults\"", a, v, OB_HINTSET_MAX);
    c->best_given_set[ph] = 1;
  } else if (!strcmp(a, "--seed")) {
    if ((rc = parse_count(a, v, 0, &ps->seed, err, cap))) return rc;
  } else {
    return usage_err(err, cap, "%s: unknown flag", a);
  }
  return OB_OK;
}

int ob_parse_args(int argc, char **argv, ob_config *c, char *err, size_t cap)
{
  ob_config_defaults(c);
  parse_state ps = {.block = -1, .transfer = -1, .segments = -1, .seed = -1, .fblocks = -1,
                    .fnxb = -1, .kind = OB_PAT_IOR};
  int rc;
  for (int i = 1; i < argc; i++) {
    char flag[64];
    const char *a = argv[i], *v = NULL;
    const char *eq = strncmp(a, "--", 2) == 0 ? strchr(a, '=') : NULL;
    if (eq && (size_t)(eq - a) < sizeof flag) { /* --flag=value */
      snprintf(flag, sizeof flag, "%.*s", (int)(eq - a), a);
      a = flag;
      v = eq + 1;
    }
    if (takes_value(a) && !v) {
      if (i + 1 >= argc) return usage_err(err, cap, "%s: needs a value", a);
      v = argv[++i];
    } else if (!takes_value(a) && v) {
      return usage_err(err, cap, "%s: takes no value", a);
    }
    if ((rc = take_flag(a, v, c, &ps, err, cap))) return rc;
  }
  int kind = ps.kind;
  int64_t block = ps.block, transfer = ps.transfer, segments = ps.segments, seed = ps.seed;
  int64_t fblocks = ps.fblocks, fnxb = ps.fnxb;
  char btio_class = ps.btio_class;
  if (c->help) return OB_OK;
  if (!c->write && !c->read) c->write = c->read = 1;
  if (c->verify_write && !c->write)
    return usage_err(err, cap, "-W: verifying the write needs a write phase (-w)");
  if (c->verify_read && !c->read)
    return usage_err(err, cap, "-R: verifying the read needs a read phase (-r)");
  if ((fblocks > 0 || fnxb > 0) && kind != OB_PAT_FLASH)
    return usage_err(err, cap, "%s: only with -p flash", fblocks > 0 ? "--flash-blocks" : "--flash-nxb");
  if (ostio__store_find(c->container)) { /* a kind with a store is a container */
    int any = 0;
    for (int i = 0; i < c->napis; i++) any |= c->apis[i].kind == OB_API_OSTIO;
    if (!any)
      return usage_err(err, cap, "--container: only ostio APIs write containers; add one to -a");
  }
  for (int h = 0; h < c->nhints; h++) { /* -a ostio[:S] sets it; -O would be overridden */
    if (strcmp(c->hint_key[h], "ostio_strategy") != 0) continue;
    for (int i = 0; i < c->napis; i++)
      if (c->apis[i].kind == OB_API_OSTIO)
        return usage_err(err, cap, "-O ostio_strategy=%s: -a %s sets the strategy of its runs; "
                         "write -a ostio:%s instead", c->hint_val[h], c->apis[i].name,
                         c->hint_val[h]);
  }
  if (c->best_given_set[0] || c->best_given_set[1]) {
    int any = 0;
    for (int i = 0; i < c->napis; i++) any |= c->apis[i].best;
    if (!any)
      return usage_err(err, cap, "%s: sets mpiio:best's hints; add mpiio:best to -a",
                       c->best_given_set[0] ? "--best-write" : "--best-read");
  }
  if (btio_class && kind != OB_PAT_BTIO)
    return usage_err(err, cap, "--btio-class: only with -p btio");
  for (int i = 0; i < c->napis && c->file_per_proc; i++) {
    const ob_api *p = &c->apis[i];
    if (p->kind == OB_API_MPIIO && ob_api_collective(c, p))
      return usage_err(err, cap, "-F: collective MPI-IO (-c) needs the shared file of the "
                       "pattern; drop -c or -F");
    /* With -I the strategy makes no call: ostio_write_at / read_at never exchange. */
    const ostio__strategy *st = ostio__strategy_find(p->strategy);
    if (p->kind == OB_API_OSTIO && !c->indep && (!st || st->exchange))
      return usage_err(err, cap, "-F: %s is a collective strategy over a shared file; with a "
                       "file per process use ostio:independent (or -I)", p->name);
  }
  ob_pattern_defaults(kind, &c->pat);
  c->pat.kind = kind;
  if (block > 0) c->pat.block = block;
  if (transfer > 0) c->pat.transfer = transfer;
  if (segments > 0) c->pat.segments = segments;
  if (kind == OB_PAT_RANDOM && block > 0) c->pat.random_bytes = c->pat.block * c->pat.segments;
  if (btio_class) c->pat.btio_class = btio_class;
  if (fblocks > 0) c->pat.flash_blocks_base = (int)fblocks;
  if (fnxb > 0) c->pat.flash_nxb = (int)fnxb;
  if (seed >= 0) c->pat.seed = (uint64_t)seed;
  return OB_OK;
}

int ob_api_collective(const ob_config *c, const ob_api *api)
{
  switch (api->kind) {
  case OB_API_OSTIO: return !c->indep;
  case OB_API_MPIIO: return c->collective && !(c->indep && api->ostio_mpiio);
  default: return 0;
  }
}

int ob_api_per_transfer(const ob_config *c, const ob_api *api)
{
  if (ob_api_collective(c, api)) return 0;
  return c->indep || api->kind == OB_API_POSIX;
}

void ob_usage(FILE *out)
{
  char apis[256];
  strategy_apis(apis, sizeof apis);
  fprintf(out,
    "usage: mpiexec -n P ostio-bench [flags]\n"
    "Runs one access pattern through ostio, MPI-IO and POSIX in the same run (IOR-style).\n"
    "  -a LIST          APIs, comma-separated: ostio (= ostio:auto), mpiio, mpiio:best,\n"
    "                   mpiio+ostio, posix, and ostio:STRATEGY for each strategy of the\n"
    "                   library: %s  [ostio]\n"
    "                   IOR's names: MPIIO = mpiio, POSIX = posix; HDF5 and NCMPI are\n"
    "                   refused, naming the scripts that run them\n"
    "                   mpiio: ROMIO at its default hints. mpiio:best: ROMIO at the hints\n"
    "                   a sweep picked for this pattern, write and read separately\n"
    "                   (romio_cb_*, cb_nodes with cb_config_list *:*, romio_ds_*,\n"
    "                   romio_no_indep_rw; striping only on Lustre / GPFS); ratios are\n"
    "                   against mpiio:best when it runs. The sweep runs before the\n"
    "                   iterations: 9 candidates for 2 ranks (collective, noncontiguous;\n"
    "                   about 7 + log2 P), each repeated until it has taken 0.3 s, so\n"
    "                   about 10 extra mpiio phases per swept phase, more for phases\n"
    "                   under 0.3 s: measured, a 2-rank -i 3 -w -r run of the demo's\n"
    "                   pattern with mpiio:best,mpiio,ostio took 2.0x the time of\n"
    "                   mpiio,ostio (docs/benchmarks.md)\n"
    "  --best-write H   mpiio:best's write hints given, not swept: k=v,k=v or defaults\n"
    "  --best-read H    the same for the read phase (from an earlier run's JSON)\n"
    "                   mpiio+ostio: mpiio's calls with the hint ostio_mpiio=enable, served\n"
    "                   by libostio-mpiio.so (linked into ostio-bench before the MPI\n"
    "                   library when built, or LD_PRELOAD); plain mpiio stays ROMIO's\n"
    "  -p NAME          pattern: ior, strided, btio, flash, random  [ior]\n"
    "  -b SIZE          bytes per rank per segment (ior, strided; random: -b times -s is\n"
    "                   the bytes per rank)  [1m; strided 4k; random 16m per rank]\n"
    "  -t SIZE          bytes per transfer (ior, strided)  [1m; strided 4k]\n"
    "  -s N             segments  [1; strided 1024]\n"
    "  --btio-class C   BTIO class S, W, A, B, C (needs a square rank count)  [A]\n"
    "  -F               file per process (PATH.API.RANK; offsets as in the shared file)  [off]\n"
    "  -c               collective MPI-IO (write_at_all/read_at_all); ostio is\n"
    "                   collective unless -I  [off: MPI-IO write_at/read_at]\n"
    "  -I, --indep      independent calls, one per transfer (IOR without -c): ostio\n"
    "                   APIs call ostio_write_at/read_at, mpiio and mpiio+ostio call\n"
    "                   MPI_File_write_at/read_at per transfer in the default view,\n"
    "                   in each rank's file order; -c keeps plain mpiio collective\n"
    "                   (mpiio+ostio stays independent)  [off: ostio collective,\n"
    "                   MPI-IO one call per pattern step]\n"
    "  -w               write phase  [on when neither -w nor -r]\n"
    "  -r               read phase  [on when neither -w nor -r]\n"
    "  -e               fsync inside the timed write phase  [off]\n"
    "  -Y               a sync after every write call, timed (IOR's fsyncPerWrite):\n"
    "                   posix fsync after each pwrite; ostio_sync / MPI_File_sync\n"
    "                   (collective) after each pattern step  [off]\n"
    "  -g               barriers after open and after the I/O (IOR's\n"
    "                   intraTestBarriers); one before open always  [off]\n"
    "  -v               a progress line per phase (not per iteration) with its open,\n"
    "                   I/O and close seconds (stderr, rank 0)  [off]\n"
    "  -N N             IOR's numTasks: accepted when N is the rank count; otherwise\n"
    "                   a usage error (start it with mpiexec -n N)  [all ranks]\n"
    "  -D S, -z         refused: no stonewalling (every phase moves the whole\n"
    "                   pattern) and no shuffled -p ior (use -p random)\n"
    "  -C               reorder readers: rank r reads what rank (r+1) mod P wrote  [off]\n"
    "  -i N             iterations in the summary  [1]\n"
    "  --warmup N       extra first iterations, run but left out of the summary  [1]\n"
    "  -W               after writing, read back with pread and check every byte  [off]\n"
    "  -R               check every byte of the read phase  [off]\n"
    "  -o PATH          file name prefix; files are PATH.API  [./ostio-bench.dat]\n"
    "  -O KEY=VALUE     hint passed as MPI_Info to ostio and MPI-IO (repeatable)  [none]\n"
    "                   IOR's directives (api, blockSize, transferSize, segmentCount,\n"
    "                   repetitions, testFile, numTasks, filePerProc, collective,\n"
    "                   writeFile, readFile, checkWrite, checkRead, keepFile,\n"
    "                   reorderTasks, fsync, fsyncPerWrite, intraTestBarriers,\n"
    "                   verbose; any case, also a,b=1,c=2 lists) act as those flags;\n"
    "                   IOR's others (stoneWallingWearOut, ...) are refused, saying why\n"
    "  -k               keep the files  [off: removed]\n"
    "  --json FILE      write the JSON document to FILE  [none]\n"
    "  --stripe-count N striping_factor hint (ostio creates an emulated layout)  [unset]\n"
    "  --stripe-size S  striping_unit hint  [unset]\n"
    "  --flash-blocks N FLASH blocks per rank: N + rank mod 3  [80]\n"
    "  --flash-nxb N    FLASH cells per block edge  [16]\n"
    "  --container KIND ostio APIs write a plain file, a striped container (K objects =\n"
    "                   --stripe-count or -O ostio_objects=K) or a log container;\n"
    "                   MPI-IO and POSIX always a plain file  [plain]\n"
    "  --seed N         data and random-pattern seed  [1]\n"
    "  -h, --help       this text\n"
    "SIZE and N take k, m, g suffixes (powers of 1024). Exit status: 0 ok, 1 verification\n"
    "or I/O failure, 2 usage error. See docs/benchmarks.md.\n", apis);
}
