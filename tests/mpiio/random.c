/* random: `random OUTPATH SEED [ITERATIONS [empty]]`. Each iteration draws a random
 * nested filetype T (same on every rank, from SEED) and per rank a random
 * memory type M, count, and starting offset (from SEED and the rank). Rank r's
 * filetype is T placed at r * ext(T) in a tile of np * ext(T), so ranks never
 * overlap; each iteration owns a fresh region of the file (set_size first, so
 * holes are zeros). The call is drawn too: write_at, write_at_all, seek + write,
 * write_all, iwrite_at, write_at_all_begin/end. The data are read back through
 * the same types (gaps in memory must stay untouched); at the end every rank
 * checks the whole file against the image built from the types' own
 * flattening (rtype.c), not from MPI. `empty` lets indexed and hindexed types
 * have empty blocks (ROMIO gets some of those wrong, see below: for
 * implementations other than ROMIO). */
#include "mpiio_util.h"
#include "rtype.h"

#include <stdlib.h>
#include <stdio.h>
#include <string.h>

/* File byte of view data byte v of rank p: T's blocks, tiles np * ext apart. */
static long long file_byte(const struct rtype *T, int p, long long v)
{
    long long tile = v / T->size, in = v % T->size;
    int k = 0;
    while (in >= T->b[k].len)
        in -= T->b[k++].len;
    return tile * mu_nprocs * T->ext + p * T->ext + T->b[k].off + in;
}

/* Memory byte of stream byte s for count instances of M. */
static long long mem_byte(const struct rtype *M, long long s)
{
    long long inst = s / M->size, in = s % M->size;
    int k = 0;
    while (in >= M->b[k].len)
        in -= M->b[k++].len;
    return inst * M->ext + M->b[k].off + in;
}

static int do_io(MPI_File fh, int mode, int wr, MPI_Offset off, void *buf, int count,
                 MPI_Datatype t, MPI_Status *st)
{
    MPI_Request rq;
    int rc;
    switch (mode) {
    case 0:
        return wr ? MPI_File_write_at(fh, off, buf, count, t, st)
                  : MPI_File_read_at(fh, off, buf, count, t, st);
    case 1:
        return wr ? MPI_File_write_at_all(fh, off, buf, count, t, st)
                  : MPI_File_read_at_all(fh, off, buf, count, t, st);
    case 2:
    case 3:
        if ((rc = MPI_File_seek(fh, off, MPI_SEEK_SET)) != MPI_SUCCESS)
            return rc;
        if (mode == 2)
            return wr ? MPI_File_write(fh, buf, count, t, st)
                      : MPI_File_read(fh, buf, count, t, st);
        return wr ? MPI_File_write_all(fh, buf, count, t, st)
                  : MPI_File_read_all(fh, buf, count, t, st);
    case 4:
        rc = wr ? MPI_File_iwrite_at(fh, off, buf, count, t, &rq)
                : MPI_File_iread_at(fh, off, buf, count, t, &rq);
        return rc != MPI_SUCCESS ? rc : MPI_Wait(&rq, st);
    default:
        rc = wr ? MPI_File_write_at_all_begin(fh, off, buf, count, t)
                : MPI_File_read_at_all_begin(fh, off, buf, count, t);
        if (rc != MPI_SUCCESS)
            return rc;
        return wr ? MPI_File_write_at_all_end(fh, buf, st) : MPI_File_read_at_all_end(fh, buf, st);
    }
}

int main(int argc, char **argv)
{
    if (mu_init(&argc, &argv))
        return mu_finish();
    if (argc < 3) {
        mu_fail("usage: random OUTPATH SEED [ITERATIONS [empty]]");
        return mu_finish();
    }
    uint64_t seed = strtoull(argv[2], NULL, 0);
    int iters = argc > 3 ? atoi(argv[3]) : 16;
    static const char *names[6] = {"write_at", "write_at_all", "seek+write", "write_all",
                                   "iwrite_at", "write_at_all_begin/end"};
    size_t cap = 1 << 20, used = 0; /* the image of the file (this rank's bytes) */
    unsigned char *img = mu_calloc(cap, 1);
    MPI_File fh;
    MPI_Status st;
    if (!img || !mu_ok(MPI_File_open(MPI_COMM_WORLD, mu_out, MPI_MODE_CREATE | MPI_MODE_RDWR,
                                     MPI_INFO_NULL, &fh), "open"))
        return mu_finish();
    for (int it = 0; it < iters; it++) {
        uint64_t shared = seed * 1000003u + (uint64_t)it;
        uint64_t own = shared ^ (0xA5A5ull << 20) ^ (uint64_t)mu_rank * 7919u;
        struct rtype T, base, M;
        /* No empty blocks in nested types: ROMIO (MPICH 4.0.2) misplaces data
         * next to an empty hindexed/indexed block nested over a struct or with
         * a repeated displacement (types_with_zeros covers the simple cases). */
        rt_allow_empty = argc > 4 && strcmp(argv[4], "empty") == 0;
        if (rt_gen(&T, &shared, 3) || rt_gen(&base, &own, 2) || rt_permuted(&M, &base, &own)) {
            mu_fail("iteration %d: out of memory", it);
            break;
        }
        int mode = rt_below(&shared, 6), count = 1 + rt_below(&own, 5);
        long long off = rt_below(&own, (int)(2 * T.size)), nbytes = count * M.size;
        long long tiles = (off + nbytes + T.size - 1) / T.size, maxt = 0;
        MPI_Allreduce(&tiles, &maxt, 1, MPI_LONG_LONG, MPI_MAX, MPI_COMM_WORLD);
        size_t region = (size_t)(maxt * mu_nprocs * T.ext);
        if (used + region > cap) {
            size_t ncap = (used + region) * 2;
            unsigned char *n = realloc(img, ncap);
            if (!n) {
                mu_fail("out of memory");
                break;
            }
            memset(n + cap, 0, ncap - cap);
            img = n;
            cap = ncap;
        }
        MPI_Datatype one, ft;
        int b1 = 1;
        MPI_Aint d1 = (MPI_Aint)mu_rank * T.ext;
        MPI_Type_create_struct(1, &b1, &d1, &T.type, &one);
        MPI_Type_create_resized(one, 0, (MPI_Aint)(mu_nprocs * T.ext), &ft);
        MPI_Type_commit(&ft);
        size_t msz = (size_t)((count - 1) * M.ext + M.ext);
        unsigned char *w = mu_calloc(msz, 1), *r = mu_calloc(msz, 1), *want = mu_calloc(msz, 1);
        mu_fill(w, msz, mu_rank, (long long)it << 24);
        for (long long s = 0; s < nbytes; s++) {
            long long m = mem_byte(&M, s);
            img[used + file_byte(&T, mu_rank, off + s)] = w[m];
            want[m] = w[m];
        }
        char what[160];
        snprintf(what, sizeof what,
                 "iteration %d (%s, T %lld/%lld bytes in %d blocks, M %lld/%lld x %d, off %lld)",
                 it, names[mode], T.size, T.ext, T.nb, M.size, M.ext, count, off);
        mu_ok(MPI_File_set_size(fh, (MPI_Offset)(used + region)), what);
        mu_ok(MPI_File_set_view(fh, (MPI_Offset)used, MPI_BYTE, ft, "native", MPI_INFO_NULL), what);
        if (mu_ok(do_io(fh, mode, 1, off, w, count, M.type, &st), what))
            mu_count_is(&st, M.type, count, what);
        mu_ok(MPI_File_sync(fh), what);
        MPI_Barrier(MPI_COMM_WORLD);
        mu_ok(MPI_File_sync(fh), what);
        if (mu_ok(do_io(fh, (mode + 1) % 6, 0, off, r, count, M.type, &st), what))
            mu_count_is(&st, M.type, count, what);
        mu_same(r, want, msz, what);
        used += region;
        free(w);
        free(r);
        free(want);
        MPI_Type_free(&one);
        MPI_Type_free(&ft);
        rt_free(&T);
        rt_free(&base);
        rt_free(&M);
    }
    mu_ok(MPI_File_close(&fh), "close");
    unsigned char *all = mu_calloc(used, 1);
    MPI_Allreduce(img, all, (int)used, MPI_BYTE, MPI_BOR, MPI_COMM_WORLD);
    mu_check_file(mu_out, all, (MPI_Offset)used);
    mu_note("seed %llu, %d iterations, %zu bytes", (unsigned long long)seed, iters, used);
    free(all);
    free(img);
    return mu_finish();
}
