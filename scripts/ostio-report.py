#!/usr/bin/env python3
"""ostio report: a one-page summary of a job's I/O statistics.

usage: ostio report [--png FILE] [--html FILE] [--json FILE] STATS.json [MORE.json ...]

STATS.json is what a run wrote:
  - OSTIO_STATS=json:PATH (format ostio-stats): the library's document at PATH,
    and the records the POSIX preload (libostio-preload.so) wrote next to it,
    PATH.preload.HOST.PID.START.json, one per preloaded process; they are found
    and merged by themselves (give PATH even when only the records exist);
  - ostio-bench --json FILE (format ostio-bench), the demo's plain.json,
    striped.json and log.json included.
Several documents of one job (json:stats-%r.json) are merged into one page.

Prints the summary on stdout: throughput per file, the time split (I/O,
exchange, wait, plan), the layout and object load, per-rank imbalance, the
access sizes and the advice.
  --png FILE   also draw the page's charts into FILE (PNG; needs matplotlib)
  --html FILE  a self-contained HTML page: the text and the charts (PNG
               embedded as base64; needs matplotlib)
  --json FILE  the merged ostio-stats document (preload records folded per
               file: one entry per file, nprocs = the processes that used it)

Exit status: 0 done, 1 a document could not be read, 2 usage error,
3 a picture was asked for and matplotlib is missing (the text is printed).
docs/stats.md, "ostio report", says how each figure is computed.
"""
import base64
import glob
import html
import io
import json
import math
import os
import sys

MAX_COUNTERS = ("aggr_max", "rounds", "objects_max", "osts_max", "cache_memory",
                "app_write_stride", "app_read_stride", "app_write_piece_max",
                "app_read_piece_max")
BUCKETS = ["0-100", "100-1K", "1K-10K", "10K-100K", "100K-1M", "1M-4M", "4M-10M",
           "10M-100M", "100M-1G", "1G+"]
SPLIT = (("I/O", "time_io"), ("exchange", "time_exchange"), ("wait", "time_wait"),
         ("plan", "time_plan"))


class Bad(Exception):
    """A document that cannot be read; the message says what to do."""


def usage_error(why):
    sys.stderr.write("ostio report: %s (see ostio report --help)\n" % why)
    return 2


def no_const(x):
    raise ValueError("non-standard number %s" % x)


def load(path):
    try:
        with open(path, "rb") as f:
            raw = f.read()
    except OSError as ex:
        raise Bad("cannot read %s: %s; give the file OSTIO_STATS=json:PATH or ostio-bench "
                  "--json wrote" % (path, ex.strerror or ex))
    try:
        doc = json.loads(raw.decode("utf-8"), parse_constant=no_const)
    except (UnicodeDecodeError, ValueError) as ex:
        raise Bad("%s is not a JSON document (%s); give the file OSTIO_STATS=json:PATH or "
                  "ostio-bench --json wrote" % (path, ex))
    fmt = doc.get("format") if isinstance(doc, dict) else None
    if fmt not in ("ostio-stats", "ostio-bench"):
        raise Bad("%s: format %r is not one ostio report reads; accepted: ostio-stats "
                  "(OSTIO_STATS=json:PATH) and ostio-bench (ostio-bench --json)" % (path, fmt))
    if fmt == "ostio-stats" and doc.get("version") != 2:
        raise Bad("%s: ostio-stats version %r; this ostio reads version 2 (a newer ostio wrote "
                  "it?)" % (path, doc.get("version")))
    return doc


def expand(paths):
    """The documents to read: each path (when it exists) and its preload records."""
    out = []
    for p in paths:
        recs = sorted(glob.glob(glob.escape(p) + ".preload.*.json"))
        if os.path.exists(p) or not recs:
            out.append(p)
        out += recs
    return out


# ---- merging ostio-stats documents -------------------------------------------------

def fold_counters(a, b):
    for n, v in b.items():
        if n not in a:
            a[n] = dict(v)
            continue
        x = a[n]
        x["sum"] = x["sum"] + v["sum"]
        x["max"] = max(x["max"], v["max"])
        x["min"] = min(x["min"], v["min"])


def fold_timers(a, b):
    for n, v in b.items():
        if n not in a:
            a[n] = dict(v)
            continue
        a[n]["sum"] = (a[n]["sum"] or 0) + (v["sum"] or 0)
        a[n]["max"] = max(a[n]["max"] or 0, v["max"] or 0)


def hist_of(x, key="access_sizes"):
    """A histogram's write and read counts (access_sizes; app_piece_sizes: issue 31)."""
    h = x.get(key) if isinstance(x, dict) else None
    if not h:
        return [0] * 10, [0] * 10
    return list(h["write"]), list(h["read"])


def derived(c, get):
    def ratio(a, b):
        return None if not b else a / b
    calls = get("aggr_calls", "sum")
    return {
        "objects_per_aggregator_max": get("objects_max", "max"),
        "objects_per_aggregator_mean": ratio(get("objects_touched", "sum"), calls),
        "osts_per_aggregator_max": get("osts_max", "max"),
        "osts_per_aggregator_mean": ratio(get("osts_touched", "sum"), calls),
        "bytes_per_sys_write_mean": ratio(get("bytes_written", "sum"), get("sys_writes", "sum")),
        "bytes_per_sys_read_mean": ratio(get("bytes_read", "sum"), get("sys_reads", "sum")),
    }


def slow_fast(ranks):
    if not ranks:
        return None, None
    slow = min(ranks, key=lambda r: (-(r["time"] or 0), r["rank"]))
    fast = min(ranks, key=lambda r: ((r["time"] or 0), r["rank"]))
    return slow, fast


def merge(docs):
    """One ostio-stats document from several (the library's and preload records)."""
    files, by_path = [], {}
    job, nproc_recs = None, 0
    for path, d in docs:
        if job is None or ("process" not in d and job.get("_from_preload")):
            job = dict(d["job"])
            job["_from_preload"] = "process" in d
        pre = d.get("process")
        if not pre:
            files += [dict(f) for f in d["files"]]
            continue
        nproc_recs += 1
        for f in d["files"]:
            ranks = [dict(r, host=pre.get("host"), pid=pre.get("pid")) for r in (f.get("ranks") or [])]
            m = by_path.get(f["file"])
            if m is None:
                m = dict(f, counters={}, timers={}, ranks=[])
                m["nprocs"] = 0
                m["_w"], m["_r"] = [0] * 10, [0] * 10
                m["_pw"], m["_pr"] = [0] * 10, [0] * 10
                by_path[f["file"]] = m
                files.append(m)
            fold_counters(m["counters"], f["counters"])
            fold_timers(m["timers"], f["timers"])
            w, r = hist_of(f)
            m["_w"] = [a + b for a, b in zip(m["_w"], w)]
            m["_r"] = [a + b for a, b in zip(m["_r"], r)]
            w, r = hist_of(f, "app_piece_sizes")
            m["_pw"] = [a + b for a, b in zip(m["_pw"], w)]
            m["_pr"] = [a + b for a, b in zip(m["_pr"], r)]
            m["nprocs"] += f["nprocs"]
            m["ranks"] += ranks
    for m in by_path.values():
        for i, r in enumerate(m["ranks"]):
            r["rank"] = i                     # processes numbered in the merge's order
        m["slowest_rank"], m["fastest_rank"] = slow_fast(m["ranks"])
        m["access_sizes"] = {"buckets": BUCKETS, "write": m.pop("_w"), "read": m.pop("_r")}
        m["app_piece_sizes"] = {"buckets": BUCKETS, "write": m.pop("_pw"), "read": m.pop("_pr")}
        c = m["counters"]
        m["derived"] = derived(c, lambda n, k: c.get(n, {}).get(k, 0))
        m["layout"] = f_layout = dict(m.get("layout") or {})
        f_layout.setdefault("source", "preload")
    job.pop("_from_preload", None)
    if nproc_recs:
        job["preload_processes"] = nproc_recs
    return {"format": "ostio-stats", "version": 2, "job": job,
            "summary": summarize(files), "files": files,
            "merged_from": [p for p, _ in docs]}


def summarize(files):
    tot, tim = {}, {}
    w, r = [0] * 10, [0] * 10
    pw, pr = [0] * 10, [0] * 10
    for f in files:
        for n, v in f["counters"].items():
            tot[n] = max(tot.get(n, 0), v["max"]) if n in MAX_COUNTERS else tot.get(n, 0) + v["sum"]
        fold_timers(tim, f["timers"])
        fw, fr = hist_of(f)
        w = [a + b for a, b in zip(w, fw)]
        r = [a + b for a, b in zip(r, fr)]
        fw, fr = hist_of(f, "app_piece_sizes")
        pw = [a + b for a, b in zip(pw, fw)]
        pr = [a + b for a, b in zip(pr, fr)]
    slow = None
    if files:
        i = max(range(len(files)), key=lambda k: (files[k]["timers"]["time_io"]["max"] or 0, -k))
        slow = {"file": files[i]["file"], "index": i,
                "time_io_max": files[i]["timers"]["time_io"]["max"]}
    sr = None
    for i, f in enumerate(files):
        s = f.get("slowest_rank")
        if s and (sr is None or (s["time"] or 0) > (sr["record"]["time"] or 0)):
            sr = {"file": f["file"], "index": i, "record": s}
    strategies = {}
    for f in files:
        strategies[str(f.get("strategy"))] = strategies.get(str(f.get("strategy")), 0) + 1
    return {
        "files": len(files), "files_listed": len(files), "files_omitted": 0,
        "nprocs_max": max((f["nprocs"] for f in files), default=0),
        "bytes_written": tot.get("bytes_written", 0), "bytes_read": tot.get("bytes_read", 0),
        "counters": tot, "timers": tim,
        "derived": derived(tot, lambda n, k: tot.get(n, 0)),
        "strategies": strategies, "slowest_file": slow, "slowest_rank": sr,
        "access_sizes": {"buckets": BUCKETS, "write": w, "read": r},
        "app_piece_sizes": {"buckets": BUCKETS, "write": pw, "read": pr},
        "unknown_hints": [],
    }


# ---- the text --------------------------------------------------------------------------

def size(b):
    b = float(b or 0)
    for unit in ("B", "KiB", "MiB", "GiB", "TiB"):
        if abs(b) < 1024 or unit == "TiB":
            return ("%d %s" % (b, unit)) if unit == "B" else ("%.1f %s" % (b, unit))
        b /= 1024


def secs(t):
    return "-" if t is None else "%.3f s" % t


def file_time(f):
    """The file's time: its slowest rank's (or the largest timer)."""
    s = f.get("slowest_rank")
    if s and s.get("time"):
        return s["time"]
    t = f["timers"]
    return max(t["time_total"]["max"] or 0, t["time_io"]["max"] or 0)


def cval(f, name, key="sum"):
    return f["counters"].get(name, {}).get(key, 0)


def short(path, width):
    path = str(path)
    return path if len(path) <= width else "..." + path[-(width - 3):]


def report_stats(doc, src):
    out = []
    p = out.append
    s, files, job = doc["summary"], doc["files"], doc["job"]
    p("ostio report: %s" % ", ".join(src))
    extra = ", %d preloaded processes" % job["preload_processes"] if job.get("preload_processes") else ""
    p("job %s (%s), %d file%s, up to %d ranks per file%s" % (
        job.get("id"), job.get("id_source"), s["files"], "" if s["files"] == 1 else "s",
        s["nprocs_max"], extra))
    p("")
    p("Throughput per file (time: the file's slowest rank)")
    p("  %-36s %5s %10s %10s %9s %9s" % ("file", "ranks", "written", "read", "time", "MiB/s"))
    for f in files:
        t = file_time(f)
        b = cval(f, "bytes_written") + cval(f, "bytes_read")
        bw = "-" if not t else "%.1f" % (b / t / 1048576)
        p("  %-36s %5d %10s %10s %9s %9s" % (short(f["file"], 36), f["nprocs"],
          size(cval(f, "bytes_written")), size(cval(f, "bytes_read")), secs(t), bw))
    if s["files_omitted"]:
        p("  (%d more files counted in the totals only)" % s["files_omitted"])
    p("")
    tm = s["timers"]
    parts = [(label, tm.get(k, {}).get("sum") or 0) for label, k in SPLIT]
    whole = sum(v for _, v in parts)
    p("Time split (seconds summed over ranks and files)")
    if whole > 0:
        p("  " + ", ".join("%s %.3f (%.0f%%)" % (label, v, 100 * v / whole) for label, v in parts))
    else:
        p("  no time recorded in I/O, exchange, wait or plan")
    p("  time_total %.3f (collective calls end to end)" % (tm.get("time_total", {}).get("sum") or 0))
    p("")
    p("Layout and object load (per aggregator per collective call)")
    for f in files:
        lay = f.get("layout") or {}
        d = f.get("derived") or {}
        if lay.get("ncomponents"):
            what = "%d x %s stripes, %s" % (lay["stripe_count"], size(lay["stripe_size"]), lay.get("source"))
        else:
            what = "no striping (%s)" % lay.get("source")
        load = ""
        if cval(f, "aggr_calls"):
            load = ";\n    objects max %d mean %.2f, OSTs max %d mean %.2f" % (
                d["objects_per_aggregator_max"], d["objects_per_aggregator_mean"] or 0,
                d["osts_per_aggregator_max"], d["osts_per_aggregator_mean"] or 0)
        objs = cval(f, "objfiles_written")
        if objs:
            load += "; %d object files written" % objs
        p("  %s:" % short(f["file"], 76))
        p("    %s%s" % (what, load))
    p("  (bytes per OST are not recorded; these are the counts each aggregator touched)")
    p("")
    p("Per-rank imbalance (time in the library; bytes moved)")
    for f in files:
        sl, fa = f.get("slowest_rank"), f.get("fastest_rank")
        if not sl:
            p("  %s: no per-rank figures (written by an older ostio)" % short(f["file"], 36))
            continue
        ratio = "%.2f" % (sl["time"] / fa["time"]) if fa and fa["time"] else "-"
        who = lambda r: "rank %d%s" % (r["rank"], " (%s pid %s)" % (r["host"], r["pid"]) if r.get("host") else "")
        p("  %s:" % short(f["file"], 76))
        p("    slowest %s %.3f s, fastest %s %.3f s, slowest/fastest %s" % (
            who(sl), sl["time"], who(fa), fa["time"], ratio))
        rk = f.get("ranks") or []
        if rk:
            bts = [r["bytes_written"] + r["bytes_read"] for r in rk]
            p("    bytes per rank %s to %s over %d ranks" % (size(min(bts)), size(max(bts)), len(rk)))
    p("")
    w, r = hist_of(s)
    p("Access sizes (system read/write calls; preloaded files: the program's calls)")
    for label, h in (("write", w), ("read", r)):
        nz = ["%s: %d" % (BUCKETS[i], n) for i, n in enumerate(h) if n]
        p("  %-5s %s" % (label, ", ".join(nz) if nz else "none"))
    if "app_piece_sizes" in s:
        # Issue 31: what the application asked for (its calls' contiguous pieces).
        p("Application pieces (the calls' extents in file order, after the MPI view)")
        for label, h in zip(("write", "read"), hist_of(s, "app_piece_sizes")):
            nz = ["%s: %d" % (BUCKETS[i], n) for i, n in enumerate(h) if n]
            p("  %-5s %s" % (label, ", ".join(nz) if nz else "none"))
    p("")
    p("Advice")
    n = 0
    for f in files:
        for wv in f.get("warnings") or []:
            p("  %s [%s]:" % (short(f["file"], 50), wv["kind"]))
            p("    " + wv["text"])
            n += 1
    if not n:
        p("  nothing known to be slow (the thresholds in docs/stats.md, \"Warnings\")")
    else:
        p("  (ostio advise --stats FILE --system SYSTEM.json predicts each change: docs/model.md)")
    return "\n".join(out) + "\n"


def report_bench(doc, src):
    out = []
    p = out.append
    c = doc["config"]
    p("ostio report: %s" % ", ".join(src))
    p("ostio-bench, %d ranks, pattern %s, block %s, transfer %s, %d segments, %s" % (
        doc["nprocs"], c.get("pattern"), size(c.get("block")), size(c.get("transfer")),
        c.get("segments", 0), size(doc.get("total_bytes"))))
    p("")
    p("Throughput per API and phase (MiB/s over %d iterations)" % c.get("iterations", 0))
    p("  %-22s %-6s %9s %9s %9s" % ("api", "phase", "best", "median", "worst"))
    for x in doc["summary"]:
        p("  %-22s %-6s %9.1f %9.1f %9.1f" % (x["api"], x["phase"], x["bw_max"], x["bw_median"],
                                            x["bw_min"]))
    p("")
    p("Time split per API and phase (mean seconds per iteration: open, I/O, close)")
    for x in doc["summary"]:
        tot = (x["t_open"] or 0) + (x["t_io"] or 0) + (x["t_close"] or 0)
        pc = lambda v: "%.0f%%" % (100 * v / tot) if tot else "-"
        p("  %-22s %-6s open %.3f (%s), I/O %.3f (%s), close %.3f (%s)" % (
            x["api"], x["phase"], x["t_open"], pc(x["t_open"]), x["t_io"], pc(x["t_io"]),
            x["t_close"], pc(x["t_close"])))
    p("")
    p("Object load (ostio APIs: largest aggregators and objects per aggregator of a run)")
    for x in doc["summary"]:
        if x.get("aggr_max") is not None:
            p("  %-22s %-6s aggregators %s, objects per aggregator %s" % (
                x["api"], x["phase"], x.get("aggr_max"), x.get("objects_max")))
    p("")
    p("Per-rank figures, access sizes and advice are not in ostio-bench's JSON: run it with")
    p("OSTIO_STATS=json:PATH and give PATH to ostio report (docs/stats.md).")
    return "\n".join(out) + "\n"


# ---- the pictures ----------------------------------------------------------------------

def charts_stats(doc, plt):
    files, s = doc["files"], doc["summary"]
    fig, ax = plt.subplots(2, 2, figsize=(11, 7.5))
    names = [short(os.path.basename(str(f["file"])) or f["file"], 18) for f in files[:20]]
    bw = []
    for f in files[:20]:
        t = file_time(f)
        bw.append((cval(f, "bytes_written") + cval(f, "bytes_read")) / t / 1048576 if t else 0)
    a = ax[0][0]
    a.barh(range(len(bw)), bw, color="#4c72b0")
    a.set_yticks(range(len(bw)))
    a.set_yticklabels(names)
    a.invert_yaxis()
    a.set_xlabel("MiB/s (bytes / slowest rank's time)")
    a.set_title("Throughput per file")
    a = ax[0][1]
    left = [0.0] * len(files[:20])
    colors = ("#4c72b0", "#dd8452", "#55a868", "#c44e52")
    for (label, key), col in zip(SPLIT, colors):
        v = [(f["timers"].get(key, {}).get("sum") or 0) / max(f["nprocs"], 1) for f in files[:20]]
        a.barh(range(len(v)), v, left=left, color=col, label=label)
        left = [x + y for x, y in zip(left, v)]
    a.set_yticks(range(len(names)))
    a.set_yticklabels(names)
    a.invert_yaxis()
    a.set_xlabel("seconds (mean over ranks)")
    a.set_title("Time split")
    a.legend(loc="lower right", fontsize="small")
    a = ax[1][0]
    pick = max(files, key=lambda f: len(f.get("ranks") or []), default=None)
    rk = (pick.get("ranks") or []) if pick else []
    if rk:
        a.bar([r["rank"] for r in rk], [r["time"] for r in rk], color="#8172b3")
        a.xaxis.get_major_locator().set_params(integer=True)
        a.set_xlabel("rank")
        a.set_ylabel("seconds in the library")
        a.set_title("Per-rank time: %s" % short(os.path.basename(str(pick["file"])), 30))
    else:
        a.text(0.5, 0.5, "no per-rank records", ha="center", va="center")
        a.set_title("Per-rank time")
    a = ax[1][1]
    w, r = hist_of(s)
    x = range(len(BUCKETS))
    a.bar([i - 0.2 for i in x], w, width=0.4, label="write", color="#4c72b0")
    a.bar([i + 0.2 for i in x], r, width=0.4, label="read", color="#dd8452")
    a.set_xticks(list(x))
    a.set_xticklabels(BUCKETS, rotation=45, ha="right", fontsize="small")
    a.set_ylabel("calls")
    a.set_title("Access sizes (bytes)")
    a.legend(fontsize="small")
    fig.suptitle("ostio job summary: %d file%s, %s written, %s read" % (
        s["files"], "" if s["files"] == 1 else "s", size(s["bytes_written"]), size(s["bytes_read"])))
    fig.tight_layout()
    return fig


def charts_bench(doc, plt):
    summ = doc["summary"]
    fig, ax = plt.subplots(1, 2, figsize=(11, 4.5))
    labels = ["%s %s" % (x["api"], x["phase"]) for x in summ]
    a = ax[0]
    a.barh(range(len(summ)), [x["bw_max"] for x in summ], color="#4c72b0", label="best")
    a.barh(range(len(summ)), [x["bw_median"] for x in summ], color="#a1c9f4", height=0.4,
           label="median")
    a.set_yticks(range(len(summ)))
    a.set_yticklabels(labels)
    a.invert_yaxis()
    a.set_xlabel("MiB/s")
    a.set_title("Throughput per API and phase")
    a.legend(fontsize="small")
    a = ax[1]
    left = [0.0] * len(summ)
    for key, col in (("t_open", "#dd8452"), ("t_io", "#4c72b0"), ("t_close", "#55a868")):
        v = [x[key] or 0 for x in summ]
        a.barh(range(len(summ)), v, left=left, color=col, label=key[2:])
        left = [p + q for p, q in zip(left, v)]
    a.set_yticks(range(len(summ)))
    a.set_yticklabels(labels)
    a.invert_yaxis()
    a.set_xlabel("seconds (mean per iteration)")
    a.set_title("Time split")
    a.legend(fontsize="small")
    fig.suptitle("ostio-bench: %d ranks, %s" % (doc["nprocs"], size(doc.get("total_bytes"))))
    fig.tight_layout()
    return fig


def have_matplotlib():
    try:
        import matplotlib  # noqa: F401
        return True
    except ImportError:
        return False


def png_bytes(doc):
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return None
    fig = (charts_bench if doc["format"] == "ostio-bench" else charts_stats)(doc, plt)
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=90)
    plt.close(fig)
    return buf.getvalue()


def page(text, png, title):
    return ("<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>%s</title>\n"
            "<style>body{font-family:sans-serif;margin:2em}pre{font-size:13px}</style></head>\n"
            "<body><h1>%s</h1>\n<img alt=\"charts\" src=\"data:image/png;base64,%s\">\n"
            "<pre>%s</pre>\n</body></html>\n" % (html.escape(title), html.escape(title),
                                                 base64.b64encode(png).decode("ascii"),
                                                 html.escape(text)))


def main(argv):
    if not argv or any(a in ("-h", "--help") for a in argv):
        if not argv:
            return usage_error("no STATS.json given")
        print(__doc__.strip())
        return 0
    opts, paths = {}, []
    i = 0
    while i < len(argv):
        a = argv[i]
        if a in ("--png", "--html", "--json"):
            if i + 1 >= len(argv) or not argv[i + 1]:
                return usage_error("%s needs a FILE" % a)
            opts[a] = argv[i + 1]
            i += 2
            continue
        if a.startswith("-") and a != "-":
            return usage_error("unknown option %s; accepted: --png FILE, --html FILE, "
                               "--json FILE, --help" % a)
        paths.append(a)
        i += 1
    if not paths:
        return usage_error("no STATS.json given")
    if ("--png" in opts or "--html" in opts) and not have_matplotlib():
        # Debian's python3 has python3-matplotlib; another python3 first in
        # PATH (pyenv, a venv) may not: the same command with Debian's.
        deb = "/usr/bin/python3"
        if (os.environ.get("OSTIO_REPORT_REEXEC") != "1" and os.access(deb, os.X_OK)
                and os.path.realpath(sys.executable) != os.path.realpath(deb)):
            os.environ["OSTIO_REPORT_REEXEC"] = "1"
            os.execv(deb, [deb, os.path.abspath(__file__)] + argv)
    try:
        docs = [(p, load(p)) for p in expand(paths)]
    except Bad as ex:
        sys.stderr.write("ostio report: %s\n" % ex)
        return 1
    kinds = {d["format"] for _, d in docs}
    if len(kinds) > 1:
        sys.stderr.write("ostio report: ostio-stats and ostio-bench documents cannot share a "
                         "page; give one kind at a time\n")
        return 1
    if "ostio-bench" in kinds:
        if len(docs) > 1:
            sys.stderr.write("ostio report: one ostio-bench document at a time (got %d)\n" % len(docs))
            return 1
        doc = docs[0][1]
        text = report_bench(doc, [docs[0][0]])
    else:
        doc = docs[0][1] if len(docs) == 1 and "process" not in docs[0][1] else merge(docs)
        text = report_stats(doc, [p for p, _ in docs])
    sys.stdout.write(text)
    if "--json" in opts:
        if doc["format"] != "ostio-stats":
            sys.stderr.write("ostio report: --json writes a merged ostio-stats document; this is "
                             "an ostio-bench one\n")
            return 2
        try:
            with open(opts["--json"], "w") as f:
                json.dump(doc, f, indent=1)
                f.write("\n")
        except OSError as ex:
            sys.stderr.write("ostio report: cannot write %s: %s\n" % (opts["--json"], ex.strerror))
            return 1
    if "--png" in opts or "--html" in opts:
        png = png_bytes(doc)
        if png is None:
            sys.stderr.write("ostio report: --png/--html need matplotlib, which %s cannot import; "
                             "install it (Debian: apt-get install python3-matplotlib; "
                             "scripts/deps.sh does) or set OSTIO_PYTHON to a python3 that has it; "
                             "the text above is complete\n" % sys.executable)
            return 3
        try:
            if "--png" in opts:
                with open(opts["--png"], "wb") as f:
                    f.write(png)
            if "--html" in opts:
                with open(opts["--html"], "w", encoding="utf-8") as f:
                    f.write(page(text, png, "ostio report: " + ", ".join(p for p, _ in docs[:3])))
        except OSError as ex:
            sys.stderr.write("ostio report: cannot write %s: %s\n" % (ex.filename, ex.strerror))
            return 1
    return 0


if __name__ == "__main__":
    try:
        rc = main(sys.argv[1:])
        sys.stdout.flush()
    except BrokenPipeError:  # `ostio report X | head`: the reader is gone
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        rc = 1
    sys.exit(rc)
