#!/bin/bash
# Issue 31 item 3: `ostio report` on the statistics of real runs. A demo-like
# ostio-bench run (2 ranks, N-1 strided 1 MiB records into a striped
# container, ostio:ost and ROMIO) writes both its own --json and, with
# OSTIO_STATS=json:PATH, the library's document. The report's text must carry
# the figures of the documents (bytes, MiB/s, time split, ranks, advice; the
# bench's best/median MiB/s per API), --png a valid PNG of sane size, --html a
# page with that PNG embedded; usage errors say what to do. Without
# matplotlib the text checks still run and the picture checks are skipped
# (exit 77, with the reason).
# Usage: $0 OSTIO_CLI OSTIO_BENCH MPIEXEC NPFLAG PYTHON TESTS_DIR
set -euo pipefail
ostio=${1:?usage: $0 OSTIO OSTIO_BENCH MPIEXEC NPFLAG PYTHON TESTS_DIR}
bench=${2:?}; mpiexec=${3:?}; npflag=${4:?}; py=${5:?}; tests=${6:?}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/ostio-report.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
fail=0
bad() { echo "FAIL: $*" >&2; fail=1; }

OSTIO_STATS="json:$tmp/stats.json" "$mpiexec" "$npflag" 2 "$bench" -a ostio:ost,mpiio \
  --container striped -c -w -p strided -t 1m -b 1m -s 4 -i 1 --warmup 0 --stripe-count 2 \
  --stripe-size 1m -o "$tmp/ckpt" --json "$tmp/bench.json" > "$tmp/bench.txt"
"$py" "$tests/check_stats_json.py" "$tmp/stats.json" > "$tmp/facts" || bad "stats document refused"

# The text of the library's document: each figure recomputed from the JSON.
"$ostio" report "$tmp/stats.json" > "$tmp/r.txt" || bad "ostio report exit $?"
"$py" - "$tmp/stats.json" "$tmp/r.txt" <<'PY' || fail=1
import json, sys
doc = json.load(open(sys.argv[1]))
text = open(sys.argv[2]).read()
ok = True
def need(s, why):
    global ok
    if s not in text:
        print("FAIL: %s: %r not in the report:\n%s" % (why, s, text), file=sys.stderr)
        ok = False
files = [f for f in doc["files"] if f["counters"]["bytes_written"]["sum"]]
if not files:
    print("FAIL: no file with bytes written", file=sys.stderr); sys.exit(1)
for f in files:
    b = f["counters"]["bytes_written"]["sum"] + f["counters"]["bytes_read"]["sum"]
    if f["counters"]["bytes_written"]["sum"] != 8 << 20:
        print("FAIL: %s: %d bytes written, 2 ranks x 4 MiB expected" % (f["file"],
              f["counters"]["bytes_written"]["sum"]), file=sys.stderr); ok = False
    t = f["slowest_rank"]["time"]
    need("%5d %10s" % (2, "8.0 MiB"), "ranks and bytes of " + f["file"])
    need("%9s" % ("%.1f" % (b / t / 1048576)), "MiB/s of " + f["file"])
    sl, fa = f["slowest_rank"], f["fastest_rank"]
    need("    slowest rank %d %.3f s, fastest rank %d %.3f s" % (sl["rank"], sl["time"], fa["rank"],
         fa["time"]), "per-rank imbalance")
    need("bytes per rank 4.0 MiB to 4.0 MiB over 2 ranks", "bytes per rank")
    need("    2 x 1.0 MiB stripes, container;", "layout")
    need("objects max %d mean %.2f" % (f["derived"]["objects_per_aggregator_max"],
         f["derived"]["objects_per_aggregator_mean"]), "objects per aggregator")
tm = doc["summary"]["timers"]
parts = [("I/O", "time_io"), ("exchange", "time_exchange"), ("wait", "time_wait"), ("plan", "time_plan")]
whole = sum(tm[k]["sum"] for _, k in parts)
need("I/O %.3f (%.0f%%)" % (tm["time_io"]["sum"], 100 * tm["time_io"]["sum"] / whole), "time split")
w = doc["summary"]["access_sizes"]["write"]
need("write " + ", ".join("%s: %d" % (b, n) for b, n in zip(doc["summary"]["access_sizes"]["buckets"], w) if n),
     "access sizes")
for f in doc["files"]:
    for wv in f["warnings"]:
        need(wv["text"], "advice")
for head in ("Throughput per file", "Time split", "Layout and object load", "Per-rank imbalance",
             "Access sizes", "Advice"):
    need(head, "section")
sys.exit(0 if ok else 1)
PY

# The text of ostio-bench's own JSON (the demo's plain/striped/log.json are these).
"$ostio" report "$tmp/bench.json" > "$tmp/b.txt" || bad "ostio report (bench) exit $?"
"$py" - "$tmp/bench.json" "$tmp/b.txt" <<'PY' || fail=1
import json, sys
doc = json.load(open(sys.argv[1]))
text = open(sys.argv[2]).read()
ok = len(doc["summary"]) >= 2
for x in doc["summary"]:
    row = "  %-22s %-6s %9.1f %9.1f %9.1f" % (x["api"], x["phase"], x["bw_max"], x["bw_median"], x["bw_min"])
    if row not in text:
        print("FAIL: %r not in:\n%s" % (row, text), file=sys.stderr)
        ok = False
sys.exit(0 if ok else 1)
PY

# Usage errors say what to do.
set +e
"$ostio" report > /dev/null 2> "$tmp/e"; rc=$?
[ "$rc" = 2 ] && grep -q "no STATS.json given (see ostio report --help)" "$tmp/e" || bad "no argument: $rc $(cat "$tmp/e")"
"$ostio" report --bogus x > /dev/null 2> "$tmp/e"; rc=$?
[ "$rc" = 2 ] && grep -q "unknown option --bogus; accepted: --png FILE" "$tmp/e" || bad "bad option: $rc $(cat "$tmp/e")"
"$ostio" report "$tmp/none.json" > /dev/null 2> "$tmp/e"; rc=$?
[ "$rc" = 1 ] && grep -q "cannot read $tmp/none.json: No such file" "$tmp/e" || bad "missing file: $rc $(cat "$tmp/e")"
echo '{"format": "other"}' > "$tmp/other.json"
"$ostio" report "$tmp/other.json" > /dev/null 2> "$tmp/e"; rc=$?
[ "$rc" = 1 ] && grep -q "accepted: ostio-stats (OSTIO_STATS=json:PATH) and ostio-bench" "$tmp/e" || bad "other format: $rc $(cat "$tmp/e")"
"$ostio" report --help > "$tmp/help" && grep -q "^usage: ostio report" "$tmp/help" || bad "--help"

# The pictures.
"$ostio" report "$tmp/stats.json" --png "$tmp/r.png" --html "$tmp/r.html" > /dev/null 2> "$tmp/e"; rc=$?
"$ostio" report "$tmp/bench.json" --png "$tmp/b.png" > /dev/null 2>> "$tmp/e"; rc2=$?
set -e
if [ "$rc" = 3 ] && grep -q "need matplotlib" "$tmp/e"; then
  [ "$fail" = 0 ] || exit 1
  echo "SKIP: the text checks passed; the picture checks need matplotlib: $(head -1 "$tmp/e")"
  exit 77
fi
[ "$rc" = 0 ] && [ "$rc2" = 0 ] || bad "pictures: exit $rc/$rc2: $(cat "$tmp/e")"
"$py" - "$tmp/r.png" "$tmp/b.png" "$tmp/r.html" "$tmp/r.txt" <<'PY' || fail=1
import base64, html, re, struct, sys
ok = True
def png_ok(data, what):
    global ok
    if data[:8] != b"\x89PNG\r\n\x1a\n" or data[12:16] != b"IHDR":
        print("FAIL: %s is not a PNG" % what, file=sys.stderr); ok = False; return
    w, h = struct.unpack(">II", data[16:24])
    if not (400 <= w <= 2000 and 300 <= h <= 1500) or not (10000 <= len(data) <= 600000):
        print("FAIL: %s: %dx%d, %d bytes" % (what, w, h, len(data)), file=sys.stderr); ok = False
    if data[-12:-4] != b"\x00\x00\x00\x00IEND":
        print("FAIL: %s does not end with IEND" % what, file=sys.stderr); ok = False
for p in sys.argv[1:3]:
    png_ok(open(p, "rb").read(), p)
page = open(sys.argv[3]).read()
m = re.search(r'src="data:image/png;base64,([A-Za-z0-9+/=]+)"', page)
if not m:
    print("FAIL: no embedded PNG in the page", file=sys.stderr); ok = False
else:
    png_ok(base64.b64decode(m.group(1)), "the page's image")
if html.escape(open(sys.argv[4]).read().splitlines()[3]) not in page:
    print("FAIL: the report's text is not in the page", file=sys.stderr); ok = False
if re.search(r'(src|href)="(?!data:)', page):
    print("FAIL: the page refers to another file", file=sys.stderr); ok = False
sys.exit(0 if ok else 1)
PY
[ "$fail" = 0 ] && echo "test_report: ok"
exit "$fail"
