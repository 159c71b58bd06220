#!/usr/bin/env python3
"""Charts from ostio-bench JSON documents (ostio-bench --json FILE).

usage: scripts/bench-plot.py [options] FILE.json... -o OUT.png|OUT.svg

Bars (default): one group of bars per document, one bar per API and phase
(MiB/s), each labelled with its ratio to mpiio:best's bar of the same document
and phase (ROMIO at the hints ostio-bench's sweep picked; mpiio's, ROMIO at its
defaults, when the run has no mpiio:best), e.g. "2.31x", so every ratio compares
two runs made side by side. ostio APIs
writing a container are named with the container ("ostio:ost, striped").

Sweep (--sweep KEY): documents that differ in one setting (KEY = a config key
such as transfer, block, segments, stripe_count, or nprocs; "auto" picks the
one that differs) become line plots: MiB/s per API against KEY, and below, the
ratio to the baseline (mpiio:best when the documents have it, else mpiio).

options:
  -o, --output FILE    PNG or SVG (by the extension); required
  --phase P            write, read or both (default: both phases present)
  --stat S             median (default), max (best iteration), mean or min
  --labels A,B,...     group names for the documents (default: the file names)
  --title TEXT         chart title (default: pattern, ranks, MiB per phase)
  --sweep KEY          line plots over KEY instead of bars (see above)
  --size WxH           figure size in inches (default 8x4.5); --dpi N (default 100),
                       so the PNG is W*dpi x H*dpi pixels
  -h, --help           this text

Needs matplotlib (Debian: apt-get install python3-matplotlib; scripts/deps.sh
installs it as root). Exit status: 0 written, 1 bad input, 2 usage error,
3 matplotlib missing.
"""
import json
import os
import sys

STATS = {"median": "bw_median", "max": "bw_max", "mean": "bw_mean", "min": "bw_min"}


def baseline(d):
    """The API ratios are against: mpiio:best when the run has it (ROMIO at the hints
    ostio-bench's sweep picked), else mpiio (ROMIO at its defaults)."""
    return "mpiio:best" if "mpiio:best" in d["config"]["apis"] else "mpiio"


def usage_error(msg):
    print(f"bench-plot: {msg} (see --help)", file=sys.stderr)
    sys.exit(2)


def import_matplotlib():
    """matplotlib with the Agg backend; with a Python lacking it (pyenv, venv),
    retries once under Debian's /usr/bin/python3, where python3-matplotlib is."""
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        return plt
    except ImportError:
        alt = "/usr/bin/python3"
        if (os.path.exists(alt) and os.path.realpath(sys.executable) != os.path.realpath(alt)
                and not os.environ.get("OSTIO_BENCH_PLOT_REEXEC")):
            os.environ["OSTIO_BENCH_PLOT_REEXEC"] = "1"
            os.execv(alt, [alt] + sys.argv)
        print("bench-plot: matplotlib is not installed (Debian: apt-get install "
              "python3-matplotlib)", file=sys.stderr)
        sys.exit(3)


def parse(argv):
    o = {"out": None, "phase": "both", "stat": "median", "labels": None, "title": None,
         "sweep": None, "size": (8.0, 4.5), "dpi": 100, "files": []}
    i = 0
    while i < len(argv):
        a = argv[i]
        if a in ("-h", "--help"):
            print(__doc__.strip())
            sys.exit(0)
        if a in ("-o", "--output", "--phase", "--stat", "--labels", "--title", "--sweep",
                 "--size", "--dpi"):
            if i + 1 >= len(argv):
                usage_error(f"{a} needs a value")
            v = argv[i + 1]
            i += 2
            if a in ("-o", "--output"):
                o["out"] = v
            elif a == "--phase":
                if v not in ("write", "read", "both"):
                    usage_error(f"--phase {v}: accepted write, read, both")
                o["phase"] = v
            elif a == "--stat":
                if v not in STATS:
                    usage_error(f"--stat {v}: accepted {', '.join(STATS)}")
                o["stat"] = v
            elif a == "--labels":
                o["labels"] = v.split(",")
            elif a == "--title":
                o["title"] = v
            elif a == "--sweep":
                o["sweep"] = v
            elif a == "--size":
                try:
                    w, h = (float(x) for x in v.lower().split("x"))
                    assert w > 0 and h > 0
                except (ValueError, AssertionError):
                    usage_error(f"--size {v}: want WxH in inches, e.g. 8x4.5")
                o["size"] = (w, h)
            elif a == "--dpi":
                if not v.isdigit() or not 20 <= int(v) <= 600:
                    usage_error(f"--dpi {v}: want an integer 20..600")
                o["dpi"] = int(v)
            continue
        if a.startswith("-"):
            usage_error(f"unknown option {a}")
        o["files"].append(a)
        i += 1
    if not o["files"]:
        usage_error("give at least one ostio-bench JSON file")
    if not o["out"]:
        usage_error("give the output file with -o OUT.png or OUT.svg")
    if os.path.splitext(o["out"])[1].lower() not in (".png", ".svg"):
        usage_error(f"-o {o['out']}: the name must end in .png or .svg")
    if o["labels"] and len(o["labels"]) != len(o["files"]):
        usage_error(f"--labels has {len(o['labels'])} names for {len(o['files'])} files")
    return o


def load(path):
    try:
        with open(path) as f:
            d = json.load(f)
    except (OSError, ValueError) as e:
        print(f"bench-plot: {path}: {e}", file=sys.stderr)
        sys.exit(1)
    if d.get("format") != "ostio-bench" or d.get("version") != 1:
        print(f"bench-plot: {path}: not an ostio-bench version 1 document", file=sys.stderr)
        sys.exit(1)
    return d


def summary(d):
    """{(api, phase): summary entry}"""
    return {(s["api"], s["phase"]): s for s in d["summary"]}


def api_label(d, api):
    ctr = d["config"].get("container", "plain")
    return f"{api}, {ctr}" if api.startswith("ostio") and ctr != "plain" else api


def phases_of(docs, want):
    have = [p for p in ("write", "read") if any(p == s["phase"] for d in docs for s in d["summary"])]
    return have if want == "both" else [p for p in have if p == want]


def default_title(docs, stat):
    d = docs[0]
    c = d["config"]
    what = {"median": "median", "max": "best", "mean": "mean", "min": "worst"}[stat]
    mib = d["total_bytes"] / 2**20
    its = c.get("iterations")
    pat = c["pattern"]
    if pat in ("ior", "strided"):
        pat += f" -b {c['block']} -t {c['transfer']} -s {c['segments']}"
    same = all(x["total_bytes"] == d["total_bytes"] and x["nprocs"] == d["nprocs"] for x in docs)
    size = f", {mib:.0f} MiB per phase" if same else ""
    return f"ostio-bench {pat}, {d['nprocs']} ranks{size}, {what} of {its}"


def bars(plt, docs, names, o):
    key = STATS[o["stat"]]
    phases = phases_of(docs, o["phase"])
    if not phases:
        print("bench-plot: no phase to plot", file=sys.stderr)
        sys.exit(1)
    fig, axes = plt.subplots(1, len(phases), figsize=o["size"], dpi=o["dpi"], squeeze=False)
    palette = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    colors = {}
    for ax, ph in zip(axes[0], phases):
        x, ticks, ticklabels = 0.0, [], []
        for d, name in zip(docs, names):
            s = summary(d)
            base = baseline(d)
            ref = s.get((base, ph))
            apis = [a for a in d["config"]["apis"] if (a, ph) in s]
            start = x
            for a in apis:
                lab = api_label(d, a)
                col = colors.setdefault(lab, palette[len(colors) % len(palette)])
                v = s[(a, ph)][key]
                b = ax.bar(x, v, width=0.8, color=col, label=lab)
                if ref and ref[key] > 0:
                    txt = ("ROMIO tuned" if a == "mpiio:best" else "ROMIO") if a == base \
                        else f"{v / ref[key]:.2f}x"
                    ax.bar_label(b, labels=[txt], padding=2, fontsize=8)
                x += 1
            if apis:
                ticks.append((start + x - 1) / 2)
                ticklabels.append(name)
            x += 0.6
        ax.set_xticks(ticks, ticklabels, fontsize=8)
        ax.set_ylabel("MiB/s")
        ax.set_title(f"{ph}", fontsize=10)
        ax.margins(y=0.15)
        ax.grid(axis="y", alpha=0.3)
    # One legend entry per label, in order of appearance.
    handles, labels = [], []
    for ax in axes[0]:
        for h, lab in zip(*ax.get_legend_handles_labels()):
            if lab not in labels:
                handles.append(h)
                labels.append(lab)
    fig.legend(handles, labels, loc="lower center", ncol=min(len(labels), 4), fontsize=8,
               frameon=False)
    fig.suptitle((o["title"] or default_title(docs, o["stat"]))
                 + "\nlabels: ratio to " + ("mpiio:best (ROMIO at swept hints)" if any(
                     baseline(d) == "mpiio:best" for d in docs) else "mpiio (ROMIO)")
                 + " in the same run", fontsize=10)
    rows = (len(labels) + 3) // 4
    fig.tight_layout(rect=(0, 0.03 + 0.05 * rows, 1, 1))
    return fig


BYTE_KEYS = ("block", "transfer", "stripe_size")


def human(v):
    """1048576 -> 1m, 47008 -> 47008 (powers of 1024 as ostio-bench's flags)."""
    for suf, m in (("g", 2**30), ("m", 2**20), ("k", 2**10)):
        if v >= m and v % m == 0:
            return f"{v // m}{suf}"
    return f"{v:g}"


def sweep_value(d, k):
    return d["nprocs"] if k == "nprocs" else d["config"].get(k)


def sweep(plt, docs, o):
    k = o["sweep"]
    if k == "auto":
        keys = ["nprocs"] + [c for c, v in docs[0]["config"].items()
                             if isinstance(v, (int, float)) and not isinstance(v, bool)]
        diff = [c for c in keys if len({sweep_value(d, c) for d in docs}) > 1
                and c not in ("seed", "iterations", "warmup")]
        if len(diff) != 1:
            print(f"bench-plot: --sweep auto: the documents differ in {diff or 'nothing'}; "
                  "name the key", file=sys.stderr)
            sys.exit(1)
        k = diff[0]
    vals = [sweep_value(d, k) for d in docs]
    if any(not isinstance(v, (int, float)) for v in vals):
        print(f"bench-plot: --sweep {k}: not a numeric setting of every document", file=sys.stderr)
        sys.exit(1)
    docs = [d for _, d in sorted(zip(vals, docs), key=lambda t: t[0])]
    xs = sorted(vals)
    key = STATS[o["stat"]]
    phases = phases_of(docs, o["phase"])
    fig, axes = plt.subplots(2, len(phases), figsize=o["size"], dpi=o["dpi"], squeeze=False,
                             sharex=True, gridspec_kw={"height_ratios": [2, 1]})
    apis = []
    for d in docs:
        for a in d["config"]["apis"]:
            if api_label(d, a) not in apis:
                apis.append(api_label(d, a))
    palette = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    for j, ph in enumerate(phases):
        top, bot = axes[0][j], axes[1][j]
        for n, lab in enumerate(apis):
            col = palette[n % len(palette)]
            ys, rs = [], []
            for d in docs:
                s = summary(d)
                a = next((a for a in d["config"]["apis"] if api_label(d, a) == lab), None)
                e = s.get((a, ph))
                ref = s.get((baseline(d), ph))
                ys.append(e[key] if e else float("nan"))
                rs.append(e[key] / ref[key] if e and ref and ref[key] > 0 else float("nan"))
            top.plot(xs, ys, marker="o", label=lab, color=col)
            if lab != "mpiio":
                bot.plot(xs, rs, marker="o", label=lab, color=col)
        bot.axhline(1.0, color="gray", lw=0.8, ls="--")
        top.set_title(ph, fontsize=10)
        top.set_ylabel("MiB/s")
        bot.set_ylabel("x mpiio")
        bot.set_xlabel(k)
        if max(xs) / max(min(xs), 1e-9) >= 16:
            for ax in (top, bot):
                ax.set_xscale("log", base=2)
        bot.set_xticks(xs, [human(v) if k in BYTE_KEYS else f"{v:g}" for v in xs], fontsize=8)
        bot.minorticks_off()
        for ax in (top, bot):
            ax.grid(alpha=0.3)
    axes[0][0].legend(fontsize=8)
    fig.suptitle(o["title"] or f"ostio-bench sweep over {k}, {o['stat']} MiB/s", fontsize=10)
    fig.tight_layout()
    return fig


def main(argv):
    o = parse(argv[1:])
    docs = [load(p) for p in o["files"]]
    plt = import_matplotlib()
    names = o["labels"] or [os.path.basename(p).removesuffix(".json") for p in o["files"]]
    fig = sweep(plt, docs, o) if o["sweep"] else bars(plt, docs, names, o)
    fig.savefig(o["out"], dpi=o["dpi"])
    print(o["out"])
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
