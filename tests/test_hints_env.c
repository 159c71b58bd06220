/* Hints from the outside: OSTIO_HINTS parsing, then, with MPI initialised,
 * MPI_Info input, precedence and ostio_hints_effective(). */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "hints/hints.h"
#include "hintsutil.h"
#include "ostio.h"
#include "testutil.h"

/* ---- OSTIO_HINTS ------------------------------------------------------------ */

/* Applies env for path to fresh defaults; returns the code. */
static int env_apply(ostio__hints *h, const char *path, const char *env)
{
  fresh(h);
  return ostio__hints_apply_env(h, path, env);
}

static void test_env(void)
{
  ostio__hints h, ref;
  fresh(&ref);
  CHECK(env_apply(&h, "/a", NULL) == 0 && same(&h, &ref));
  CHECK(env_apply(&h, "/a", "") == 0 && same(&h, &ref));
  CHECK(env_apply(&h, "/a", " , ") == 0 && same(&h, &ref));

  CHECK(env_apply(&h, "/deep/dir/f", "*:cb_nodes=4") == 0);
  CHECK(h.cb_nodes == 4 && ostio__hints_given(&h, "cb_nodes"));
  CHECK(env_apply(&h, "/x", "*:cb_nodes=4:romio_cb_read=disable:striping_unit=1m") == 0);
  CHECK(h.cb_nodes == 4 && h.romio_cb_read == OSTIO__TRI_DISABLE &&
        h.striping_unit == 1048576);

  const char *two = "*.dat:cb_nodes=2,*.txt:cb_nodes=3:direct_io=true";
  CHECK(env_apply(&h, "/a/b.dat", two) == 0 && h.cb_nodes == 2 && h.direct_read == 0);
  CHECK(env_apply(&h, "/a/b.txt", two) == 0 && h.cb_nodes == 3 && h.direct_read == 1 &&
        h.direct_write == 1);
  CHECK(env_apply(&h, "/a/b.bin", two) == 0 && same(&h, &ref));
  CHECK(env_apply(&h, "b.dat", two) == 0 && h.cb_nodes == 2);
  CHECK(env_apply(&h, "/scratch/run1/out.h5", "/scratch/*:cb_nodes=7") == 0 && h.cb_nodes == 7);
  CHECK(env_apply(&h, "/home/out.h5", "/scratch/*:cb_nodes=7") == 0 && same(&h, &ref));

  const char *over = "*:cb_nodes=2:striping_factor=4,*.dat:cb_nodes=5";
  CHECK(env_apply(&h, "/a/b.dat", over) == 0 && h.cb_nodes == 5 && h.striping_factor == 4);
  CHECK(env_apply(&h, "/a/b.txt", over) == 0 && h.cb_nodes == 2);
  CHECK(env_apply(&h, "/f", "*:cb_nodes=2:cb_nodes=3") == 0 && h.cb_nodes == 3);

  /* Values with ':' and ','. */
  CHECK(env_apply(&h, "/f", "*:cb_config_list=*:2") == 0 && !strcmp(h.cb_config_list, "*:2"));
  CHECK(env_apply(&h, "/f", "*:cb_config_list=*:*") == 0 && !strcmp(h.cb_config_list, "*:*"));
  CHECK(env_apply(&h, "/f", "*:cb_config_list=n01:2,n11:2:cb_nodes=2") == 0 &&
        !strcmp(h.cb_config_list, "n01:2,n11:2") && h.cb_nodes == 2);
  CHECK(env_apply(&h, "/x.dat", "*:cb_config_list=n01,n11,*.dat:cb_nodes=3") == 0 &&
        !strcmp(h.cb_config_list, "n01,n11") && h.cb_nodes == 3);
  CHECK(env_apply(&h, "/x.dat", "*:cb_config_list=*:2,*.dat:striping_factor=4") == 0 &&
        !strcmp(h.cb_config_list, "*:2") && h.striping_factor == 4);
  CHECK(env_apply(&h, "/x.txt", "*:cb_config_list=*:2,*.dat:striping_factor=4") == 0 &&
        !strcmp(h.cb_config_list, "*:2") && h.striping_factor == 0);

  /* Whitespace around tokens, empty segments. */
  CHECK(env_apply(&h, "/x.dat",
                  "  *.dat : cb_nodes = 4 : cb_config_list = n01:2 , n02 : 2 ,"
                  "  *.txt:cb_nodes=9 ,") == 0);
  CHECK(h.cb_nodes == 4 && !strcmp(h.cb_config_list, "n01:2,n02:2"));
  CHECKF(env_apply(&h, "/f", "*:cb_nodes=4,,\t*:romio_ds_write=enable,") == 0 &&
         h.cb_nodes == 4 && h.romio_ds_write == OSTIO__TRI_ENABLE, "%s", ostio_last_error());

  /* Foreign keys are ignored; our unknown keys are not. */
  CHECK(env_apply(&h, "/f", "*:access_style=read_once:cb_nodes=3") == 0 && h.cb_nodes == 3);
  CHECK(env_apply(&h, "/f", "*:ostio_nope=1") == OSTIO_EHINT && has("ostio_nope"));

  /* Syntax errors: nothing is applied, even entries before the bad one. */
  static const struct { const char *env, *quote; } syn[] = {
    {"cb_nodes=4", "\"cb_nodes=4\""}, {":cb_nodes=4", "\":cb_nodes=4\""},
    {"*:=4", "\"*:=4\""}, {"*:cb_nodes", "\"*:cb_nodes\""}, {"*", "\"*\""},
    {"*:foo:cb_nodes=4", "\"*:foo:cb_nodes=4\""},
    {"*:cb_nodes=4,*:=3", "\"*:=3\""}, {"*.txt:=3", "\"*.txt:=3\""},
    {"*:cb_config_list=n01:2,x=y", "x=y"}, {"*:cb nodes=4", "cb nodes"},
    {"*:cb_nodes=4, :romio_cb_read=enable", ":romio_cb_read=enable"},
  };
  for (size_t i = 0; i < sizeof syn / sizeof syn[0]; i++) {
    int rc = env_apply(&h, "/a.dat", syn[i].env);
    CHECKF(rc == OSTIO_EHINT, "OSTIO_HINTS=%s: rc %d", syn[i].env, rc);
    CHECKF(has("OSTIO_HINTS") && has(syn[i].quote) && has("pattern:key=value"),
           "OSTIO_HINTS=%s: detail \"%s\"", syn[i].env, ostio_last_error());
    CHECKF(same(&h, &ref), "OSTIO_HINTS=%s changed the hints", syn[i].env);
  }
  CHECK(env_apply(&h, "/a.dat", "*:=4") == OSTIO_EHINT && has("key is empty"));
  CHECK(env_apply(&h, "/a.dat", ":x=4") == OSTIO_EHINT && has("pattern is empty"));

  /* Bad values: the hint's own message, saying where it came from. */
  CHECK(env_apply(&h, "/a.dat", "*:cb_nodes=3,*.dat:cb_buffer_size=12x") == OSTIO_EHINT);
  CHECK(has("cb_buffer_size=\"12x\"") && has("byte count") && has("OSTIO_HINTS") &&
        has("*.dat"));
  CHECK(same(&h, &ref));
  CHECK(env_apply(&h, "/a.dat", "*:striping_unit=99999999999g") == OSTIO_EHINT &&
        has("too large"));
  /* A ','-segment without ':' continues the value: here it makes it bad. */
  CHECK(env_apply(&h, "/a.dat", "*:cb_nodes=2,8") == OSTIO_EHINT && has("\"2,8\""));
  /* Entries that do not match are checked for syntax only. */
  CHECK(env_apply(&h, "/a.dat", "*.txt:cb_buffer_size=12x:ostio_nope=1") == 0 &&
        same(&h, &ref));

  fresh(&h);
  CHECK(ostio__hints_apply_env(NULL, "/a", "*:cb_nodes=1") == OSTIO_EINVAL);
  CHECK(ostio__hints_apply_env(&h, NULL, "*:cb_nodes=1") == OSTIO_EINVAL);

  /* ostio__hints_resolve_env reads the variable. */
  setenv("OSTIO_HINTS", "*.dat:cb_nodes=6:ostio_layout_source=emulated", 1);
  CHECK(ostio__hints_resolve_env("/r/x.dat", &h) == 0 && h.cb_nodes == 6 &&
        h.ostio_layout_source == OSTIO__SRC_EMULATED);
  CHECK(ostio__hints_resolve_env("/r/x.txt", &h) == 0 && same(&h, &ref));
  setenv("OSTIO_HINTS", "*:cb_nodes=zero", 1);
  h.cb_nodes = 99;
  CHECK(ostio__hints_resolve_env("/r/x.dat", &h) == OSTIO_EHINT && has("cb_nodes"));
  CHECK(h.cb_nodes == 0); /* defaults on failure */
  unsetenv("OSTIO_HINTS");
  CHECK(ostio__hints_resolve_env("/r/x.dat", &h) == 0 && same(&h, &ref));
  CHECK(ostio__hints_resolve_env("/r/x.dat", NULL) == OSTIO_EINVAL);
}

/* ---- MPI ---------------------------------------------------------------------- */

static MPI_Info make_info(const char *const *kv)
{
  MPI_Info info;
  MPI_Info_create(&info);
  for (; kv[0]; kv += 2) MPI_Info_set(info, kv[0], kv[1]);
  return info;
}

/* Value of key in info, "" when absent. */
static const char *info_get(MPI_Info info, const char *key, char *buf, int cap)
{
  int flag = 0;
  buf[0] = '\0';
  MPI_Info_get(info, key, cap - 1, buf, &flag);
  if (!flag) buf[0] = '\0';
  return buf;
}

static void test_mpi(void)
{
  MPI_Info out = MPI_INFO_NULL;
  /* Before MPI_Init: a clear error, no crash. */
  CHECK(ostio_hints_effective("/f", MPI_INFO_NULL, &out) == OSTIO_EMPI);
  CHECK(out == MPI_INFO_NULL && has("not initialized"));

  LSAN_PAUSE();
  MPI_Init(NULL, NULL);
  LSAN_RESUME();
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  unsetenv("OSTIO_HINTS");

  ostio__hints h, ref;
  fresh(&ref);
  fresh(&h);
  CHECK(ostio__hints_from_info(&h, MPI_INFO_NULL) == 0 && same(&h, &ref));
  CHECK(ostio__hints_from_info(NULL, MPI_INFO_NULL) == OSTIO_EINVAL);

  static const char *const kv1[] = {"cb_nodes", "4", "romio_cb_write", "disable",
                                    "access_style", "read_once", "direct_io", "true",
                                    "striping_factor", "8", "cb_config_list", "n01:2,n02:2",
                                    NULL};
  MPI_Info info = make_info(kv1);
  CHECK(ostio__hints_from_info(&h, info) == 0);
  CHECK(h.cb_nodes == 4 && h.romio_cb_write == OSTIO__TRI_DISABLE && h.direct_read == 1 &&
        h.direct_write == 1 && h.striping_factor == 8 &&
        !strcmp(h.cb_config_list, "n01:2,n02:2"));
  CHECK(ostio__hints_given(&h, "cb_nodes") && !ostio__hints_given(&h, "cb_buffer_size"));

  static const char *const bad1[] = {"cb_nodes", "4", "striping_unit", "12x", NULL};
  static const char *const bad2[] = {"ostio_bogus", "1", NULL};
  MPI_Info bad = make_info(bad1), bogus = make_info(bad2);
  fresh(&h);
  CHECK(ostio__hints_from_info(&h, bad) == OSTIO_EHINT && has("striping_unit=\"12x\""));
  CHECK(same(&h, &ref));
  CHECK(ostio__hints_from_info(&h, bogus) == OSTIO_EHINT && has("ostio_bogus"));

  /* Issue 14 item 4: unknown keys from info and OSTIO_HINTS are recorded. */
  static const char *const typo_kv[] = {"romio_cb_wirte", "enable", "cb_nodes", "2",
                                        "access_style", "read_once", NULL};
  MPI_Info typo = make_info(typo_kv);
  setenv("OSTIO_HINTS", "*.dat:cb_buffer_sise=4m:romio_cb_wirte=disable", 1);
  CHECK(ostio__hints_resolve("/p/x.dat", typo, &h) == 0);
  CHECK(h.cb_nodes == 2 && h.cb_buffer_size == 16777216 && h.nunknown == 2);
  CHECK(h.nunknown == 2 && !strcmp(h.unknown[0].key, "romio_cb_wirte") &&
        !strcmp(h.unknown[1].key, "cb_buffer_sise") &&
        !strcmp(h.unknown[1].suggestion, "cb_buffer_size"));
  CHECK(ostio__hints_resolve("/p/x.txt", typo, &h) == 0 && h.nunknown == 1);
  unsetenv("OSTIO_HINTS");
  MPI_Info_free(&typo);

  /* Precedence: defaults < info < OSTIO_HINTS (per file). */
  CHECK(ostio__hints_resolve("/p/x.dat", info, &h) == 0);
  CHECK(h.cb_nodes == 4 && h.striping_factor == 8 && h.cb_buffer_size == 16777216);
  setenv("OSTIO_HINTS", "*.dat:cb_nodes=6:cb_buffer_size=1m,*.txt:striping_factor=2", 1);
  CHECK(ostio__hints_resolve("/p/x.dat", info, &h) == 0);
  CHECK(h.cb_nodes == 6 && h.striping_factor == 8 && h.cb_buffer_size == 1048576 &&
        h.romio_cb_write == OSTIO__TRI_DISABLE);
  CHECK(ostio__hints_resolve("/p/x.txt", info, &h) == 0);
  CHECK(h.cb_nodes == 4 && h.striping_factor == 2 && h.cb_buffer_size == 16777216);
  CHECK(ostio__hints_resolve("/p/x.bin", MPI_INFO_NULL, &h) == 0 && same(&h, &ref));
  CHECK(ostio__hints_resolve("/p/x.dat", bad, &h) == OSTIO_EHINT && same(&h, &ref));

  /* ostio_hints_effective: every key, effective values, nothing else. */
  CHECK(ostio_hints_effective("/p/x.dat", info, &out) == 0 && out != MPI_INFO_NULL);
  if (out != MPI_INFO_NULL) {
    int nkeys = -1;
    MPI_Info_get_nkeys(out, &nkeys);
    CHECK_EQ_I64(nkeys, NKEYS);
    CHECK(ostio__hints_resolve("/p/x.dat", info, &h) == 0);
    char got[MPI_MAX_INFO_VAL + 1], want[MPI_MAX_INFO_VAL + 1];
    for (int i = 0; i < NKEYS; i++) {
      const char *k = ostio__hints_key(i);
      info_get(out, k, got, (int)sizeof got);
      CHECKF(!strcmp(got, fmt(&h, k, want, sizeof want)), "%s: \"%s\" vs \"%s\"", k, got, want);
    }
    static const char *const want_kv[] = {
      "cb_nodes", "6", "striping_factor", "8", "cb_buffer_size", "1048576",
      "romio_cb_write", "disable", "romio_cb_read", "automatic", "direct_write", "true",
      "cb_config_list", "n01:2,n02:2", "start_iodevice", "-1", "ostio_layout_source", "auto",
      "access_style", "", "direct_io", "", NULL};
    for (const char *const *kv = want_kv; kv[0]; kv += 2)
      CHECKF(!strcmp(info_get(out, kv[0], got, (int)sizeof got), kv[1]), "%s=\"%s\"", kv[0],
             got);
    MPI_Info_free(&out);
  }
  {
    /* a strategy name is checked against the registry, as ostio_open does */
    MPI_Info ylib;
    MPI_Info_create(&ylib);
    MPI_Info_set(ylib, "ostio_strategy", "ylib");
    MPI_Info none = MPI_INFO_NULL;
    CHECK(ostio_hints_effective("/p/x.txt", ylib, &none) == OSTIO_EHINT && none == MPI_INFO_NULL);
    CHECKF(strstr(ostio_last_error(), "ylib") && strstr(ostio_last_error(), "independent"), "%s",
           ostio_last_error());
    MPI_Info_free(&ylib);
  }
  CHECK(ostio_hints_effective("/p/x.txt", MPI_INFO_NULL, &out) == 0 && out != MPI_INFO_NULL);
  if (out != MPI_INFO_NULL) {
    char got[64];
    CHECK(!strcmp(info_get(out, "striping_factor", got, (int)sizeof got), "2"));
    CHECK(!strcmp(info_get(out, "cb_nodes", got, (int)sizeof got), "0"));
    /* The effective info goes back in unchanged, "not given" values included. */
    MPI_Info again = MPI_INFO_NULL;
    CHECKF(ostio_hints_effective("/p/x.txt", out, &again) == 0, "%s", ostio_last_error());
    if (again != MPI_INFO_NULL) {
      CHECK(!strcmp(info_get(again, "start_iodevice", got, (int)sizeof got), "-1"));
      CHECK(!strcmp(info_get(again, "striping_unit", got, (int)sizeof got), "0"));
      MPI_Info_free(&again);
    }
    MPI_Info_free(&out);
  }

  /* Errors: MPI_INFO_NULL out, whatever it held. */
  MPI_Info keep;
  MPI_Info_create(&keep);
  out = keep;
  CHECK(ostio_hints_effective("/p/x.dat", bad, &out) == OSTIO_EHINT && out == MPI_INFO_NULL);
  setenv("OSTIO_HINTS", "*:romio_ds_read=sometimes", 1);
  out = keep;
  CHECK(ostio_hints_effective("/p/x.dat", info, &out) == OSTIO_EHINT && out == MPI_INFO_NULL);
  CHECK(has("romio_ds_read") && has("sometimes") && has("OSTIO_HINTS"));
  setenv("OSTIO_HINTS", "*:", 1);
  out = keep;
  CHECK(ostio_hints_effective("/p/x.dat", info, &out) == OSTIO_EHINT && out == MPI_INFO_NULL);
  unsetenv("OSTIO_HINTS");
  out = keep;
  CHECK(ostio_hints_effective(NULL, info, &out) == OSTIO_EINVAL && out == MPI_INFO_NULL);
  CHECK(ostio_hints_effective("/p/x.dat", info, NULL) == OSTIO_EINVAL);

  /* A value too long for cb_config_list arrives through info too. */
  char longv[400];
  memset(longv, 'n', sizeof longv - 1);
  longv[sizeof longv - 1] = '\0';
  /* (Open MPI refuses info values of MPI_MAX_INFO_VAL = 256 bytes or more
   * itself; MPICH takes up to 1024.) */
  if (MPI_Info_set(keep, "cb_config_list", longv) == MPI_SUCCESS)
    CHECK(ostio__hints_resolve("/p/x.dat", keep, &h) == OSTIO_EHINT && has("too long"));

  MPI_Info_free(&keep);
  MPI_Info_free(&info);
  MPI_Info_free(&bad);
  MPI_Info_free(&bogus);
  LSAN_PAUSE();
  MPI_Finalize();
  LSAN_RESUME();
}

int main(void)
{
  unsetenv("OSTIO_HINTS");
  test_env();
  test_mpi();
  return TEST_DONE();
}
