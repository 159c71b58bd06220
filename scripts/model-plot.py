#!/usr/bin/env python3
"""Plot of an `ostio model --plot PREFIX` sweep: PREFIX.csv -> OUT.png or OUT.svg.
`ostio model --plot PREFIX` runs it for PREFIX.png (installed in PREFIX/share/ostio/scripts).

usage: scripts/model-plot.py PREFIX.csv OUT.png|OUT.svg [--title TEXT]

One line per strategy: predicted MB/s against the swept value (ranks or stripe
count; a log-2 axis when the values double). `ostio model` writes the SVG itself
and runs this script for the PNG.
Needs matplotlib (Debian: python3-matplotlib; scripts/deps.sh installs it).
Exit status: 0 written, 1 bad input, 2 usage error, 3 matplotlib missing.
"""
import csv
import os
import sys


def main(argv):
    full_argv = list(argv)
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
        # Debian's python3 has python3-matplotlib; another python3 first in
        # PATH (pyenv, a venv) may not: the same command with Debian's.
        deb = "/usr/bin/python3"
        if (os.environ.get("OSTIO_PLOT_REEXEC") != "1" and os.access(deb, os.X_OK)
                and os.path.realpath(sys.executable) != os.path.realpath(deb)):
            os.environ["OSTIO_PLOT_REEXEC"] = "1"
            os.execv(deb, [deb, os.path.abspath(__file__)] + full_argv)
        print("model-plot.py: matplotlib is missing for %s (apt-get install "
              "python3-matplotlib)" % sys.executable, file=sys.stderr)
        return 3
    fig, ax = plt.subplots(figsize=(8, 4.8), dpi=100)
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
