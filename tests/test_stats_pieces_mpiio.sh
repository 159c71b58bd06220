#!/bin/bash
# Issue 31: the application's pieces through the MPI-IO interposer
# (libostio-mpiio.so preloaded under ostio-bench -a MPIIO). ostio-bench's
# strided pattern with -b 4k -t 4k -s S gives each of the 2 ranks S pieces of
# 4 KiB at (2i + r) x 4 KiB, through a strided file view: S-1 of them one 8 KiB
# stride after the last. Collective (-c, S = 1024: the view's extents reach
# ostio's collective engine) and independent (S = 256: one ostio_write_at per
# extent; the reads sieved into windows, which count the extents asked, not
# the windows). The document's app_* counters and app_piece_sizes must be
# exactly those, in both directions, and check_stats_json.py must accept it.
# Usage: $0 LIBOSTIO_MPIIO OSTIO_BENCH MPIEXEC NPFLAG PYTHON TESTS_DIR
set -euo pipefail
lib=${1:?usage: $0 LIBOSTIO_MPIIO OSTIO_BENCH MPIEXEC NPFLAG PYTHON TESTS_DIR}
bench=${2:?}; mpiexec=${3:?}; npflag=${4:?}; py=${5:?}; tests=${6:?}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/ostio-pieces.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
fail=0

run() { # NAME SEGMENTS [FLAGS...]
  local name=$1 s=$2; shift 2
  OSTIO_STATS="json:$tmp/$name.json" LD_PRELOAD="$lib" OSTIO_MPIIO_PATHS="$tmp" \
    "$mpiexec" "$npflag" 2 "$bench" -a MPIIO "$@" -w -r -p strided -b 4k -t 4k -s "$s" \
    --warmup 0 -o "$tmp/$name" > "$tmp/$name.txt" 2>&1 || { cat "$tmp/$name.txt" >&2; return 1; }
  "$py" "$tests/check_stats_json.py" "$tmp/$name.json" > /dev/null
}
run coll 1024 -c || { echo "FAIL: the collective run or its document" >&2; fail=1; }
run indep 256 || { echo "FAIL: the independent run or its document" >&2; fail=1; }
[ "$fail" = 0 ] || exit 1

"$py" - "$tmp/coll.json" 1024 coll "$tmp/indep.json" 256 indep <<'PY'
import json, sys
ok = True
for path, s, how in zip(sys.argv[1::3], sys.argv[2::3], sys.argv[3::3]):
    s = int(s)
    files = json.load(open(path))["files"]
    # ostio-bench opens the file once to write and once to read.
    if len(files) != 2:
        print("FAIL: %s: %d files, expected 2" % (how, len(files)), file=sys.stderr)
        sys.exit(1)
    for f, kind in zip(files, ("write", "read")):
        c = f["counters"]
        other = "read" if kind == "write" else "write"
        def v(name, field="sum", k=kind):
            return c["app_%s_%s" % (k, name)][field]
        got = (v("pieces"), v("pieces", "min"), v("bytes"), v("contig"), v("strided"),
               v("stride", "min"), v("stride", "max"), v("piece_max", "max"))
        want = (2 * s, s, 2 * s * 4096, 0, 2 * (s - 1), 8192, 8192, 4096)
        hist = f["app_piece_sizes"][kind]
        if got != want or hist != [0, 0, 2 * s, 0, 0, 0, 0, 0, 0, 0]:
            print("FAIL: %s %s: pieces, min, bytes, contig, strided, stride min/max, largest "
                  "%r, histogram %r; expected %r and %d in 1K-10K" % (how, kind, got, hist,
                                                                     want, 2 * s),
                  file=sys.stderr)
            ok = False
        if v("pieces", k=other) != 0 or sum(f["app_piece_sizes"][other]) != 0:
            print("FAIL: %s %s file has %s pieces" % (how, kind, other), file=sys.stderr)
            ok = False
    # Independent: one ostio_write_at per piece; the reads sieved into fewer calls.
    if how == "indep":
        w, r = files[0]["counters"], files[1]["counters"]
        if w["indep_writes"]["sum"] != 2 * s or not 0 < r["indep_reads"]["sum"] < 2 * s:
            print("FAIL: indep: %d writes (expected %d), %d reads (expected sieved: fewer)"
                  % (w["indep_writes"]["sum"], 2 * s, r["indep_reads"]["sum"]), file=sys.stderr)
            ok = False
sys.exit(0 if ok else 1)
PY
