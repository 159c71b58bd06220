/* psimple: simple.c through the profiling names (PMPI_File_*): each rank
 * writes its own file OUTPATH.rN on MPI_COMM_SELF (write, seek, read, explicit
 * offsets), then all ranks write disjoint blocks of one shared file OUTPATH
 * with write_at and read it back. libostio-mpiio.so defines the PMPI names
 * too, so these files are ostio's under OSTIO_MPIIO_PATHS (compare.sh wants
 * containers under the log and striped hints). The program is simple.c with
 * its MPI-IO calls renamed. */
#include <mpi.h>

#define MPI_File_open PMPI_File_open
#define MPI_File_close PMPI_File_close
#define MPI_File_read PMPI_File_read
#define MPI_File_read_at PMPI_File_read_at
#define MPI_File_write PMPI_File_write
#define MPI_File_write_at PMPI_File_write_at
#define MPI_File_seek PMPI_File_seek
#define MPI_File_sync PMPI_File_sync
#define MPI_File_get_size PMPI_File_get_size

#include "simple.c"
