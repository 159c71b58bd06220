#!/bin/bash
# exports.sh LIBOSTIO_MPIIO [SRC_MPIIO_DIR]: the library exports each MPI_File_X
# it defines under PMPI_File_X too, and nothing else but MPI_Init, MPI_Init_thread
# (mpiio_finalize.c) and the marker
# ostio__mpiio_marker that libostio-preload.so looks for (docs/mpiio.md, "Tools and
# Fortran"; src/mpiio/mpiio_next.h): a wrapper without its PMPI name is hidden
# from PMPI tools loaded before it and from callers of the PMPI names (Fortran
# bindings). With SRC_MPIIO_DIR: no source there calls PMPI_File_X by name,
# which now binds to the library's own PMPI_File_X (or a tool's) and loops;
# forwarding goes through ostio__mpiio_next.X.
set -u
[ $# -ge 1 ] || { echo "usage: exports.sh LIBOSTIO_MPIIO [SRC_MPIIO_DIR]" >&2; exit 2; }
syms=$(nm -D --defined-only "$1" | awk '$2 == "T" || $2 == "W" { print $3 }' | sort) || exit 1
mpi=$(echo "$syms" | grep '^MPI_File_')
pmpi=$(echo "$syms" | grep '^PMPI_File_' | sed 's/^P//')
other=$(echo "$syms" | grep -v '^P\?MPI_File_' | grep -vx 'ostio__mpiio_marker\|MPI_Init\|MPI_Init_thread')
fail=0
n=$(echo "$mpi" | grep -c .)
[ "$n" -ge 50 ] || { echo "FAIL: only $n MPI_File_* exported"; fail=1; } # 61 without MPI-4's _c forms
missing=$(comm -23 <(echo "$mpi") <(echo "$pmpi"))
[ -z "$missing" ] || { echo "FAIL: no PMPI_ name for:" $missing; fail=1; }
extra=$(comm -13 <(echo "$mpi") <(echo "$pmpi"))
[ -z "$extra" ] || { echo "FAIL: PMPI_ name without its MPI_ name:" $extra; fail=1; }
[ -z "$other" ] || { echo "FAIL: other symbols exported:" $other; fail=1; }
if [ $# -ge 2 ]; then
    calls=$(grep -n 'PMPI_File_[a-z_0-9]*[[:space:]]*(' "$2"/*.c "$2"/*.h)
    [ -z "$calls" ] || { echo "FAIL: PMPI_File_* called by name (use ostio__mpiio_next):"; echo "$calls"; fail=1; }
fi
[ $fail -eq 0 ] && echo "exports.sh: $n MPI_File_* functions, each also as PMPI_File_*"
exit $fail
