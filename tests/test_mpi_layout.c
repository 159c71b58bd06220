/* ostio_layout_query under MPI: only rank 0 asks the file system, every rank
 * gets the same layout, and a failure is returned by every rank. */
#include <stdio.h>
#include <string.h>
#include <sys/xattr.h>

#include "core/runtime.h"
#include "container/layout_sources.h"
#include "testutil.h"

int main(int argc, char **argv)
{
  int rank, nprocs, rc;
  char dir[512] = "", path[600];
  ostio_layout *l = NULL;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
  if (rank == 0 && tu_tmpdir(dir, sizeof dir, "mpilayout") < 0) perror("mkdtemp");
  MPI_Bcast(dir, sizeof dir, MPI_CHAR, 0, MPI_COMM_WORLD);
  snprintf(path, sizeof path, "%s/file", dir);
  if (rank == 0) {
    ostio_layout *want = NULL;
    ostio__layout_simple(1 << 20, 7, 3, &want);
    CHECK(ostio__layout_create(path, NULL, want, 0644, NULL) == 0);
    ostio__layout_destroy(want);
  }
  MPI_Barrier(MPI_COMM_WORLD);

  long before = atomic_load(&ostio__rt.layout_fs_queries);
  rc = ostio_layout_query(MPI_COMM_WORLD, path, MPI_INFO_NULL, &l);
  long asked = atomic_load(&ostio__rt.layout_fs_queries) - before, total = 0;
  MPI_Allreduce(&asked, &total, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
  CHECK(rc == 0);
  CHECKF(total == 1, "file system asked %ld times over %d ranks, expected once", total, nprocs);
  CHECK(rank != 0 || asked == 1);
  if (l) {
    ostio_layout_component c;
    CHECK(ostio_layout_ncomponents(l) == 1);
    CHECK(ostio_layout_get_component(l, 0, &c) == 0);
    CHECK(c.stripe_count == 7 && c.stripe_size == 1 << 20 && c.first_ost == 3 && c.osts &&
          c.osts[6] == 9 && c.end == OSTIO_EOF);
    CHECK(!strcmp(ostio_layout_source(l), "emulated"));
    ostio_piece p[4];
    size_t np = 0;
    CHECK(ostio_layout_map(l, (7LL << 20) + 5, 2 << 20, p, 4, &np) == 0 && np == 3);
    CHECK(p[0].object == 0 && p[0].ost == 3 && p[0].object_offset == (1 << 20) + 5);
    CHECK(ostio_layout_get_component(l, 1, &c) == OSTIO_ERANGE);
  }
  ostio_layout_free(&l);
  CHECK(l == NULL);

  /* Only rank 0's path matters: the others may pass anything, even NULL. */
  rc = ostio_layout_query(MPI_COMM_WORLD, rank == 0 ? path : NULL, MPI_INFO_NULL, &l);
  CHECK(rc == 0 && l && l->comp[0].stripe_count == 7);
  ostio_layout_free(&l);

  /* Hints in MPI_Info reach the root's resolution. */
  MPI_Info info;
  MPI_Info_create(&info);
  MPI_Info_set(info, "ostio_layout_source", "hints");
  MPI_Info_set(info, "striping_factor", "5");
  rc = ostio_layout_query(MPI_COMM_WORLD, path, info, &l);
  CHECK(rc == 0 && l && l->comp[0].stripe_count == 5 && !strcmp(l->source, "hints"));
  ostio_layout_free(&l);
  MPI_Info_set(info, "striping_factor", "many");
  rc = ostio_layout_query(MPI_COMM_WORLD, path, info, &l);
  CHECK(rc == OSTIO_EHINT && l == NULL && strstr(ostio_last_error(), "striping_factor"));
  MPI_Info_free(&info);

  /* A failure on the root is every rank's failure, with the root's detail. */
  if (rank == 0) setxattr(path, OSTIO__LAYOUT_XATTR, "garbage", 7, 0);
  MPI_Barrier(MPI_COMM_WORLD);
  rc = ostio_layout_query(MPI_COMM_WORLD, path, MPI_INFO_NULL, &l);
  CHECK(rc == OSTIO_EFORMAT && l == NULL);
  CHECKF(strstr(ostio_last_error(), "file") != NULL, "detail: %s", ostio_last_error());
  int codes_min = rc, codes_max = rc;
  MPI_Allreduce(MPI_IN_PLACE, &codes_min, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  MPI_Allreduce(MPI_IN_PLACE, &codes_max, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  CHECK(codes_min == codes_max);

  /* Issue 14 item 5: a file ostio_open creates with striping hints gets
   * its OSTs as `ostio setstripe` gives them off Lustre (from start_iodevice,
   * else 0, consecutive); before, the record said first_ost=-1 with no OST
   * list, getstripe showed -1 and the statistics counted 0 OSTs. */
  char made[700];
  snprintf(made, sizeof made, "%s/made", dir);
  MPI_Info_create(&info);
  MPI_Info_set(info, "striping_factor", "4");
  MPI_Info_set(info, "striping_unit", "65536");
  MPI_Info_set(info, "cb_config_list", "*:*");
  ostio_file *fh = NULL;
  rc = ostio_open(MPI_COMM_WORLD, made, MPI_MODE_CREATE | MPI_MODE_WRONLY, info, &fh);
  CHECKF(rc == 0, "open: %s", ostio_last_error());
  if (rc == 0) {
    static char block[4 * 65536];
    ostio_extent e = {(int64_t)rank * (int64_t)sizeof block, (int64_t)sizeof block};
    memset(block, 'a' + rank, sizeof block);
    CHECKF(ostio_write_all(fh, &e, 1, block) == 0, "write_all: %s", ostio_last_error());
    double osts = 0, most = 0;
    CHECK(ostio_stat_get(fh, "osts_max", &osts) == 0);
    MPI_Allreduce(&osts, &most, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    CHECKF(most >= 1, "osts_max over ranks %g: the created file's objects have no OSTs", most);
    const ostio_layout *fl = ostio_file_layout(fh);
    CHECK(fl && fl->comp[0].osts && fl->comp[0].osts[0] == 0 && fl->comp[0].osts[3] == 3);
    CHECK(ostio_close(&fh) == 0);
  }
  if (rank == 0) {
    char rec[4096];
    ssize_t n = getxattr(made, OSTIO__LAYOUT_XATTR, rec, sizeof rec - 1);
    CHECK(n > 0);
    if (n > 0) {
      rec[n] = 0;
      CHECKF(!strcmp(rec, "ostio-layout 1\ncomponent start=0 end=eof stripe_size=65536 "
                          "stripe_count=4 first_ost=0 pattern=raid0 instantiated=1 "
                          "osts=0-3\n"), "record: %s", rec);
    }
  }
  rc = ostio_layout_query(MPI_COMM_WORLD, made, MPI_INFO_NULL, &l);
  CHECK(rc == 0 && l && !strcmp(l->source, "emulated") && l->comp[0].osts &&
        l->comp[0].first_ost == 0 && l->comp[0].osts[2] == 2);
  ostio_layout_free(&l);
  /* start_iodevice is the first OST */
  snprintf(made, sizeof made, "%s/made2", dir);
  MPI_Info_set(info, "start_iodevice", "6");
  MPI_Info_set(info, "striping_factor", "2");
  rc = ostio_open(MPI_COMM_WORLD, made, MPI_MODE_CREATE | MPI_MODE_WRONLY, info, &fh);
  CHECK(rc == 0 && ostio_close(&fh) == 0);
  rc = ostio_layout_query(MPI_COMM_WORLD, made, MPI_INFO_NULL, &l);
  CHECK(rc == 0 && l && l->comp[0].osts && l->comp[0].osts[0] == 6 && l->comp[0].osts[1] == 7);
  ostio_layout_free(&l);

  /* Issue 14 item 6: creating in a directory that does not exist names
   * the directory; before: "DIR/nodir: cannot read user.ostio.layout: No
   * such file or directory" (no striping hints) or "cannot create". */
  char missing[800], nodir[700];
  snprintf(nodir, sizeof nodir, "%s/nodir", dir);
  snprintf(missing, sizeof missing, "%s/out.dat", nodir);
  for (int with_hints = 0; with_hints < 2; with_hints++) {
    rc = ostio_open(MPI_COMM_WORLD, missing, MPI_MODE_CREATE | MPI_MODE_WRONLY,
                    with_hints ? info : MPI_INFO_NULL, &fh);
    CHECK(rc == OSTIO_ENOENT && fh == NULL);
    char want[900];
    snprintf(want, sizeof want, "directory %s does not exist", nodir);
    CHECKF(strstr(ostio_last_error(), want) && strstr(ostio_last_error(), missing),
           "hints %d: detail: %s", with_hints, ostio_last_error());
    CHECKF(!strstr(ostio_last_error(), "user.ostio.layout"), "detail: %s", ostio_last_error());
  }
  MPI_Info_free(&info);

  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) tu_rmtree(dir);
  char prefix[32];
  snprintf(prefix, sizeof prefix, "ranks %d: ", nprocs);
  int status = tu_done_mpi(MPI_COMM_WORLD, prefix, __FILE__);
  MPI_Finalize();
  return status;
}
