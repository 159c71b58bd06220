#!/usr/bin/env python3
"""Plot of an `ostio model --plot PREFIX` sweep: PREFIX.csv -> OUT.png or OUT.svg.

usage: scripts/model-plot.py PREFIX.csv OUT.png|OUT.svg [--title TEXT]

One line per strategy: predicted MB/s against the swept value (ranks or stripe
count; a log-2 axis when the values double). `ostio model` writes an SVG and
a plain PNG itself; this script makes a nicer (anti-aliased) PNG or SVG.
Needs matplotlib (Debian: python3-matplotlib; scripts/deps.sh installs it).
Exit status: 0 written, 1 bad input, 2 usage error, 3 matplotlib missing.
"""
import csv
import sys


def main(argv):
    if any(a in ("-h", "--help") for a in argv):
        print(__doc__.strip())
        return 0
    title = None
    if "--title" in argv:
        i = argv.index("--title")
        if i + 1 >= len(argv):
            print("model-plot.py: --title needs a text (see --help)", file=sys.stderr)
            return 2
        title = argv[i + 1]
        argv = argv[:i] + argv[i + 2:]
    if len(argv) != 2 or not argv[1].endswith((".png", ".svg")):
        print("model-plot.py: expected PREFIX.csv and OUT.png or OUT.svg (see --help)",
              file=sys.stderr)
        return 2
    try:
        with open(argv[0], newline="") as f:
            rows = list(csv.reader(f))
    except OSError as e:
        print(f"model-plot.py: {argv[0]}: {e.strerror}", file=sys.stderr)
        return 1
    if len(rows) < 2 or len(rows[0]) != 3:
        print(f"model-plot.py: {argv[0]}: expected the CSV of ostio model --plot "
              "(header: KEY,strategy,MBps)", file=sys.stderr)
        return 1
    key = rows[0][0]
    series = {}
    try:
        for x, name, mbps in rows[1:]:
            series.setdefault(name, []).append((float(x), float(mbps)))
    except ValueError:
        print(f"model-plot.py: {argv[0]}: a row is not VALUE,NAME,NUMBER", file=sys.stderr)
        return 1
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("model-plot.py: matplotlib is missing (apt-get install python3-matplotlib)",
              file=sys.stderr)
        return 3
    fig, ax = plt.subplots(figsize=(8, 4.5), dpi=100)
    xs = sorted({x for pts in series.values() for x, _ in pts})
    for name, pts in series.items():
        pts.sort()
        ax.plot([p[0] for p in pts], [p[1] for p in pts], marker="o", label=name)
    if len(xs) > 1 and xs[0] > 0 and xs[-1] / xs[0] >= 16:
        ax.set_xscale("log", base=2)
    ax.set_xticks(xs)
    ax.set_xticklabels([f"{x:g}" for x in xs])
    ax.set_xlabel(key.replace("_", " "))
    ax.set_ylabel("MB/s (predicted)")
    ax.set_ylim(bottom=0)
    ax.grid(True, alpha=0.3)
    ax.legend()
    ax.set_title(title or f"ostio model: {argv[0]}")
    fig.tight_layout()
    fig.savefig(argv[1])
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
