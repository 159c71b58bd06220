# libostio-mpiio (issue 16, docs/mpiio.md), module mpiio. So far the datatype
# flattener and the file view: the maps, their walk and the view are pure
# code (SOURCES), the decoder and the per-type cache call MPI (MPI_SOURCES).
# Included from CMakeLists.txt after the last ostio_module call: mpiio sits
# above file in the module order.
ostio_module(mpiio
  SOURCES src/mpiio/dtype_map.c src/mpiio/dtype_iter.c src/mpiio/dtype_build.c
          src/mpiio/dtype_dims.c src/mpiio/view.c
  MPI_SOURCES src/mpiio/dtype.c src/mpiio/dtype_named.c src/mpiio/dtype_cache.c)
