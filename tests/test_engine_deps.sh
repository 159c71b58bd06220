#!/bin/sh
# The engine's boundary (src/engine/engine.h): nothing in src/engine includes
# a header of the file layer or of the container kinds, or takes an ostio_file;
# the file layer hands the engine a context instead. Usage: test_engine_deps.sh SRC_DIR
src=${1:?usage: test_engine_deps.sh SRC_DIR}
bad=$(grep -nE '#[[:space:]]*include[[:space:]]*"(file|container)/|\<ostio_file[[:space:]]*\*' \
      "$src"/engine/*.c "$src"/engine/*.h)
if [ -n "$bad" ]; then
  echo "src/engine reaches into the file layer (use engine.h's context):"
  echo "$bad"
  exit 1
fi
echo "src/engine: no file/ or container/ includes, no ostio_file"
