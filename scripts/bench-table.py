#!/usr/bin/env python3
"""Markdown tables from ostio-bench JSON documents (--json): one table per
document with each API's median write and read MiB/s, the ratio to the
baseline's median in the same run (ROMIO tuned, mpiio:best, when the run has
it, else ROMIO at its defaults, mpiio), the ratio to mpiio as a second column,
and the ostio statistics.

usage: scripts/bench-table.py [--compact | --auto] FILE.json...
  --compact  one row per document instead: the baseline's medians (write / read)
             and every other API's ratios to them
  --auto     issue 29's matrix: one table, one row per document and phase: the
             tuned ROMIO's median, ROMIO's defaults, `ostio` (auto) and each
             strategy as median / baseline median, with auto's range: the
             smallest and largest ratio of one iteration to the baseline's
             phase of the same iteration
  --cases    the lines of tests/auto_cases.txt for these documents (the
             containers' and plain files' runs that measured every strategy
             auto can pick; flash's --flash-blocks is read from cases.txt
             beside the documents, as bench-matrix.sh writes it)
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


def base_of(d):
    """The run's baseline api: mpiio:best when it ran, else mpiio."""
    return d.get("baseline") or "mpiio"


def ratio(s):
    """An api's ratio to the baseline (older documents: to mpiio)."""
    if not s:
        return None
    return s.get("ratio_vs_baseline", s.get("ratio_vs_mpiio"))


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
           f"baseline: {base_of(d)}", "",
           "| api | write median MiB/s | vs baseline | vs mpiio | read median MiB/s | vs baseline | vs mpiio | aggr | objs/aggr | sys writes / reads |",
           "|---|---|---|---|---|---|---|---|---|---|"]
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
                   f"{fmt(ratio(w), '.2f')}x | {fmt(w and w.get('ratio_vs_mpiio'), '.2f')}x | "
                   f"{fmt(r and r['bw_median'], '.0f')} | {fmt(ratio(r), '.2f')}x | "
                   f"{fmt(r and r.get('ratio_vs_mpiio'), '.2f')}x | "
                   f"{st('aggr_max')} | {st('objects_max')} | {sysops} |")
    return "\n".join(out) + "\n"


def compact(paths):
    docs = []
    for path in paths:
        with open(path) as f:
            docs.append((path.rsplit("/", 1)[-1].removesuffix(".json"), json.load(f)))
    base = base_of(docs[0][1])
    apis = [a for a in docs[0][1]["config"]["apis"] if a != base]
    out = [f"| case | ranks | {base} MiB/s (w / r) | " + " | ".join(apis) + " |",
           "|---|---|---|" + "---|" * len(apis)]
    for name, d in docs:
        rows = {}
        for s in d["summary"]:
            rows.setdefault(s["api"], {})[s["phase"]] = s
        m = rows.get(base_of(d), {})
        cells = [f"{fmt(m.get('write', {}).get('bw_median'), '.0f')} / "
                 f"{fmt(m.get('read', {}).get('bw_median'), '.0f')}"]
        for a in apis:
            r = rows.get(a, {})
            cells.append(f"{fmt(ratio(r.get('write')), '.2f')}x / "
                         f"{fmt(ratio(r.get('read')), '.2f')}x")
        out.append(f"| {name} | {d['nprocs']} | " + " | ".join(cells) + " |")
    return "\n".join(out)


STRATS = ("ostio:ost", "ostio:aligned", "ostio:independent")


def auto_rows(path):
    """Rows of the --auto table for one document (one per phase)."""
    with open(path) as f:
        d = json.load(f)
    c, base = d["config"], base_of(d)
    name = path.rsplit("/", 1)[-1].removesuffix(".json").removeprefix("auto_")
    summ = {(s["api"], s["phase"]): s for s in d["summary"]}
    runs = {}
    for r in d["runs"]:
        if not r["warmup"]:
            runs[(r["api"], r["phase"], r["iteration"])] = r
    out = []
    for ph in ("write", "read"):
        b = summ.get((base, ph))
        if not b:
            continue
        pair = [runs[("ostio", ph, it)]["bw_mib"] / runs[(base, ph, it)]["bw_mib"]
                for (a, p, it) in runs if a == "ostio" and p == ph and (base, ph, it) in runs
                and runs[(base, ph, it)]["bw_mib"] > 0]
        rng = f" [{min(pair):.2f}-{max(pair):.2f}]" if pair else ""
        chosen = sorted({r["strategy"] for (a, p, _), r in runs.items()
                         if a == "ostio" and p == ph and r.get("strategy")})
        shortest = min(r["t_total"] for (a, p, _), r in runs.items() if p == ph)
        # the faster ROMIO of the run: the sweep's pick can lose to ROMIO's own
        # defaults (it is chosen at 1/8 of the size, one phase per candidate)
        dflt = summ.get(("mpiio", ph))
        fast = max(b["bw_median"], dflt["bw_median"] if dflt else 0)
        o = summ.get(("ostio", ph))
        vs_fast = f"{o['bw_median'] / fast:.2f}x" if o and fast > 0 else "-"
        cells = [name, ph, str(d["nprocs"]), fmt(b["bw_median"], ".0f"),
                 f"{fmt(ratio(summ.get(('mpiio', ph))), '.2f')}x",
                 f"**{fmt(ratio(summ.get(('ostio', ph))), '.2f')}x**{rng}", vs_fast,
                 ",".join(chosen) or "-"]
        cells += [f"{fmt(ratio(summ.get((a, ph))), '.2f')}x" if (a, ph) in summ else "-"
                  for a in STRATS]
        cells.append(f"{shortest:.2f}")
        out.append("| " + " | ".join(cells) + " |")
    return out


def auto_table(paths):
    out = ["| case (pattern_container_fs_ranks) | phase | ranks | ROMIO tuned MiB/s | ROMIO defaults "
           "| auto [range] | auto vs the faster ROMIO | auto chose | ost | aligned | independent "
           "| shortest phase s |",
           "|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for p in paths:
        out += auto_rows(p)
    return "\n".join(out)


def case_lines(paths):
    """tests/auto_cases.txt: pattern, layout and each strategy's min/median/max."""
    out = []
    for path in paths:
        with open(path) as f:
            d = json.load(f)
        c = d["config"]
        name = path.rsplit("/", 1)[-1].removesuffix(".json").removeprefix("auto_")
        summ = {(s["api"], s["phase"]): s for s in d["summary"]}
        if not all((a, "write") in summ for a in ("ostio:ost", "ostio:independent")):
            continue
        extra = "-"
        if c["pattern"] == "btio":
            extra = c["btio_class"]
        elif c["pattern"] == "flash":
            extra = "80"
            try:
                with open(path.rsplit("/", 1)[0] + "/cases.txt") as f:
                    for line in f:
                        w = line.split()
                        if w and w[0] == "auto_" + name and "--flash-blocks" in w:
                            extra = w[w.index("--flash-blocks") + 1]
            except OSError:
                pass
        for ph in ("write", "read"):
            cells = []
            for a in STRATS:
                s = summ.get((a, ph))
                cells.append("-" if not s else
                             f"{s['bw_min']:.1f}/{s['bw_median']:.1f}/{s['bw_max']:.1f}")
            out.append(" ".join([name, c["pattern"], str(c["block"]), str(c["transfer"]),
                                 str(c["segments"]), extra, str(d["nprocs"]), "1",
                                 str(c["stripe_count"] or 1), str(c["stripe_size"] or 1048576),
                                 ph] + cells))
    return "\n".join(out)


def main(argv):
    if len(argv) < 2 or argv[1] in ("-h", "--help"):
        print(__doc__.strip())
        return 0 if len(argv) >= 2 else 2
    if argv[1] == "--cases":
        print(case_lines(argv[2:]))
        return 0
    if argv[1] == "--auto":
        print(auto_table(argv[2:]))
        return 0
    if argv[1] == "--compact":
        print(compact(argv[2:]))
        return 0
    print("\n".join(table(p) for p in argv[1:]))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
