/* ostio_layout_query under MPI: only rank 0 asks the file system, every rank
 * gets the same layout, and a failure is returned by every rank. */
#include <stdio.h>
#include <string.h>
#include <sys/xattr.h>

#include "core/runtime.h"
#include "layout/source.h"
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

  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) tu_rmtree(dir);
  char prefix[32];
  snprintf(prefix, sizeof prefix, "ranks %d: ", nprocs);
  int status = tu_done_mpi(MPI_COMM_WORLD, prefix, __FILE__);
  MPI_Finalize();
  return status;
}
