#!/usr/bin/env python3
"""scripts/bench-pfs.sh's runs.tsv -> markdown tables (docs/pfs.md "Measured").

Per (clients, mode, pattern, variant): the median MiB/s and the median OSD op_w per MiB
over the repetitions (n = how many), and for ostio's variants the ratios of the medians
against ROMIO at its best hints, ROMIO at its defaults and the file-per-process ceiling
of the same client count. Independent mode has no separate "best" (the sweep offers only
ROMIO's defaults for contiguous independent calls), so its best is the default.
usage: bench-pfs-table.py runs.tsv
"""
import csv
import statistics
import sys
from collections import defaultdict


def med(xs):
    return statistics.median(xs) if xs else None


def fmt(x, nd=1):
    return "-" if x is None else f"{x:.{nd}f}"


def ratio(a, b):
    return None if a is None or not b else a / b


def short(h):
    if h == "romio_cb_write=enable,cb_nodes=1,cb_config_list=*:*,romio_no_indep_rw=true":
        return "D1"
    if h == "romio_cb_write=disable":
        return "nocb"
    return h


def main():
    rows = list(csv.DictReader(open(sys.argv[1]), delimiter="\t"))
    bw, ops, hints = defaultdict(list), defaultdict(list), {}
    for r in rows:
        k = (int(r["clients"]), r["mode"], r["pattern"], r["variant"])
        b = float(r["bw_mib"])
        mib = int(r["bytes"]) / 1048576
        bw[k].append(b)
        ops[k].append(int(r["op_w"]) / mib if mib else 0)
        if r["hints"]:
            hints[k] = r["hints"]
    keys = sorted(bw)
    ceil = {k[0]: med(bw[k]) for k in keys if k[3] == "ceiling"}
    ceil_ops = {k[0]: med(ops[k]) for k in keys if k[3] == "ceiling"}
    print("Cells: median MiB/s (median OSD op_w per MiB) [runs]; ratios of the medians.\n")
    print("| clients | calls | pattern | ROMIO best | ROMIO default | ostio auto | ostio log "
          "| auto vs best / default / ceiling | log vs best / default / ceiling |")
    print("|---|---|---|---|---|---|---|---|---|")
    cases = sorted({k[:3] for k in keys if k[1] in ("coll", "indep")})
    for P, mode, pat in cases:
        def cell(v):
            k = (P, mode, pat, v)
            if k not in bw:
                return None, "-"
            return med(bw[k]), f"{fmt(med(bw[k]))} ({fmt(med(ops[k]), 2)}) [{len(bw[k])}]"
        b_best, c_best = cell("best")
        if mode != "coll":
            b_best, c_best = cell("default")[0], "= default"
        elif (P, mode, pat, "best") in hints:
            c_best += " " + short(hints[(P, mode, pat, "best")])
        b_def, c_def = cell("default")
        b_auto, c_auto = cell("auto")
        b_log, c_log = cell("log")
        r = lambda b: " / ".join(fmt(ratio(b, d), 2) for d in (b_best, b_def, ceil.get(P)))
        print(f"| {P} | {mode} | {pat} | {c_best} | {c_def} | {c_auto} | {c_log} "
              f"| {r(b_auto)} | {r(b_log)} |")
    print()
    for P in sorted(ceil):
        k = (P, "fpp", "ior", "ceiling")
        print(f"Ceiling, {P} clients (file per process, 1 MiB writes): {fmt(ceil[P])} MiB/s "
              f"({fmt(ceil_ops[P], 2)} op_w/MiB) [{len(bw[k])}]  ")
    print("Best hints: D1 = romio_cb_write=enable,cb_nodes=1,cb_config_list=*:*,"
          "romio_no_indep_rw=true (deferred open, one aggregator); "
          "nocb = romio_cb_write=disable.")
    extra = sorted({k[3] for k in keys if k[1] in ("coll", "indep")} -
                   {"best", "default", "auto", "log"})
    if extra:
        # --variant NAME=FLAGS variants: their cells, and auto against each.
        print()
        print("| clients | calls | pattern | " + " | ".join(extra) + " | auto vs " +
              " / ".join(extra) + " |")
        print("|---|---|---|" + "---|" * (len(extra) + 1))
        for P, mode, pat in cases:
            cells, meds = [], []
            for v in extra:
                k = (P, mode, pat, v)
                meds.append(med(bw[k]) if k in bw else None)
                cells.append("-" if k not in bw else
                             f"{fmt(med(bw[k]))} ({fmt(med(ops[k]), 2)}) [{len(bw[k])}]")
            a = med(bw.get((P, mode, pat, "auto"), []))
            print(f"| {P} | {mode} | {pat} | " + " | ".join(cells) + " | " +
                  " / ".join(fmt(ratio(a, m), 2) for m in meds) + " |")
        for v in extra:
            h = next((hints[k] for k in keys if k[3] == v and k in hints), "")
            print(f"\n{v}: {h}  ", end="")
        print()
    loads = [float(r["load1"]) for r in rows if r.get("load1")]
    if loads:
        print(f"\nLoad average (1 min, before each run): {min(loads):.1f}-{max(loads):.1f}, "
              f"median {med(loads):.1f}")
    ck = [k for k in keys if k[1] == "cache"]
    if ck:
        print()
        print("| clients | independent interleaved 4 KiB | n | MiB/s | op_w/MiB | cache vs this |")
        print("|---|---|---|---|---|---|")
        c = med(bw.get((ck[0][0], "cache", "strided4k", "cache"), []))
        for k in ck:
            b = med(bw[k])
            r = ratio(c, b) if k[3] != "cache" else None
            print(f"| {k[0]} | {k[3]} | {len(bw[k])} | {fmt(b)} | {fmt(med(ops[k]), 2)} | {fmt(r, 2)} |")


if __name__ == "__main__":
    main()
