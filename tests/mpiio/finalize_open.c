/* finalize_open: files still open at MPI_Finalize (issue 28 item 7; driven by
 * finalize_open.sh, docs/mpiio.md "Files left open at MPI_Finalize").
 *
 *   finalize_open CASE OUTPATH          writes, leaves files open, MPI_Finalize, exit 0
 *   finalize_open check CASE NP OUTPATH  (no MPI) compares the files on disk (plain
 *                                        files: containers flattened first) with what
 *                                        the write step wrote with NP ranks
 *
 * CASE:
 *   one      OUTPATH: a block per rank by write_at_all, then a tail per rank by
 *            write_at (independent); left open
 *   two      OUTPATH.a as in one, OUTPATH.b by seek + write (individual pointer,
 *            another pattern); both left open
 *   shared   OUTPATH: write_ordered ((rank+1)*500 bytes each), then 200 bytes by
 *            write_shared on rank 0; left open (the shared pointer's window)
 *   mixed    OUTPATH as in one; rank 0 leaves it open, the other ranks close it
 *            (their MPI_File_close meets rank 0's close inside MPI_Finalize)
 *   libattr  a library's own MPI_COMM_SELF attribute, put after MPI_Init (as HDF5
 *            does), whose delete callback writes a trailer and closes OUTPATH; and
 *            OUTPATH.b (as in two) left open. Its callback must find OUTPATH
 *            still open (ostio's own cleanup runs after it)
 *
 * Data bytes: mu_byte(rank, offset), so a misplaced byte names its writer. */
#include "mpiio_util.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BLK 3000  /* write_at_all block per rank */
#define TAIL 100  /* write_at tail per rank      */
#define TRAILER 64

static int rank, nprocs;
static int errs;

static void fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void fail(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "finalize_open rank %d: ", rank);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    errs++;
}

static void ok(int rc, const char *what)
{
    if (rc != MPI_SUCCESS) {
        char msg[MPI_MAX_ERROR_STRING];
        int len = 0;
        MPI_Error_string(rc, msg, &len);
        fprintf(stderr, "finalize_open rank %d: %s: %s\n", rank, what, msg);
        errs++;
    }
}

static char *path_of(const char *out, const char *sfx)
{
    size_t n = strlen(out) + strlen(sfx) + 1;
    char *p = malloc(n);
    if (p)
        snprintf(p, n, "%s%s", out, sfx);
    return p;
}

/* ---- expected images (the check step; shared with the writers) ---- */

/* one: nprocs blocks, then nprocs tails. */
static unsigned char *image_one(int np, int seed, size_t *len)
{
    *len = (size_t)np * (BLK + TAIL);
    unsigned char *img = calloc(*len, 1);
    for (int r = 0; img && r < np; r++) {
        mu_fill(img + (size_t)r * BLK, BLK, r + seed, (long long)r * BLK);
        long long t = (long long)np * BLK + (long long)r * TAIL;
        mu_fill(img + t, TAIL, r + seed, t);
    }
    return img;
}

/* two's second file: rank r's BLK bytes at r*BLK, pattern of rank r+7. */
static unsigned char *image_b(int np, size_t *len)
{
    *len = (size_t)np * BLK;
    unsigned char *img = calloc(*len, 1);
    for (int r = 0; img && r < np; r++)
        mu_fill(img + (size_t)r * BLK, BLK, r + 7, (long long)r * BLK);
    return img;
}

static long long ordered_before(int r)
{
    long long s = 0;
    for (int q = 0; q < r; q++)
        s += (long long)(q + 1) * 500;
    return s;
}

static unsigned char *image_shared(int np, size_t *len)
{
    long long ord = ordered_before(np);
    *len = (size_t)ord + 200;
    unsigned char *img = calloc(*len, 1);
    for (int r = 0; img && r < np; r++)
        mu_fill(img + ordered_before(r), (size_t)(r + 1) * 500, r, ordered_before(r));
    if (img)
        mu_fill(img + ord, 200, 0, ord);
    return img;
}

static unsigned char *image_trailer(int np, size_t *len)
{
    size_t base = 0;
    unsigned char *one = image_one(np, 0, &base);
    *len = base + (size_t)np * TRAILER;
    unsigned char *img = one ? realloc(one, *len) : NULL;
    for (int r = 0; img && r < np; r++) {
        long long t = (long long)base + (long long)r * TRAILER;
        mu_fill(img + t, TRAILER, r + 11, t);
    }
    if (!img)
        free(one);
    return img;
}

/* ---- the write step ---- */

static void write_one(MPI_File fh, int seed)
{
    unsigned char b[BLK];
    long long off = (long long)rank * BLK;
    mu_fill(b, BLK, rank + seed, off);
    ok(MPI_File_write_at_all(fh, off, b, BLK, MPI_BYTE, MPI_STATUS_IGNORE), "write_at_all");
    long long t = (long long)nprocs * BLK + (long long)rank * TAIL;
    mu_fill(b, TAIL, rank + seed, t);
    ok(MPI_File_write_at(fh, t, b, TAIL, MPI_BYTE, MPI_STATUS_IGNORE), "write_at tail");
}

static void write_b(MPI_File fh)
{
    unsigned char b[BLK];
    long long off = (long long)rank * BLK;
    mu_fill(b, BLK, rank + 7, off);
    ok(MPI_File_seek(fh, off, MPI_SEEK_SET), "seek");
    ok(MPI_File_write(fh, b, BLK, MPI_BYTE, MPI_STATUS_IGNORE), "write");
}

static MPI_File open_w(const char *path)
{
    MPI_File fh = MPI_FILE_NULL;
    ok(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_WRONLY, MPI_INFO_NULL,
                     &fh), path);
    return fh;
}

static MPI_File lib_fh = MPI_FILE_NULL;

/* The library's cleanup, as HDF5's H5_term_library at MPI_Finalize: its
 * last writes, then close. */
static int lib_delete(MPI_Comm comm, int keyval, void *attr, void *extra)
{
    (void)comm, (void)keyval, (void)attr, (void)extra;
    size_t base = (size_t)nprocs * (BLK + TAIL);
    unsigned char b[TRAILER];
    long long t = (long long)base + (long long)rank * TRAILER;
    mu_fill(b, TRAILER, rank + 11, t);
    ok(MPI_File_write_at_all(lib_fh, t, b, TRAILER, MPI_BYTE, MPI_STATUS_IGNORE),
       "library's trailer at MPI_Finalize");
    ok(MPI_File_close(&lib_fh), "library's close at MPI_Finalize");
    if (errs)
        fprintf(stderr, "finalize_open rank %d: %d errors in the library's callback\n", rank,
                errs);
    return MPI_SUCCESS;
}

static int write_step(const char *cas, const char *out)
{
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
    MPI_File_set_errhandler(MPI_FILE_NULL, MPI_ERRORS_RETURN);
    char *pa = path_of(out, ".a"), *pb = path_of(out, ".b");
    if (!strcmp(cas, "one")) {
        write_one(open_w(out), 0);
    } else if (!strcmp(cas, "two")) {
        MPI_File a = open_w(pa), b = open_w(pb);
        write_one(a, 0);
        write_b(b);
    } else if (!strcmp(cas, "shared")) {
        MPI_File fh = open_w(out);
        size_t n = (size_t)(rank + 1) * 500;
        unsigned char *buf = malloc(n + 200);
        if (!buf)
            return 1;
        mu_fill(buf, n, rank, ordered_before(rank));
        ok(MPI_File_write_ordered(fh, buf, (int)n, MPI_BYTE, MPI_STATUS_IGNORE),
           "write_ordered");
        if (rank == 0) {
            long long at = ordered_before(nprocs);
            mu_fill(buf, 200, 0, at);
            ok(MPI_File_write_shared(fh, buf, 200, MPI_BYTE, MPI_STATUS_IGNORE), "write_shared");
        }
        free(buf);
    } else if (!strcmp(cas, "mixed")) {
        MPI_File fh = open_w(out);
        write_one(fh, 0);
        if (rank != 0)
            ok(MPI_File_close(&fh), "close on rank != 0");
    } else if (!strcmp(cas, "libattr")) {
        int kv = MPI_KEYVAL_INVALID;
        ok(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, lib_delete, &kv, NULL), "keyval");
        ok(MPI_Comm_set_attr(MPI_COMM_SELF, kv, NULL), "set_attr");
        lib_fh = open_w(out);
        write_one(lib_fh, 0);
        write_b(open_w(pb));
    } else {
        fprintf(stderr, "finalize_open: unknown case '%s'\n", cas);
        errs++;
    }
    free(pa);
    free(pb);
    /* Every rank reached this point: the files are left open on purpose. */
    if (errs)
        fprintf(stderr, "finalize_open rank %d: %d errors before MPI_Finalize\n", rank, errs);
    return errs != 0;
}

/* ---- the check step ---- */

static void check_file(const char *path, const unsigned char *want, size_t len)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        fail("%s: cannot open", path);
        return;
    }
    unsigned char *got = malloc(len + 1);
    size_t n = got ? fread(got, 1, len + 1, f) : 0;
    fclose(f);
    if (n != len)
        fail("%s: %zu bytes on disk, expected %zu", path, n, len);
    else
        for (size_t i = 0; i < len; i++)
            if (got[i] != want[i]) {
                fail("%s: first differing byte at offset %lld", path, (long long)i);
                break;
            }
    free(got);
}

static int check_step(const char *cas, int np, const char *out)
{
    size_t len = 0, lb = 0;
    unsigned char *img = NULL, *ib = image_b(np, &lb);
    char *pa = path_of(out, ".a"), *pb = path_of(out, ".b");
    if (!strcmp(cas, "one") || !strcmp(cas, "mixed")) {
        img = image_one(np, 0, &len);
        check_file(out, img, len);
    } else if (!strcmp(cas, "two")) {
        img = image_one(np, 0, &len);
        check_file(pa, img, len);
        check_file(pb, ib, lb);
    } else if (!strcmp(cas, "shared")) {
        img = image_shared(np, &len);
        check_file(out, img, len);
    } else if (!strcmp(cas, "libattr")) {
        img = image_trailer(np, &len);
        check_file(out, img, len);
        check_file(pb, ib, lb);
    } else {
        fail("unknown case '%s'", cas);
    }
    free(img);
    free(ib);
    free(pa);
    free(pb);
    if (!errs)
        printf("finalize_open check %s np %d: bytes as written\n", cas, np);
    return errs != 0;
}

int main(int argc, char **argv)
{
    if (argc == 5 && !strcmp(argv[1], "check"))
        return check_step(argv[2], atoi(argv[3]), argv[4]);
    if (argc != 3) {
        fprintf(stderr, "usage: finalize_open CASE OUTPATH | finalize_open check CASE NP "
                        "OUTPATH\n");
        return 2;
    }
    MPI_Init(&argc, &argv);
    int rc = write_step(argv[1], argv[2]);
    MPI_Finalize();
    return rc;
}
