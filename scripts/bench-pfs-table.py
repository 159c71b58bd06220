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
    print("| clients | calls | pattern | variant | n | MiB/s | op_w/MiB | vs best ROMIO "
          "| vs default ROMIO | vs ceiling |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for k in keys:
        P, mode, pat, var = k
        if mode in ("fpp", "cache"):
            continue
        b = med(bw[k])
        best = med(bw.get((P, mode, pat, "best" if mode == "coll" else "default"), []))
        dflt = med(bw.get((P, mode, pat, "default"), []))
        rb = rd = rc = None
        if var in ("auto", "log", "cache"):
            rb, rd, rc = ratio(b, best), ratio(b, dflt), ratio(b, ceil.get(P))
        name = var if var != "best" else f"best ({hints.get(k, '?')})"
        print(f"| {P} | {mode} | {pat} | {name} | {len(bw[k])} | {fmt(b)} | {fmt(med(ops[k]), 2)} "
              f"| {fmt(rb, 2)} | {fmt(rd, 2)} | {fmt(rc, 2)} |")
    for P in sorted(ceil):
        k = (P, "fpp", "ior", "ceiling")
        print(f"| {P} | file per process | ior 1 MiB | ceiling | {len(bw[k])} | {fmt(ceil[P])} "
              f"| {fmt(ceil_ops[P], 2)} | | | 1.00 |")
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
