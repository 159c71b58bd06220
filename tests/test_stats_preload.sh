#!/bin/bash
# Issue 31 item 1: files used through libostio-preload.so have statistics.
# dd writes a container in 64 KiB calls, cat reads it whole, four cats read it
# at the same time, cp copies it out, all with OSTIO_STATS=json:PATH: each
# process writes its own record PATH.preload.HOST.PID.START.json, and
# `ostio report PATH --json M` merges them per file. The records' byte and
# call counts and access sizes must be what the programs did (dd: 46 writes,
# 45 of 65536 B and one of 50880 B; cat/cp: 1 MiB reads, the last short, and
# one 0-byte read at the end), the data read back equal to what was
# written, and OSTIO_STATS=1 prints the text report on the program's stderr.
# Usage: $0 LIBOSTIO_PRELOAD_SO OSTIO_CLI PYTHON TESTS_DIR
set -euo pipefail
lib=${1:?usage: $0 LIB OSTIO PYTHON TESTS_DIR}
ostio=${2:?}; py=${3:?}; tests=${4:?}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/ostio-stats-preload.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
mkdir "$tmp/ctr" "$tmp/st"
head -c 3000000 /dev/urandom > "$tmp/in.bin"
st=$tmp/st/job.json
run() { OSTIO_STATS="json:$st" OSTIO_PRELOAD_PATHS="$tmp/ctr" LD_PRELOAD="$lib" "$@"; }
fail=0
bad() { echo "FAIL: $*" >&2; fail=1; }

run dd if="$tmp/in.bin" of="$tmp/ctr/a.dat" bs=65536 status=none
run cat "$tmp/ctr/a.dat" > "$tmp/out.cat"
cmp -s "$tmp/in.bin" "$tmp/out.cat" || bad "cat read back other bytes than dd wrote"
pids=()
for i in 1 2 3 4; do run cat "$tmp/ctr/a.dat" > "$tmp/out.$i" & pids+=($!); done
for p in "${pids[@]}"; do wait "$p"; done
for i in 1 2 3 4; do cmp -s "$tmp/in.bin" "$tmp/out.$i" || bad "concurrent cat $i read other bytes"; done
run cp "$tmp/ctr/a.dat" "$tmp/out.cp"
cmp -s "$tmp/in.bin" "$tmp/out.cp" || bad "cp copied other bytes"

n=$(ls "$tmp/st" | grep -c '^job\.json\.preload\..*\.json$' || true)
[ "$n" = 7 ] || bad "expected 7 per-process records (dd, cat, 4 cats, cp), found $n: $(ls "$tmp/st")"
[ -e "$st" ] && bad "$st exists: no library file was closed, only preload records expected"

# Each record on its own: the format, and its counts.
for f in "$tmp"/st/job.json.preload.*.json; do
  "$py" "$tests/check_stats_json.py" "$f" > /dev/null || bad "check_stats_json.py refused $f"
done
"$py" - "$tmp/st" "$tmp/ctr/a.dat" <<'PY' || fail=1
import glob, json, sys
d, path = sys.argv[1], sys.argv[2]
recs = [json.load(open(f)) for f in sorted(glob.glob(d + "/job.json.preload.*.json"))]
ok = True
def bad(why):
    global ok
    print("FAIL:", why, file=sys.stderr)
    ok = False
names = set()
for r in recs:
    p = r["process"]
    if p["kind"] != "preload" or not p["host"] or p["pid"] != r["job"]["pid"]:
        bad("process %r" % p)
    names.add((p["host"], p["pid"]))
    if len(r["files"]) != 1 or r["files"][0]["file"] != path:
        bad("files %r" % [f["file"] for f in r["files"]])
if len(names) != len(recs):
    bad("two records with one host and pid")
writers = [r for r in recs if r["summary"]["bytes_written"]]
readers = [r for r in recs if r["summary"]["bytes_read"]]
if len(writers) != 1 or len(readers) != 6:
    bad("%d writers, %d readers (want 1 and 6)" % (len(writers), len(readers)))
for r in writers:
    f = r["files"][0]
    c = f["counters"]
    want = {"bytes_written": 3000000, "indep_writes": 46, "sys_writes": 46, "bytes_read": 0}
    got = {k: c[k]["sum"] for k in want}
    if got != want:
        bad("dd: %r, want %r" % (got, want))
    if f["access_sizes"]["write"] != [0, 0, 0, 46, 0, 0, 0, 0, 0, 0]:
        bad("dd write sizes %r" % f["access_sizes"]["write"])
    if f["ranks"] != [dict(f["slowest_rank"])] or f["ranks"][0]["writes"] != 46:
        bad("dd rank record %r" % f["ranks"])
for r in readers:
    f = r["files"][0]
    c = f["counters"]
    if c["bytes_read"]["sum"] != 3000000 or c["bytes_written"]["sum"] != 0:
        bad("reader bytes %r" % {k: c[k]["sum"] for k in ("bytes_read", "bytes_written")})
    h = f["access_sizes"]["read"]
    # 1 MiB reads (two whole, one of 902848 B) and the final 0-byte read; cp
    # may read in other sizes, but every call is in the histogram.
    if sum(h) != c["indep_reads"]["sum"] or c["indep_reads"]["sum"] < 3:
        bad("reader sizes %r, %d reads" % (h, c["indep_reads"]["sum"]))
cats = [r for r in readers if r["files"][0]["access_sizes"]["read"] == [1, 0, 0, 0, 3, 0, 0, 0, 0, 0]]
if len(cats) < 5:
    bad("%d readers with cat's sizes (1 MiB x3 + one 0-byte read), want the 5 cats" % len(cats))
sys.exit(0 if ok else 1)
PY

# Merged per job: one entry for the file, every process in it.
"$ostio" report "$st" --json "$tmp/merged.json" > "$tmp/report.txt" || bad "ostio report exit $?"
"$py" "$tests/check_stats_json.py" "$tmp/merged.json" > "$tmp/facts" || bad "merged document refused"
grep -qx "nprocs=7" "$tmp/facts" || bad "merged nprocs: $(grep nprocs "$tmp/facts")"
grep -qx "sizes_write=0,0,0,46,0,0,0,0,0,0" "$tmp/facts" || bad "merged write sizes: $(grep sizes_write "$tmp/facts")"
"$py" -c 'import json,sys; f=json.load(open(sys.argv[1]))["files"][0]["counters"]
sys.exit(0 if (f["bytes_written"]["sum"], f["bytes_read"]["sum"]) == (3000000, 18000000) else 1)' \
  "$tmp/merged.json" || bad "merged bytes are not 3000000 written, 6 x 3000000 read"
grep -q "7 preloaded processes" "$tmp/report.txt" || bad "report text: $(head -3 "$tmp/report.txt")"

# OSTIO_STATS=1: the text report on the program's stderr at the last close.
OSTIO_STATS=1 OSTIO_PRELOAD_PATHS="$tmp/ctr" LD_PRELOAD="$lib" cat "$tmp/ctr/a.dat" 2> "$tmp/err" >/dev/null
grep -q "^ostio stats for $tmp/ctr/a.dat" "$tmp/err" || bad "no text report: $(cat "$tmp/err")"
grep -Eq "^  bytes_read +3000000 +3000000$" "$tmp/err" || bad "text bytes_read: $(grep bytes_read "$tmp/err")"
# A bad setting warns once and the program goes on.
OSTIO_STATS=yes OSTIO_PRELOAD_PATHS="$tmp/ctr" LD_PRELOAD="$lib" cat "$tmp/ctr/a.dat" 2> "$tmp/err" > "$tmp/out.bad"
cmp -s "$tmp/in.bin" "$tmp/out.bad" || bad "OSTIO_STATS=yes: cat read other bytes"
[ "$(grep -c 'OSTIO_STATS="yes"' "$tmp/err")" = 1 ] || bad "OSTIO_STATS=yes: $(cat "$tmp/err")"
[ "$fail" = 0 ] && echo "test_stats_preload: ok"
exit "$fail"
