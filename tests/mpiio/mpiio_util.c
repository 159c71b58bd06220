/* Shared helpers for the MPI-IO coverage programs; see mpiio_util.h. */
#include "mpiio_util.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int mu_rank;
int mu_nprocs = 1;
const char *mu_out = "";
static int errors;
static const char *prog = "?";

int mu_init(int *argc, char ***argv)
{
    MPI_Init(argc, argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &mu_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &mu_nprocs);
    MPI_File_set_errhandler(MPI_FILE_NULL, MPI_ERRORS_RETURN);
    prog = (*argv)[0];
    const char *slash = strrchr(prog, '/');
    if (slash)
        prog = slash + 1;
    if (*argc < 2) {
        mu_fail("usage: %s OUTPATH [args]", prog);
        return 1;
    }
    mu_out = (*argv)[1];
    return 0;
}

void mu_fail(const char *fmt, ...)
{
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    errors++;
    if (errors <= 20)
        fprintf(stderr, "%s: rank %d: FAIL: %s\n", prog, mu_rank, msg);
}

void mu_note(const char *fmt, ...)
{
    if (mu_rank != 0)
        return;
    va_list ap;
    va_start(ap, fmt);
    printf("%s: ", prog);
    vprintf(fmt, ap);
    printf("\n");
    va_end(ap);
    fflush(stdout);
}

int mu_class(int rc)
{
    int cls = MPI_SUCCESS;
    if (rc != MPI_SUCCESS)
        MPI_Error_class(rc, &cls);
    return cls;
}

static void describe(int rc, char *out, size_t cap)
{
    char s[MPI_MAX_ERROR_STRING];
    int len = 0;
    if (MPI_Error_string(rc, s, &len) != MPI_SUCCESS)
        snprintf(s, sizeof s, "(no string)");
    snprintf(out, cap, "error %d class %d: %s", rc, mu_class(rc), s);
}

int mu_ok(int rc, const char *what)
{
    if (rc == MPI_SUCCESS)
        return 1;
    char d[MPI_MAX_ERROR_STRING + 64];
    describe(rc, d, sizeof d);
    mu_fail("%s: %s", what, d);
    return 0;
}

int mu_expect_class(int rc, int cls, const char *what)
{
    if (rc != MPI_SUCCESS && mu_class(rc) == cls)
        return 1;
    if (rc == MPI_SUCCESS) {
        mu_fail("%s: succeeded, expected error class %d", what, cls);
    } else {
        char d[MPI_MAX_ERROR_STRING + 64];
        describe(rc, d, sizeof d);
        mu_fail("%s: expected error class %d, got %s", what, cls, d);
    }
    return 0;
}

unsigned char mu_byte(int rank, long long off)
{
    uint64_t x = (uint64_t)off * 0x9E3779B1u + (uint64_t)(rank + 1) * 0x85EBCA77u;
    x ^= x >> 15;
    unsigned char v = (unsigned char)(x ^ (x >> 29));
    return v ? v : (unsigned char)(0x80 | (rank & 0x7f));
}

void mu_fill(unsigned char *buf, size_t n, int rank, long long off)
{
    for (size_t i = 0; i < n; i++)
        buf[i] = mu_byte(rank, off + (long long)i);
}

int mu_ival(int rank, long long i)
{
    return (int)((rank + 1) * 1000000 + (i % 1000000));
}

int mu_same(const void *got, const void *want, size_t n, const char *what)
{
    const unsigned char *g = got, *w = want;
    for (size_t i = 0; i < n; i++) {
        if (g[i] != w[i]) {
            mu_fail("%s: byte %zu of %zu is 0x%02x, expected 0x%02x", what, i, n, g[i], w[i]);
            return 0;
        }
    }
    return 1;
}

int mu_count_is(const MPI_Status *st, MPI_Datatype type, int want, const char *what)
{
    int got = -12345;
    if (!mu_ok(MPI_Get_count(st, type, &got), what))
        return 0;
    if (got != want) {
        mu_fail("%s: MPI_Get_count gives %d, expected %d", what, got, want);
        return 0;
    }
    return 1;
}

const char *mu_path(const char *suffix)
{
    static char slots[4][4096];
    static int next;
    char *p = slots[next];
    next = (next + 1) % 4;
    snprintf(p, sizeof slots[0], "%s%s", mu_out, suffix);
    return p;
}

void *mu_calloc(size_t n, size_t size)
{
    void *p = calloc(n ? n : 1, size ? size : 1);
    if (!p)
        mu_fail("out of memory (%zu x %zu)", n, size);
    return p;
}

int mu_check_file(const char *path, const unsigned char *image, MPI_Offset size)
{
    return mu_check_file_info(path, image, size, MPI_INFO_NULL);
}

int mu_check_file_info(const char *path, const unsigned char *image, MPI_Offset size,
                       MPI_Info info)
{
    MPI_File fh;
    int before = errors;
    char what[4200];
    snprintf(what, sizeof what, "check %s", path);
    if (!mu_ok(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_RDONLY, info, &fh), what))
        return 0;
    MPI_Offset got = -1;
    if (mu_ok(MPI_File_get_size(fh, &got), what) && got != size)
        mu_fail("%s: size %lld, expected %lld", what, (long long)got, (long long)size);
    unsigned char *buf = mu_calloc((size_t)size + 1, 1);
    MPI_Offset done = 0;
    while (buf && done < size) {
        MPI_Offset left = size - done;
        int n = left > (1 << 30) ? (1 << 30) : (int)left;
        MPI_Status st;
        if (!mu_ok(MPI_File_read_at(fh, done, buf + done, n, MPI_BYTE, &st), what))
            break;
        int c = 0;
        MPI_Get_count(&st, MPI_BYTE, &c);
        if (c <= 0) {
            mu_fail("%s: read at %lld returned %d bytes", what, (long long)done, c);
            break;
        }
        done += c;
    }
    if (buf && done == size)
        mu_same(buf, image, (size_t)size, what);
    free(buf);
    mu_ok(MPI_File_close(&fh), what);
    return errors == before;
}

int mu_finish(void)
{
    int total = 0;
    MPI_Allreduce(&errors, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (mu_rank == 0) {
        if (total == 0)
            printf("No Errors\n");
        else
            printf("%s: Found %d errors\n", prog, total);
        fflush(stdout);
    }
    MPI_Finalize();
    return total == 0 ? 0 : 1;
}
