/* The access check every data call of an open file makes against the mode
 * it was opened with, written once for the file layer, the engine and the
 * container kinds (which hold can_read / can_write in different structs). */
#ifndef OSTIO_CORE_ACCESS_H
#define OSTIO_CORE_ACCESS_H

/* 0 when a file opened with can_read / can_write allows the call (a write
 * when is_write, else a read); else OSTIO_EACCES with the detail "PATH was
 * opened MPI_MODE_RDONLY; cannot VERB" (MPI_MODE_WRONLY for a read). verb:
 * what the call does ("resize"); NULL says "write" or "read". */
int ostio__check_access(const char *path, int can_read, int can_write, int is_write,
                        const char *verb);

/* The MPI rules on an open's amode: exactly one of MPI_MODE_RDONLY,
 * MPI_MODE_WRONLY, MPI_MODE_RDWR; RDONLY without CREATE or EXCL
 * (OSTIO_EINVAL); MPI_MODE_SEQUENTIAL is OSTIO_ENOTSUP (ostio's calls take
 * explicit offsets). Used by ostio_open and by libostio-mpiio, which
 * reports an OSTIO_EINVAL from here as MPI_ERR_AMODE. */
int ostio__check_amode(int amode);

#endif
