#!/bin/bash
# exports.sh LIBOSTIO_MPIIO [SRC_MPIIO_DIR]: the library exports each MPI_File_X
# it defines under PMPI_File_X too, and nothing else but MPI_Init, MPI_Init_thread
# and their PMPI_ names (mpiio_finalize.c: a tool loaded first forwards its MPI_Init
# to the next PMPI_Init, as Darshan does) and the marker
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
fail=0
other=$(echo "$syms" | grep -v '^P\?MPI_File_' | grep -vx 'ostio__mpiio_marker\|P\?MPI_Init\|P\?MPI_Init_thread')
for f in MPI_Init PMPI_Init MPI_Init_thread PMPI_Init_thread; do
    echo "$syms" | grep -qx "$f" || { echo "FAIL: $f not exported"; fail=1; }
done
n=$(echo "$mpi" | grep -c .)
[ "$n" -ge 50 ] || { echo "FAIL: only $n MPI_File_* exported"; fail=1; } # 61 without MPI-4's _c forms
missing=$(comm -23 <(echo "$mpi") <(echo "$pmpi"))
[ -z "$missing" ] || { echo "FAIL: no PMPI_ name for:" $missing; fail=1; }
extra=$(comm -13 <(echo "$mpi") <(echo "$pmpi"))
[ -z "$extra" ] || { echo "FAIL: PMPI_ name without its MPI_ name:" $extra; fail=1; }
[ -z "$other" ] || { echo "FAIL: other symbols exported:" $other; fail=1; }
if [ $# -ge 2 ]; then
    calls=$(grep -n 'PMPI_\(File_[a-z_0-9]*\|Init\|Init_thread\)[[:space:]]*(' "$2"/*.c "$2"/*.h)
    [ -z "$calls" ] || { echo "FAIL: PMPI_File_* or PMPI_Init* called by name (use ostio__mpiio_next):"; echo "$calls"; fail=1; }
fi
[ $fail -eq 0 ] && echo "exports.sh: $n MPI_File_* functions, each also as PMPI_File_*; MPI_Init, MPI_Init_thread and their PMPI_ names"
exit $fail
