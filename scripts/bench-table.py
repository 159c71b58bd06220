#!/usr/bin/env python3
"""Markdown tables from ostio-bench JSON documents (--json): one table per
document with each API's median write and read MiB/s, the ratio to mpiio's
median in the same run, and the ostio statistics.

usage: scripts/bench-table.py [--compact] FILE.json...
  --compact  one row per document instead: mpiio's medians (write / read) and
             every other API's ratios to them
"""
import json
import sys


def fmt(v, spec):
    return "-" if v is None else format(v, spec)


def sys_max(d, api, phase, key):
    """Largest system-call count of the counted runs of api and phase."""
    v = [r["stats"][key] for r in d["runs"]
         if r["api"] == api and r["phase"] == phase and not r["warmup"] and r.get("stats")]
    return "-" if not v else f"{max(v):.0f}"


def table(path):
    with open(path) as f:
        d = json.load(f)
    if d.get("format") != "ostio-bench" or d.get("version") != 1:
        raise SystemExit(f"{path}: not an ostio-bench version 1 document")
    c = d["config"]
    rows = {}
    for s in d["summary"]:
        rows.setdefault(s["api"], {})[s["phase"]] = s
    out = [f"#### {path.rsplit('/', 1)[-1]}: {c['pattern']}, {d['nprocs']} ranks, "
           f"{d['total_bytes'] / 2**20:.1f} MiB per phase, container {c.get('container', 'plain')}",
           "",
           "| api | write median MiB/s | vs mpiio | read median MiB/s | vs mpiio | aggr | objs/aggr | sys writes / reads |",
           "|---|---|---|---|---|---|---|---|"]
    for api in c["apis"]:
        w, r = rows.get(api, {}).get("write"), rows.get(api, {}).get("read")
        ref = w or r
        def st(k):
            v = ref.get(k) if ref else None
            return "-" if v is None else f"{v:.0f}"
        sysops = "-"
        if ref and ref.get("aggr_max") is not None:
            sysops = f"{sys_max(d, api, 'write', 'sys_writes')} / {sys_max(d, api, 'read', 'sys_reads')}"
        out.append(f"| {api} | {fmt(w and w['bw_median'], '.0f')} | "
                   f"{fmt(w and w.get('ratio_vs_mpiio'), '.2f')}x | "
                   f"{fmt(r and r['bw_median'], '.0f')} | {fmt(r and r.get('ratio_vs_mpiio'), '.2f')}x | "
                   f"{st('aggr_max')} | {st('objects_max')} | {sysops} |")
    return "\n".join(out) + "\n"


def compact(paths):
    docs = []
    for path in paths:
        with open(path) as f:
            docs.append((path.rsplit("/", 1)[-1].removesuffix(".json"), json.load(f)))
    apis = [a for a in docs[0][1]["config"]["apis"] if a != "mpiio"]
    out = ["| case | ranks | mpiio MiB/s (w / r) | " + " | ".join(apis) + " |",
           "|---|---|---|" + "---|" * len(apis)]
    for name, d in docs:
        rows = {}
        for s in d["summary"]:
            rows.setdefault(s["api"], {})[s["phase"]] = s
        m = rows.get("mpiio", {})
        cells = [f"{fmt(m.get('write', {}).get('bw_median'), '.0f')} / "
                 f"{fmt(m.get('read', {}).get('bw_median'), '.0f')}"]
        for a in apis:
            r = rows.get(a, {})
            cells.append(f"{fmt(r.get('write', {}).get('ratio_vs_mpiio'), '.2f')}x / "
                         f"{fmt(r.get('read', {}).get('ratio_vs_mpiio'), '.2f')}x")
        out.append(f"| {name} | {d['nprocs']} | " + " | ".join(cells) + " |")
    return "\n".join(out)


def main(argv):
    if len(argv) < 2 or argv[1] in ("-h", "--help"):
        print(__doc__.strip())
        return 0 if len(argv) >= 2 else 2
    if argv[1] == "--compact":
        print(compact(argv[2:]))
        return 0
    print("\n".join(table(p) for p in argv[1:]))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
