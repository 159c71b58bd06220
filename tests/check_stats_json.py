#!/usr/bin/env python3
"""Checks an OSTIO_STATS=json:PATH document (format "ostio-stats", version 2;
also the per-rank records and access sizes of issue 31 when present)
with Python's json module and prints facts about it, one `key=value` per line,
for the C tests to compare (tests/test_stats_mpi.c). Exit status 1, with the
reason on stderr, when the document does not parse or breaks the format
described in docs/stats.md.

Usage: check_stats_json.py PATH
"""
import json
import math
import sys


def fail(why):
    sys.stderr.write("check_stats_json: %s\n" % why)
    sys.exit(1)


def no_nan(x):
    raise ValueError("non-standard number %s" % x)


def main():
    if len(sys.argv) != 2:
        fail("usage: check_stats_json.py PATH")
    try:
        with open(sys.argv[1], "rb") as f:
            raw = f.read()
        doc = json.loads(raw.decode("utf-8"), parse_constant=no_nan)
    except (OSError, ValueError) as ex:
        fail("%s: %s" % (sys.argv[1], ex))
    if not isinstance(doc, dict) or list(doc)[:2] != ["format", "version"]:
        fail("the document does not start with format and version")
    if doc["format"] != "ostio-stats" or doc["version"] != 2:
        fail("format %r version %r" % (doc["format"], doc["version"]))
    for key in ("job", "summary", "files"):
        if key not in doc:
            fail("no %s" % key)
    job, summ, files = doc["job"], doc["summary"], doc["files"]
    for key in ("id", "id_source", "pid", "world_rank", "world_size"):
        if key not in job:
            fail("job has no %s" % key)
    if summ["files_listed"] != len(files):
        fail("files_listed %d, %d files" % (summ["files_listed"], len(files)))
    if summ["files"] != summ["files_listed"] + summ["files_omitted"]:
        fail("files != files_listed + files_omitted")
    names = list(files[0]["counters"]) if files else []
    for f in files:
        for key in ("file", "nprocs", "layout", "strategy", "unknown_hints", "counters",
                    "timers", "derived"):
            if key not in f:
                fail("a file has no %s" % key)
    # Issue 31: access sizes, slowest/fastest rank and per-rank records (new
    # keys in version 2; a document from before has none of them).
    buckets = ["0-100", "100-1K", "1K-10K", "10K-100K", "100K-1M", "1M-4M", "4M-10M",
               "10M-100M", "100M-1G", "1G+"]
    for f in files:
        if "access_sizes" not in f:
            continue
        h = f["access_sizes"]
        if h["buckets"] != buckets or len(h["write"]) != 10 or len(h["read"]) != 10:
            fail("%s: access_sizes is not Darshan's ten buckets" % f["file"])
        for kind, n in (("write", "sys_writes"), ("read", "sys_reads")):
            if sum(h[kind]) != f["counters"][n]["sum"]:
                fail("%s: access_sizes %s add up to %d, %s is %d"
                     % (f["file"], kind, sum(h[kind]), n, f["counters"][n]["sum"]))
        for key in ("slowest_rank", "fastest_rank", "ranks"):
            if key not in f:
                fail("%s: access_sizes but no %s" % (f["file"], key))
        if f["ranks"] is not None:
            rk = f["ranks"]
            if len(rk) != f["nprocs"]:
                fail("%s: %d rank records for %d ranks" % (f["file"], len(rk), f["nprocs"]))
            for key, ctr in (("bytes_written", ("bytes_written",)), ("bytes_read", ("bytes_read",)),
                             ("writes", ("coll_writes", "indep_writes")),
                             ("reads", ("coll_reads", "indep_reads"))):
                got = sum(r[key] for r in rk)
                want = sum(f["counters"][c]["sum"] for c in ctr)
                if got != want:
                    fail("%s: ranks' %s add up to %d, the counters give %d"
                         % (f["file"], key, got, want))
            slow = max(rk, key=lambda r: (r["time"], -r["rank"]))
            if slow != f["slowest_rank"]:
                fail("%s: slowest_rank %r, the records give %r" % (f["file"], f["slowest_rank"], slow))
    # Issue 31: the application's pieces (app_* counters, app_piece_sizes; new keys in
    # version 2, a document from before has none).
    for f in files:
        if "app_piece_sizes" not in f:
            continue
        h, c = f["app_piece_sizes"], f["counters"]
        if h["buckets"] != buckets or len(h["write"]) != 10 or len(h["read"]) != 10:
            fail("%s: app_piece_sizes is not Darshan's ten buckets" % f["file"])
        for kind in ("write", "read"):
            def g(name, field="sum"):
                return c.get("app_%s_%s" % (kind, name), {}).get(field, 0)
            n, nbytes, most = g("pieces"), g("bytes"), g("piece_max", "max")
            if sum(h[kind]) != n:
                fail("%s: app_piece_sizes %s add up to %d, app_%s_pieces is %d"
                     % (f["file"], kind, sum(h[kind]), kind, n))
            # every piece holds 1 to piece_max bytes; after each rank's first, a piece
            # is contiguous, strided or neither.
            if not (n <= nbytes <= n * most) or (n == 0) != (nbytes == 0):
                fail("%s: %d %s pieces of %d bytes, the largest %d"
                     % (f["file"], n, kind, nbytes, most))
            ranks_with = f["nprocs"] if g("pieces", "min") > 0 else min(n, 1)
            if g("contig") + g("strided") > n - ranks_with:
                fail("%s: %d contiguous + %d strided %s pieces of %d on %d ranks"
                     % (f["file"], g("contig"), g("strided"), kind, n, ranks_with))
            if g("strided") > 0 and g("stride", "max") <= 0:
                fail("%s: strided %s pieces without a stride" % (f["file"], kind))
    if "app_piece_sizes" in summ and summ["files_omitted"] == 0:
        for kind in ("write", "read"):
            want = [sum(f["app_piece_sizes"][kind][b] for f in files if "app_piece_sizes" in f)
                    for b in range(10)]
            if summ["app_piece_sizes"][kind] != want:
                fail("summary app_piece_sizes %s %r, the files give %r"
                     % (kind, summ["app_piece_sizes"][kind], want))
    if "access_sizes" in summ and summ["files_omitted"] == 0:
        for kind in ("write", "read"):
            want = [sum(f["access_sizes"][kind][b] for f in files) for b in range(10)]
            if summ["access_sizes"][kind] != want:
                fail("summary access_sizes %s %r, the files give %r"
                     % (kind, summ["access_sizes"][kind], want))
    # With nothing omitted, the summary is the fold of the files.
    if summ["files_omitted"] == 0 and files:
        for n in names:
            got = summ["counters"][n]
            if n in ("aggr_max", "rounds", "objects_max", "osts_max", "cache_memory",
                     "app_write_stride", "app_read_stride", "app_write_piece_max",
                     "app_read_piece_max"):
                want = max(f["counters"][n]["max"] for f in files)
            else:
                want = sum(f["counters"][n]["sum"] for f in files)
            if got != want:
                fail("summary counter %s is %r, the files give %r" % (n, got, want))
        for t in files[0]["timers"]:
            s = sum(f["timers"][t]["sum"] or 0 for f in files)
            if not math.isclose(summ["timers"][t]["sum"], s, rel_tol=1e-6, abs_tol=1e-9):
                fail("summary timer %s.sum is %r, the files give %r"
                     % (t, summ["timers"][t]["sum"], s))
        slow = summ["slowest_file"]
        best = max(range(len(files)), key=lambda i: files[i]["timers"]["time_io"]["max"] or 0)
        if slow["index"] != best or slow["file"] != files[best]["file"]:
            fail("slowest_file %r, expected index %d" % (slow, best))
    print("files=%d" % summ["files"])
    print("files_listed=%d" % summ["files_listed"])
    print("files_omitted=%d" % summ["files_omitted"])
    print("names=%s" % "|".join(str(f["file"]) for f in files))
    print("nprocs=%s" % "|".join(str(f["nprocs"]) for f in files))
    print("job_id=%s" % job["id"])
    print("job_id_source=%s" % job["id_source"])
    print("pid=%s" % job["pid"])
    print("world_rank=%s" % job["world_rank"])
    print("coll_writes=%d" % summ["counters"]["coll_writes"])
    print("objects_max=%d" % summ["counters"]["objects_max"])
    print("strategies=%s" % ",".join("%s:%d" % kv for kv in sorted(summ["strategies"].items())))
    print("slowest=%s" % (summ["slowest_file"]["file"] if files else None))
    # Issue 31: the first file's per-rank records, rank:bytes_written:bytes_read:writes:reads.
    rk = (files[0].get("ranks") or []) if files else []
    print("ranks=%s" % "|".join("%d:%d:%d:%d:%d" % (r["rank"], r["bytes_written"], r["bytes_read"],
                                                   r["writes"], r["reads"]) for r in rk))
    sr = files[0].get("slowest_rank") if files else None
    print("slowest_rank=%s" % (sr["rank"] if sr else None))
    h = summ.get("access_sizes")
    print("sizes_write=%s" % (",".join(str(x) for x in h["write"]) if h else None))
    print("sizes_read=%s" % (",".join(str(x) for x in h["read"]) if h else None))
    # Issue 31: the first file's application pieces, per direction:
    # pieces:bytes:contig:strided:stride_min:stride_max:piece_max, and the size histogram.
    for kind in ("write", "read"):
        c = files[0]["counters"] if files else {}
        ap = files[0].get("app_piece_sizes") if files else None
        fields = [("pieces", "sum"), ("bytes", "sum"), ("contig", "sum"), ("strided", "sum"),
                  ("stride", "min"), ("stride", "max"), ("piece_max", "max")]
        print("app_%s=%s" % (kind, ":".join(str(c.get("app_%s_%s" % (kind, n), {}).get(k))
                                            for n, k in fields)))
        print("app_%s_sizes=%s" % (kind, ",".join(str(x) for x in ap[kind]) if ap else None))
    print("unknown_hints=%s" % "|".join(u["key"] + ">" + str(u["suggestion"])
                                        for u in summ["unknown_hints"]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
