/* mpiio:best's sweep (issue 29), pure parts (bench/mpiio_best.c): the
 * candidate hint sets for (ranks, phase, collective, noncontiguous, ROMIO,
 * striping), the -a / --best-write / --best-read flags, the hint-set text
 * form, the sweep's choice with a fake phase runner, and the report naming
 * the chosen hints with ratios against mpiio:best and mpiio. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "testutil.h"

/* The candidates of q as "k=v,k=v|k=v|..." (the defaults print "(defaults)"). */
static const char *cands(int nprocs, int phase, int coll, int noncontig, int romio, int striping)
{
  static char out[4096];
  ob_hintset h[OB_BEST_MAX_CAND];
  ob_best_query q = {.nprocs = nprocs, .phase = phase, .collective = coll,
                     .noncontig = noncontig, .romio = romio, .striping = striping};
  int n = ob_best_candidates(&q, h, OB_BEST_MAX_CAND);
  size_t len = 0;
  out[0] = '\0';
  for (int i = 0; i < n && len < sizeof out; i++) {
    char s[256];
    ob_hintset_str(&h[i], s, sizeof s);
    len += (size_t)snprintf(out + len, sizeof out - len, "%s%s", i ? "|" : "", s);
  }
  return out;
}

static void expect(const char *got, const char *want)
{
  CHECKF(!strcmp(got, want), "candidates\n  got  %s\n  want %s", got, want);
}

static void test_candidates(void)
{
  /* 2 ranks, collective, noncontiguous write (the demo's pattern). */
  expect(cands(2, OB_PHASE_WRITE, 1, 1, 1, 0),
         "romio_cb_write=automatic|romio_cb_write=enable|romio_cb_write=disable|"
         "romio_cb_write=enable,cb_nodes=1,cb_config_list=*:*|"
         "romio_cb_write=enable,cb_nodes=2,cb_config_list=*:*|"
         "romio_cb_write=disable,romio_ds_write=enable|"
         "romio_cb_write=disable,romio_ds_write=disable|"
         "romio_cb_write=enable,cb_nodes=1,cb_config_list=*:*,romio_no_indep_rw=true|"
         "romio_cb_write=enable,cb_nodes=2,cb_config_list=*:*,romio_no_indep_rw=true");
  /* The read phase uses the read hints; contiguous: no data sieving candidates. */
  expect(cands(2, OB_PHASE_READ, 1, 0, 1, 0),
         "romio_cb_read=automatic|romio_cb_read=enable|romio_cb_read=disable|"
         "romio_cb_read=enable,cb_nodes=1,cb_config_list=*:*|"
         "romio_cb_read=enable,cb_nodes=2,cb_config_list=*:*|"
         "romio_cb_read=enable,cb_nodes=1,cb_config_list=*:*,romio_no_indep_rw=true|"
         "romio_cb_read=enable,cb_nodes=2,cb_config_list=*:*,romio_no_indep_rw=true");
  /* cb_nodes 1, 2, 4, ... and P: 6 ranks -> 1 2 4 6. */
  const char *six = cands(6, OB_PHASE_WRITE, 1, 0, 1, 0);
  CHECKF(strstr(six, "cb_nodes=1,") && strstr(six, "cb_nodes=2,") && strstr(six, "cb_nodes=4,")
         && strstr(six, "cb_nodes=6,") && !strstr(six, "cb_nodes=3") && !strstr(six, "cb_nodes=5")
         && !strstr(six, "cb_nodes=8"), "6 ranks: %s", six);
  expect(cands(1, OB_PHASE_WRITE, 1, 0, 1, 0),
         "romio_cb_write=automatic|romio_cb_write=enable|romio_cb_write=disable|"
         "romio_cb_write=enable,cb_nodes=1,cb_config_list=*:*|"
         "romio_cb_write=enable,cb_nodes=1,cb_config_list=*:*,romio_no_indep_rw=true");
  /* Independent calls: no cb hints, no romio_no_indep_rw; ds only if noncontiguous. */
  expect(cands(2, OB_PHASE_WRITE, 0, 1, 1, 0),
         "romio_ds_write=automatic|romio_ds_write=enable|romio_ds_write=disable");
  expect(cands(4, OB_PHASE_READ, 0, 0, 1, 0), "romio_ds_read=automatic");
  /* Striping only where the file system takes it. */
  expect(cands(2, OB_PHASE_READ, 0, 0, 1, 1),
         "romio_ds_read=automatic|striping_factor=2,striping_unit=1048576|"
         "striping_factor=4,striping_unit=1048576");
  CHECK(!strstr(cands(2, OB_PHASE_WRITE, 1, 1, 1, 0), "striping"));
  /* Open MPI's OMPIO: the defaults only (its knobs are MCA parameters). */
  expect(cands(2, OB_PHASE_WRITE, 1, 1, 0, 0), "(defaults)");
  /* Bounded: 64 ranks, everything on, within the cap. */
  ob_hintset h[OB_BEST_MAX_CAND];
  ob_best_query q = {.nprocs = 64, .collective = 1, .noncontig = 1, .romio = 1, .striping = 1};
  int n = ob_best_candidates(&q, h, OB_BEST_MAX_CAND);
  CHECKF(n == 3 + 7 + 2 + 2 + 2, "64 ranks: %d candidates", n);
  CHECK(ob_best_candidates(&q, h, 4) == 4);
}

static void test_hintset(void)
{
  ob_hintset h;
  char s[256];
  CHECK(ob_hintset_parse("romio_cb_write=disable,cb_nodes=2", &h) == 0 && h.n == 2);
  CHECK(!strcmp(h.key[1], "cb_nodes") && !strcmp(h.val[1], "2"));
  ob_hintset_str(&h, s, sizeof s);
  CHECK(!strcmp(s, "romio_cb_write=disable,cb_nodes=2"));
  CHECK(ob_hintset_parse("cb_config_list=*:*", &h) == 0 && !strcmp(h.val[0], "*:*"));
  CHECK(ob_hintset_parse("defaults", &h) == 0 && h.n == 0);
  ob_hintset_str(&h, s, sizeof s);
  CHECK(!strcmp(s, "(defaults)"));
  CHECK(ob_hintset_parse("novalue", &h) == -1);
  CHECK(ob_hintset_parse("=x", &h) == -1);
  CHECK(ob_hintset_parse("a=1,", &h) == -1);
  CHECK(ob_hintset_parse("a=1,b=2,c=3,d=4,e=5,f=6,g=7", &h) == -1);
  CHECK(ob_hintset_parse("a_key_that_is_far_too_long_for_it=1", &h) == -1);
}

static int parse(const char *line, ob_config *c, char *err, size_t cap)
{
  static char buf[1024];
  char *argv[32];
  int argc = 0;
  snprintf(buf, sizeof buf, "%s", line);
  argv[argc++] = "ostio-bench";
  for (char *t = strtok(buf, " "); t && argc < 31; t = strtok(NULL, " ")) argv[argc++] = t;
  argv[argc] = NULL;
  err[0] = '\0';
  return ob_parse_args(argc, argv, c, err, cap);
}

static void test_flags(void)
{
  ob_config c;
  char err[512];
  CHECK(parse("-a mpiio:best,mpiio,ostio", &c, err, sizeof err) == OB_OK && c.napis == 3);
  CHECK(c.apis[0].kind == OB_API_MPIIO && c.apis[0].best && !c.apis[0].ostio_mpiio);
  CHECK(!c.apis[1].best && ob_baseline_api(&c) == 0);
  CHECK(parse("-a ostio,mpiio", &c, err, sizeof err) == OB_OK && ob_baseline_api(&c) == 1);
  CHECK(parse("-a ostio", &c, err, sizeof err) == OB_OK && ob_baseline_api(&c) == -1);
  CHECK(parse("-a mpiio:best --best-write romio_cb_write=disable --best-read defaults", &c, err,
              sizeof err) == OB_OK);
  CHECK(c.best_given_set[OB_PHASE_WRITE] && c.best_given[OB_PHASE_WRITE].n == 1);
  CHECK(c.best_given_set[OB_PHASE_READ] && c.best_given[OB_PHASE_READ].n == 0);
  CHECK(parse("-a mpiio --best-write romio_cb_write=disable", &c, err, sizeof err) == OB_EUSAGE
        && !strncmp(err, "--best-write", 12) && strstr(err, "mpiio:best"));
  CHECK(parse("-a mpiio:best --best-read nonsense", &c, err, sizeof err) == OB_EUSAGE
        && !strncmp(err, "--best-read", 11));
  CHECK(parse("-a mpiio:worst", &c, err, sizeof err) == OB_EUSAGE && strstr(err, "mpiio:best"));
  size_t tl = 0;
  char *text = NULL;
  FILE *f = open_memstream(&text, &tl);
  if (f) {
    ob_usage(f);
    fclose(f);
  }
  CHECK(text && strstr(text, "mpiio:best") && strstr(text, "--best-write")
        && strstr(text, "--best-read") && strstr(text, "0.3 s"));
  free(text);
}

/* A fake phase: the candidate whose first value is "disable" is the fastest. */
static int fake_phase(void *ctx, int write, const ob_hintset *h, ob_result *r)
{
  int *calls = ctx;
  (*calls)++;
  (void)write;
  r->bytes = 100 << 20;
  r->t_total = h->n && !strcmp(h->val[0], "disable") ? 0.05 : 0.2;
  return 0;
}

static void test_sweep_and_report(void)
{
  ob_config c;
  char err[512];
  CHECK(parse("-a ostio,mpiio:best,mpiio -c -i 1 --warmup 0", &c, err, sizeof err) == OB_OK);
  ob_results res = {0};
  res.nprocs = 2;
  ob_best_query q = {.nprocs = 2, .phase = OB_PHASE_WRITE, .collective = 1, .noncontig = 1,
                     .romio = 1};
  ob_sweep *sw = &res.sweep[OB_PHASE_WRITE];
  sw->ncand = ob_best_candidates(&q, sw->cand, OB_BEST_MAX_CAND);
  int calls = 0;
  CHECK(ob_best_sweep(sw, OB_PHASE_WRITE, fake_phase, &calls) == 0 && sw->done);
  /* romio_cb_write=disable (index 2) and its two ds variants are fastest: the first wins. */
  CHECKF(sw->chosen == 2, "chosen %d", sw->chosen);
  /* Each candidate runs until 0.3 s: 2 phases of 0.2 s, 6 of 0.05 s (6 slow, 3 fast). */
  CHECK(sw->reps[0] == 2 && sw->reps[2] == 6 && sw->bw[2] == 2000.0 && sw->bw[0] == 500.0);
  CHECK(calls == 6 * 2 + 3 * 6);
  /* The main phases: ostio 400 MiB/s, mpiio:best 200, mpiio 50. */
  double bw[3] = {400, 200, 50};
  for (int a = 0; a < 3; a++) {
    ob_result r = {.api = a, .phase = OB_PHASE_WRITE, .bytes = 100 << 20, .t_total = 100 / bw[a],
                   .bw_mib = bw[a], .aggr_max = -1, .objects_max = -1, .sys_writes = -1,
                   .sys_reads = -1};
    CHECK(ob_results_add(&res, &r) == OB_OK);
  }
  ob_summary *s = NULL;
  int n = ob_summarize(&c, &res, &s);
  CHECK(n == 3);
  if (n == 3) {
    CHECK(s[0].ratio == 2.0 && s[0].ratio_mpiio == 8.0);
    CHECK(s[1].ratio == 1.0 && s[1].ratio_mpiio == 4.0 && s[2].ratio == 0.25);
  }
  free(s);
  char *text = NULL, *json = NULL;
  size_t tl = 0, jl = 0;
  FILE *f = open_memstream(&text, &tl);
  if (f) ob_report_text(f, &c, &res), fclose(f);
  f = open_memstream(&json, &jl);
  if (f) ob_report_json(f, &c, &res), fclose(f);
  CHECK(text && strstr(text, "mpiio:best write hints: romio_cb_write=disable (best of 9"));
  CHECK(text && strstr(text, "2.00x") && strstr(text, "8.00x") && strstr(text, "vs best"));
  CHECK(json && strstr(json, "\"baseline\": \"mpiio:best\""));
  CHECK(json && strstr(json, "\"mpiio_best\": {\n    \"write\": {\"hints\": "
                             "{\"romio_cb_write\": \"disable\"}, \"swept\": true"));
  CHECK(json && strstr(json, "\"ratio_vs_mpiio\": 8, \"ratio_vs_baseline\": 2,"));
  free(text);
  free(json);
  ob_results_free(&res);
}

int main(void)
{
  test_candidates();
  test_hintset();
  test_flags();
  test_sweep_and_report();
  return TEST_DONE();
}
