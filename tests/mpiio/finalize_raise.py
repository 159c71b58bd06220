"""An mpi4py program that raises with an MPI-IO file open (issue 28 item 7;
run by finalize_py.sh). Each rank writes 1000 bytes at rank*1000 with
Write_at_all, then raises: Python exits 1 with the traceback, mpi4py's exit
handler calls MPI_Finalize with the file still open."""
import sys

from mpi4py import MPI

comm = MPI.COMM_WORLD
rank = comm.Get_rank()
fh = MPI.File.Open(comm, sys.argv[1], MPI.MODE_CREATE | MPI.MODE_WRONLY)
data = bytearray((rank * 31 + i) % 251 for i in range(1000))
fh.Write_at_all(rank * 1000, data)
raise RuntimeError("raised with a file open")
